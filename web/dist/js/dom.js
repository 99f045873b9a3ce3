// Tiny DOM and SVG builders: h("div", {class: "x", onclick: f}, children...).
const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    // custom properties ("--c") only take through setProperty
    else if (k === "style" && typeof v === "object") for (const [name, value] of Object.entries(v)) {
      if (name.startsWith("--")) el.style.setProperty(name, value); else el.style[name] = value;
    }
    else if (k === "text") el.textContent = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

export function s(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function toast(message, kind = "error") {
  const t = document.getElementById("toast");
  t.textContent = message;
  t.className = kind;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

export const SEAT_COLOURS = ["#d64541", "#3f7fd6", "#e0b32f", "#5aa55a"];
export const seatColour = (seat) => SEAT_COLOURS[(seat ?? 0) % SEAT_COLOURS.length];

// Proto3 JSON leaves out zero values: read numbers with a default.
export const num = (v, d = 0) => (v === undefined || v === null ? d : Number(v));

// "SYMBOL_MACHETE" -> "machete", "ANIMAL_GIANT_FOSSA" -> "giant fossa"
export function enumName(v, prefix) {
  if (v === undefined || v === null) return "";
  let t = String(v);
  if (prefix && t.startsWith(prefix)) t = t.slice(prefix.length);
  else t = t.replace(/^[A-Z]+(_TYPE)?_/, "");
  return t.toLowerCase().replace(/_/g, " ");
}

export const pretty = (id) => String(id).replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());

// Axial hex (pointy top) to pixel centre.
export function hexPoint(q, r, size) {
  return [size * Math.sqrt(3) * (q + r / 2), size * 1.5 * r];
}

export function hexCorners(cx, cy, size) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 30);
    pts.push(`${(cx + size * Math.cos(a)).toFixed(1)},${(cy + size * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

// The single oneof field of an action/event message: ["moveTo", {...}].
export function oneof(message) {
  for (const [k, v] of Object.entries(message || {})) {
    if (k !== "@type") return [k, v || {}];
  }
  return ["", {}];
}

export function humanKind(kind) {
  return kind.replace(/([A-Z])/g, " $1").toLowerCase().replace(/^./, (c) => c.toUpperCase());
}

// La Isla: the island (centre ring and ten teeth), explorers, animal tiles in the
// regions, the animal track, and every player's cardholder slots.
import { h, s, num, seatColour, enumName, pretty, oneof } from "../dom.js";
import { nameIn, textIn, render } from "../words.js";

const COLOURS = { COLOUR_WHITE: "#f4f1ea", COLOUR_YELLOW: "#f2cb3a", COLOUR_GREEN: "#5fae4f", COLOUR_BROWN: "#9b6a3f", COLOUR_GREY: "#9a9a9a" };
const COLOUR_ORDER = ["COLOUR_WHITE", "COLOUR_YELLOW", "COLOUR_GREEN", "COLOUR_BROWN", "COLOUR_GREY"];
const RES_HEX = { white: "#f4f1ea", yellow: "#f2cb3a", green: "#5fae4f", brown: "#9b6a3f", grey: "#9a9a9a" };
const SYMBOLS = { SYMBOL_TENT: "▲", SYMBOL_HAT: "♠", SYMBOL_ROPE: "∞", SYMBOL_BOTTLE: "♦", SYMBOL_BACKPACK: "■" };
const ANIMALS = ["ANIMAL_DODO", "ANIMAL_GIANT_FOSSA", "ANIMAL_GOLDEN_TOAD", "ANIMAL_SARDINIAN_PIKA", "ANIMAL_OWLET_MOTH"];
const ANIMAL = {
  ANIMAL_DODO: { colour: "#8e7cc3", short: "Do" }, ANIMAL_GIANT_FOSSA: { colour: "#d9763a", short: "Fo" },
  ANIMAL_GOLDEN_TOAD: { colour: "#e8b923", short: "To" }, ANIMAL_SARDINIAN_PIKA: { colour: "#8a9a5b", short: "Pi" },
  ANIMAL_OWLET_MOTH: { colour: "#5b8fa8", short: "Mo" },
};
const animalKey = (name) => `ANIMAL_${String(name).toUpperCase()}`;

// Where each space of the island sits: the centre ring, then each tooth's three spaces.
function layout(id, cx, cy) {
  const [part, local] = id.split(".");
  const n = Number(local.slice(1));
  const deg = (d) => (d - 90) * Math.PI / 180;
  if (part === "C") { const a = deg(n * 36); return [cx + 92 * Math.cos(a), cy + 92 * Math.sin(a)]; }
  const k = Number(part.slice(1));
  const base = (k - 0.5) * 36;
  const [angle, radius] = n === 0 ? [base, 170] : n === 1 ? [base - 9, 250] : [base + 9, 250];
  return [cx + radius * Math.cos(deg(angle)), cy + radius * Math.sin(deg(angle))];
}

export function status({ view, words }) {
  const seat = (n) => (words ? render("{s:seat}", { s: n }, words.tables) : `seat ${n}`);
  const who = view.currentSeat !== undefined ? ` · ${seat(num(view.currentSeat))} explores` : "";
  const phase = nameIn(words, "phase", view.phase, enumName(view.phase, "PHASE_"));
  return `Round ${num(view.round)} · ${phase}${who} · areas ${num(view.areaSum)}/${num(view.endThreshold)}`;
}

export function targetOf(action) {
  const [kind, b] = oneof(action);
  switch (kind) {
    case "placeExplorer": return `space:${num(b.space)}`;
    case "moveExplorer": return `space:${num(b.space)}`;
    case "takeResource": case "chooseResource": return `res:${b.colour}`;
    case "chooseMarker": return `marker:${b.animal}`;
    case "assignCards": return `hand:${b.a}`;
    default: return null;
  }
}

// Labels without the game's words, and where a label needs the board: a space's colour.
export function describe(action, view, words) {
  const [kind, b] = oneof(action);
  if (words && (kind === "placeExplorer" || kind === "moveExplorer")) {
    const at = (i) => { const sp = (view.spaces || [])[num(i)]; return `${nameIn(words, "space", num(i))}${sp ? ` (${nameIn(words, "colour", sp.colour)})` : ""}`; };
    const paying = (b.payment || []).length ? `, paying ${render("{p:colour}", { p: b.payment }, words.tables)}` : "";
    return kind === "placeExplorer" ? `Place an explorer on ${at(b.space)}${paying}` : `Move an explorer from ${at(b.source)} to ${at(b.space)}${paying}`;
  }
  if (words) return null;
  const space = (i) => { const sp = (view.spaces || [])[num(i)]; return sp ? `${sp.id} (${enumName(sp.colour, "COLOUR_")})` : `space ${num(i)}`; };
  const pay = (p) => (p && p.length ? ` paying ${p.map((c) => enumName(c, "COLOUR_")).join("+")}` : "");
  switch (kind) {
    case "assignCards": return `Cardholder ${b.a} → slot ${num(b.slot) + 1} · resource ${b.b} · animal ${b.d}`;
    case "collectIncome": return `Collect income${(b.colours || []).length ? ": " + b.colours.map((c) => enumName(c, "COLOUR_")).join(", ") : ""}${(b.markers || []).length ? ", move " + b.markers.map((a) => enumName(a, "ANIMAL_")).join(", ") : ""}`;
    case "placeExplorer": return `Place an explorer on ${space(b.space)}${pay(b.payment)}`;
    case "moveExplorer": return `Move an explorer ${space(b.source)} → ${space(b.space)}${pay(b.payment)}`;
    case "takeResource": return `Take a ${enumName(b.colour, "COLOUR_")} resource`;
    case "chooseResource": return `Choose ${enumName(b.colour, "COLOUR_")}`;
    case "chooseMarker": return `Advance the ${enumName(b.animal, "ANIMAL_")} marker`;
    case "declineMarker": return "Advance no marker";
    case "advanceMarkers": return `Advance markers (${num(b.extra)} extra)`;
    default: return null;
  }
}

export function board(ctx) {
  const { view } = ctx;
  const W = 640, H = 800, cx = 320, cy = 320;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, id: "board-svg", "data-game": "la_isla" });
  svg.append(s("defs", {},
    s("radialGradient", { id: "li-sea" }, s("stop", { offset: "0%", "stop-color": "#3fa6c4" }), s("stop", { offset: "100%", "stop-color": "#12506b" })),
    s("radialGradient", { id: "li-land" }, s("stop", { offset: "0%", "stop-color": "#6fa84c" }), s("stop", { offset: "75%", "stop-color": "#4d8a3a" }), s("stop", { offset: "100%", "stop-color": "#e6d39a" }))));
  svg.append(s("rect", { width: W, height: H, fill: "url(#li-sea)", rx: 14 }));
  // the island: a sandy shore with ten teeth
  const teeth = [];
  for (let k = 0; k < 10; k++) {
    const a = ((k - 0.5) * 36 - 90) * Math.PI / 180;
    teeth.push(s("circle", { cx: cx + 225 * Math.cos(a), cy: cy + 225 * Math.sin(a), r: 72, fill: "url(#li-land)" }));
  }
  svg.append(s("g", {}, s("circle", { cx, cy, r: 215, fill: "#e6d39a" }), ...teeth, s("circle", { cx, cy, r: 200, fill: "url(#li-land)" })));

  const spaces = view.spaces || [];
  const pos = spaces.map((sp) => layout(sp.id, cx, cy));
  // regions: a tile in the middle of its spaces, showing its animal and value
  for (const rg of view.regions || []) {
    const pts = (rg.spaces || []).map((i) => pos[i]).filter(Boolean);
    if (!pts.length) continue;
    for (let i = 0; i < pts.length; i++) for (let j = i + 1; j < pts.length; j++) {
      svg.append(s("line", { x1: pts[i][0], y1: pts[i][1], x2: pts[j][0], y2: pts[j][1], stroke: "#2f5e22", "stroke-width": 2, opacity: 0.35 }));
    }
  }
  spaces.forEach((sp, i) => {
    const [x, y] = pos[i];
    const g = s("g", { class: "space", "data-space": i },
      s("circle", { cx: x, cy: y, r: 22, fill: COLOURS[sp.colour] || "#ccc", stroke: "#3b2a14", "stroke-width": 2 }),
      s("text", { x, y: y + 6, "text-anchor": "middle", "font-size": 17, fill: "#3b2a14" }, SYMBOLS[sp.symbol] || "?"));
    const ring = ctx.isTarget(`space:${i}`) ? s("circle", { class: "target-ring", cx: x, cy: y, r: 27 }) : null;
    svg.append(ctx.target(`space:${i}`, g, ring));
  });
  for (const rg of view.regions || []) {
    const pts = (rg.spaces || []).map((i) => pos[i]).filter(Boolean);
    if (!pts.length || !rg.tile) continue;
    const x = pts.reduce((a, p) => a + p[0], 0) / pts.length, y = pts.reduce((a, p) => a + p[1], 0) / pts.length;
    const an = ANIMAL[rg.tile] || { colour: "#777", short: "?" };
    svg.append(s("g", { class: "animal-tile" },
      s("rect", { x: x - 11, y: y - 11, width: 22, height: 22, rx: 4, fill: an.colour, stroke: "#222", transform: `rotate(45 ${x} ${y})` }),
      s("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 10, "font-weight": "bold", fill: "#111" }, `${an.short}${num(rg.value)}`)));
  }
  // explorers
  spaces.forEach((sp, i) => {
    const [x, y] = pos[i];
    (sp.explorers || []).forEach((seat, k) => {
      const ex = x - 10 + k * 11, ey = y - 20;
      svg.append(s("g", { class: "explorer", "data-seat": seat },
        s("circle", { cx: ex, cy: ey - 7, r: 4, fill: seatColour(seat), stroke: "#111" }),
        s("path", { d: `M${ex - 6},${ey + 6} Q${ex},${ey - 8} ${ex + 6},${ey + 6} Z`, fill: seatColour(seat), stroke: "#111" })));
    });
  });
  svg.append(track(ctx, 20, 660, W - 40));
  return svg;
}

// The animal track: 21 spaces in areas 0-5, one marker per animal.
function track(ctx, x0, y0, width) {
  const { view } = ctx;
  const g = s("g", { id: "animal-track" });
  const areas = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5];
  const step = width / areas.length;
  g.append(s("rect", { x: x0 - 6, y: y0 - 20, width: width + 12, height: 128, rx: 10, fill: "#f1e2bb", stroke: "#6d5426", "stroke-width": 2 }));
  g.append(s("text", { x: x0, y: y0 - 5, "font-size": 12, "font-weight": "bold", fill: "#6d5426" }, "Animal track"));
  areas.forEach((a, i) => {
    g.append(s("rect", { x: x0 + i * step + 1, y: y0, width: step - 2, height: 20, fill: `hsl(${40 - a * 7}, 60%, ${80 - a * 7}%)`, stroke: "#6d5426" }));
    if (i === 0 || areas[i - 1] !== a) g.append(s("text", { x: x0 + i * step + 3, y: y0 + 14, "font-size": 10, fill: "#3b2a14" }, `×${a}`));
  });
  (view.markers || []).forEach((m, k) => {
    const an = ANIMAL[m.animal] || { colour: "#777", short: "?" };
    const x = x0 + num(m.position) * step + step / 2, y = y0 + 34 + k * 14;
    const mark = s("g", { class: "marker", "data-animal": m.animal },
      s("line", { x1: x, y1: y0 + 20, x2: x, y2: y - 6, stroke: an.colour, "stroke-width": 2 }),
      s("circle", { cx: x, cy: y, r: 7, fill: an.colour, stroke: "#222" }),
      s("text", { x: x + 10, y: y + 4, "font-size": 10, fill: "#3b2a14" }, `${enumName(m.animal, "ANIMAL_")}`));
    g.append(ctx.target(`marker:${m.animal}`, mark, ctx.isTarget(`marker:${m.animal}`) ? s("circle", { class: "target-ring", cx: x, cy: y, r: 11 }) : null));
  });
  return g;
}

function cardEl(ctx, id, extra = "") {
  const info = (ctx.boards.la_isla && ctx.boards.la_isla.cards[id]) || { value: "?", resource: "grey", animal: "", function: "" };
  const name = nameIn(ctx.words, "card", id, pretty(info.function || id));
  return h("div", { class: "card", "data-card": id, title: textIn(ctx.words, "card", id) || name, style: { background: `linear-gradient(${RES_HEX[info.resource] || "#ddd"} 0 34%, #f6ecd6 34%)` } },
    h("div", { class: "title", style: { whiteSpace: "normal", overflow: "visible", lineHeight: "1.05" } }, name),
    h("div", { style: { fontSize: ".7rem" } }, `${info.resource || ""} · deck ${info.value}`),
    h("div", { style: { color: (ANIMAL[animalKey(info.animal)] || {}).colour || "#333", fontWeight: "bold" } }, pretty(info.animal || "")),
    extra ? h("div", { class: "secret-note" }, extra) : null);
}

export function hand(ctx) {
  const { view } = ctx;
  const mine = view.myAssignment || {};
  const role = (id) => (id === mine.a ? "to cardholder" : id === mine.b ? "resource (B)" : id === mine.d ? "animal (D)" : "");
  const cards = (view.hand || []).map((id) => ctx.target(`hand:${id}`, cardEl(ctx, id, role(id))));
  const assigned = [mine.a, mine.b, mine.d].filter((id) => id && !(view.hand || []).includes(id));
  const me = (view.players || []).find((p) => num(p.seat) === ctx.seat) || {};
  return h("div", { class: "panel", id: "hand", style: { marginTop: ".6rem" } },
    h("h3", {}, `Your hand (${cards.length})`), h("div", { class: "hand" }, cards),
    assigned.length ? h("div", {}, h("h3", {}, "Your secret assignment"), h("div", { class: "hand" }, assigned.map((id) => cardEl(ctx, id, role(id))))) : null,
    h("h3", {}, "Your resources"), resources(ctx, me.resources || [], true));
}

function resources(ctx, counts, mine) {
  return h("div", { class: "row" }, COLOUR_ORDER.map((c, i) => {
    const chip = h("span", { class: "badge", "data-colour": c, style: { background: COLOURS[c], color: "#222", fontWeight: "bold" } }, `${enumName(c, "COLOUR_")} ${num(counts[i])}`);
    return mine ? ctx.target(`res:${c}`, chip) : chip;
  }));
}

export function extra(ctx) {
  const { view } = ctx;
  return h("div", { class: "panel", id: "slots", style: { marginTop: ".6rem" } }, h("h3", {}, "Cardholders"),
    (view.players || []).map((p) => h("div", { style: { borderLeft: `6px solid ${seatColour(num(p.seat))}`, paddingLeft: ".5rem", marginBottom: ".4rem" } },
      h("div", {}, ctx.words ? render("{s:seat}", { s: num(p.seat) }, ctx.words.tables) : `Seat ${num(p.seat)}`),
      h("div", { class: "hand" }, (p.slots || []).map((sl, i) => sl.top ? cardEl(ctx, sl.top, `slot ${i + 1}${num(sl.covered) ? ` · ${num(sl.covered)} below` : ""}`) :
        h("div", { class: "card", style: { opacity: 0.4 } }, h("div", { class: "title" }, `slot ${i + 1}`), "free"))))));
}

export function players(ctx, toMove) {
  const { view } = ctx;
  return h("div", { class: "players" }, (view.players || []).map((p) => {
    const seat = num(p.seat);
    const tiles = (p.tiles || []).map((n, i) => (num(n) ? `${enumName(ANIMALS[i], "ANIMAL_")} ×${n}` : null)).filter(Boolean);
    return h("div", { class: `player${seat === ctx.seat ? " me" : ""}${toMove.has(seat) ? " to-move" : ""}`, style: { "--c": seatColour(seat) } },
      h("div", { class: "name" }, `${ctx.words ? render("{s:seat}", { s: seat }, ctx.words.tables) : `Seat ${seat}`} — ${ctx.words ? render("{n|point|points}", { n: num(p.score) }) : `${num(p.score)} points`}`, p.hasChosen ? " ✓" : ""),
      resources(ctx, p.resources || [], false),
      h("div", { class: "stats" }, h("span", {}, `hand ${num(p.handCount)}`), h("span", {}, `explorers left ${num(p.explorersLeft)}`),
        p.large ? h("span", {}, `large: ${enumName(p.large, "ANIMAL_")}`) : null, tiles.length ? h("span", {}, tiles.join(", ")) : null));
  }));
}

// The card phase's secret assignment as three picks and a slot, instead of one
// button per combination: each choice narrows the others to legal combinations.
export function picker(ctx, legal, act) {
  const assigns = legal.filter((a) => a.assignCards).map((a) => ({ a: a.assignCards.a, b: a.assignCards.b, d: a.assignCards.d, slot: num(a.assignCards.slot), action: a }));
  if (assigns.length < 2) return null;
  const chosen = { a: "", b: "", d: "", slot: "" };
  const box = h("div", { id: "assign-picker", style: { display: "grid", gridTemplateColumns: "auto 1fr", gap: ".3rem .5rem", marginBottom: ".6rem" } });
  const fields = [["a", "Cardholder (A)"], ["b", "Resource (B)"], ["d", "Animal (D)"], ["slot", "Into slot"]];
  const matching = (except) => assigns.filter((x) => fields.every(([k]) => k === except || chosen[k] === "" || String(x[k]) === chosen[k]));
  const selects = {};
  const button = h("button", { disabled: true, onclick: () => { const m = matching(null); if (m.length === 1) act(m[0].action); } }, "Assign");
  const refresh = () => {
    for (const [k] of fields) {
      const values = [...new Set(matching(k).map((x) => String(x[k])))];
      const sel = selects[k];
      sel.replaceChildren(h("option", { value: "" }, "—"), values.map((v) => h("option", { value: v, selected: v === chosen[k] }, k === "slot" ? `slot ${Number(v) + 1}` : pickLabel(ctx, k, v))));
    }
    button.disabled = matching(null).length !== 1;
  };
  for (const [k, label] of fields) {
    selects[k] = h("select", { name: `assign-${k}`, onchange: (e) => { chosen[k] = e.target.value; refresh(); } });
    box.append(h("label", {}, label), selects[k]);
  }
  box.append(h("span"), button);
  refresh();
  return box;
}

// A card in the assignment picker, by what that pick uses of it: the A function, the B
// resource or the D animal (and the card's name after it).
function pickLabel(ctx, role, id) {
  const name = nameIn(ctx.words, "card", id, id);
  if (role === "b") return `${nameIn(ctx.words, "card_resource", id, "")} (${name})`;
  if (role === "d") return `${nameIn(ctx.words, "card_animal", id, "")} (${name})`;
  return name;
}

// The game's picture on its lobby card.
export function art() {
  const svg = s("svg", { viewBox: "0 0 300 110", preserveAspectRatio: "xMidYMid slice", width: "100%", height: "110" });
  svg.append(s("rect", { width: 300, height: 110, fill: "#2c8fb0" }), s("ellipse", { cx: 150, cy: 60, rx: 120, ry: 42, fill: "#e6d39a" }), s("ellipse", { cx: 150, cy: 60, rx: 108, ry: 34, fill: "#5d9a45" }));
  ["#f4f1ea", "#f2cb3a", "#5fae4f", "#9b6a3f", "#9a9a9a"].forEach((c, i) => svg.append(s("circle", { cx: 80 + i * 35, cy: 60, r: 11, fill: c, stroke: "#3b2a14", "stroke-width": 2 })));
  return svg;
}

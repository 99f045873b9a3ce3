// How a game speaks: the formatter of the templates a game's words hold (DescribeGame).
// The same formatter as services/games/common/words.py, held to the same test vectors
// (tests/fixtures/words_vectors.json, web/tests/words.mjs). Syntax:
//   {path}  {path:table}  {path|one|many}  {?path|then|else}  {?#path|set|unset}  {{ and }} for braces
// A missing field is zero (proto3 JSON leaves zero values out); a list joins "a, b and c";
// an empty template is bookkeeping, left out of the player's log.

import { apiPath } from "./api.js";

export class TemplateError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const cache = new Map();

export function parse(template) {
  const known = cache.get(template);
  if (known) return known;
  const [nodes, , stop] = parseText(template, 0, false);
  if (stop !== null) throw new TemplateError(`unexpected ${stop} in ${template}`);
  if (cache.size > 2000) cache.clear();
  cache.set(template, nodes);
  return nodes;
}

function parseText(t, at, inside) {
  const nodes = [];
  let text = "";
  const flush = () => { if (text) { nodes.push({ text }); text = ""; } };
  while (at < t.length) {
    const c = t[at], pair = t.slice(at, at + 2);
    if (pair === "{{" || pair === "}}") { text += c; at += 2; }
    else if (c === "{") { flush(); const [node, next] = parseBrace(t, at); nodes.push(node); at = next; }
    else if (inside && (c === "|" || c === "}")) { flush(); return [nodes, at, c]; }
    else if (c === "}") throw new TemplateError(`unmatched } in ${t}`);
    else { text += c; at += 1; }
  }
  flush();
  if (inside) throw new TemplateError(`unclosed {? in ${t}`);
  return [nodes, at, null];
}

function path(text, t) {
  if (!NAME.test(text)) throw new TemplateError(`bad field path ${text} in ${t}`);
  return text.split(".");
}

function parseBrace(t, at) {
  if (t.startsWith("{?", at)) {
    const presence = t[at + 2] === "#";
    const from = at + 2 + (presence ? 1 : 0);
    const bar = t.indexOf("|", from);
    if (bar < 0) throw new TemplateError(`a choice needs | in ${t}`);
    const p = path(t.slice(from, bar), t);
    let [then, next, stop] = parseText(t, bar + 1, true);
    let otherwise = [];
    if (stop === "|") [otherwise, next, stop] = parseText(t, next + 1, true);
    if (stop !== "}") throw new TemplateError(`a choice has at most two texts in ${t}`);
    return [{ choice: p, then, otherwise, presence }, next + 1];
  }
  const end = t.indexOf("}", at);
  if (end < 0) throw new TemplateError(`unclosed { in ${t}`);
  const [head, ...forms] = t.slice(at + 1, end).split("|");
  if (forms.length && forms.length !== 2) throw new TemplateError(`a plural needs one|many in ${t}`);
  const colon = head.indexOf(":");
  const table = colon >= 0 ? head.slice(colon + 1) : "";
  if (colon >= 0 && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TemplateError(`bad table name in ${t}`);
  return [{ field: path(colon >= 0 ? head.slice(0, colon) : head, t), table, plural: forms.length ? forms : null }, end + 1];
}

export const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
export const snake = (name) => name.replace(/([A-Z])/g, (_, c) => "_" + c.toLowerCase()).replace(/^_/, "");

const MISSING = Symbol("missing");

function lookup(payload, p) {
  let value = payload;
  for (const name of p) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return MISSING;
    if (name in value) value = value[name];
    else if (camel(name) in value) value = value[camel(name)];
    else return MISSING;
  }
  return value;
}

function truthy(v) {
  if (v === MISSING || v === null || v === undefined) return false;
  if (typeof v === "string") return !["", "0", "false"].includes(v);
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return Boolean(v);
}

function count(v) {
  if (Array.isArray(v)) return v.length;
  if (v === MISSING || v === null || v === undefined || v === "") return 0;
  const n = parseInt(String(v), 10);
  return Number.isNaN(n) ? 0 : n;
}

function scalar(v, table) {
  const key = typeof v === "boolean" ? (v ? "yes" : "no") : String(v);
  const found = table[key];
  if (found === undefined || found === null) return key;
  return typeof found === "string" ? found : found.name;
}

export function join(items) {
  if (!items.length) return "none";
  if (items.length === 1) return items[0];
  return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

function renderNodes(nodes, payload, tables) {
  let out = "";
  for (const n of nodes) {
    if (n.text !== undefined) out += n.text;
    else if (n.field) {
      let v = lookup(payload, n.field);
      if (n.plural) { const c = count(v); out += `${c} ${c === 1 ? n.plural[0] : n.plural[1]}`; continue; }
      if (v === MISSING || v === null || v === undefined) v = 0;
      const table = (n.table && tables[n.table]) || {};
      out += Array.isArray(v) ? join(v.map((x) => scalar(x, table))) : scalar(v, table);
    } else {
      const v = lookup(payload, n.choice);
      const held = n.presence ? v !== MISSING && v !== null && v !== undefined : truthy(v);
      out += renderNodes(held ? n.then : n.otherwise, payload, tables);
    }
  }
  return out;
}

export function render(template, payload, tables = {}) {
  return renderNodes(parse(template), payload || {}, tables || {});
}

// [kind, fields] of a payload: a game's Action/Event wraps one oneof field; a platform
// event is its own message, its kind the message name in snake_case.
export function kindOf(type, payload) {
  const name = String(type || "").split("/").pop();
  if (name.startsWith("tabletop.games.")) {
    for (const [k, v] of Object.entries(payload || {})) if (k !== "@type") return [snake(k), v && typeof v === "object" ? v : {}];
    return ["", {}];
  }
  const { ["@type"]: _, ...body } = payload || {};
  return [snake(name.split(".").pop()), body];
}

// The payload in words: "" for bookkeeping, null when the words have no template for it.
export function describe(templates, type, payload, tables) {
  const [kind, body] = kindOf(type, payload);
  const template = (templates || {})[kind];
  if (template === undefined || template === null) return null;
  return template ? render(template, body, tables) : "";
}

// A DescribeGame answer ({game, title, tables: {name: {entries: {id: {name, text}}}}, actions,
// events, legend}) as the formatter reads it, with each seat named as `names` says.
export function wordsOf(described, names = []) {
  if (!described) return null;
  const tables = {};
  for (const [table, t] of Object.entries(described.tables || {})) tables[table] = { ...((t && t.entries) || {}) };
  tables.seat = { ...(tables.seat || {}) };
  names.forEach((n, seat) => { if (n) tables.seat[String(seat)] = { name: n }; });
  return { ...described, tables, actions: described.actions || {}, events: described.events || {}, legend: described.legend || [] };
}

// The name (or one-line text) of an id in a table, with a fallback.
export function nameIn(words, table, id, fallback) {
  const t = words && words.tables[table];
  const found = t && t[String(id)];
  return found ? found.name : fallback !== undefined ? fallback : String(id);
}
export function textIn(words, table, id) {
  const t = words && words.tables[table];
  const found = t && t[String(id)];
  return found ? found.text || "" : "";
}

export function actionText(words, action) {
  if (!words) return null;
  return describe(words.actions, action["@type"], action, words.tables);
}

export function eventText(words, entry) {
  if (!words || !entry.event) return null;
  return describe(words.events, entry.event["@type"] || entry.type, entry.event, words.tables);
}

// ---- loading: once per game per page ----
// DescribeGame through the edge (the page's origin, or ?api=); a page served without a
// gateway (fixture mode) reads the same words from data/words.json (python -m contract.words).
const loaded = new Map(); // game -> described words (the DescribeGame JSON), once arrived
const pending = new Map(); // game -> Promise
const waiting = new Map(); // game -> callbacks to run when the words arrive

function apiBase() {
  const api = new URLSearchParams(location.search).get("api");
  return (api || "").replace(/\/$/, "");
}

async function fetchWords(game) {
  // Fixture mode (?fixture=) has no gateway behind it: straight to the static copy.
  if (!new URLSearchParams(location.search).has("fixture")) try {
    const res = await fetch(`${apiBase()}${apiPath("DescribeGame")}`, {
      method: "POST", headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
      body: JSON.stringify({ game }),
    });
    if (res.ok) return (await res.json()).words;
  } catch { /* no gateway behind this page: the static copy */ }
  const res = await fetch(new URL("data/words.json", document.baseURI));
  return (await res.json())[game] || null;
}

// A game's name for people: its words' title once they have arrived, its id until then
// (`then` runs when they arrive).
export function gameTitle(game, then) {
  const described = wordsFor(game, then);
  return (described && described.title) || game;
}

// The words of `game` if they have arrived, else null (and `then` runs once they do).
export function wordsFor(game, then) {
  if (loaded.has(game)) return loaded.get(game);
  if (then) { if (!waiting.has(game)) waiting.set(game, []); waiting.get(game).push(then); }
  if (!pending.has(game)) {
    pending.set(game, fetchWords(game).then((w) => {
      loaded.set(game, w);
      for (const f of waiting.get(game) || []) f();
      waiting.delete(game);
    }).catch(() => { pending.delete(game); }));
  }
  return null;
}

// The legend of a game's map as a panel (h: the DOM builder of dom.js).
export function legendPanel(h, words) {
  if (!words || !(words.legend || []).length) return null;
  const groups = {};
  for (const e of words.legend) (groups[e.group || "icon"] ||= []).push(e);
  return h("details", { class: "panel legend", id: "legend", style: { marginTop: ".6rem" } },
    h("summary", {}, h("strong", {}, "Map legend")),
    Object.entries(groups).map(([group, entries]) => h("div", {},
      h("h3", {}, group === "terrain" ? "Terrain" : "Symbols"),
      h("ul", { style: { listStyle: "none", padding: 0, margin: 0 } }, entries.map((e) => h("li", { style: { margin: ".15rem 0" } },
        /^#[0-9a-f]{3,6}$|^(white|yellow|green|brown|grey)$/i.test(e.symbol || "")
          ? h("span", { style: { display: "inline-block", width: "1em", height: "1em", background: e.symbol, border: "1px solid #333", verticalAlign: "middle", marginRight: ".4em" } })
          : h("span", { style: { display: "inline-block", minWidth: "2.2em", fontWeight: "bold" } }, e.symbol || ""),
        h("strong", {}, e.name), e.text ? ` — ${e.text}` : ""))))));
}

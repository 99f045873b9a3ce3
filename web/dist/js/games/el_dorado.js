// The Quest for El Dorado: the hex course (from the course's content data), the
// expedition pieces, blockades on the seams, caves, and the market.
import { h, s, num, hexPoint, hexCorners, seatColour, enumName, pretty, oneof } from "../dom.js";
import { nameIn, textIn, render } from "../words.js";

const SIZE = 22;
const TERRAIN = {
  machete: { fill: "#4f9a45", stroke: "#2f6a2a", icon: "⚔" },
  paddle: { fill: "#3d8fd1", stroke: "#23628f", icon: "≈" },
  coin: { fill: "#e8c547", stroke: "#a88a1f", icon: "●" },
  rubble: { fill: "#8c7b6a", stroke: "#5a4c3e", icon: "▲" },
  basecamp: { fill: "#c9503c", stroke: "#8a2f21", icon: "" },
  mountain: { fill: "#55504b", stroke: "#34302c", icon: "" },
  start: { fill: "#efe2c0", stroke: "#a08f64", icon: "" },
  el_dorado: { fill: "#f5c542", stroke: "#b8860b", icon: "★" },
};
const SYMBOL_CLASS = { SYMBOL_MACHETE: "machete", SYMBOL_PADDLE: "paddle", SYMBOL_COIN: "coin", SYMBOL_JOKER: "joker", SYMBOL_ACTION: "action" };

// A card's geometry and figures from boards.json, its name and text from the game's words.
function card(ctx, id) {
  const known = ctx.boards.el_dorado.cards[id] || { id, name: pretty(id), symbol: "", power: 0, cost: 0 };
  return { ...known, name: nameIn(ctx.words, "card", id, known.name || pretty(id)), text: textIn(ctx.words, "card", id) };
}

const coins = (words, halves) => (words ? nameIn(words, "halves", halves, `${halves / 2} coins`) : `${halves / 2} coins`);

// The round and phase for everyone; the move and the purchase in progress only to the seat
// taking the turn (the others see their own hand and deck, not the mover's coins).
export function status(ctx) {
  const { view, words } = ctx;
  const phase = nameIn(words, "phase", view.phase, enumName(view.phase, "PHASE_"));
  const course = nameIn(words, "course", view.course || "", pretty(view.course || ""));
  const current = num(view.current);
  const mine = ctx.seat != null && ctx.seat === current;
  const a = view.active && view.active.source ? view.active : null;
  let tail = "";
  if (mine) {
    const source = nameIn(words, "card", a && a.source, a ? nameIn(words, "token", a.source, pretty(a.source)) : "");
    const symbol = a ? nameIn(words, "symbol", a.symbol, enumName(a.symbol, "SYMBOL_")) : "";
    tail += a ? ` · ${source}: ${num(a.left)} ${symbol} left for ${nameIn(words, "piece", num(a.piece), `piece ${num(a.piece) + 1}`)}` : "";
    tail += num(view.coinsHalves) ? ` · ${coins(words, num(view.coinsHalves))} to spend` : "";
  } else if (view.phase !== "PHASE_OVER") {
    const me = (view.players || []).find((p) => num(p.seat) === ctx.seat);
    const who = words ? render("{s:seat}", { s: current }, words.tables) : `seat ${current}`;
    tail += ` · ${who} is taking a turn`;
    if (me) tail += ` · you: ${num(me.handCount)} in hand, ${num(me.drawCount)} in your deck`;
  }
  return `Round ${num(view.round)} · ${phase}${view.finalRound ? " · final round!" : ""} · ${course}${tail}`;
}

export function targetOf(action) {
  const [kind, b] = oneof(action);
  switch (kind) {
    case "moveTo": return `hex:${num(b.q)},${num(b.r)}`;
    case "nativeMove": return `hex:${num(b.q)},${num(b.r)}`;
    case "clearSpace": return `hex:${num(b.q)},${num(b.r)}`;
    case "breakBlockade": case "clearBlockade": return `seam:${num(b.seam)}`;
    case "buyCard": case "takeCard": return `market:${b.card}`;
    case "playCard": case "spendCard": case "playAction": case "removeCard": case "setAsideCard": case "discardCard":
      return `hand:${b.card}`;
    default: return null;
  }
}

// Labels without the game's words (they say every action once they have arrived).
export function describe(action, view, words) {
  if (words) return null;
  const [kind, b] = oneof(action);
  const sym = b.symbol ? enumName(b.symbol, "SYMBOL_") : "";
  const piece = `piece ${num(b.piece) + 1}`;
  switch (kind) {
    case "playCard": return `Play ${pretty(b.card)} as ${sym} (${piece})`;
    case "playToken": return `Play ${pretty(b.token)} token as ${sym} (${piece})`;
    case "moveTo": return `Move to (${num(b.q)}, ${num(b.r)})`;
    case "stopMoving": return "Stop moving";
    case "breakBlockade": return `Break blockade on seam ${num(b.seam)}`;
    case "clearSpace": return `Clear (${num(b.q)}, ${num(b.r)}) giving up ${(b.cards || []).map(pretty).join(", ")}`;
    case "clearBlockade": return `Clear blockade ${num(b.seam)} giving up ${(b.cards || []).map(pretty).join(", ")}`;
    case "spendCard": return `Spend ${pretty(b.card)} for coins`;
    case "spendToken": return `Spend ${pretty(b.token)} token`;
    case "buyCard": return `Buy ${pretty(b.card)}`;
    case "playAction": return `Use ${pretty(b.card)}'s action`;
    case "useToken": return `Use ${pretty(b.token)} token`;
    case "takeCard": return `Take ${pretty(b.card)}`;
    case "nativeMove": return `Native: ${piece} to (${num(b.q)}, ${num(b.r)})`;
    case "removeCard": return `Remove ${pretty(b.card)} from the game`;
    case "setAsideCard": return `Set ${pretty(b.card)} aside`;
    case "discardCard": return `Discard ${pretty(b.card)}`;
    case "done": return "Done";
    case "endTurn": return "End turn";
    default: return null;
  }
}

export function board(ctx) {
  const { view, boards } = ctx;
  const course = boards.el_dorado.courses[view.course] || Object.values(boards.el_dorado.courses)[0];
  const pts = course.spaces.map((sp) => hexPoint(sp.q, sp.r, SIZE));
  const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
  const pad = SIZE * 1.6;
  const minX = Math.min(...xs) - pad, minY = Math.min(...ys) - pad;
  const w = Math.max(...xs) - minX + pad, hgt = Math.max(...ys) - minY + pad + 30;
  const svg = s("svg", { viewBox: `${minX} ${minY} ${w} ${hgt}`, id: "board-svg", "data-game": "el_dorado" });
  svg.append(s("defs", {},
    s("radialGradient", { id: "ed-sea" }, s("stop", { offset: "0%", "stop-color": "#1f4d5e" }), s("stop", { offset: "100%", "stop-color": "#0f2a33" })),
  ));
  svg.append(s("rect", { x: minX, y: minY, width: w, height: hgt, fill: "url(#ed-sea)", rx: 12 }));

  const caves = course.spaces.filter((sp) => sp.cave).sort((a, b) => a.q - b.q || a.r - b.r);
  const caveLeft = view.caveTokensLeft || [];
  for (const sp of course.spaces) {
    const [x, y] = hexPoint(sp.q, sp.r, SIZE);
    const t = TERRAIN[sp.terrain] || TERRAIN.mountain;
    const g = s("g", { class: `hex ${sp.terrain}`, "data-hex": `${sp.q},${sp.r}` },
      s("title", {}, `${pretty(sp.terrain)}${sp.power ? ` ${sp.power}` : ""}${sp.cave ? " · cave" : ""}${sp.start ? ` · start ${sp.start}` : ""} (${sp.q}, ${sp.r})`));
    g.append(s("polygon", { points: hexCorners(x, y, SIZE - 0.8), fill: t.fill, stroke: t.stroke, "stroke-width": 1.5 }));
    if (sp.terrain === "mountain") {
      g.append(s("path", { d: `M${x - 11},${y + 7} L${x - 3},${y - 8} L${x + 2},${y - 1} L${x + 6},${y - 6} L${x + 12},${y + 7} Z`, fill: "#8d857c", stroke: "#2a2622" }));
      g.append(s("path", { d: `M${x - 5},${y - 4} L${x - 3},${y - 8} L${x - 1},${y - 4} Z`, fill: "#eee" }));
    } else if (sp.terrain === "start") {
      g.append(s("text", { x, y: y + 5, "text-anchor": "middle", "font-size": 13, fill: "#6b5a33", "font-weight": "bold" }, String(sp.start)));
    } else if (sp.terrain === "basecamp") {
      g.append(s("path", { d: `M${x - 9},${y + 7} L${x},${y - 8} L${x + 9},${y + 7} Z M${x - 2},${y + 7} L${x},${y + 1} L${x + 2},${y + 7} Z`, fill: "#f3e3c3", stroke: "#5a2418", "stroke-width": 1.2 }));
      g.append(s("text", { x: x + 10, y: y - 6, "font-size": 8, fill: "#fff" }, String(Math.max(1, sp.power))));
    } else if (t.icon) {
      const p = Math.max(1, sp.power);
      g.append(s("text", { x, y: y + 4, "text-anchor": "middle", "font-size": sp.terrain === "el_dorado" ? 16 : 10, fill: "#1a1a1a", opacity: 0.75 },
        sp.terrain === "el_dorado" || sp.terrain === "basecamp" ? t.icon : t.icon.repeat(Math.min(p, 4))));
    }
    if (sp.cave && caveLeft.length) {
      const i = caves.indexOf(sp);
      g.append(s("circle", { cx: x, cy: y + 9, r: 6, fill: "#1b1410", stroke: "#c8a070" }));
      g.append(s("text", { x, y: y + 12, "text-anchor": "middle", "font-size": 8, fill: "#f3d9a4" }, String(num(caveLeft[i], 0))));
    }
    svg.append(ctx.target(`hex:${sp.q},${sp.r}`, g, ctx.isTarget(`hex:${sp.q},${sp.r}`) ? s("polygon", { class: "target-ring", points: hexCorners(x, y, SIZE - 3) }) : null));
  }

  // Blockades on the seams between terrain pieces.
  const seams = view.seams || [];
  const bySeam = new Map();
  for (const e of course.seams) {
    if (!bySeam.has(e.seam)) bySeam.set(e.seam, []);
    bySeam.get(e.seam).push(e);
  }
  for (const [seam, edges] of bySeam) {
    const id = num(seams[seam]);
    if (!id) continue;
    const info = boards.el_dorado.blockades[String(id)] || { terrain: "rubble", power: 1 };
    const colour = (TERRAIN[info.terrain] || TERRAIN.rubble).fill;
    const g = s("g", { class: "blockade", "data-seam": seam });
    let cx = 0, cy = 0;
    for (const e of edges) {
      const [ax, ay] = hexPoint(e.a[0], e.a[1], SIZE), [bx, by] = hexPoint(e.b[0], e.b[1], SIZE);
      const mx = (ax + bx) / 2, my = (ay + by) / 2, dx = (bx - ax), dy = (by - ay), len = Math.hypot(dx, dy);
      const px = -dy / len * SIZE / 2, py = dx / len * SIZE / 2;
      g.append(s("line", { x1: mx - px, y1: my - py, x2: mx + px, y2: my + py, stroke: "#222", "stroke-width": 8, "stroke-linecap": "round" }));
      g.append(s("line", { x1: mx - px, y1: my - py, x2: mx + px, y2: my + py, stroke: colour, "stroke-width": 5, "stroke-linecap": "round" }));
      cx += mx; cy += my;
    }
    cx /= edges.length; cy /= edges.length;
    g.append(s("circle", { cx, cy, r: 8, fill: colour, stroke: "#111", "stroke-width": 2 }));
    g.append(s("text", { x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 10, "font-weight": "bold", fill: "#111" }, String(info.power)));
    svg.append(ctx.target(`seam:${seam}`, g, ctx.isTarget(`seam:${seam}`) ? s("circle", { class: "target-ring", cx, cy, r: 12 }) : null));
  }

  // Expedition pieces: one colour per seat, two pieces in 2-player games.
  const active = view.active && view.active.source ? view.active : null;
  (view.players || []).forEach((p, idx) => {
    const seat = num(p.seat);
    (p.pieces || []).forEach((pc, k) => {
      if (pc.arrived) return;
      const [x, y] = hexPoint(num(pc.q), num(pc.r), SIZE);
      const ox = (seat - 1.5) * 4 + k * 3, oy = -4 - k * 2;
      const isActive = active && seat === num(view.current) && num(active.piece) === k;
      svg.append(s("g", { class: "piece", "data-seat": seat },
        isActive ? s("circle", { cx: x + ox, cy: y + oy, r: 12, fill: "none", stroke: "#fff", "stroke-width": 2 }) : null,
        s("path", { d: `M${x + ox - 7},${y + oy + 9} L${x + ox},${y + oy - 10} L${x + ox + 7},${y + oy + 9} Z`, fill: seatColour(seat), stroke: "#111", "stroke-width": 1.5 }),
        s("circle", { cx: x + ox, cy: y + oy - 10, r: 4.5, fill: seatColour(seat), stroke: "#111", "stroke-width": 1.5 }),
        (p.pieces || []).length > 1 ? s("text", { x: x + ox, y: y + oy + 6, "text-anchor": "middle", "font-size": 7, fill: "#fff" }, String(k + 1)) : null));
    });
  });
  return h("div", {}, svg, market(ctx));
}

function market(ctx) {
  const { view, boards } = ctx;
  const piles = view.market || [];
  const row = (onBoard) => piles.filter((p) => Boolean(p.onBoard) === onBoard).map((p) => {
    const c = card(ctx, p.card);
    const el = h("div", { class: `card ${c.symbol}`, "data-card": p.card, title: c.text || c.name },
      cardTitle(c.name),
      h("div", { class: "big" }, c.symbol === "action" ? "✦" : `${c.power}`),
      h("div", {}, `${c.symbol} · cost ${c.cost}`),
      h("div", { class: "pile-left", style: LEFT_STYLE }, `${num(p.count)} left`));
    return ctx.target(`market:${p.card}`, el);
  });
  return h("div", { class: "panel", id: "market", style: { marginTop: ".6rem" } },
    h("h3", {}, "Market board"), h("div", { class: "hand" }, row(true)),
    h("h3", {}, "Beside the board"), h("div", { class: "hand" }, row(false)),
    view.coinsHalves && ctx.seat === num(view.current) ? h("p", {}, `To spend: ${coins(ctx.words, num(view.coinsHalves))}`) : null);
}

// The viewer's own hand: only ever this seat's cards (the view carries no one else's).
export function hand(ctx) {
  const { view } = ctx;
  const me = (view.players || []).find((p) => num(p.seat) === ctx.seat) || {};
  const cards = (view.hand || []).map((id, i) => {
    const c = card(ctx, id);
    return ctx.target(`hand:${id}`, h("div", { class: `card ${c.symbol}`, "data-card": id, "data-hand-index": i, title: c.text || c.name },
      cardTitle(c.name),
      h("div", { class: "big" }, c.symbol === "action" ? "✦" : String(c.power)),
      h("div", {}, c.symbol + (c.single_use ? " · once" : ""))));
  });
  return h("div", { class: "panel", id: "hand", style: { marginTop: ".6rem" } },
    h("h3", {}, `Your hand (${cards.length})`), h("div", { class: "hand" }, cards),
    (me.played || []).length ? h("p", { class: "secret-note" }, "Played this turn: ", (me.played || []).map((id) => nameIn(ctx.words, "card", id, pretty(id))).join(", ")) : null,
    (me.tokens || []).length ? h("p", { class: "secret-note" }, "Cave tokens: ", me.tokens.map((id) => nameIn(ctx.words, "token", id, pretty(id))).join(", ")) : null);
}

export function players(ctx, toMove) {
  const { view } = ctx;
  return h("div", { class: "players" }, (view.players || []).map((p) => {
    const seat = num(p.seat);
    const arrived = (p.pieces || []).filter((x) => x.arrived).length;
    return h("div", { class: `player${seat === ctx.seat ? " me" : ""}${toMove.has(seat) ? " to-move" : ""}`, style: { "--c": seatColour(seat) } },
      h("div", { class: "name" }, `Seat ${seat}`, seat === num(view.current) && view.phase !== "PHASE_OVER" ? " — taking a turn" : ""),
      h("div", { class: "stats" },
        h("span", {}, `hand ${num(p.handCount)}`), h("span", {}, `deck ${num(p.drawCount)}`),
        h("span", {}, `discard ${(p.discard || []).length}`), h("span", {}, `blockades ${(p.blockades || []).length}`),
        h("span", {}, `tokens ${(p.tokens || []).length}`), arrived ? h("span", {}, `★ arrived ${arrived}`) : null));
  }));
}

// A card's whole name: long ones wrap and shrink instead of being cut at the card's edge.
function cardTitle(name) {
  const longest = Math.max(...name.split(/[\s-]/).map((w) => w.length));
  const size = longest > 11 ? ".54rem" : longest > 9 ? ".6rem" : name.length > 10 ? ".66rem" : "";
  return h("div", { class: "title", style: { whiteSpace: "normal", overflow: "visible", textOverflow: "clip", overflowWrap: "normal", lineHeight: "1.05", fontSize: size } }, name);
}

// How many copies a market pile has left: readable on any card colour.
const LEFT_STYLE = { fontWeight: "bold", background: "rgba(0,0,0,.72)", color: "#fff", borderRadius: "4px", padding: "0 .35em", fontSize: ".75rem", alignSelf: "flex-start" };

// The game's picture on its lobby card.
export function art() {
  const svg = s("svg", { viewBox: "0 0 300 110", preserveAspectRatio: "xMidYMid slice", width: "100%", height: "110" });
  svg.append(s("rect", { width: 300, height: 110, fill: "#1f4d5e" }));
  const cols = ["#4f9a45", "#3d8fd1", "#e8c547", "#4f9a45", "#8c7b6a", "#4f9a45", "#f5c542"];
  for (let i = 0; i < 14; i++) {
    const x = 20 + i * 21, y = 55 + (i % 2 ? 18 : -18);
    const pts = [...Array(6)].map((_, k) => { const a = Math.PI / 180 * (60 * k - 30); return `${x + 13 * Math.cos(a)},${y + 13 * Math.sin(a)}`; }).join(" ");
    svg.append(s("polygon", { points: pts, fill: cols[i % cols.length], stroke: "#222" }));
  }
  return svg;
}

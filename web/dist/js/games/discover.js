// Discover: Lands Unknown: the island's map tiles (explored and still in the fog),
// features, fires, shelters, enemies and survivors; day and night; combat.
import { h, s, num, hexPoint, hexCorners, seatColour, enumName, pretty, oneof } from "../dom.js";
import { nameIn, textIn } from "../words.js";

const SIZE = 20;
const TERRAIN = { grass: "#7fb95a", underbrush: "#4c8a3c", mountain: "#8e8577", ocean: "#2f6f9f" };
const FEATURE = { tree: ["#2f6b2a", "♣"], shrub: ["#5f9e3a", "✿"], rocks: ["#777", "●"], wreck: ["#8a5a2b", "#"] };
const DAMAGE = { DAMAGE_TYPE_PHYSICAL: ["#c0392b", "wound"], DAMAGE_TYPE_HUNGER: ["#d68910", "hunger"], DAMAGE_TYPE_THIRST: ["#2e86c1", "thirst"], DAMAGE_TYPE_EXPOSURE: ["#7d3c98", "exposure"] };
const hx = (p) => `${num(p && p.q)},${num(p && p.r)}`;

// The game's words name each kind of thing through one of their tables.
const TABLES = { characters: "character", projects: "project", items: "item", enemies: "enemy_kind" };

function name(ctx, kind, n) {
  const names = (ctx.boards.discover.names || {})[kind] || {};
  return nameIn(ctx.words, TABLES[kind], n, names[String(n)] || `${kind} ${n}`);
}

// What only the view names: each enemy on the map by its kind (events name it by its serial).
export function learn(words, view) {
  const enemies = (words.tables.enemy = { ...(words.tables.enemy || {}) });
  for (const en of view.enemies || []) {
    enemies[en.id] = { name: num(en.number) ? `the ${nameIn(words, "enemy_kind", num(en.number))}` : "a hidden monster" };
  }
}

export function status({ view, words }) {
  const night = view.phase === "PHASE_NIGHT";
  const stage = nameIn(words, "stage", num(view.stage), `quest stage ${num(view.stage)}`);
  const decision = view.decision ? ` · ${nameIn(words, "decision", view.decision, view.decision.replace(/_/g, " "))}` : "";
  return `${view.phase === "PHASE_OVER" ? `The end${view.endReason ? ` (${view.endReason})` : ""} · day` : night ? "Night" : "Day"} ${num(view.day)} of ${num(view.maxDays)} · ${stage}${decision}`;
}

export function targetOf(action) {
  const [kind, b] = oneof(action);
  switch (kind) {
    case "move": case "escape": return `hex:${hx(b.to)}`;
    case "chooseSpace": return `hex:${hx(b.space)}`;
    case "explore": return `slot:${num(b.slot)}`;
    case "chooseEnemy": return `enemy:${b.enemy}`;
    case "craft": return `project:${num(b.project)}`;
    case "chooseCharacter": return `character:${num(b.character)}`;
    case "trade": return `seat:${num(b.partner)}`;
    case "chooseFighter": case "passLeadership": case "giveReward": return `seat:${num(b.seat)}`;
    case "playSupport": case "useSupportCard": return `support:${b.card}`;
    case "rollCombat": return "combat:roll";
    default: return null;
  }
}

const goods = (list) => (list || []).map((g) => pretty(g)).join(", ") || "nothing";

// Labels that need the view (what a trade gives, which cost is asked), and every label
// until the game's words have arrived.
export function describe(action, view, words) {
  const [kind, b] = oneof(action);
  const viewDependent = ["offerTrade", "acceptTrade", "payCost", "declineCost", "chooseFighter"];
  if (words && !viewDependent.includes(kind)) return null;
  switch (kind) {
    case "move": return `Move to (${hx(b.to)})`;
    case "escape": return `Escape to (${hx(b.to)})`;
    case "chooseSpace": return `Choose space (${hx(b.space)})`;
    case "explore": return `Explore map slot ${num(b.slot)}`;
    case "cook": return `Cook (${num(b.meat)} meat, ${num(b.dirtyWater)} dirty water)`;
    case "craft": return `Craft project ${num(b.project)}`;
    case "trade": return `Trade with seat ${num(b.partner)}`;
    case "tradeTake": return `Ask for ${b.resource ? pretty(b.resource) : `item ${num(b.item)}`}`;
    case "tradeGive": return `Offer ${b.resource ? pretty(b.resource) : `item ${num(b.item)}`}`;
    case "offerTrade": return `Propose: give ${goods(view && view.tradeGives)} for ${goods(view && view.tradeAsks)}`;
    case "acceptTrade": return `Accept: receive ${goods(view && view.tradeGives)}, give ${goods(view && view.tradeAsks)}`;
    case "declineTrade": return "Decline the trade";
    case "payCost": return view && view.decision === "feed_fire" ? "Pay wood to keep the fire lit" : "Pay the upkeep";
    case "declineCost": return view && view.decision === "feed_fire" ? "Let the fire go out" : "Suffer the damage instead";
    case "giveReward": return `Give ${pretty(b.resource)} to seat ${num(b.seat)}`;
    case "keepRewards": return "Keep the rest of the reward";
    case "recover": return `Recover from ${enumName(b.damage, "DAMAGE_TYPE_")}`;
    case "useItem": case "useCombatItem": case "useKeyItem": return `Use item ${num(b.item)}`;
    case "loot": return `Loot seat ${num(b.seat)}: ${b.resource ? pretty(b.resource) : `item ${num(b.item)}`}`;
    case "chooseCharacter": return `Be character ${num(b.character)}`;
    case "chooseFighter": return view && view.decision === "fighter_vote" ? `Seat ${num(b.seat)} should fight` : `Seat ${num(b.seat)} fights`;
    case "chooseEnemy": return `Fight ${b.enemy}`;
    case "playSupport": return `Play support ${b.card}`;
    case "useSupportCard": return `Use support ${b.card}`;
    case "spendResource": return `Spend ${pretty(b.resource)}`;
    case "passLeadership": return `Pass leadership to seat ${num(b.seat)}`;
    case "useQuestAction": return `Quest: ${pretty(b.action)}`;
    default: return null;
  }
}

export function board(ctx) {
  const { view, boards } = ctx;
  const map = boards.discover.map;
  const offsets = map.tile_offsets;
  const tileSpec = new Map(map.tiles.map((t) => [t.id, t]));
  const explored = new Map((view.tiles || []).map((t) => [num(t.slot), t]));
  // every space of every slot, for the frame
  const all = [];
  map.slots.forEach((slot) => Object.values(offsets).forEach(([dq, dr]) => all.push(hexPoint(slot.centre[0] + dq, slot.centre[1] + dr, SIZE))));
  const xs = all.map((p) => p[0]), ys = all.map((p) => p[1]);
  const pad = SIZE * 2;
  const minX = Math.min(...xs) - pad, minY = Math.min(...ys) - pad - 30;
  const w = Math.max(...xs) - minX + pad, hgt = Math.max(...ys) - minY + pad;
  const night = view.phase === "PHASE_NIGHT";
  const svg = s("svg", { viewBox: `${minX} ${minY} ${w} ${hgt}`, id: "board-svg", "data-game": "discover", "data-phase": night ? "night" : "day" });
  svg.append(s("defs", {}, s("radialGradient", { id: "dc-sea" },
    s("stop", { offset: "0%", "stop-color": night ? "#1b2a4a" : "#4aa3c9" }), s("stop", { offset: "100%", "stop-color": night ? "#070c1a" : "#1a5a80" }))));
  svg.append(s("rect", { x: minX, y: minY, width: w, height: hgt, fill: "url(#dc-sea)", rx: 14 }));

  map.slots.forEach((slot, i) => {
    const tile = explored.get(i);
    if (tile) {
      const spec = tileSpec.get(num(tile.tile));
      for (const sp of (spec ? spec.spaces : [])) {
        const [dq, dr] = offsets[sp.pos];
        const q = num(tile.centre && tile.centre.q) + dq, r = num(tile.centre && tile.centre.r) + dr;
        const [x, y] = hexPoint(q, r, SIZE);
        const g = s("g", { class: "hex", "data-hex": `${q},${r}` },
          s("polygon", { points: hexCorners(x, y, SIZE - 0.6), fill: TERRAIN[sp.terrain] || "#999", stroke: "#2b3a1f", "stroke-width": 1 }));
        if (sp.terrain === "mountain") g.append(s("path", { d: `M${x - 9},${y + 6} L${x - 2},${y - 7} L${x + 3},${y} L${x + 6},${y - 4} L${x + 10},${y + 6} Z`, fill: "#b7ae9f", stroke: "#4a443c" }));
        if (sp.water_source) g.append(s("path", { d: `M${x + 8},${y - 10} q3,5 0,7 q-3,-2 0,-7z`, fill: sp.water_source === "clean" ? "#8fd3ff" : "#8b7d4f", stroke: "#123" }));
        if (sp.camp) g.append(s("text", { x, y: y + 13, "text-anchor": "middle", "font-size": 7, fill: "#222" }, "camp"));
        svg.append(ctx.target(`hex:${q},${r}`, g, ctx.isTarget(`hex:${q},${r}`) ? s("polygon", { class: "target-ring", points: hexCorners(x, y, SIZE - 3) }) : null));
      }
    } else {
      const g = s("g", { class: "fog", "data-slot": i });
      Object.values(offsets).forEach(([dq, dr]) => {
        const [x, y] = hexPoint(slot.centre[0] + dq, slot.centre[1] + dr, SIZE);
        g.append(s("polygon", { points: hexCorners(x, y, SIZE - 0.6), fill: night ? "#1c2333" : "#2c4d5e", stroke: "#5b7b8b", "stroke-width": 0.6, opacity: 0.85 }));
      });
      const [x, y] = hexPoint(slot.centre[0], slot.centre[1], SIZE);
      g.append(s("text", { x, y: y + 5, "text-anchor": "middle", "font-size": 14, fill: "#a9c3cf" }, "?"));
      svg.append(ctx.target(`slot:${i}`, g, ctx.isTarget(`slot:${i}`) ? s("circle", { class: "target-ring", cx: x, cy: y, r: SIZE * 2.4 }) : null));
    }
  });

  if (night) svg.append(s("rect", { x: minX, y: minY, width: w, height: hgt, fill: "#0a1233", opacity: 0.38, "pointer-events": "none", rx: 14 }));
  for (const f of view.features || []) {
    const [x, y] = hexPoint(num(f.space && f.space.q), num(f.space && f.space.r), SIZE);
    const [col, icon] = FEATURE[f.pool] || ["#555", "?"];
    svg.append(s("g", { class: "feature" }, s("circle", { cx: x - 8, cy: y - 6, r: 6, fill: col, stroke: "#111" }),
      s("text", { x: x - 8, y: y - 3, "text-anchor": "middle", "font-size": 8, fill: "#fff" }, icon)));
  }
  for (const f of view.fires || []) {
    const [x, y] = hexPoint(num(f.space && f.space.q), num(f.space && f.space.r), SIZE);
    svg.append(s("g", { class: "fire" }, s("path", { d: `M${x + 6},${y + 8} q-7,-6 0,-16 q2,6 5,7 q3,5 -5,9z`, fill: f.lit ? "#ff8c1a" : "#555", stroke: f.lit ? "#b3400b" : "#222" }),
      f.lit ? s("path", { d: `M${x + 7},${y + 7} q-3,-3 0,-7 q2,4 2,7z`, fill: "#ffd94a" }) : null));
  }
  for (const sh of view.shelters || []) {
    const [x, y] = hexPoint(num(sh.q), num(sh.r), SIZE);
    svg.append(s("path", { d: `M${x - 12},${y + 12} l6,-9 l6,9z`, fill: "#c49a6c", stroke: "#4a2e12" }));
  }
  for (const it of view.placed || []) {
    const [x, y] = hexPoint(num(it.space && it.space.q), num(it.space && it.space.r), SIZE);
    svg.append(s("rect", { x: x + 4, y: y + 4, width: 8, height: 8, fill: "#d4c07a", stroke: "#333" }));
  }
  for (const en of view.enemies || []) {
    const [x, y] = hexPoint(num(en.space && en.space.q), num(en.space && en.space.r), SIZE);
    const g = s("g", { class: "enemy", "data-enemy": en.id },
      s("circle", { cx: x + 7, cy: y - 5, r: 8, fill: en.special ? "#6c1b1b" : "#a32020", stroke: "#111", "stroke-width": 1.5 }),
      s("text", { x: x + 7, y: y - 2, "text-anchor": "middle", "font-size": 8, "font-weight": "bold", fill: "#fff" }, num(en.number) ? String(num(en.number)) : "?"));
    svg.append(ctx.target(`enemy:${en.id}`, g, ctx.isTarget(`enemy:${en.id}`) ? s("circle", { class: "target-ring", cx: x + 7, cy: y - 5, r: 11 }) : null));
  }
  const here = new Map();
  for (const sv of view.survivors || []) {
    const seat = num(sv.seat);
    const key = hx(sv.space);
    const k = here.get(key) || 0;
    here.set(key, k + 1);
    const [x0, y0] = hexPoint(num(sv.space && sv.space.q), num(sv.space && sv.space.r), SIZE);
    const x = x0 - 4 + k * 8, y = y0 + 4;
    const down = sv.status === "STATUS_CASUALTY";
    const g = s("g", { class: "survivor", "data-seat": seat, opacity: down ? 0.45 : 1 },
      s("circle", { cx: x, cy: y - 8, r: 4, fill: seatColour(seat), stroke: "#111" }),
      s("path", { d: `M${x - 5},${y + 6} L${x - 3},${y - 4} L${x + 3},${y - 4} L${x + 5},${y + 6} Z`, fill: seatColour(seat), stroke: "#111" }),
      down ? s("text", { x, y: y + 2, "text-anchor": "middle", "font-size": 9, fill: "#fff" }, "✕") : null);
    svg.append(ctx.target(`seat:${seat}`, g, ctx.isTarget(`seat:${seat}`) ? s("circle", { class: "target-ring", cx: x, cy: y - 2, r: 10 }) : null));
  }
  // day and night
  const sx = minX + 40, sy = minY + 30;
  svg.append(night
    ? s("g", { id: "sky" }, s("circle", { cx: sx, cy: sy, r: 16, fill: "#f3efd2" }), s("circle", { cx: sx + 7, cy: sy - 4, r: 14, fill: "#0b1224" }),
      ...[[60, 10], [120, 40], [200, 14], [260, 30]].map(([dx, dy]) => s("circle", { cx: sx + dx, cy: sy - 12 + dy, r: 1.4, fill: "#fff" })))
    : s("g", { id: "sky" }, s("circle", { cx: sx, cy: sy, r: 14, fill: "#ffd23f", stroke: "#f59e0b", "stroke-width": 4, "stroke-dasharray": "3 3" })));
  svg.append(s("text", { x: sx + 24, y: sy + 6, "font-size": 16, "font-weight": "bold", fill: night ? "#dfe7ff" : "#fff8dc" },
    `${night ? "Night" : "Day"} ${num(view.day)} / ${num(view.maxDays)}`));
  return svg;
}

export function top(ctx) {
  const { view } = ctx;
  const c = view.combat;
  if (!c || !c.enemy) return null;
  const enemy = (view.enemies || []).find((e) => e.id === c.enemy) || {};
  const stats = (ctx.boards.discover.enemyStats || {})[String(num(enemy.number))];
  const die = (n, col, label) => h("div", { class: "card", style: { width: "64px", minHeight: "64px", background: col, color: "#fff", alignItems: "center" } },
    h("div", { class: "big" }, n ? String(n) : "–"), h("div", {}, label));
  const roll = ctx.isTarget("combat:roll") ? ctx.target("combat:roll", h("button", {}, "Roll the dice")) : null;
  return h("div", { class: "panel", id: "combat", style: { marginTop: ".6rem", borderColor: "#a32020" } },
    h("h3", {}, `Combat — seat ${num(c.seat)} against ${num(enemy.number) ? name(ctx, "enemies", num(enemy.number)) : "a hidden enemy"}`),
    h("div", { class: "row" },
      die(num(c.grey) + num(c.greyMod), "#6b6b6b", "grey"), die(num(c.red) + num(c.redMod), "#a32020", "red"),
      h("div", {}, h("div", {}, `Stage: ${nameIn(ctx.words, "combat_stage", c.stage, enumName(c.stage, "COMBAT_STAGE_"))}`),
        enemy.damage ? h("div", {}, `Damage dealt: ${num(enemy.damage)}`) : null,
        (c.played || []).length ? h("div", {}, `Support: ${c.played.map((id) => nameIn(ctx.words, "support", id)).join(", ")}`) : null,
        (c.supporters || []).length ? h("div", {}, `Still to decide: seats ${c.supporters.join(", ")}`) : null,
        stats ? h("div", {}, stats) : null, roll)));
}

export function hand(ctx) {
  const { view } = ctx;
  const projects = (view.hand || []).map((n) => ctx.target(`project:${n}`, h("div", { class: "card", "data-card": `project-${n}`, title: textIn(ctx.words, "project", n), style: { background: "linear-gradient(#e8dcc0, #c9b48a)" } },
    h("div", { class: "title", style: { whiteSpace: "normal", overflow: "visible" } }, name(ctx, "projects", n)),
    h("div", { style: { fontSize: ".7rem" } }, textIn(ctx.words, "project", n)))));
  const offer = (view.offer || []).map((n) => ctx.target(`character:${n}`, h("div", { class: "card", "data-card": `character-${n}`, style: { background: "linear-gradient(#dbe8f5, #9fb8d6)" } },
    h("div", { class: "title", style: { whiteSpace: "normal", overflow: "visible" } }, name(ctx, "characters", n)),
    h("div", { style: { fontSize: ".7rem" } }, textIn(ctx.words, "character", n)), num(view.chosen) === n ? h("div", {}, "your pick") : null)));
  return h("div", { class: "panel", id: "hand", style: { marginTop: ".6rem" } },
    h("h3", {}, `Your project cards (${projects.length})`), h("div", { class: "hand" }, projects),
    offer.length ? [h("h3", {}, "Characters dealt to you"), h("div", { class: "hand" }, offer)] : null,
    num(view.chosen) ? h("p", { class: "secret-note" }, `Your character: ${name(ctx, "characters", num(view.chosen))}`) : null);
}

export function players(ctx, toMove) {
  const { view } = ctx;
  return h("div", { class: "players" }, (view.survivors || []).map((sv) => {
    const seat = num(sv.seat);
    const res = Object.entries(sv.resources || {}).map(([k, v]) => `${pretty(k)} ${v}`);
    return h("div", { class: `player${seat === ctx.seat ? " me" : ""}${toMove.has(seat) ? " to-move" : ""}`, style: { "--c": seatColour(seat) } },
      h("div", { class: "name" }, num(sv.character) ? name(ctx, "characters", num(sv.character)) : `Survivor ${seat}`,
        ` · seat ${seat}`, num(view.leader) === seat ? " · leader" : "", sv.status === "STATUS_CASUALTY" ? " · casualty" : ""),
      h("div", { class: "stats" }, h("span", {}, `stamina ${num(sv.stamina)}`), h("span", {}, `projects ${num(sv.handSize)}`),
        (sv.items || []).length ? h("span", {}, `items ${sv.items.map((i) => name(ctx, "items", i)).join(", ")}`) : null),
      h("div", { class: "row" }, (sv.damage || []).map((d) => h("span", { class: "badge", style: { background: (DAMAGE[d] || ["#555"])[0], color: "#fff" } }, (DAMAGE[d] || [0, d])[1]))),
      res.length ? h("div", { class: "stats" }, res.join(" · ")) : null);
  }));
}

// The game's picture on its lobby card.
export function art() {
  const svg = s("svg", { viewBox: "0 0 300 110", preserveAspectRatio: "xMidYMid slice", width: "100%", height: "110" });
  svg.append(s("rect", { width: 300, height: 110, fill: "#0b1224" }), s("circle", { cx: 250, cy: 30, r: 14, fill: "#f3efd2" }), s("circle", { cx: 257, cy: 26, r: 12, fill: "#0b1224" }));
  svg.append(s("path", { d: "M0,110 L40,70 L80,90 L130,50 L180,85 L230,65 L300,100 L300,110 Z", fill: "#2f5a2a" }));
  svg.append(s("path", { d: "M150,92 q-9,-8 0,-20 q3,8 7,9 q4,6 -7,11z", fill: "#ff8c1a" }));
  return svg;
}

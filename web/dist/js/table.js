// The table of one match: the game's SVG board, the seat's hand, players, legal
// actions (on the board and in a list), the log, and replay of a finished match.
import { h, s, toast, seatColour, oneof, humanKind, enumName } from "./dom.js";
import { rendererOf } from "./renderers.js";
import { wordsFor, wordsOf, actionText, eventText as saidEvent, legendPanel, gameTitle } from "./words.js";

// state: {match, view, legal, entries, seat, names, live, connection, history, replayAt}
// handlers: {act(action), start(), leave(), join(seat), replayTo(version)}
export function renderTable(root, state, handlers, boards) {
  root.__tableState = state;
  // the game's renderer (renderers.js); the first table of a game waits for its module
  const game = rendererOf(state.match.game, () => { if (root.__tableState === state) renderTable(root, state, handlers, boards); });
  if (!game) return root.replaceChildren(h("p", { class: "loading" }, "Setting the table…"));
  const viewing = state.replayAt != null && state.replayView ? state.replayView : state.view;
  const words = tableWords(root, state, handlers, boards, game, viewing);
  const legal = state.replayAt != null ? [] : state.legal || [];
  const targets = new Map();
  legal.forEach((action, i) => {
    for (const key of [game.targetOf(action, viewing)].flat()) {
      if (!key) continue;
      if (!targets.has(key)) targets.set(key, []);
      targets.get(key).push(i);
    }
  });
  const choose = (indices, evt) => {
    if (indices.length === 1) return handlers.act(legal[indices[0]]);
    popChoices(indices.map((i) => [describe(game, legal[i], viewing, words), () => handlers.act(legal[i])]), evt);
  };
  const ctx = {
    view: viewing,
    seat: state.seat,
    match: state.match,
    boards,
    legal,
    names: state.names || [],
    words, // the game's words (words.js), null until they have arrived
    // Marks a board element as a choice when some legal action points at `key`. The
    // element alone listens (the ring around it lets clicks through), so a click is one
    // choice; Enter or Space on it is the same choice from the keyboard.
    target(key, element, ring) {
      const found = targets.get(key);
      if (!found) return element;
      element.classList.add("target");
      element.setAttribute("data-target", key);
      element.addEventListener("click", (evt) => choose(found, evt));
      if (element.tagName !== "BUTTON") {
        element.setAttribute("tabindex", "0");
        element.setAttribute("role", "button");
        element.addEventListener("keydown", (evt) => {
          if (evt.key !== "Enter" && evt.key !== " ") return;
          evt.preventDefault();
          choose(found, evt);
        });
      }
      return ring ? s("g", { class: "target-wrap" }, element, ring) : element;
    },
    isTarget: (key) => targets.has(key),
    choose: (key, evt) => choose(targets.get(key) || [], evt),
  };

  const summary = state.match;
  // before the start the view holds no game yet: say who sits and who is awaited instead
  const status = summary.status === "MATCH_STATUS_LOBBY" ? waitingLine(state) : game.status(ctx);
  const over = summary.status === "MATCH_STATUS_FINISHED";
  const toMove = new Set((summary.toMove || []).map(Number));
  const myTurn = state.seat != null && toMove.has(state.seat) && !over;

  const header = h("div", { class: "status-line" },
    h("strong", {}, gameTitle(summary.game)),
    h("span", { class: "badge " + statusClass(summary.status) }, statusText(summary.status)),
    h("span", {}, status),
    state.replayAt != null ? h("span", { class: "badge waiting" }, `replay at version ${state.replayAt}`) :
      myTurn ? h("span", { class: "turn" }, "Your move") :
        toMove.size && !over ? h("span", {}, "Waiting for ", [...toMove].map((s) => nameOf(state, s)).join(", ")) : null,
    state.seat != null ? h("span", { class: "badge", style: { background: seatColour(state.seat), color: "#fff" } }, `You are seat ${state.seat}`) :
      h("span", { class: "badge" }, "Spectating"),
    state.connection ? h("span", { class: "badge " + (state.connection === "live" ? "active" : "") }, state.connection) : null,
    ...clockBadges(state, summary, over),
  );

  const board = h("div", { class: "board-wrap", id: "board" }, game.board(ctx));
  const below = [];
  // the waiting room comes first: before the start the board is only the empty table
  const waiting = summary.status === "MATCH_STATUS_LOBBY";
  if (waiting) below.push(waitingPanel(state, handlers));
  if (game.top) below.push(game.top(ctx));
  if (state.seat != null && game.hand) below.push(game.hand(ctx));
  if (game.extra) below.push(game.extra(ctx));
  below.push(legendPanel(h, words));

  const side = h("div", { class: "side" });
  if (over && summary.outcome) side.append(outcomePanel(state));
  side.append(h("div", { class: "panel" }, h("h3", {}, "Players"), game.players(ctx, toMove)));
  if (state.replayAt == null && state.seat != null && !over && !waiting) side.append(actionsPanel(game, legal, viewing, handlers, ctx));
  if (over || state.replayAt != null) side.append(replayPanel(state, handlers));
  side.append(logPanel(state, game, words));

  document.title = `${myTurn ? "● Your move · " : ""}${gameTitle(summary.game)} · Tabletop`;
  const main = waiting ? [below[0], board, ...below.slice(1)] : [board, ...below];
  root.replaceChildren(header, h("div", { class: "table-layout" }, h("div", {}, ...main), side));
}

function describe(game, action, view, words) {
  return (game.describe && game.describe(action, view, words)) || actionText(words, action) || genericDescribe(action);
}

// The game's words (DescribeGame, fetched once per game), its seats named as this table
// names them; null until they arrive, when the table is drawn again if it still shows `state`.
function tableWords(root, state, handlers, boards, game, view) {
  const described = wordsFor(state.match.game, () => { if (root.__tableState === state) renderTable(root, state, handlers, boards); });
  if (!described) return null;
  const seats = Math.max(Number(state.match.seatCount || 0), (state.names || []).length);
  const words = wordsOf(described, Array.from({ length: seats }, (_, i) => nameOf(state, i)));
  if (game.learn) game.learn(words, view); // what only the view names (Discover's enemies on the map)
  return words;
}

export function genericDescribe(action) {
  const [kind, body] = oneof(action);
  const parts = Object.entries(body).map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`);
  return humanKind(kind) + (parts.length ? ` (${parts.join(", ")})` : "");
}

function actionsPanel(game, legal, view, handlers, ctx) {
  const picker = game.picker ? game.picker(ctx, legal, handlers.act) : null;
  const list = h("div", { class: "actions-list", id: "actions" });
  legal.forEach((action, i) => {
    const key = [game.targetOf(action, view)].flat()[0];
    list.append(h("button", {
      class: "secondary",
      "data-index": i,
      onclick: () => handlers.act(action),
      onmouseenter: () => highlight(key, true),
      onmouseleave: () => highlight(key, false),
    }, describe(game, action, view, ctx.words)));
  });
  // A take-back while nobody else has acted and nothing was drawn, rolled or disclosed.
  const summary = ctx.match;
  const undo = handlers.undo && Number(summary.undoable || 0) > 0 && Number(summary.undoSeat || 0) === ctx.seat
    ? h("button", { class: "secondary", id: "undo", onclick: () => handlers.undo() }, `Undo (${summary.undoable})`)
    : null;
  // On a phone this panel is a bar fixed at the bottom of the screen, over the board:
  // the choices are in reach without scrolling; its heading folds it away and back.
  const panel = h("div", { class: "panel choices" + (choicesFolded ? " folded" : "") + (legal.length ? "" : " empty"), id: "choices" },
    h("h3", {}, h("button", { class: "fold", id: "fold-choices", "aria-expanded": String(!choicesFolded),
      onclick: () => { choicesFolded = !choicesFolded; panel.classList.toggle("folded", choicesFolded); } },
    `Your choices (${legal.length})`)),
    h("div", { class: "choices-body" }, picker, legal.length ? list : h("p", { class: "secret-note" }, "Nothing to do right now."), undo));
  return panel;
}
let choicesFolded = false;

function highlight(key, on) {
  if (!key) return;
  for (const el of document.querySelectorAll(`[data-target="${CSS.escape(key)}"]`)) el.style.filter = on ? "drop-shadow(0 0 6px #fff)" : "";
}

function logPanel(state, game, words) {
  const entries = state.entries || [];
  const limit = state.replayAt != null ? state.replayAt : Infinity;
  // In the game's words; an empty line is bookkeeping (undo points, clocks), left out.
  const line = (e) => {
    const said = saidEvent(words, e);
    if (said === null || said === undefined) return game.describeEvent ? game.describeEvent(e, state) : eventText(e);
    return said && said + (e.redacted ? " (hidden from you)" : "");
  };
  const shown = entries.filter((e) => Number(e.version) <= limit && !quiet(e))
    .map((e) => [e, line(e)]).filter(([, text]) => text !== "").slice(-80);
  const log = h("div", { class: "log", id: "log" }, shown.map(([e, text]) => h("div", {},
    h("span", { class: "v" }, e.version), text)));
  queueMicrotask(() => { log.scrollTop = log.scrollHeight; });
  return h("div", { class: "panel" }, h("h3", {}, "Log"), log);
}

// Bookkeeping entries a person need not read (they stay in GetMatchLog).
const QUIET = new Set(["stepsQueued", "stepDone", "functionsInserted", "chanceResolved", "seedRevealed"]);

// A game's events come wrapped in its Event oneof; platform events (MatchCreated,
// PlayerJoined, ChanceResolved, ...) are their own messages.
function eventKind(event) {
  const type = String(event["@type"] || "");
  if (type.endsWith(".Event")) return oneof(event);
  const name = type.split(".").pop() || "event";
  const { ["@type"]: _, ...body } = event;
  return [name.charAt(0).toLowerCase() + name.slice(1), body];
}

export function eventText(entry) {
  if (!entry.event) return `${humanKind(entry.type || "event")} (hidden)`;
  const [kind, body] = eventKind(entry.event);
  const seat = body.seat !== undefined ? `Seat ${body.seat}: ` : "";
  const value = (v) => (typeof v === "string" && /^[A-Z]+_[A-Z0-9_]+$/.test(v) ? enumName(v) : Array.isArray(v) ? v.map(value).join("/") : String(v).replace(/_/g, " "));
  const parts = Object.entries(body).filter(([k, v]) => k !== "seat" && (typeof v !== "object" || Array.isArray(v) && v.every((x) => typeof x !== "object")))
    .map(([k, v]) => `${humanKind(k).toLowerCase()} ${value(v)}`);
  const text = `${seat}${humanKind(kind).toLowerCase()}${parts.length ? " — " + parts.join(", ") : ""}`;
  return (text.length > 140 ? text.slice(0, 137) + "…" : text) + (entry.redacted ? " (hidden)" : "");
}

function quiet(entry) {
  if (!entry.event) return false;
  return QUIET.has(eventKind(entry.event)[0]);
}

function replayPanel(state, handlers) {
  const max = Number(state.match.version || 0);
  const at = state.replayAt ?? max;
  const out = h("output", {}, String(at));
  const slider = h("input", {
    type: "range", min: 1, max, value: at, id: "replay-slider",
    oninput: (e) => { out.textContent = e.target.value; },
    onchange: (e) => handlers.replayTo(Number(e.target.value)),
  });
  return h("div", { class: "panel" }, h("h3", {}, "Replay"),
    h("div", { class: "replay" },
      h("button", { class: "secondary", onclick: () => handlers.replayTo(Math.max(1, at - 1)) }, "◀"),
      slider,
      h("button", { class: "secondary", onclick: () => handlers.replayTo(Math.min(max, at + 1)) }, "▶"),
      out),
    h("p", { class: "secret-note" }, state.replayNote || "Drag to any version of the match's log."));
}

function outcomePanel(state) {
  const o = state.match.outcome;
  const rows = [];
  if (o.cooperativeWin !== undefined) rows.push(h("div", { class: "outcome" }, o.cooperativeWin ? "The survivors escaped the island!" : "The island claimed them."));
  // A co-operative outcome ranks each seat by its fate too (detail "seat_<n>": won, active, casualty).
  const fate = (seat) => (o.detail || {})[`seat_${seat}`];
  (o.ranking || []).forEach((place, seat) => rows.push(h("div", {},
    h("span", { class: "badge", style: { background: seatColour(seat), color: "#fff" } }, `#${place}`), " ", nameOf(state, seat),
    o.cooperativeWin !== undefined ? (fate(seat) ? ` — ${fate(seat)}` : "")
      : o.scores && o.scores[seat] !== undefined ? ` — ${o.scores[seat]} pts` : "")));
  return h("div", { class: "panel", id: "outcome" }, h("h3", {}, "Result"), rows);
}

function seatsOf(m) {
  const holders = new Map((m.seats || []).filter((x) => x.playerId).map((x) => [Number(x.seat || 0), x]));
  const free = [];
  for (let i = 0; i < Number(m.seatCount || 0); i++) if (!holders.has(i)) free.push(i);
  return { holders, free };
}

function waitingLine(state) {
  const { holders, free } = seatsOf(state.match);
  const awaited = free.length ? `waiting for ${free.length} more player${free.length > 1 ? "s" : ""}` : "everyone is here: ready to start";
  return `Waiting room · ${holders.size} of ${Number(state.match.seatCount || 0)} seated · ${awaited}`;
}

function waitingPanel(state, handlers) {
  const m = state.match;
  const { holders, free } = seatsOf(m);
  const seats = [];
  for (let i = 0; i < Number(m.seatCount || 0); i++) {
    const holder = holders.get(i);
    seats.push(h("div", { class: "player" + (i === state.seat ? " me" : ""), style: { "--c": seatColour(i) }, "data-waiting-seat": i },
      h("span", { class: "name" }, `Seat ${i}: `),
      holder ? (holder.displayName || `player ${shortId(holder.playerId)}`) + (i === state.seat ? " (you)" : "") : h("em", {}, "free")));
  }
  const awaited = free.length
    ? `Waiting for ${free.length} more player${free.length > 1 ? "s" : ""}. Share this page's address to invite someone.`
    : "Every seat is taken: any seated player can start the match.";
  return h("div", { class: "panel", id: "waiting" }, h("h3", {}, "Waiting room"),
    h("div", { class: "players" }, seats),
    h("p", { id: "awaited" }, awaited),
    state.seat == null && free.length ? h("div", { class: "row" }, free.map((seat) => h("button", { onclick: () => handlers.join(seat) }, `Sit at seat ${seat}`))) : null,
    state.seat != null ? h("div", { class: "row" },
      h("button", { id: "start", onclick: () => handlers.start(), disabled: free.length > 0 }, "Start match"),
      h("button", { class: "secondary", onclick: () => handlers.leave() }, "Leave")) : null);
}

// A player id cut to what a person can compare at a glance.
export function shortId(id) { return String(id || "").slice(0, 8); }

export function nameOf(state, seat) {
  if (state.names && state.names[seat]) return state.names[seat];
  const s = (state.match.seats || []).find((x) => Number(x.seat || 0) === seat);
  return s && s.playerId ? `Seat ${seat} · ${s.displayName || s.playerId.slice(0, 6)}` : `Seat ${seat}`;
}

export function statusText(st) {
  return String(st || "MATCH_STATUS_UNSPECIFIED").replace("MATCH_STATUS_", "").toLowerCase();
}
export function statusClass(st) {
  const t = statusText(st);
  return t === "active" ? "active" : t === "finished" ? "finished" : "waiting";
}

function popChoices(items, evt) {
  document.querySelector(".choice-pop")?.remove();
  const pop = h("div", { class: "choice-pop" }, items.map(([label, fn]) => h("button", { class: "secondary", onclick: () => { pop.remove(); fn(); } }, label)),
    h("button", { class: "secondary", onclick: () => pop.remove() }, "Cancel"));
  // beside the pointer, or beside the element chosen from the keyboard; inside the window
  const at = evt && evt.clientX === undefined && evt.currentTarget?.getBoundingClientRect ? evt.currentTarget.getBoundingClientRect() : null;
  const width = Math.min(360, window.innerWidth - 16);
  const x = Math.min((at ? at.right : evt?.clientX ?? 200) + 8, window.innerWidth - width - 8);
  const y = Math.min((at ? at.top : evt?.clientY ?? 200) + 8, window.innerHeight - 40 - items.length * 34);
  pop.style.left = `${Math.max(0, x)}px`;
  pop.style.top = `${Math.max(0, y)}px`;
  document.body.append(pop);
  setTimeout(() => document.addEventListener("click", function off(e) {
    if (!pop.contains(e.target)) { pop.remove(); document.removeEventListener("click", off); }
  }), 0);
}

export { toast };

// Turn clocks (a clocked table): a running clock shows when it runs out, which stays
// true between updates; a stopped one shows the time its seat has left.
function clockBadges(state, summary, over) {
  return (summary.clocks || []).map((clock) => {
    const seat = Number(clock.seat || 0);
    const left = Math.round(Number(clock.remainingMs || 0) / 1000);
    const text = clock.running && !over
      ? `${nameOf(state, seat)}: runs out at ${new Date(Number(clock.deadlineMs)).toLocaleTimeString()}`
      : `${nameOf(state, seat)}: ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
    return h("span", { class: "badge clock" + (clock.running && !over ? " waiting" : ""), "data-clock-seat": String(seat) }, text);
  });
}

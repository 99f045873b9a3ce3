// The lobby: the games and their options, open and running matches, create, join,
// quick match through the matchmaker, spectate and replay.
import { h, s, toast } from "./dom.js";
import { statusText, statusClass, shortId } from "./table.js";
import { loadRenderer, artOf } from "./renderers.js";

// Options every table has (turn clocks): folded away under their own heading.
const TABLE_OPTIONS = new Set(["clock", "clock_seconds", "clock_increment", "clock_timeout"]);

// An option's type as ListGames declares it; an older server's choice list still reads.
export function optionType(o) {
  const t = String(o.type || "");
  if (t && t !== "OPTION_TYPE_UNSPECIFIED") return t.replace("OPTION_TYPE_", "");
  if ((o.allowedValues || []).length) return "CHOICE";
  return "STRING";
}

const label = (name) => name.replace(/_/g, " ");

// The value an option's input holds, checked as the server will check it:
// {value} or {error} (a sentence a player can act on).
export function checkOption(o, raw) {
  const type = optionType(o);
  const value = String(raw ?? "").trim();
  if (type === "BOOL") return value === "true" || value === "false" ? { value } : { error: `${label(o.name)}: tick it or leave it.` };
  if (type === "INT") {
    if (value === "") return { value: String(o.default ?? "") };
    const low = o.min ?? null, high = o.max ?? null;
    const range = low !== null && high !== null ? ` from ${low} to ${high}` : low !== null ? ` of at least ${low}` : high !== null ? ` of at most ${high}` : "";
    if (!/^-?\d+$/.test(value)) return { error: `${label(o.name)} must be a whole number${range}.` };
    const n = Number(value);
    if ((low !== null && n < low) || (high !== null && n > high)) return { error: `${label(o.name)} must be a whole number${range}.` };
    return { value: String(n) };
  }
  if (type === "CHOICE") {
    const allowed = o.allowedValues || [];
    return allowed.includes(value) ? { value } : { error: `Pick one of the listed values for ${label(o.name)}.` };
  }
  return { value };
}

// One input per option, drawn by its type; `read()` is the value to check.
function optionInput(o) {
  const type = optionType(o);
  const dflt = String(o.default ?? "");
  const common = { name: o.name, title: o.description || "", "data-type": type };
  if (type === "CHOICE") {
    const el = h("select", common, (o.allowedValues || []).map((v) => h("option", { value: v, selected: v === dflt }, label(v))));
    return { el, read: () => el.value };
  }
  if (type === "BOOL") {
    const el = h("input", { ...common, type: "checkbox", checked: dflt === "true" });
    return { el, read: () => (el.checked ? "true" : "false") };
  }
  if (type === "INT") {
    const el = h("input", { ...common, type: "number", inputmode: "numeric", step: 1, min: o.min ?? null, max: o.max ?? null, value: dflt, placeholder: dflt });
    return { el, read: () => el.value };
  }
  const el = h("input", { ...common, type: "text", placeholder: dflt });
  return { el, read: () => el.value };
}

// The options form of one game: {el, config()} where config() is {config} to send
// (the values that differ from their defaults) or {errors} to show.
function optionsForm(options) {
  const fields = options.map((o) => ({ o, ...optionInput(o), error: h("div", { class: "field-error", hidden: true }) }));
  const row = (f) => [h("label", { title: f.o.description || "" }, label(f.o.name), f.el), f.error];
  const own = fields.filter((f) => !TABLE_OPTIONS.has(f.o.name));
  const table = fields.filter((f) => TABLE_OPTIONS.has(f.o.name));
  const el = h("div", { class: "opts" }, own.map(row),
    table.length ? h("details", { class: "table-opts" }, h("summary", {}, "Turn clock"), h("div", { class: "opts" }, table.map(row))) : null);
  const config = () => {
    const out = {}, errors = [];
    for (const f of fields) {
      const checked = checkOption(f.o, f.read());
      f.error.hidden = !checked.error;
      f.error.textContent = checked.error || "";
      f.el.classList.toggle("invalid", Boolean(checked.error));
      if (checked.error) { errors.push(checked.error); if (f.el.closest("details")) f.el.closest("details").open = true; }
      else if (checked.value !== "" && checked.value !== String(f.o.default ?? "")) out[f.o.name] = checked.value;
    }
    return errors.length ? { errors } : { config: out };
  };
  return { el, config };
}

// Each game's name for people, as ListGames gives it (from the game's own words).
let titles = {};
const titleOf = (game) => titles[game] || game;

export async function renderLobby(root, deps) {
  const { api, signIn, store, open, errorText, rename, displayName } = deps;
  const games = (await api.listGames()).games || [];
  titles = Object.fromEntries(games.map((g) => [g.game, g.title]));
  const gamesEl = h("div", { class: "lobby", id: "games" });
  const renderers = await Promise.all(games.map((g) => loadRenderer(g.game)));
  games.forEach((g, i) => gamesEl.append(gameCard(g, deps, renderers[i])));

  const nameInput = h("input", { id: "display-name", value: displayName(), maxlength: 32, autocomplete: "nickname",
    onchange: (e) => { rename(e.target.value); e.target.value = displayName(); } });
  const joinBy = h("input", { placeholder: "match id", id: "open-id" });
  const matchesEl = h("div", { class: "panel", id: "matches" }, h("h2", {}, "Matches"), h("p", { class: "loading" }, "Loading…"));
  const boardEl = h("div", { class: "panel", id: "leaderboard" }, h("h2", {}, "Leaderboard"), h("p", { class: "loading" }, "Loading…"));
  root.replaceChildren(
    h("div", { class: "lobby-head" },
      h("h1", {}, "Pick a game"),
      h("label", { class: "name-field" }, "Your name ", nameInput),
      h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); if (joinBy.value.trim()) open(joinBy.value.trim()); } },
        joinBy, h("button", { class: "secondary" }, "Open"))),
    gamesEl, matchesEl, boardEl);

  await Promise.all([matchList(matchesEl, deps, root), leaderboard(boardEl, games, deps)]);
}

function gameCard(g, { api, signIn, store, open, errorText }, renderer) {
  const form = optionsForm(g.options || []);
  const seats = h("select", { name: "seats" });
  for (let n = Number(g.minSeats || 1); n <= Number(g.maxSeats || 1); n++) seats.append(h("option", { value: n }, n === 1 ? "solo" : `${n} players`));
  const note = h("div", { class: "secret-note", "aria-live": "polite" });
  const checked = () => {
    const c = form.config();
    if (c.errors) { note.textContent = "Fix the options marked above first."; return null; }
    note.textContent = "";
    return c.config;
  };
  const create = async () => {
    const config = checked();
    if (!config) return;
    try {
      await signIn();
      const m = (await api.createMatch(g.game, Number(seats.value), config)).match;
      const j = await api.joinMatch(m.matchId, 0);
      store.saveSeat(m.matchId, j.seat || 0, j.token);
      open(m.matchId);
    } catch (e) { toast(errorText(e)); }
  };
  const quickBtn = h("button", { class: "secondary", "data-action": "quick" }, "Quick match");
  const cancelBtn = h("button", { class: "secondary", "data-action": "cancel", hidden: true }, "Cancel");
  const search = { ticket: "", abort: null };
  const stopWatching = () => { window.removeEventListener("pagehide", onExit); window.removeEventListener("hashchange", onExit); };
  // Leaving the page (closed, reloaded, another route) withdraws a ticket still waiting.
  const onExit = () => { if (search.ticket) api.cancelTicketOnExit(search.ticket); search.ticket = ""; stopWatching(); search.abort?.abort(); };
  const idle = (text) => { quickBtn.disabled = false; cancelBtn.hidden = true; note.textContent = text; search.ticket = ""; search.abort = null; stopWatching(); };
  quickBtn.addEventListener("click", async () => {
    const config = checked();
    if (!config) return;
    quickBtn.disabled = true;
    cancelBtn.hidden = false;
    note.textContent = "Looking for players…";
    search.abort = new AbortController();
    window.addEventListener("pagehide", onExit);
    window.addEventListener("hashchange", onExit);
    try {
      await signIn();
      const n = Number(seats.value);
      await api.queue(g.game, n, n, config, (t) => {
        if (t.ticketId) search.ticket = t.ticketId;
        if (t.status === "TICKET_STATUS_ASSIGNED" && t.assignment) {
          search.ticket = "";
          stopWatching();
          store.saveSeat(t.assignment.matchId, t.assignment.seat || 0, t.assignment.token);
          open(t.assignment.matchId);
        } else if (t.status === "TICKET_STATUS_EXPIRED") { search.ticket = ""; note.textContent = "No match was found in time. Press Quick match to try again."; }
      }, { signal: search.abort.signal });
      if (search.abort) idle(note.textContent === "Looking for players…" ? "" : note.textContent);
    } catch (e) {
      if (e && e.name === "AbortError") return;
      idle("");
      toast(errorText(e));
    }
  });
  cancelBtn.addEventListener("click", async () => {
    const ticket = search.ticket;
    search.abort?.abort();
    idle("Search cancelled.");
    if (!ticket) return;
    try { await api.cancelTicket(ticket); } catch (e) { if (e.code !== "not_found") toast(errorText(e)); }
  });
  return h("div", { class: "panel game-card", "data-game": g.game },
    h("div", { class: "art" }, artOf(renderer)),
    h("h3", {}, titleOf(g.game)),
    h("div", { class: "secret-note" }, g.summary || ""),
    form.el,
    h("div", { class: "opts" }, h("label", {}, "players", seats)),
    h("div", { class: "row" }, h("button", { onclick: create, "data-action": "create" }, "Create match"), quickBtn, cancelBtn),
    note);
}

async function matchList(matchesEl, deps, root) {
  const { api, signIn, store, open, errorText } = deps;
  const rows = [];
  for (const status of ["MATCH_STATUS_LOBBY", "MATCH_STATUS_ACTIVE", "MATCH_STATUS_FINISHED"]) {
    try { rows.push(...((await api.listMatches("", status, 25)).matches || [])); } catch (e) { toast(errorText(e)); }
  }
  const table = h("table", { class: "matches" }, h("tr", {}, ["Game", "Players", "Seats", "Status", ""].map((t) => h("th", {}, t))));
  for (const m of rows) {
    const held = (m.seats || []).filter((x) => x.playerId);
    const mine = store.seat(m.matchId);
    const st = statusText(m.status);
    let action;
    const go = () => open(m.matchId);
    if (mine) action = h("button", { onclick: go }, "Back to my seat");
    else if (st === "lobby" && held.length < Number(m.seatCount)) action = h("button", { onclick: async () => {
      try { await signIn(); const j = await api.joinMatch(m.matchId); store.saveSeat(m.matchId, j.seat || 0, j.token); go(); } catch (e) { toast(errorText(e)); }
    } }, "Join");
    else if (st === "finished") action = h("button", { class: "secondary", onclick: go }, "Replay");
    else action = h("button", { class: "secondary", onclick: go }, "Watch");
    const who = held.map((x) => x.displayName || `player ${shortId(x.playerId)}`).join(", ") || "nobody yet";
    table.append(h("tr", { "data-match": m.matchId, title: `match ${m.matchId}` },
      h("td", {}, titleOf(m.game)), h("td", { class: "who" }, who),
      h("td", {}, `${held.length}/${m.seatCount}`), h("td", {}, h("span", { class: "badge " + statusClass(m.status) }, st)),
      h("td", {}, action)));
  }
  matchesEl.replaceChildren(h("h2", {}, "Matches"),
    rows.length ? h("div", { class: "scroll-x" }, table) : h("p", {}, "No matches yet: create one above."),
    h("button", { class: "secondary", onclick: () => renderLobby(root, deps) }, "Refresh"));
}

// The best-rated players of each game, by name (an id cut short for a player with none).
async function leaderboard(el, games, { api, errorText }) {
  const sections = [];
  for (const g of games) {
    let entries = [];
    try { entries = (await api.listLeaderboard(g.game, 10)).entries || []; } catch (e) {
      if (e.code !== "unimplemented") sections.push(h("p", { class: "secret-note" }, `${titleOf(g.game)}: ${errorText(e)}`));
      continue;
    }
    if (!entries.length) continue;
    sections.push(h("h3", {}, titleOf(g.game)), h("table", { class: "matches", "data-leaderboard": g.game },
      h("tr", {}, ["#", "Player", "Rating", "Matches"].map((t) => h("th", {}, t))),
      entries.map((e) => {
        const r = e.rating || {};
        return h("tr", { "data-player": r.playerId || "" }, h("td", {}, String(e.rank || "")),
          h("td", { class: "who" }, r.displayName || `player ${shortId(r.playerId)}`),
          h("td", {}, Number(r.ordinal || 0).toFixed(1)), h("td", {}, String(r.matches || 0)));
      })));
  }
  el.replaceChildren(h("h2", {}, "Leaderboard"), ...(sections.length ? sections : [h("p", { class: "secret-note" }, "Nobody is ranked yet: ratings come from quick matches.")]));
}

// Entry: the lobby (#/), a match's table (#/match/<id>), and fixture mode
// (?fixture=<name>) that renders a recorded view with no server at all.
import { Api, Intents } from "./api.js";
import { h, toast } from "./dom.js";
import { errorText } from "./errors.js";
import { renderTable } from "./table.js";
import { loadRenderer } from "./renderers.js";
import { gameTitle } from "./words.js";
import { renderLobby } from "./lobby.js";

const params = new URLSearchParams(location.search);
const api = new Api(params.get("api") || "");
const app = document.getElementById("app");
let boards = null;
let current = null; // the running table controller

async function loadBoards() {
  if (!boards) boards = await (await fetch(new URL("data/boards.json", document.baseURI))).json();
  return boards;
}

// ---- identity and seats, kept in this browser ----
const store = {
  get device() {
    let id = localStorage.getItem("tabletop.device");
    if (!id) { id = `web-${crypto.randomUUID ? crypto.randomUUID() : Date.now() + "-" + Math.random()}`; localStorage.setItem("tabletop.device", id); }
    return id;
  },
  seats() { try { return JSON.parse(localStorage.getItem("tabletop.seats") || "{}"); } catch { return {}; } },
  seat(matchId) { return this.seats()[matchId] || null; },
  saveSeat(matchId, seat, token) { const all = this.seats(); all[matchId] = { seat, token }; localStorage.setItem("tabletop.seats", JSON.stringify(all)); },
  dropSeat(matchId) { const all = this.seats(); delete all[matchId]; localStorage.setItem("tabletop.seats", JSON.stringify(all)); },
};

// The name others see: typed in the lobby (or ?name=... once), kept in this browser;
// a guest name until then.
export const NAME_LIMIT = 32;
function displayName() {
  const asked = new URLSearchParams(location.search).get("name");
  if (asked && asked.trim()) localStorage.setItem("tabletop.name", asked.trim().slice(0, NAME_LIMIT));
  let name = localStorage.getItem("tabletop.name");
  if (!name) {
    name = `Guest ${Math.floor(1000 + Math.random() * 9000)}`;
    localStorage.setItem("tabletop.name", name);
  }
  return name;
}

function showName() { document.getElementById("who").textContent = displayName(); }

// A new name signs this device in again, so the next seat taken carries it.
function rename(name) {
  const clean = String(name || "").trim().slice(0, NAME_LIMIT);
  if (!clean || clean === localStorage.getItem("tabletop.name")) return;
  localStorage.setItem("tabletop.name", clean);
  api.session = null;
  showName();
}

async function signIn() {
  if (api.session) return api.session;
  const name = displayName();
  await api.authenticate(store.device, name);
  showName();
  return api.session;
}

const intents = new Intents();

function crumbs(text) { document.getElementById("crumbs").textContent = text; }

// ---- fixture mode ----
async function showFixture(name) {
  await loadBoards();
  const base = params.get("fixtures") || "../fixtures/";
  const fx = await (await fetch(new URL(`${name}.json`, new URL(base, document.baseURI)))).json();
  await loadRenderer(fx.match.game);
  crumbs(`fixture ${fx.name}`);
  const state = {
    match: fx.match, view: fx.view, legal: fx.legalActions, entries: fx.entries,
    seat: fx.seat ?? null, connection: "fixture", replayAt: null, history: fx.history || null,
  };
  const handlers = {
    act: (action) => { window.lastAction = action; toast(`would submit ${JSON.stringify(action).slice(0, 120)}`, "info"); },
    start() {}, leave() {}, join() {},
    replayTo(v) {
      state.replayAt = v;
      state.replayView = viewAt(state.history, v) || state.view;
      state.replayNote = state.history ? null : "This fixture has no recorded views: the log is replayed, the board shows the last position.";
      draw();
    },
  };
  const draw = () => renderTable(app, state, handlers, boards);
  draw();
  if (params.has("replay")) handlers.replayTo(Number(params.get("replay")));
  document.body.dataset.ready = "1";
}

function viewAt(history, v) {
  if (!history) return null;
  let best = null;
  for (const [ver, view] of history) if (Number(ver) <= v) best = view;
  return best;
}

// ---- a live match ----
class LiveTable {
  constructor(matchId) {
    this.matchId = matchId;
    const mine = store.seat(matchId);
    this.state = { match: { matchId, game: "", status: "" }, view: null, legal: [], entries: [], seat: mine ? mine.seat : null, connection: "connecting", replayAt: null };
    this.token = mine ? mine.token : null;
    this.abort = new AbortController();
    this.handlers = {
      act: (a) => this.act(a),
      undo: () => this.undo(),
      start: () => this.start(),
      leave: () => this.leave(),
      join: (seat) => this.join(seat),
      replayTo: (v) => this.replayTo(v),
    };
  }

  async open() {
    await loadBoards();
    await this.refresh();
    if (this.state.match) await loadRenderer(this.state.match.game);
    await this.loadLog();
    this.draw();
    this.watch();
  }

  stop() { this.abort.abort(); }

  async refresh() {
    try {
      const r = await api.getView(this.matchId, this.token);
      this.state.match = r.match; this.state.view = r.view;
      if (r.seat === undefined && this.token) { /* seat token no longer valid */ }
    } catch (e) {
      if (this.token && (e.code === "unauthenticated" || e.code === "permission_denied")) {
        // an expired seat token: ask for a new one while this player still holds the seat
        if (e.code === "unauthenticated" && !this.retried) {
          this.retried = true;
          try {
            await signIn();
            const t = await api.getSeatToken(this.matchId, this.state.seat);
            store.saveSeat(this.matchId, t.seat || 0, t.token);
            this.token = t.token;
            return await this.refresh();
          } catch { /* the seat is gone */ } finally { this.retried = false; }
        }
        store.dropSeat(this.matchId); this.token = null; this.state.seat = null;
        return this.refresh();
      }
      throw e;
    }
    await this.refreshLegal();
    const game = this.state.match.game, id = this.matchId;
    crumbs(`${gameTitle(game, () => crumbs(`${gameTitle(game)} · ${id}`))} · ${id}`);
  }

  async refreshLegal() {
    if (this.token && this.state.match.status === "MATCH_STATUS_ACTIVE") {
      const l = await api.listLegalActions(this.matchId, this.token);
      this.state.legal = l.actions || [];
    } else this.state.legal = [];
  }

  async loadLog() {
    let after = 0;
    const all = [];
    for (let i = 0; i < 100; i++) {
      const r = await api.getMatchLog(this.matchId, after, 1000, this.token);
      const got = r.entries || [];
      all.push(...got);
      if (got.length < 1000) break;
      after = Number(got[got.length - 1].version);
    }
    this.state.entries = all;
  }

  async watch() {
    let backoff = 500;
    while (!this.abort.signal.aborted) {
      try {
        this.state.connection = "live";
        this.draw();
        const after = Number(this.state.match.version || 0);
        await api.watchMatch(this.matchId, after, (u) => {
          backoff = 500;
          if (u.entries) this.state.entries.push(...u.entries.filter((e) => Number(e.version) > this.lastVersion()));
          if (u.match) this.state.match = u.match;
          if (u.view) this.state.view = u.view;
          // with_legal_actions: an update leaves the list out when the seat has nothing to do
          this.state.legal = this.token && this.state.match.status === "MATCH_STATUS_ACTIVE" ? u.legalActions || [] : [];
          const mine = (this.state.match.toMove || []).map(Number).includes(this.state.seat);
          if (!u.legalActions && mine && this.token) this.refreshLegal().then(() => this.draw());
          this.draw();
        }, { seatToken: this.token, signal: this.abort.signal });
        if (this.state.match.status === "MATCH_STATUS_FINISHED") { this.state.connection = "finished"; this.draw(); return; }
      } catch (e) {
        if (this.abort.signal.aborted) return;
        this.state.connection = "reconnecting";
        this.draw();
      }
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(backoff * 2, 8000);
      try { await this.refresh(); } catch { /* next round */ }
    }
  }

  lastVersion() { const e = this.state.entries; return e.length ? Number(e[e.length - 1].version) : 0; }

  // One choice, one SubmitAction: nothing else is sent while it is on its way, and a
  // retry of the same move at the same version carries the same command id.
  async act(action) {
    if (this.sending) return;
    const key = `${this.matchId}@${this.state.match.version || 0}:${JSON.stringify(action)}`;
    const id = intents.begin(key);
    if (!id) return;
    this.sending = true;
    document.body.classList.add("sending");
    try {
      const r = await api.submitAction(this.matchId, action, this.token, id);
      intents.answered(key);
      if (r.match && r.view && !r.duplicate) {
        this.state.match = r.match;
        this.state.view = r.view;
        this.state.legal = this.state.match.status === "MATCH_STATUS_ACTIVE" ? r.legalActions || [] : [];
      } else {
        this.state.legal = [];
        this.draw();
        await this.refresh();
      }
      this.draw();
    } catch (e) {
      if (Intents.unknownFate(e)) intents.unanswered(key); else intents.answered(key);
      toast(errorText(e));
    } finally {
      this.sending = false;
      document.body.classList.remove("sending");
    }
  }

  async undo() {
    try {
      await api.undoActions(this.matchId, 1, this.token);
      await this.refresh();
      this.draw();
    } catch (e) { toast(errorText(e)); }
  }

  async start() {
    try { await api.startMatch(this.matchId, this.token); await this.refresh(); this.draw(); } catch (e) { toast(errorText(e)); }
  }

  async leave() {
    try { await api.leaveMatch(this.matchId, this.token); } catch (e) { toast(errorText(e)); }
    store.dropSeat(this.matchId); this.token = null; this.state.seat = null;
    await this.refresh(); this.draw();
  }

  async join(seat) {
    try {
      await signIn();
      const r = await api.joinMatch(this.matchId, seat);
      store.saveSeat(this.matchId, r.seat || 0, r.token);
      this.token = r.token; this.state.seat = r.seat || 0;
      this.stop(); this.abort = new AbortController();
      await this.refresh(); this.draw(); this.watch();
    } catch (e) { toast(errorText(e)); }
  }

  // The log and the board at version `v` of a finished match (the gateway replays
  // its log to that version); the last request wins when the slider moves fast.
  async replayTo(v) {
    this.state.replayAt = v;
    this.state.replayNote = null;
    this.draw();
    const asked = (this.replayAsked = v);
    try {
      const reply = await api.getViewAt(this.matchId, v, this.token);
      if (this.replayAsked !== asked) return;
      this.state.replayView = reply.view || null;
      this.state.replayNote = reply.view ? null : "The match had not started yet at this version.";
    } catch (e) {
      if (this.replayAsked !== asked) return;
      this.state.replayView = null;
      this.state.replayNote = `The board keeps the last position (${errorText(e)}).`;
    }
    this.draw();
  }

  draw() {
    if (current !== this || !this.state.view) return;
    renderTable(app, this.state, this.handlers, boards);
    document.body.dataset.ready = "1";
  }
}


// ---- routing ----
async function route() {
  if (current) { current.stop(); current = null; }
  document.querySelector(".choice-pop")?.remove();
  delete document.body.dataset.ready;
  const fixture = params.get("fixture");
  try {
    if (fixture) return await showFixture(fixture);
    const m = location.hash.match(/^#\/match\/([^/?]+)/);
    if (m) {
      current = new LiveTable(decodeURIComponent(m[1]));
      app.replaceChildren(h("p", { class: "loading" }, "Opening the table…"));
      return await current.open();
    }
    crumbs("Lobby");
    document.title = "Tabletop";
    await renderLobby(app, { api, signIn, store, rename, displayName, open: (id) => { location.hash = `#/match/${encodeURIComponent(id)}`; }, errorText });
    document.body.dataset.ready = "1";
  } catch (e) {
    app.replaceChildren(h("div", { class: "panel", id: "failure" }, h("h2", {}, "This page could not open"), h("p", {}, errorText(e)),
      h("div", { class: "row" }, h("button", { onclick: () => route() }, "Try again"), h("a", { href: "#/" }, "Back to the lobby"))));
    document.body.dataset.ready = "error";
  }
}

window.addEventListener("hashchange", route);
showName();
route();

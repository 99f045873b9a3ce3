// The gateway's API over the Connect protocol with JSON bodies (no generated code:
// Connect JSON is the proto3 JSON mapping, and the edge resolves every Any to
// {"@type": ..., fields}). Unary calls are one POST; server streams use Connect's
// enveloped framing (application/connect+json) read from a fetch body stream.

// The API is five services by concern; each method's path names its service.
const SERVICE_OF = {
  SignIn: ["Authenticate", "RefreshSession", "GetSeatToken"],
  Lobby: ["ListGames", "DescribeGame", "CreateMatch", "ListMatches", "JoinMatch", "LeaveMatch", "StartMatch"],
  Play: ["ListLegalActions", "SubmitAction", "UndoActions", "Play"],
  Watch: ["GetView", "WatchMatch", "GetMatchLog"],
  Matchmaking: ["FindMatch", "WatchTicket", "Queue", "CancelTicket", "GetRating", "ListLeaderboard"],
};
const PATHS = Object.fromEntries(Object.entries(SERVICE_OF).flatMap(([service, methods]) =>
  methods.map((method) => [method, `/tabletop.gateway.v1.${service}Service/${method}`])));

// "/tabletop.gateway.v1.PlayService/SubmitAction" for "SubmitAction".
export function apiPath(method) {
  const path = PATHS[method];
  if (!path) throw new Error(`no API method ${method}`);
  return path;
}

export class ApiError extends Error {
  // code: Connect's code name ("unavailable"); reason: the broken rule's id from the
  // status's ErrorInfo ("match.full"), "" when the status carries none.
  constructor(code, message, reason = "") {
    super(message || code);
    this.code = code;
    this.reason = reason;
  }
}

// Unary calls give up after this long: a hung connection is told apart from a slow move.
const CALL_TIMEOUT_MS = 20000;

// fetch() fails with the browser's own words ("Failed to fetch", "NetworkError when
// attempting to fetch resource", "Load failed") when nothing answers: the server is
// unreachable. A timeout is a deadline. Everything else is passed on as it is.
function transportError(e) {
  if (e instanceof ApiError) return e;
  if (e && (e.name === "TimeoutError")) return new ApiError("deadline_exceeded", "");
  if (e && e.name === "AbortError") return e;
  if (e instanceof TypeError) return new ApiError("unavailable", "");
  return e;
}

// An HTTP status without a Connect error body (a proxy's page, an edge that is not there).
function httpCode(status) {
  if (status === 502 || status === 503 || status === 504) return "unavailable";
  if (status === 404) return "unimplemented";
  if (status === 429) return "resource_exhausted";
  if (status === 401) return "unauthenticated";
  if (status === 403) return "permission_denied";
  return "unknown";
}

// The ErrorInfo reason among a Connect error's details: Connect servers add the
// decoded message as `debug`; otherwise field 1 (reason) of the packed bytes.
export function reasonOf(details) {
  for (const d of details || []) {
    if (!String(d.type || "").endsWith("google.rpc.ErrorInfo")) continue;
    if (d.debug && d.debug.reason) return String(d.debug.reason);
    try { return firstStringField(Uint8Array.from(atob(padBase64(d.value || "")), (c) => c.charCodeAt(0))); } catch { /* not base64 */ }
  }
  return "";
}

function padBase64(v) {
  const b = String(v).replace(/-/g, "+").replace(/_/g, "/");
  return b + "===".slice((b.length + 3) % 4);
}

// Field 1 (length-delimited) of a protobuf message: ErrorInfo.reason.
function firstStringField(bytes) {
  let i = 0;
  const varint = () => { let v = 0, shift = 0, b; do { b = bytes[i++]; v += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80); return v; };
  while (i < bytes.length) {
    const key = varint(), field = key >>> 3, wire = key & 7;
    if (wire === 2) { const len = varint(); if (field === 1) return new TextDecoder().decode(bytes.subarray(i, i + len)); i += len; }
    else if (wire === 0) varint();
    else if (wire === 5) i += 4;
    else if (wire === 1) i += 8;
    else return "";
  }
  return "";
}

function errorOf(data, status) {
  return new ApiError(data.code || httpCode(status), data.message, reasonOf(data.details));
}

export class Api {
  constructor(base = "") {
    this.base = base.replace(/\/$/, "");
    this.session = null; // session token (Authenticate)
  }

  headers(token, streaming = false) {
    const h = {
      "Content-Type": streaming ? "application/connect+json" : "application/json",
      "Connect-Protocol-Version": "1",
    };
    if (token) h["Authorization"] = `Bearer ${token}`;
    return h;
  }

  async call(method, body = {}, token = null) {
    try {
      return await this.once(method, body, token);
    } catch (e) {
      // an expired session: sign the same device in again, once
      if (e.code === "unauthenticated" && token && token === this.session && this.deviceId) {
        await this.authenticate(this.deviceId, this.displayName);
        return this.once(method, body, this.session);
      }
      throw e;
    }
  }

  async once(method, body, token) {
    let res, text;
    try {
      res = await fetch(`${this.base}${apiPath(method)}`, {
        method: "POST",
        headers: this.headers(token),
        body: JSON.stringify(body),
        signal: AbortSignal.timeout ? AbortSignal.timeout(CALL_TIMEOUT_MS) : undefined,
      });
      text = await res.text();
    } catch (e) { throw transportError(e); }
    let data = {};
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      throw new ApiError(httpCode(res.ok ? 0 : res.status), "");
    }
    if (!res.ok) throw errorOf(data, res.status);
    return data;
  }

  // A server stream: calls onMessage(msg) per message; resolves at the end of the
  // stream, rejects with ApiError on an error end. `signal` aborts it.
  async stream(method, body, onMessage, { token = null, signal } = {}) {
    const json = new TextEncoder().encode(JSON.stringify(body));
    const frame = new Uint8Array(5 + json.length);
    new DataView(frame.buffer).setUint32(1, json.length);
    frame.set(json, 5);
    let res;
    try {
      res = await fetch(`${this.base}${apiPath(method)}`, {
        method: "POST",
        headers: this.headers(token, true),
        body: frame,
        signal,
      });
    } catch (e) { throw transportError(e); }
    if (!res.ok) {
      let data = {};
      try { data = await res.json(); } catch { /* not JSON */ }
      throw errorOf(data, res.status);
    }
    try { await this.frames(res, onMessage); } catch (e) { throw transportError(e); }
  }

  async frames(res, onMessage) {
    const reader = res.body.getReader();
    let buf = new Uint8Array(0);
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const joined = new Uint8Array(buf.length + value.length);
      joined.set(buf);
      joined.set(value, buf.length);
      buf = joined;
      while (buf.length >= 5) {
        const flags = buf[0];
        const len = new DataView(buf.buffer, buf.byteOffset).getUint32(1);
        if (buf.length < 5 + len) break;
        const payload = JSON.parse(decoder.decode(buf.subarray(5, 5 + len)) || "{}");
        buf = buf.slice(5 + len);
        if (flags & 0x02) {
          if (payload.error) throw errorOf(payload.error, 200);
          return;
        }
        onMessage(payload);
      }
    }
  }

  // ---- the gateway's methods, as the web table uses them ----
  async authenticate(deviceId, displayName = "") {
    this.deviceId = deviceId;
    this.displayName = displayName;
    const r = await this.once("Authenticate", displayName ? { deviceId, displayName } : { deviceId });
    this.session = r.sessionToken;
    return r;
  }
  listGames() { return this.call("ListGames"); }
  listMatches(game = "", status = "", limit = 50) {
    const body = { limit };
    if (game) body.game = game;
    if (status) body.status = status;
    return this.call("ListMatches", body);
  }
  createMatch(game, seatCount, config) {
    return this.call("CreateMatch", { game, seatCount, config, commandId: commandId() }, this.session);
  }
  joinMatch(matchId, seat) {
    const body = { matchId, commandId: commandId() };
    if (seat !== undefined && seat !== null) body.seat = seat;
    return this.call("JoinMatch", body, this.session);
  }
  getSeatToken(matchId, seat) {
    const body = { matchId };
    if (seat !== undefined && seat !== null) body.seat = seat;
    return this.call("GetSeatToken", body, this.session);
  }
  leaveMatch(matchId, seatToken) { return this.call("LeaveMatch", { matchId, commandId: commandId() }, seatToken); }
  startMatch(matchId, seatToken) { return this.call("StartMatch", { matchId, commandId: commandId() }, seatToken); }
  getView(matchId, seatToken) { return this.call("GetView", { matchId }, seatToken); }
  // Replay of a finished match: the view as it was at `version`.
  getViewAt(matchId, version, seatToken) {
    return this.call("GetView", { matchId, atVersion: String(version) }, seatToken);
  }
  listLegalActions(matchId, seatToken) { return this.call("ListLegalActions", { matchId }, seatToken); }
  undoActions(matchId, count, seatToken) {
    return this.call("UndoActions", { matchId, count, commandId: commandId() }, seatToken);
  }

  // `id`: the command id of this intent (Intents below), reused when the same move is retried.
  submitAction(matchId, action, seatToken, id = commandId()) {
    return this.call("SubmitAction", { matchId, action, commandId: id }, seatToken);
  }
  getMatchLog(matchId, afterVersion = 0, limit = 1000, seatToken = null) {
    return this.call("GetMatchLog", { matchId, afterVersion: String(afterVersion), limit }, seatToken);
  }
  watchMatch(matchId, afterVersion, onMessage, { seatToken = null, signal } = {}) {
    return this.stream(
      "WatchMatch",
      { matchId, afterVersion: String(afterVersion || 0), withView: true, withLegalActions: Boolean(seatToken) },
      onMessage,
      { token: seatToken, signal },
    );
  }
  findMatch(game, playersMin, playersMax, options) {
    return this.call("FindMatch", { game, playersMin, playersMax, options, commandId: commandId() }, this.session);
  }
  watchTicket(ticketId, onMessage, { signal } = {}) {
    return this.stream("WatchTicket", { ticketId }, onMessage, { token: this.session, signal });
  }
  // FindMatch and WatchTicket in one stream: the ticket first, then its status, ending
  // with the assignment; a stream closed and not reopened in time withdraws the ticket.
  queue(game, playersMin, playersMax, options, onMessage, { signal } = {}) {
    return this.stream(
      "Queue",
      { game, playersMin, playersMax, options, commandId: commandId() },
      onMessage,
      { token: this.session, signal },
    );
  }
  cancelTicket(ticketId) { return this.call("CancelTicket", { ticketId }, this.session); }
  listLeaderboard(game, limit = 10) { return this.call("ListLeaderboard", { game, limit }); }
  // The same, from a page being closed or left: a keepalive request outlives the page.
  cancelTicketOnExit(ticketId) {
    if (!ticketId || !this.session) return;
    try {
      fetch(`${this.base}${apiPath("CancelTicket")}`, {
        method: "POST", keepalive: true, headers: this.headers(this.session), body: JSON.stringify({ ticketId }),
      }).catch(() => {});
    } catch { /* the page is going away */ }
  }
}

// One command id per intent (a move chosen at a version of a match) until the server
// answers it: a retry after a lost answer sends the same id, so the match applies the
// move once however often it arrives; a second click while it is on its way sends nothing.
export class Intents {
  constructor() { this.pending = new Map(); } // key -> {id, sending}

  // The command id to send for `key`, or null while that intent is on its way.
  begin(key) {
    const known = this.pending.get(key);
    if (known && known.sending) return null;
    const entry = known || { id: commandId(), sending: false };
    entry.sending = true;
    this.pending.set(key, entry);
    return entry.id;
  }

  // The server decided (applied it or refused it): the next click is a new command.
  answered(key) { this.pending.delete(key); }

  // No answer came (unreachable, timed out): keep the id for the retry.
  unanswered(key) { const e = this.pending.get(key); if (e) e.sending = false; }

  // Whether a failure leaves the command's fate unknown (it may have been applied).
  static unknownFate(e) {
    return !(e instanceof ApiError) || ["unavailable", "deadline_exceeded", "unknown", "internal", "canceled"].includes(e.code);
  }
}

export function commandId() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `c-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

// The gateway's API over the Connect protocol with JSON bodies (no generated code:
// Connect JSON is the proto3 JSON mapping, and the edge resolves every Any to
// {"@type": ..., fields}). Unary calls are one POST; server streams use Connect's
// enveloped framing (application/connect+json) read from a fetch body stream.

const SERVICE = "tabletop.gateway.v1.GatewayService";

export class ApiError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
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
    const res = await fetch(`${this.base}/${SERVICE}/${method}`, {
      method: "POST",
      headers: this.headers(token),
      body: JSON.stringify(body),
    });
    const text = await res.text();
    let data = {};
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      throw new ApiError("unknown", `${res.status} ${text.slice(0, 200)}`);
    }
    if (!res.ok) throw new ApiError(data.code || `http_${res.status}`, data.message);
    return data;
  }

  // A server stream: calls onMessage(msg) per message; resolves at the end of the
  // stream, rejects with ApiError on an error end. `signal` aborts it.
  async stream(method, body, onMessage, { token = null, signal } = {}) {
    const json = new TextEncoder().encode(JSON.stringify(body));
    const frame = new Uint8Array(5 + json.length);
    new DataView(frame.buffer).setUint32(1, json.length);
    frame.set(json, 5);
    const res = await fetch(`${this.base}/${SERVICE}/${method}`, {
      method: "POST",
      headers: this.headers(token, true),
      body: frame,
      signal,
    });
    if (!res.ok) {
      let data = {};
      try { data = await res.json(); } catch { /* not JSON */ }
      throw new ApiError(data.code || `http_${res.status}`, data.message);
    }
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
          if (payload.error) throw new ApiError(payload.error.code, payload.error.message);
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

  submitAction(matchId, action, seatToken) {
    return this.call("SubmitAction", { matchId, action, commandId: commandId() }, seatToken);
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
}

export function commandId() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `c-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

// A whole match through the HTTP edge from Node (18+) or a browser, with
// nothing but fetch: the Connect protocol's JSON form.
//
//   EDGE=http://127.0.0.1:8080 GAME=la_isla node docs/examples/connect_node.mjs
//
// Unary calls are a POST of JSON to /<service>/<Method>; a refusal is an HTTP
// error with {"code", "message", "details"}. A server stream (WatchMatch) is
// sent and answered in envelopes: a flag byte, a 4-byte big-endian length,
// then the JSON; the last envelope (flag 2) ends the stream, with an error if
// the stream failed.

const EDGE = process.env.EDGE ?? "http://127.0.0.1:8080";
const GAME = process.env.GAME ?? "la_isla";
// The API is five services by concern; a method's path names its service.
const SERVICE_OF = {
  SignIn: ["Authenticate", "RefreshSession", "GetSeatToken"],
  Lobby: ["ListGames", "DescribeGame", "CreateMatch", "ListMatches", "JoinMatch", "LeaveMatch", "StartMatch"],
  Play: ["ListLegalActions", "SubmitAction", "UndoActions", "Play"],
  Watch: ["GetView", "WatchMatch", "GetMatchLog"],
  Matchmaking: ["FindMatch", "WatchTicket", "Queue", "CancelTicket", "GetRating", "ListLeaderboard"],
};
const url = (method) => {
  const [service] = Object.entries(SERVICE_OF).find(([, methods]) => methods.includes(method));
  return `${EDGE}/tabletop.gateway.v1.${service}Service/${method}`;
};

async function call(method, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const reply = await fetch(url(method), { method: "POST", headers, body: JSON.stringify(body) });
  const json = await reply.json();
  if (!reply.ok) throw Object.assign(new Error(`${method}: ${json.code}: ${json.message}`), { code: json.code });
  return json;
}

function envelope(message) {
  const data = new TextEncoder().encode(JSON.stringify(message));
  const framed = new Uint8Array(5 + data.length);
  new DataView(framed.buffer).setUint32(1, data.length);
  framed.set(data, 5);
  return framed;
}

// Yields each message of a server stream as it arrives.
async function* stream(method, body, token) {
  const headers = { "Content-Type": "application/connect+json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const reply = await fetch(url(method), { method: "POST", headers, body: envelope(body) });
  let buffered = new Uint8Array(0);
  for await (const chunk of reply.body) {
    buffered = new Uint8Array([...buffered, ...chunk]);
    while (buffered.length >= 5) {
      const length = new DataView(buffered.buffer, buffered.byteOffset).getUint32(1);
      if (buffered.length < 5 + length) break;
      const flags = buffered[0];
      const message = JSON.parse(new TextDecoder().decode(buffered.slice(5, 5 + length)));
      buffered = buffered.slice(5 + length);
      if (flags & 2) {
        if (message.error) throw new Error(`${method}: ${message.error.code}: ${message.error.message}`);
        return;
      }
      yield message;
    }
  }
}

const deviceId = (name) => `node-example-${name}-${Math.random().toString(36).slice(2)}`;
const ana = await call("Authenticate", { deviceId: deviceId("ana") });
const ben = await call("Authenticate", { deviceId: deviceId("ben") });
console.log("signed in:", ana.playerId, ben.playerId);

const { match } = await call("CreateMatch", { game: GAME, seatCount: 2, commandId: "create-1" }, ana.sessionToken);
const seats = {};
for (const player of [ana, ben]) {
  const joined = await call("JoinMatch", { matchId: match.matchId }, player.sessionToken);
  seats[joined.seat ?? 0] = joined.token;
}
await call("StartMatch", { matchId: match.matchId, commandId: "start-1" }, seats[0]);
console.log("match", match.matchId, "started");

// Every update names the seats to move; each of them plays a random legal action.
let moves = 0;
for await (const update of stream("WatchMatch", { matchId: match.matchId }, seats[0])) {
  if (update.match.status === "MATCH_STATUS_FINISHED") {
    console.log(`finished at version ${update.match.version} after ${moves} moves; ranking`,
      update.match.outcome.ranking);
    break;
  }
  for (const seat of update.match.toMove ?? []) {
    const legal = await call("ListLegalActions", { matchId: match.matchId }, seats[seat]);
    if (!legal.actions?.length) continue;
    const action = legal.actions[Math.floor(Math.random() * legal.actions.length)];
    try {
      await call("SubmitAction", { matchId: match.matchId, action, commandId: `seat${seat}-v${legal.version}` },
        seats[seat]);
      moves += 1;
    } catch (error) {
      // Another update already moved the match on (ABORTED / FAILED_PRECONDITION): the next update says what now.
      if (!["aborted", "failed_precondition"].includes(error.code)) throw error;
    }
  }
  if (moves > 5000) throw new Error("the match did not end");
}

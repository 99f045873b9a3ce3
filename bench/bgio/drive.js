// Drive the boardgame.io server like Tabletop's bench drives its gateway: MATCHES
// concurrent matches for SECONDS, each with two socket.io clients (one per seat),
// a finished match replaced by a new one (created and joined through the lobby API).
// Latency of a move: from the mover's call to its client receiving the new state.
// Usage: node drive.js URL MATCHES SECONDS; prints one JSON object.
const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { DiceHand } = require('./game');

const [url, matches, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const GRACE_MS = 5000;
const lobby = new LobbyClient({ server: url });
const latencies = [];
let failed = 0;

function seat(matchID, playerID, credentials, stopAt, done) {
  const client = Client({
    game: DiceHand, multiplayer: SocketIO({ server: url, socketOpts: { transports: ['websocket'] } }), matchID, playerID, credentials, debug: false,
  });
  let pending = null; // the move awaiting its new state: {sent, stateID}
  let over = false;
  const finish = () => { if (!over) { over = true; clearTimeout(patience); client.stop(); done(); } };
  // With no move awaiting its state, a seat stops at stopAt even if nothing arrives.
  let patience = setTimeout(() => { if (!pending) finish(); }, Math.max(0, stopAt - Date.now()));
  client.subscribe((state) => {
    if (over || !state) return;
    if (pending && state._stateID > pending.stateID) {
      latencies.push((performance.now() - pending.sent) / 1000);
      pending = null;
    }
    if (state.ctx.gameover || Date.now() > stopAt) {
      if (!pending) finish();
      return;
    }
    if (!pending && state.ctx.currentPlayer === playerID) {
      pending = { sent: performance.now(), stateID: state._stateID };
      setImmediate(() => client.moves.move()); // not from inside the store's listener
    }
  });
  client.start();
  return client;
}

async function match(stopAt) {
  const { matchID } = await lobby.createMatch('dice_hand', { numPlayers: 2 });
  const joined = [];
  for (const playerID of ['0', '1']) {
    joined.push(await lobby.joinMatch('dice_hand', matchID, { playerID, playerName: `bot-${playerID}` }));
  }
  await new Promise((resolve) => {
    let left = 2;
    const guard = setTimeout(resolve, Math.max(0, stopAt - Date.now()) + GRACE_MS);
    const done = () => { if (--left === 0) { clearTimeout(guard); resolve(); } };
    joined.forEach((j, i) => seat(matchID, String(i), j.playerCredentials, stopAt, done));
  });
}

async function lane(stopAt) {
  while (Date.now() < stopAt) {
    try {
      await match(stopAt);
    } catch (error) {
      if (process.env.BENCH_DEBUG) console.error(error);
      failed += 1; // counted and reported; the lane goes on with a new match
    }
  }
}

async function main() {
  const started = performance.now();
  const stopAt = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: matches }, () => lane(stopAt)));
  const wall = (performance.now() - started) / 1000;
  process.stdout.write(JSON.stringify({ latencies, wall_seconds: wall, failed }) + '\n');
  process.exit(0);
}

main();

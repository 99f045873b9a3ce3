// Drive the boardgame.io server as Tabletop's bench drives its gateway: MATCHES
// concurrent matches, each with two socket.io clients (one per seat), a finished
// match replaced by a new one (created and joined through the lobby API).
// Every lane opens its first match before the run starts: it prints "opened" and
// waits for a line on stdin (the parent reads the server's CPU meanwhile), then
// plays for SECONDS and prints one JSON object.
// Latency of a move: from the mover's call to its client receiving the new state.
// Usage: node drive.js URL MATCHES SECONDS
const readline = require('node:readline');
const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { DiceHand } = require('./game');

const [url, matches, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const GRACE_MS = 5000;
const lobby = new LobbyClient({ server: url });
const latencies = [];
let failed = 0;

// One seat's client, connected; `play(stopAt)` moves whenever it is this seat's turn.
function connect(matchID, playerID, credentials) {
  const client = Client({
    game: DiceHand,
    multiplayer: SocketIO({ server: url, socketOpts: { transports: ['websocket'] } }),
    matchID, playerID, credentials, debug: false,
  });
  let onState = null;
  const ready = new Promise((resolve) => { onState = (state) => { if (state) resolve(); }; });
  client.subscribe((state) => onState(state));
  client.start();
  let stopped = false;
  const stop = () => { if (!stopped) { stopped = true; client.stop(); } };

  const play = (stopAt) => new Promise((done) => {
    let pending = null; // the move awaiting its new state: {sent, stateID}
    let over = false;
    const finish = () => { if (!over) { over = true; clearTimeout(patience); stop(); done(); } };
    // With no move awaiting its state, a seat stops at stopAt even if nothing arrives.
    const patience = setTimeout(() => { if (!pending) finish(); }, Math.max(0, stopAt - Date.now()));
    onState = (state) => {
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
    };
    onState(client.getState());
  });
  return { ready, play, stop };
}

async function open() {
  const { matchID } = await lobby.createMatch('dice_hand', { numPlayers: 2 });
  const seats = [];
  for (const playerID of ['0', '1']) {
    const joined = await lobby.joinMatch('dice_hand', matchID, { playerID, playerName: `bot-${playerID}` });
    seats.push(connect(matchID, playerID, joined.playerCredentials));
  }
  await Promise.all(seats.map((seat) => seat.ready));
  return seats;
}

async function play(seats, stopAt) {
  let guard;
  const timeout = new Promise((resolve) => { guard = setTimeout(resolve, Math.max(0, stopAt - Date.now()) + GRACE_MS); });
  await Promise.race([Promise.all(seats.map((seat) => seat.play(stopAt))), timeout]);
  clearTimeout(guard);
  seats.forEach((seat) => seat.stop());
}

async function lane(go) {
  let seats = null;
  try {
    seats = await open();
  } catch (error) {
    failed += 1;
  }
  const stopAt = await go(seats !== null);
  while (seats !== null) {
    await play(seats, stopAt);
    seats = null;
    while (seats === null && Date.now() < stopAt) {
      try {
        seats = await open();
      } catch (error) {
        failed += 1; // counted and reported; the lane goes on with a new match
      }
    }
  }
}

async function main() {
  let opened = 0;
  let start;
  const started = new Promise((resolve) => { start = resolve; });
  const go = (_) => {
    opened += 1;
    if (opened === matches) {
      process.stdout.write('opened\n');
      readline.createInterface({ input: process.stdin }).once('line', () => {
        start({ at: performance.now(), stopAt: Date.now() + seconds * 1000 });
      });
    }
    return started.then((clock) => clock.stopAt);
  };
  const lanes = Array.from({ length: matches }, () => lane(go));
  const clock = await started;
  await Promise.all(lanes);
  const wall = (performance.now() - clock.at) / 1000;
  // Exit once the (asynchronous) pipe has taken the whole line.
  process.stdout.write(JSON.stringify({ latencies, wall_seconds: wall, failed }) + '\n', () => process.exit(0));
}

main();

// Drive the boardgame.io server as Tabletop's bench drives its gateway: MATCHES
// concurrent matches, each with two socket.io clients (one per seat), a finished
// match replaced by a new one (created and joined through the lobby API).
// Every lane opens its first match before the run starts: it prints "opened" and
// waits for a line on stdin (the parent reads the server's CPU meanwhile), then
// plays for SECONDS and prints one JSON object.
// Latency of a move: from the mover's call until BOTH seats' clients hold a state
// past the one it was made at (the later of the two), as bench/arrivals.py reads
// Tabletop's.
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

// One match's moves on their way to its seats: a move's latency runs from its
// send until every seat's client has shown a later state.
function book(playerIDs) {
  const pending = []; // {sent, stateID, waiting: Set of playerIDs, last}
  const listeners = [];
  return {
    sent(stateID) { pending.push({ sent: performance.now(), stateID, waiting: new Set(playerIDs), last: 0 }); },
    seen(playerID, stateID) {
      const now = performance.now();
      for (let i = pending.length - 1; i >= 0; i -= 1) {
        const move = pending[i];
        if (stateID > move.stateID && move.waiting.delete(playerID)) {
          move.last = Math.max(move.last, now);
          if (move.waiting.size === 0) {
            latencies.push((move.last - move.sent) / 1000);
            pending.splice(i, 1);
          }
        }
      }
      listeners.forEach((listener) => listener());
    },
    owes(playerID) { return pending.some((move) => move.waiting.has(playerID)); },
    // Called after every seen(): a seat owed nothing may stop.
    listen(listener) { listeners.push(listener); },
  };
}

// One seat's client, connected; `play(stopAt)` moves whenever it is this seat's turn.
function connect(matchID, playerID, credentials, moves) {
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
    let pending = null; // the stateID this seat's own move was made at, until its new state comes
    let gameover = false;
    let over = false;
    const finish = () => { if (!over) { over = true; clearTimeout(patience); stop(); done(); } };
    // Past the end (or the game's), a seat stops once nothing is owed to it: its own
    // move's state, or the state of a move the other seat made.
    const settle = () => {
      if (!over && (gameover || Date.now() >= stopAt) && pending === null && !moves.owes(playerID)) finish();
    };
    // Owing nothing, a seat stops at stopAt even if nothing arrives.
    const patience = setTimeout(settle, Math.max(0, stopAt - Date.now()));
    moves.listen(settle);
    onState = (state) => {
      if (over || !state) return;
      if (pending !== null && state._stateID > pending) pending = null;
      moves.seen(playerID, state._stateID); // settles every seat
      gameover = gameover || Boolean(state.ctx.gameover);
      if (gameover || Date.now() >= stopAt) {
        settle();
        return;
      }
      if (pending === null && state.ctx.currentPlayer === playerID) {
        pending = state._stateID;
        moves.sent(state._stateID);
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
  const moves = book(['0', '1']);
  for (const playerID of ['0', '1']) {
    const joined = await lobby.joinMatch('dice_hand', matchID, { playerID, playerName: `bot-${playerID}` });
    seats.push(connect(matchID, playerID, joined.playerCredentials, moves));
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

// boardgame.io's own server (Koa + socket.io) with its default in-memory storage.
// Usage: node server.js PORT; prints "ready" once it listens.
const { Server } = require('boardgame.io/server');
const { DiceHand } = require('./game');

const port = Number(process.argv[2]);
const server = Server({ games: [DiceHand] });
server.run(port, () => console.log('ready'));

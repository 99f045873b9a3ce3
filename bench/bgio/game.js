// Dice and a hidden hand (tests/fixtures/dice_hand in Tabletop), as a boardgame.io game:
// two seats take turns; every move rolls two dice and draws a card from a hidden,
// shuffled deck into the mover's hand, which only that seat sees.
const { PlayerView } = require('boardgame.io/core');

const MOVES = 40;

const DiceHand = {
  name: 'dice_hand',
  minPlayers: 2,
  maxPlayers: 2,
  setup: ({ random }) => ({
    // STRIP_SECRETS sends no client `secret`, and each client only its own `players` entry.
    secret: { deck: random.Shuffle(Array.from({ length: MOVES }, (_, i) => `c${i}`)) },
    players: { 0: { hand: [] }, 1: { hand: [] } },
    scores: [0, 0],
    made: 0,
  }),
  playerView: PlayerView.STRIP_SECRETS,
  moves: {
    move: {
      // Server only: the client knows neither the deck nor the random seed.
      client: false,
      move: ({ G, random, playerID }) => {
        const dice = random.Die(6, 2);
        G.scores[Number(playerID)] += dice[0] + dice[1];
        G.players[playerID].hand.push(G.secret.deck.pop());
        G.made += 1;
      },
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
  endIf: ({ G }) => (G.made >= MOVES ? { scores: G.scores } : undefined),
};

module.exports = { DiceHand, MOVES };

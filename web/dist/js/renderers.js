// Each game's renderer is its own module, web/dist/js/games/<game>.js, loaded on first use:
// a new game adds that file and edits nothing here. A game with no module of its own
// (hosted by its rules alone) gets the plain renderer: its view as text, its actions in
// the game's words, its seats in a list.
import { h, s, seatColour } from "./dom.js";

const loaded = new Map(); // game -> its module once loaded
const loading = new Map(); // game -> the promise of its module

// The renderer of `game`, loaded once (the plain one if the game has none).
export function loadRenderer(game) {
  if (loaded.has(game)) return Promise.resolve(loaded.get(game));
  if (!loading.has(game)) {
    const safe = /^[a-z0-9_]+$/.test(game) ? game : null; // a game's name is a module name, never a path
    const pending = (safe ? import(`./games/${safe}.js`) : Promise.reject(new Error(game)))
      .catch(() => PLAIN)
      .then((module) => { loaded.set(game, module); loading.delete(game); return module; });
    loading.set(game, pending);
  }
  return loading.get(game);
}

// The renderer of `game` if loaded, else null: the load starts and `then` runs when it ends.
export function rendererOf(game, then) {
  if (loaded.has(game)) return loaded.get(game);
  loadRenderer(game).then(then);
  return null;
}

// A game's picture for the lobby's card: its module's `art()`, or a plain tile.
export function artOf(module) {
  if (module && module.art) return module.art();
  const svg = s("svg", { viewBox: "0 0 300 110", preserveAspectRatio: "xMidYMid slice", width: "100%", height: "110" });
  svg.append(s("rect", { width: 300, height: 110, fill: "#3a4a5c" }));
  return svg;
}

const PLAIN = {
  status: () => "",
  targetOf: () => null,
  board: ({ view }) => h("pre", { class: "plain-view" }, JSON.stringify(view || {}, null, 2)),
  players: (ctx, toMove) => h("div", { class: "players" },
    Array.from({ length: Number(ctx.match.seatCount || 0) }, (_, seat) =>
      h("div", { class: `player${seat === ctx.seat ? " me" : ""}${toMove.has(seat) ? " to-move" : ""}`, style: { "--c": seatColour(seat) } },
        h("div", { class: "name" }, ctx.names[seat] || `Seat ${seat}`)))),
};

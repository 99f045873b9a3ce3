// What a failed call means to a player, and what to do next. The page never shows a
// server's or a library's own message: those name addresses, channels and internals
// ("failed to connect to all addresses; ... ipv4:127.0.0.1:59999", "Failed to fetch").
// The broken rule's id (ErrorInfo reason) picks the sentence when there is one;
// otherwise the status code does.

const AGAIN = "Try again in a moment.";
const RELOAD = "Reload the page to sign in again.";
const PICK = "Pick one of the highlighted choices.";
const LOBBY = "Go back to the lobby and pick a match.";

// By the status code (Connect's names, the same as gRPC's).
const BY_CODE = {
  unavailable: ["The server can't be reached right now.", AGAIN],
  deadline_exceeded: ["The server took too long to answer.", AGAIN],
  resource_exhausted: ["The server is busy with too many requests from here.", "Wait a few seconds, then try again."],
  unauthenticated: ["Your sign-in has run out.", RELOAD],
  permission_denied: ["You can't do that from this seat.", "Go back to the lobby and join the match again."],
  not_found: ["That match doesn't exist (any more).", LOBBY],
  failed_precondition: ["That can't be done at this point.", PICK],
  invalid_argument: ["The server did not accept that request.", "Check the choices and try again."],
  already_exists: ["That has already been done.", "Carry on."],
  aborted: ["Someone changed the match at the same moment.", "Try again."],
  out_of_range: ["That is out of range.", "Check the choices and try again."],
  unimplemented: ["This server doesn't offer that.", "Ask whoever runs it to update it."],
  canceled: ["The request was cancelled.", "Try again."],
  internal: ["Something went wrong on the server.", "Try again; if it keeps happening, reload the page."],
  unknown: ["Something went wrong on the server.", "Try again; if it keeps happening, reload the page."],
  data_loss: ["Something went wrong on the server.", "Try again; if it keeps happening, reload the page."],
};

// By the broken rule's id: exact ids first, then their prefixes (a game's rule ids).
const BY_REASON = {
  "auth.expired": ["Your sign-in has run out.", RELOAD],
  "auth.missing": ["This browser isn't signed in.", RELOAD],
  "auth.bad_token": ["This browser's sign-in isn't valid any more.", RELOAD],
  "auth.bad_header": ["This browser's sign-in isn't valid any more.", RELOAD],
  "auth.unknown_key": ["This browser's sign-in isn't valid any more.", RELOAD],
  "auth.wrong_token_kind": ["You aren't seated at this table.", "Take a free seat, or watch."],
  "auth.not_seated": ["You aren't seated at this table.", "Take a free seat, or watch."],
  "auth.other_match": ["Your seat is at another table.", LOBBY],
  "auth.seat_changed": ["Your seat has changed hands.", "Go back to the lobby and join again."],
  "auth.method_denied": ["This sign-in may not do that.", RELOAD],
  "match.full": ["That table is full.", "Pick another match, or create one."],
  "match.seat_taken": ["Someone else has just taken that seat.", "Pick a free seat."],
  "match.seat_free": ["That seat is empty.", "Pick a seat someone holds."],
  "match.seats_free": ["Not every seat is taken yet.", "Wait for the other players, then start."],
  "match.not_in_lobby": ["The match has already started.", "Watch it, or go back to the lobby."],
  "match.already_started": ["The match has already started.", "Watch it, or go back to the lobby."],
  "match.lobby_active": ["The match has already started.", "Watch it, or go back to the lobby."],
  "match.leave_after_start": ["You can't leave a match that has started.", "Play on; your seat stays yours."],
  "match.lobby_expired": ["This waiting room has closed.", "Create a new match."],
  "match.not_active": ["The match isn't being played right now.", "Reload the table."],
  "match.not_your_turn": ["It isn't your move.", "Wait for your turn: the table says when."],
  "match.exists": ["That match already exists.", "Try again."],
  "match.contention": ["The match is busy with another move.", AGAIN],
  "turn.not_your_seat": ["It isn't your move.", "Wait for your turn: the table says when."],
  "turn.game_over": ["The match is over.", "See the result, or replay it."],
  "turn.chance_pending": ["The dice or cards are still being dealt.", AGAIN],
  "clock.expired": ["Your time for this move has run out.", "Wait for the table to move on."],
  "undo.nothing_to_undo": ["There's nothing you can take back now.", "Carry on with your move."],
  "undo.not_yours": ["Only the last player to move can take it back.", "Carry on with your move."],
  "undo.limit": ["You can't take back that many moves.", "Carry on with your move."],
  "undo.too_many": ["You can't take back that many moves.", "Carry on with your move."],
  "command.reused": ["That request was already used for something else.", "Try again."],
  "join.bot_player": ["That seat is kept for a bot.", "Pick another seat."],
  "matchmaker.ticket_not_found": ["That search has ended.", "Press Quick match to search again."],
  "matchmaker.absent": ["Quick match is off on this server.", "Create a match and share its link instead."],
  "matchmaker.player_not_rated": ["You have no rating in this game yet.", "Play a quick match first."],
  "rate_limited": ["You're going a bit fast.", "Wait a few seconds, then try again."],
  "caller.too_many": ["Too many open tables from this address.", "Close a few tabs, then try again."],
  "server.overloaded": ["The server is very busy right now.", AGAIN],
  "server.draining": ["The server is restarting.", AGAIN],
  "updates.down": ["Live updates are paused.", "The table reconnects by itself."],
  "request.malformed": ["The page sent something the server didn't understand.", "Reload the page and try again."],
  "config": ["One of the game options isn't accepted.", "Check the options and try again."],
  "store.too_large": ["The match has grown too large to save.", LOBBY],
};
const MOVE_REFUSED = ["That move isn't allowed at this point.", PICK];
const BY_PREFIX = [
  ["store.", ["The server is busy.", AGAIN]],
  ["matchmaker.", ["Quick match is busy.", AGAIN]],
  ["auth.", ["This browser's sign-in isn't valid any more.", RELOAD]],
  // the host's rules of every game (the move was legal a moment ago, or the board changed)
  ...["turn.", "action.", "chance."].map((p) => [p, MOVE_REFUSED]),
];

// {text, next}: the sentence and the next step.
export function explain(e) {
  const reason = (e && e.reason) || "";
  const found = BY_REASON[reason] || (BY_PREFIX.find(([p]) => reason.startsWith(p)) || [])[1];
  if (found) return { text: found[0], next: found[1] };
  const code = e && e.code;
  // a game's own rule (its dotted id, whatever the game): the move, not the call, was refused
  if (code === "failed_precondition" && /^[a-z_]+(\.[a-z_]+)+$/.test(reason)) return { text: MOVE_REFUSED[0], next: MOVE_REFUSED[1] };
  if (code && BY_CODE[code]) return { text: BY_CODE[code][0], next: BY_CODE[code][1] };
  // not a call's failure at all: a script error, or a fetch that did not reach anything
  if (e instanceof TypeError || (e && e.name === "TimeoutError")) return { text: BY_CODE.unavailable[0], next: AGAIN };
  return { text: "Something went wrong on this page.", next: "Reload the page and try again." };
}

export function errorText(e) {
  const { text, next } = explain(e);
  // the raw error stays available to whoever opens the console
  if (e && typeof console !== "undefined") console.info("tabletop: call failed", e.code || e.name || "", e.reason || "", e.message || "");
  return `${text} ${next}`;
}

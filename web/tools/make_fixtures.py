"""Dump real views, legal actions and log entries of each game as Connect JSON.

Plays seeded random legal moves through each engine in process (chance
resolved like the dice and deck services do) and writes, for a few positions,
what a seat's GetView / ListLegalActions / GetMatchLog would answer into
web/fixtures/<game>-<n>.json. Also writes web/dist/data/boards.json, the board
geometry the table draws (El Dorado courses, Discover's map tiles), which the
views name but do not carry.

    .venv/bin/python web/tools/make_fixtures.py
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from services.dice.playout import LocalChance
from services.games import registry
from services.games.common import chance
from services.games.el_dorado import board as ed_board
from services.games.el_dorado import content as ed_content

WEB = Path(__file__).resolve().parent.parent
ROOT = WEB.parent

def kind(name: str) -> Callable[[Message, list[dict[str, Any]]], bool]:
    """Stop where one of the viewer's legal actions is of oneof kind `name`."""
    return lambda view, legal: any(name in a for a in legal)


def in_combat(view: Message, legal: list[dict[str, Any]]) -> bool:
    return bool(legal) and view.HasField("combat") and bool(view.combat.enemy)


def at_night(view: Message, legal: list[dict[str, Any]]) -> bool:
    return bool(legal) and view.phase == view.DESCRIPTOR.fields_by_name["phase"].enum_type.values_by_name[
        "PHASE_NIGHT"].number


def anything(view: Message, legal: list[dict[str, Any]]) -> bool:
    return True


# (game, players, config, seed, least actions before stopping, viewer seat, where to stop):
# positions chosen to show each game's table at its telling moments.
Want = Callable[[Message, list[dict[str, Any]]], bool]
POSITIONS: list[tuple[str, int, dict[str, str], int, int, int | None, Want]] = [
    ("el_dorado", 2, {"course": "first_game"}, 1, 12, 0, kind("moveTo")),
    ("el_dorado", 3, {"course": "hills_of_gold", "caves": "true"}, 2, 160, 1, kind("buyCard")),
    ("el_dorado", 4, {"course": "first_game"}, 3, 400, None, anything),
    ("la_isla", 2, {}, 1, 6, 0, kind("assignCards")),
    ("la_isla", 3, {}, 2, 60, 1, kind("placeExplorer")),
    ("la_isla", 4, {}, 3, 10_000, 0, anything),
    ("discover", 2, {}, 1, 8, 0, kind("move")),
    ("discover", 2, {}, 1, 5, 1, in_combat),
    ("discover", 2, {}, 5, 10_000, 0, anything),
    ("discover", 2, {}, 1, 5, 0, at_night),
]


def positions() -> list[tuple[str, int, dict[str, str], int, int, int | None, Want]]:
    """The curated positions, then, for a game without any, one of each of its samples a
    few moves in: a new game gets fixtures with no edit here."""
    curated = {game for game, *_ in POSITIONS}
    found = list(POSITIONS)
    for game in registry.GAMES:
        if game not in curated:
            for sample in registry.declaration(game).samples:
                found.append((game, sample.seats, dict(sample.config), sample.seed, 6, 0, anything))
    return found


def any_json(message: Message) -> dict[str, Any]:
    """A message inside google.protobuf.Any, as the Connect JSON mapping writes it."""
    body = MessageToDict(message)
    return {"@type": f"type.googleapis.com/{message.DESCRIPTOR.full_name}", **body}


def play_to(game: str, players: int, config: dict[str, str], seed: int, limit: int, viewer: int | None,
            want: Want, index: int) -> dict[str, Any]:
    entry = registry.game(game)
    engine, codec = entry.engine, entry.codec
    rng = random.Random(seed)
    resolver = LocalChance(seed=seed.to_bytes(32, "big"))
    state = engine.setup(config, players)
    entries: list[dict[str, Any]] = []
    history: list[tuple[int, dict[str, Any]]] = []
    version = 0
    actions = 0
    while True:
        turn = engine.to_move(state)
        if turn.chance is not None:
            seat, action = chance.CHANCE_SEAT, resolver.resolve(turn.chance)
        elif turn.seats:
            if actions >= limit and (viewer is None or viewer in turn.seats):
                if viewer is None:
                    break
                legal_now = [any_json(codec.encode_action(a)) for a in engine.legal_actions(state, viewer)]
                if want(codec.encode_view(engine.view(state, viewer)), legal_now):
                    break
            seat = turn.seats[rng.randrange(len(turn.seats))]
            legal = engine.legal_actions(state, seat)
            action = legal[rng.randrange(len(legal))]
            actions += 1
            history.append((version, MessageToDict(codec.encode_view(engine.view(state, viewer)))))
        else:
            break
        for event in engine.decide(state, seat, action):
            state = engine.evolve(state, event)
            version += 1
            visible = engine.visibility(event)
            shown = event if visible.admits(viewer) else engine.redact(event)
            log: dict[str, Any] = {"version": str(version), "type": type(event).__name__}
            if shown is not None:
                log["event"] = any_json(codec.encode_event(shown))
            if shown is not event:
                log["redacted"] = True
            entries.append(log)
    to_move = engine.to_move(state)
    result = engine.result(state)
    status = "MATCH_STATUS_FINISHED" if result is not None else "MATCH_STATUS_ACTIVE"
    legal_json = []
    if viewer is not None and viewer in to_move.seats:
        legal_json = [any_json(codec.encode_action(a)) for a in engine.legal_actions(state, viewer)]
    summary: dict[str, Any] = {
        "matchId": f"fixture-{game}-{index}",
        "game": game,
        "config": config,
        "seatCount": players,
        "seats": [{"seat": s, "playerId": f"player{s}-{seed:04d}"}
                  for s in range(players)],
        "status": status,
        "version": str(version),
        "toMove": list(to_move.seats),
    }
    if result is not None:
        summary["outcome"] = _outcome(result)
    out: dict[str, Any] = {}
    if result is not None:
        # Finished: views at some versions, so fixture mode can replay the board.
        step = max(1, len(history) // 24)
        out["history"] = [[str(v), view] for v, view in history[::step]]
    return out | {
        "name": f"{game}-{index}",
        "game": game,
        "seat": viewer,
        "match": summary,
        "view": any_json(codec.encode_view(engine.view(state, viewer))),
        "legalActions": legal_json,
        "entries": entries if result is not None else entries[-60:],
    }


def _outcome(result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"ranking": list(result.ranking), "scores": list(result.scores),
                           "detail": dict(result.detail)}
    if result.cooperative_win is not None:
        out["cooperativeWin"] = result.cooperative_win
    return out


def boards() -> dict[str, Any]:
    courses = {}
    for course_id, spec in ed_content.courses().items():
        b = ed_board.board(course_id)
        courses[course_id] = {
            "name": spec.name,
            "spaces": [
                {"q": q, "r": r, "terrain": s.terrain.value, "power": s.power, "piece": s.piece,
                 "cave": s.cave, "start": s.start, "finish": s.finish}
                for (q, r), s in sorted(b.spaces.items())
            ],
            "seams": [{"a": list(a), "b": list(bb), "seam": n} for (a, bb), n in b.seam_of.items() if a < bb],
        }
    ed_cards = json.loads((ROOT / "services/games/el_dorado/content/cards.json").read_text())["cards"]
    discover = json.loads((ROOT / "services/games/discover/content/island-1.json").read_text())
    li_cards = json.loads((ROOT / "services/games/la_isla/content/cards.json").read_text())["cards"]
    names = {key: {str(x["number"]): x.get("name", f"{key} {x['number']}") for x in discover[key]}
             for key in ("characters", "items", "enemies")}
    items = names["items"]
    names["projects"] = {str(x["number"]): "makes " + items.get(str(x["makes_item"]), f"item {x['makes_item']}")
                         for x in discover["projects"]}
    return {
        "el_dorado": {"courses": courses, "cards": {c["id"]: c for c in ed_cards},
                      "blockades": {str(b["id"]): b for b in json.loads(
                          (ROOT / "services/games/el_dorado/content/blockades.json").read_text())["blockades"]}},
        "la_isla": {"cards": {c["id"]: {k: c[k] for k in ("value", "resource", "animal")}
                              | {"function": c["function"].get("kind", "")} for c in li_cards}},
        "discover": {"map": discover["map"], "terrains": discover["terrains"], "names": names},
    }


def main() -> None:
    out = WEB / "fixtures"
    out.mkdir(exist_ok=True)
    counters: dict[str, int] = {}
    names = []
    for game, players, config, seed, limit, viewer, want in positions():
        counters[game] = counters.get(game, 0) + 1
        fixture = play_to(game, players, config, seed, limit, viewer, want, counters[game])
        fixture["config"] = config
        path = out / f"{fixture['name']}.json"
        # one top-level key a line, sorted: stable diffs, small files
        lines = [f" {json.dumps(k)}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}"
                 for k, v in sorted(fixture.items())]
        path.write_text("{\n" + ",\n".join(lines) + "\n}\n")
        names.append(fixture["name"])
        print(path.relative_to(ROOT), fixture["match"]["status"], "v", fixture["match"]["version"],
              len(fixture["legalActions"]), "actions")
    (out / "index.json").write_text(json.dumps(names, indent=1) + "\n")
    data = WEB / "dist" / "data"
    data.mkdir(parents=True, exist_ok=True)
    (data / "boards.json").write_text(json.dumps(boards(), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()

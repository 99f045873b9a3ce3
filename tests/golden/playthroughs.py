"""Golden seeded playthroughs: the same seed must give the same game, forever.

Each golden file holds the game, options, seats and seed, the first events in
readable form, a SHA-256 over every event's wire bytes, the number of steps and
the outcome. The cases are the samples each game declares (its package's
`GAME`, services/games/common/host.py); `make golden` rewrites the files after
an intended rules change or for a new game.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
from typing import Any

from google.protobuf import json_format

from services.dice.playout import play
from services.games import registry

FOLDER = pathlib.Path(__file__).resolve().parent / "files"
SHOWN_EVENTS = 120

def case_name(game: str, config: dict[str, str], seats: int, seed: int) -> str:
    options = "-".join(f"{k}={v}" for k, v in sorted(config.items()))
    return f"{game}-{seats}p-seed{seed}{'-' + options if options else ''}.json"


def record(game: str, config: dict[str, str], seats: int, seed: int) -> dict[str, Any]:
    """Play the case and describe it."""
    entry = registry.game(game)
    result = play(entry.engine, dict(config), seats, seed)
    digest = hashlib.sha256()
    shown = []
    for index, event in enumerate(result.events):
        message = entry.codec.encode_event(event)
        digest.update(message.SerializeToString(deterministic=True))
        if index < SHOWN_EVENTS:
            shown.append(json_format.MessageToDict(message, preserving_proto_field_name=True))
    outcome = result.outcome
    return {
        "game": game, "config": config, "seats": seats, "seed": seed,
        "steps": result.steps, "event_count": len(result.events), "events_sha256": digest.hexdigest(),
        "outcome": None if outcome is None else {"ranking": list(outcome.ranking), "scores": list(outcome.scores)},
        "first_events": shown,
    }


def cases() -> list[tuple[str, dict[str, str], int, int]]:
    """Every sample each built-in game declares (GameDeclaration.samples), in registry order."""
    present = set(registry.available())
    return [
        (game, dict(sample.config), sample.seats, sample.seed)
        for game in registry.GAMES
        if game in present
        for sample in registry.declaration(game).samples
    ]


def regenerate() -> None:
    FOLDER.mkdir(exist_ok=True)
    for case in cases():
        path = FOLDER / case_name(*case)
        path.write_text(json.dumps(record(*case), indent=1, sort_keys=True) + "\n")
        print(f"wrote {path.relative_to(FOLDER.parent.parent.parent)}")

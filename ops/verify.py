"""`tabletop verify` and the offline reading of an exported match (`tabletop replay --file`):
the operator's tools that re-derive a match with the server's own rules (services/match/audit.py,
the match use cases over an in-memory store). They join the `tabletop` command as plugins
(cli/plugins.py), so the player's command itself imports nothing of the server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import pathlib
from collections.abc import Sequence
from typing import Annotated

import typer
from tabletop.gateway.v1 import gateway_pb2 as gateway_pb

from cli import main
from cli.api import DEFAULT_GATEWAY, Gateway
from cli.main import GatewayOpt, JsonOpt
from ops import archive
from services.common.audience import from_wire
from services.common.errors import ServiceError
from services.common.store.event_store import StoredEvent
from services.match import audit
from services.match.records import summary as summary_of

# Differences `verify` prints (--json gives them all).
SHOWN_PROBLEMS = 10


def verify(
    match_id: Annotated[str, typer.Argument(help="the match (or, with --file, nothing)")] = "",
    file: Annotated[pathlib.Path | None, typer.Option("--file", help="an archive from `tabletop admin export`")]
    = None,
    as_json: JsonOpt = False,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Re-derive a finished match from its log: every roll and shuffle from the revealed seed,
    every game event with the game's own engine (in process), every platform event by its rule.
    Exit 0 if it is honest, 1 if not (each difference with its version), 3 if not finished."""

    async def work(g: Gateway) -> list[audit.Entry]:
        return log_entries(await g.log(match_id))

    if file is not None:
        match_id, stored = _archive(file)
        entries = audit.from_store(stored)
    elif match_id:
        entries = main.call_gateway(gateway, work)
    else:
        raise typer.BadParameter("give a match id, or --file")
    kinds = {e.type for e in entries}
    if "tabletop.match.v1.MatchEnded" not in kinds:
        # The seed is revealed only at the end: there is nothing to check against yet (and
        # a lobby closed for idleness was never played: there never will be).
        if as_json:
            main.print_json({"ok": None, "finished": False, "problems": []})
        elif "tabletop.match.v1.LobbyExpired" in kinds:
            main.notes.print(f"match {match_id} expired in the lobby: it was never played, so there is "
                             "nothing to verify")
        else:
            main.notes.print(f"match {match_id} has not finished (version {len(entries)}): its seed is revealed at "
                        "the end, so it can be verified only then")
        raise typer.Exit(3)
    verdict = audit.verify(entries, match_id)
    if as_json:
        main.print_json(_verdict_dict(verdict))
    else:
        chance, game = verdict.chance, verdict.game
        status = "[green]ok[/green]" if verdict.ok else "[red]FAILED[/red]"
        main.console.print(
            f"{status}: {chance.rolls} rolls, {chance.shuffles} shuffles, {chance.deals} deals, "
            f"{chance.permutations} permutations; {game.game_events} game events re-derived from "
            f"{game.moves} moves and {game.chance_outcomes} chance outcomes "
            f"({game.undos} undos, {game.timeouts} timeouts)",
            soft_wrap=True,
        )
        # The first differences say what went wrong; later ones often follow from it.
        for problem in verdict.problems[:SHOWN_PROBLEMS]:
            main.console.print(f"  {problem}", markup=False, highlight=False, soft_wrap=True)
        if len(verdict.problems) > SHOWN_PROBLEMS:
            main.console.print(f"  ... and {len(verdict.problems) - SHOWN_PROBLEMS} more (--json lists every one)",
                          soft_wrap=True)
    if not verdict.ok:
        raise typer.Exit(1)


def log_entries(entries: Sequence[gateway_pb.LogEntry]) -> list[audit.Entry]:
    """A finished match's log as GetMatchLog answers it, as the verifier reads it: every
    seat's events whole, a server-only one in its redacted form, or not at all (a gap)."""
    return audit.with_gaps(
        audit.Entry(
            e.version, e.type, e.event.value, from_wire(e.visibility.audience),
            e.visibility.seat if e.visibility.HasField("seat") else -1,
            audit.REDACTED if e.redacted else audit.WHOLE,
        )
        for e in entries
    )


def _verdict_dict(verdict: audit.Verdict) -> dict[str, object]:
    chance, game = verdict.chance, verdict.game
    return {
        "ok": verdict.ok,
        "rolls": chance.rolls,
        "shuffles": chance.shuffles,
        "deals": chance.deals,
        "permutations": chance.permutations,
        "puts": chance.puts,
        "moves": game.moves,
        "chance_outcomes": game.chance_outcomes,
        "game_events": game.game_events,
        "undos": game.undos,
        "timeouts": game.timeouts,
        "problems": verdict.problems,
        # The game's differences, each with its version, event, field and both values.
        "differences": [dataclasses.asdict(d) for d in game.differences],
    }


def _archive(file: pathlib.Path) -> tuple[str, list[StoredEvent]]:
    """A match archive, or a one-line refusal."""
    try:
        return archive.load(file)
    except archive.ArchiveError as error:
        main.notes.print(f"[red]refused[/red]: {error}")
        raise typer.Exit(2) from None


def replay(file: pathlib.Path, version: int, seat: int | None, as_json: bool) -> None:
    """`tabletop replay --file`: the match of an exported archive at `version`, as `seat` (or a
    spectator) saw it, folded offline through the match's own use cases."""
    match_id, events = _archive(file)
    try:
        past, view = asyncio.run(archive.view_at(match_id, events, version, seat))
    except ServiceError as error:
        main.notes.print(f"[red]refused[/red]: {error.message}")
        raise typer.Exit(2) from None
    who = f"seat {seat}" if seat is not None else "a spectator"
    main.show_match(summary_of(past), view, as_json, f"as {who} saw it at version {version} (offline)")

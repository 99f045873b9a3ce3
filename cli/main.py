"""`tabletop`: play and inspect matches from the command line."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import pathlib
import random
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, TypeVar

import grpc
import typer
from google.protobuf import any_pb2, json_format
from rich.console import Console
from rich.table import Table
from tabletop.common.v1 import common_pb2 as common_pb
from tabletop.gateway.v1 import gateway_pb2 as gateway_pb
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from bots.policies import KINDS, parse_budget
from bots.search import DEFAULT_BUDGET
from cli import autoplay, plugins, render, say
from cli.api import DEFAULT_GATEWAY, Gateway, Player, Seat, message_dict, to_dict
from cli.stack_record import recorded_gateway
from contract.payloads import PLATFORM_EVENTS
from contract.words import game_words
from services.common.security.private_files import write_private
from services.games import registry

app = typer.Typer(help="Tabletop command-line client.", no_args_is_help=True, add_completion=False)


@app.callback()
def _everywhere(
    gateway: Annotated[str | None, typer.Option("--gateway", help="gateway host:port, for every command")] = None,
) -> None:
    """Tabletop command-line client."""
    # `tabletop --gateway H:P view M` as well as `tabletop view M --gateway H:P`: each command's
    # own --gateway reads TABLETOP_GATEWAY, and its options are read after this runs.
    if gateway:
        os.environ["TABLETOP_GATEWAY"] = gateway
    elif not os.environ.get("TABLETOP_GATEWAY") and (recorded := recorded_gateway()):
        os.environ["TABLETOP_GATEWAY"] = recorded  # where `make run` of the data directory put it
    # Games beyond the built-in ones, as the servers are told (TABLETOP_EXTRA_GAMES=name=package,...):
    # the client decodes their views and replays their archives with the same engines.
    for item in os.environ.get("TABLETOP_EXTRA_GAMES", "").split(","):
        name, _, package = item.partition("=")
        if name.strip() and package.strip():
            registry.add_package(name.strip(), package.strip())
console = Console()
# Progress and waiting notes: stderr, so stdout stays the answer (and --json stays parseable).
notes = Console(stderr=True, soft_wrap=True)
NOTE_EVERY = 15.0
T = TypeVar("T")
GatewayOpt = Annotated[str, typer.Option("--gateway", envvar="TABLETOP_GATEWAY", help="gateway host:port")]
SeatOpt = Annotated[int | None, typer.Option("--seat", help="which of your seats in this match")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print one JSON object")]
Options = Annotated[list[str] | None, typer.Option("--option", "-o", help="game option key=value")]


def _home() -> pathlib.Path:
    return pathlib.Path(os.environ.get("TABLETOP_HOME", pathlib.Path.home() / ".tabletop"))


def _seats_file() -> pathlib.Path:
    return _home() / "seats.json"


def _write_private(path: pathlib.Path, data: object) -> None:
    """Tokens and device ids are credentials: files only their owner may read."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(path, json.dumps(data, indent=2))


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """Hold the local files' lock: two commands at once (two `queue`s) update seats.json and
    players.json one after the other, so neither loses what the other wrote."""
    home = _home()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(home / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _load_seats() -> dict[str, dict[str, str]]:
    path = _seats_file()
    return json.loads(path.read_text()) if path.exists() else {}


def _save_seat(seat: Seat) -> None:
    with _locked():
        seats = _load_seats()
        seats.setdefault(seat.match_id, {})[str(seat.seat)] = seat.token
        _write_private(_seats_file(), seats)


def _profile(name: str) -> tuple[str, str]:
    """(name, device id) of a local player profile, made on first use: each
    name is its own guest account on every server this CLI talks to."""
    name = name or os.environ.get("USER", "player")
    path = _home() / "players.json"
    with _locked():
        profiles: dict[str, str] = json.loads(path.read_text()) if path.exists() else {}
        if name not in profiles:
            profiles[name] = uuid.uuid4().hex
            _write_private(path, profiles)
    return name, profiles[name]


async def _signed_in(g: Gateway, name: str) -> Player:
    profile, device = _profile(name)
    return await g.sign_in(profile, device)


def _seat(match_id: str, seat: int | None, required: bool = True) -> Seat | None:
    tokens = _load_seats().get(match_id, {})
    if seat is None and len(tokens) == 1:
        seat = int(next(iter(tokens)))
    if seat is not None and str(seat) in tokens:
        return Seat(match_id, seat, tokens[str(seat)])
    if required:
        raise typer.BadParameter(f"no token for seat {seat} of {match_id}: join first (or pass --seat)")
    return None


def _options(options: list[str] | None) -> dict[str, str]:
    pairs = [o.split("=", 1) for o in options or []]
    if any(len(p) != 2 for p in pairs):
        raise typer.BadParameter("options are key=value")
    return {k: v for k, v in pairs}


def call_gateway(gateway: str, work: Callable[[Gateway], Awaitable[T]]) -> T:
    async def main() -> T:
        async with Gateway(gateway) as client:
            return await work(client)

    try:
        return asyncio.run(main())
    except grpc.aio.AioRpcError as error:
        _refused(error, gateway)
        raise typer.Exit(1) from None


def _refused(error: grpc.aio.AioRpcError, gateway: str) -> None:
    """A failed call in words on stderr: what went wrong, then what to do next."""
    what, step = say.explain(error, gateway)
    notes.print(f"[red]{error.code().name}[/red]: {what}", markup=True, highlight=False)
    if step:
        notes.print(f"  next: {step}", markup=False, highlight=False)


def print_json(data: object, as_json: bool = True) -> None:
    print(json.dumps(data, indent=None if as_json else 2, sort_keys=True))


@app.command()
def games(gateway: GatewayOpt = DEFAULT_GATEWAY) -> None:
    """List the games this server hosts."""
    reply = call_gateway(gateway, lambda g: g.stub.ListGames(gateway_pb.ListGamesRequest()))
    for info in reply.games:
        together = ", together against the game" if info.cooperative else ""
        title = f"  {info.title}" if info.title else ""
        console.print(f"{info.game}{title}  ({info.min_seats}-{info.max_seats} players{together})",
                      markup=False, highlight=False, soft_wrap=True)
        if info.summary:
            console.print(f"  {info.summary}", markup=False, highlight=False, soft_wrap=True)
        for option in info.options:
            console.print(f"  --option {option.name}=...  {_allowed(option)}, default {option.default!r}: "
                          f"{option.description}", markup=False, highlight=False)


def _allowed(option: common_pb.GameOption) -> str:
    """What an option accepts, in a few words."""
    if option.allowed_values:
        return "one of " + "|".join(option.allowed_values)
    if option.HasField("min"):
        return f"an integer {option.min}..{option.max}"
    return "true|false" if option.type == common_pb.OPTION_TYPE_BOOL else "text"


@app.command()
def create(
    game: str,
    players: Annotated[int, typer.Option("--players", "-n")] = 2,
    option: Options = None,
    name: Annotated[str, typer.Option("--name", help="local player profile")] = "",
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Create a match and print its id."""
    async def work(g: Gateway) -> gateway_pb.CreateMatchResponse:
        return await g.create(game, players, _options(option), by=await _signed_in(g, name))

    reply = call_gateway(gateway, work)
    print(reply.match.match_id)


@app.command()
def join(
    match_id: str,
    name: Annotated[str, typer.Option("--name")] = "",
    seat: SeatOpt = None,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Take a seat as the local player `--name`; the seat's token is kept in ~/.tabletop/seats.json."""

    async def work(g: Gateway) -> Seat:
        return await g.join(match_id, await _signed_in(g, name), seat)

    taken = call_gateway(gateway, work)
    _save_seat(taken)
    print(f"seat {taken.seat}")


@app.command()
def leave(match_id: str, seat: SeatOpt = None, gateway: GatewayOpt = DEFAULT_GATEWAY) -> None:
    """Give up your seat in a match still in its lobby; its token is forgotten here."""
    mine = _seat(match_id, seat)
    assert mine is not None
    request = gateway_pb.LeaveMatchRequest(match_id=match_id, command_id=uuid.uuid4().hex)
    call_gateway(gateway, lambda g: g.stub.LeaveMatch(request, metadata=mine.metadata))
    _forget_seat(mine)
    print(f"left seat {mine.seat} of {match_id}")


def _forget_seat(seat: Seat) -> None:
    with _locked():
        seats = _load_seats()
        held = seats.get(seat.match_id, {})
        held.pop(str(seat.seat), None)
        if not held:
            seats.pop(seat.match_id, None)
        _write_private(_seats_file(), seats)


@app.command()
def cancel(
    ticket_id: str, name: Annotated[str, typer.Option("--name", help="local player profile")] = "",
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Withdraw a matchmaking ticket of yours (one `queue` printed, or still waiting)."""

    async def work(g: Gateway) -> None:
        player = await _signed_in(g, name)
        await g.stub.CancelTicket(gateway_pb.CancelTicketRequest(ticket_id=ticket_id), metadata=player.metadata)

    call_gateway(gateway, work)
    print(f"ticket {ticket_id} withdrawn")


@app.command()
def matches(
    everyone: Annotated[bool, typer.Option("--all", help="the server's open and running matches")] = False,
    game: Annotated[str, typer.Option("--game", help="only this game (with --all)")] = "",
    as_json: JsonOpt = False,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Your seats (kept in ~/.tabletop/seats.json) and where each match stands; --all: the server's."""

    async def work(g: Gateway) -> list[tuple[mpb.MatchSummary, list[int]]]:
        if everyone:
            found: list[tuple[mpb.MatchSummary, list[int]]] = []
            for status in (mpb.MATCH_STATUS_LOBBY, mpb.MATCH_STATUS_ACTIVE):
                listed = await g.stub.ListMatches(gateway_pb.ListMatchesRequest(game=game, status=status, limit=50))
                found += [(summary, []) for summary in listed.matches]
            return found
        rows = []
        for match_id, tokens in sorted(_load_seats().items()):
            seats = sorted(int(s) for s in tokens)
            try:
                rows.append(((await g.view(match_id, Seat(match_id, seats[0], tokens[str(seats[0])]))).match, seats))
            except grpc.aio.AioRpcError as error:
                if error.code() not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNAUTHENTICATED):
                    raise
                rows.append((mpb.MatchSummary(match_id=match_id), seats))  # gone, or a token past its time
        return rows

    rows = call_gateway(gateway, work)
    if as_json:
        print_json([{"match": message_dict(summary), "seats": seats} for summary, seats in rows])
        return
    if not rows:
        mine = " of yours here (join, create or queue first; --all lists the server's)"
        notes.print("no matches" + ("" if everyone else mine))
        return
    table = Table("match", "game", "status", "version", "to move", *([] if everyone else ["your seats"]))
    for summary, seats in rows:
        status = mpb.MatchStatus.Name(summary.status).removeprefix("MATCH_STATUS_").lower()
        status = status if summary.game else "unknown (gone, or the token has expired)"
        to_move = ", ".join(str(s) for s in summary.to_move)
        if seats and set(seats) & set(summary.to_move):
            to_move += "  (you)"
        cells = [summary.match_id, summary.game, status, str(summary.version), to_move]
        table.add_row(*cells, *([] if everyone else [", ".join(map(str, seats))]))
    console.print(table)


@app.command()
def whoami(name: Annotated[str, typer.Option("--name")] = "", gateway: GatewayOpt = DEFAULT_GATEWAY) -> None:
    """Sign the local player `--name` in and print its player id (what ratings are kept under)."""
    player = call_gateway(gateway, lambda g: _signed_in(g, name))
    print(player.player_id)


@app.command()
def start(match_id: str, seat: SeatOpt = None, gateway: GatewayOpt = DEFAULT_GATEWAY) -> None:
    """Start a full match."""
    mine = _seat(match_id, seat)
    print(f"version {call_gateway(gateway, lambda g: g.start(mine))}")  # type: ignore[arg-type]


@app.command()
def view(match_id: str, seat: SeatOpt = None, as_json: JsonOpt = False, gateway: GatewayOpt = DEFAULT_GATEWAY) -> None:
    """Show the match as your seat (or as a spectator) sees it: tables, or --json for the raw view."""
    mine = _seat(match_id, seat, required=False)

    async def work(g: Gateway) -> tuple[gateway_pb.GetViewResponse, render.Said | None]:
        reply = await g.view(match_id, mine)
        return reply, None if as_json else await _said(g, reply.match)

    reply, words = call_gateway(gateway, work)
    show_match(reply.match, reply.view, as_json, words=words)


async def _said(g: Gateway, summary: mpb.MatchSummary) -> render.Said | None:
    """The match's game's words, its seats named after their players (None: the game has none here)."""
    try:
        return render.Said.of(await say.words_of(g, summary.game), message_dict(summary))
    except grpc.aio.AioRpcError as error:
        if error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNIMPLEMENTED):
            return None
        raise


def show_match(
    match: mpb.MatchSummary, view: any_pb2.Any | None, as_json: bool, said: str = "",
    words: render.Said | None = None,
) -> None:
    """A match and a view of it: in the game's words (or tables), after the `said` line on
    stderr; or one JSON object."""
    data = {"match": message_dict(match)}
    if view is not None and view.type_url:
        data["view"] = to_dict(view, match.game)
    if as_json:
        print_json(data)
        return
    if said:
        notes.print(said)
    if words is not None:
        console.print(render.said_view(data["match"], data.get("view"), words), soft_wrap=True,
                      markup=False, highlight=False)
        return
    console.print(render.match_view(data["match"], data.get("view")))


@app.command()
def replay(
    match_id: Annotated[str, typer.Argument(help="the match (or, with --file, nothing)")] = "",
    version: Annotated[int, typer.Option("--version", help="the log version to show (1 up to the match's)")] = 0,
    seat: Annotated[int | None, typer.Option("--seat", help="this seat's view (yours during play; any once ended)")]
    = None,
    file: Annotated[pathlib.Path | None, typer.Option("--file", help="an archive from `tabletop admin export`")]
    = None,
    as_json: JsonOpt = False,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """The match as it was at a version, as a viewer could see it then (spectator by default).
    With --file, offline from an exported archive (any seat: the archive holds everything)."""
    if version < 1:
        raise typer.BadParameter("give --version N (1 up to the match's version)")
    if file is not None:
        plugins.load(plugins.ARCHIVES, "replay")(file, version, seat, as_json)
        return
    if not match_id:
        raise typer.BadParameter("give a match id, or --file")
    mine = _seat(match_id, seat, required=False) if seat is not None else None
    request = gateway_pb.GetViewRequest(match_id=match_id, at_version=version)
    if seat is not None and mine is None:
        request.as_seat = seat  # not one of ours: shown only once the match has ended

    async def work(g: Gateway) -> gateway_pb.GetViewResponse:
        reply: gateway_pb.GetViewResponse = await g.stub.GetView(request, metadata=mine.metadata if mine else None)
        return reply

    reply = call_gateway(gateway, work)
    who = f"seat {reply.seat}" if reply.HasField("seat") else "a spectator"
    show_match(reply.match, reply.view, as_json, f"as {who} saw it at version {version}")


@app.command()
def actions(
    match_id: str, seat: SeatOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="each action as the game's proto JSON")] = False,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """List your legal actions in words, numbered for `tabletop act` (or say why there are none)."""
    mine = _seat(match_id, seat)
    assert mine is not None

    async def work(
        g: Gateway,
    ) -> tuple[mpb.MatchSummary, gateway_pb.ListLegalActionsResponse, render.Said | None]:
        summary = (await g.view(match_id, mine)).match
        return summary, await g.legal_actions(mine), None if as_json else await _said(g, summary)

    summary, reply, words = call_gateway(gateway, work)
    if not reply.actions:
        notes.print(f"no actions for seat {mine.seat}: {_why_no_action(summary, mine.seat)}")
    for index, action in enumerate(reply.actions):
        payload = to_dict(action, summary.game)
        label = words.action(action.type_url, payload) if words else json.dumps(payload, sort_keys=True)
        print(f"{index}: {label}")
    if summary.undoable and summary.undo_seat == mine.seat:
        notes.print(f"undo available ({summary.undoable}): `tabletop undo {match_id}`")


def _why_no_action(summary: mpb.MatchSummary, seat: int) -> str:
    """Why a seat has nothing to do now, in words."""
    if summary.status == mpb.MATCH_STATUS_LOBBY:
        return "the match is still in the lobby (every seat must be taken, then `tabletop start`)"
    if summary.status == mpb.MATCH_STATUS_FINISHED:
        return "the match is over (`tabletop view` shows the result)"
    if seat not in summary.to_move:
        waiting = ", ".join(str(s) for s in summary.to_move)
        return f"not your turn (seat {waiting} to move)" if waiting else "not your turn"
    return "your seat has no legal action in this position"


@app.command()
def act(
    match_id: str,
    index: Annotated[int | None, typer.Argument(help="number from `tabletop actions`")] = None,
    action_json: Annotated[str, typer.Option("--json", help="the game's Action as proto JSON")] = "",
    seat: SeatOpt = None,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Submit an action: by its number in `tabletop actions`, or as JSON."""
    mine = _seat(match_id, seat)
    assert mine is not None
    if index is None and not action_json:
        raise typer.BadParameter("give an action number (from `tabletop actions`) or --json")

    async def work(g: Gateway) -> gateway_pb.SubmitActionResponse:
        summary = (await g.view(match_id, mine)).match
        if action_json:
            packed = _action_from_json(summary.game, action_json)
        else:
            legal = (await g.legal_actions(mine)).actions
            if not legal:
                raise _Refused(f"seat {mine.seat} cannot act: {_why_no_action(summary, mine.seat)}")
            if index is None or not 0 <= index < len(legal):
                raise _Refused(f"no action number {index}: pick one of 0-{len(legal) - 1} (`tabletop actions`)")
            packed = legal[index]
        return await g.submit(mine, packed)

    try:
        print(f"version {call_gateway(gateway, work).version}")
    except _Refused as refused:
        notes.print(f"[red]refused[/red]: {refused}")
        raise typer.Exit(2) from None


@app.command()
def undo(
    match_id: str,
    count: Annotated[int, typer.Option("--count", "-n", help="how many of your last actions")] = 1,
    seat: SeatOpt = None,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Take back your last actions (while nobody else has acted and nothing was drawn,
    rolled or disclosed since; `actions` says when an undo is available)."""
    mine = _seat(match_id, seat)
    assert mine is not None

    async def work(g: Gateway) -> gateway_pb.UndoActionsResponse:
        return await g.undo(mine, count)

    reply = call_gateway(gateway, work)
    print(f"version {reply.version}: took back {count} action(s); seat {mine.seat} to move again"
          if mine.seat in reply.match.to_move else f"version {reply.version}")


class _Refused(Exception):
    """A request the CLI will not send, with the reason in words."""


def _action_from_json(game: str, text: str) -> any_pb2.Any:
    """The game's Action message from proto JSON; a malformed one is refused in one line."""
    message = registry.game(game).codec.action_message()
    try:
        json_format.Parse(text, message)
    except json_format.ParseError as error:
        raise _Refused(f"not an action of {game}: {str(error).splitlines()[0]}") from None
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


@app.command()
def watch(
    match_id: str, seat: SeatOpt = None, after: int = 0,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON line per event, every event")] = False,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Follow a match live: a line in words per event you may see (bookkeeping left out)."""
    mine = _seat(match_id, seat, required=False)

    async def work(g: Gateway) -> None:
        summary = (await g.view(match_id, mine)).match
        game = summary.game
        words = None if as_json else await _said(g, summary)
        async for update in g.follow(match_id, mine, after):
            for entry in update.entries:
                if words is not None:
                    line = words.event(entry.type, _entry_dict(entry, game))
                    if line:
                        print(f"{entry.version:>5}  {line}{' (hidden from you)' if entry.redacted else ''}",
                              flush=True)
                    continue
                print(
                    json.dumps(
                        {"version": entry.version, "type": entry.type, "event": to_dict(entry.event, game)},
                        sort_keys=True,
                    ),
                    flush=True,
                )

    call_gateway(gateway, work)


def _entry_dict(entry: gateway_pb.LogEntry, game: str) -> dict[str, object]:
    """A log entry's event as a dict with proto field names: a game event or a platform one."""
    if not entry.HasField("event"):
        return {}
    if entry.type.startswith("tabletop.games."):
        return to_dict(entry.event, game)
    known = PLATFORM_EVENTS.get(entry.type)
    if known is None:
        return {}
    message = known()
    entry.event.Unpack(message)
    return message_dict(message)


@app.command()
def log(match_id: str, seat: SeatOpt = None, gateway: GatewayOpt = DEFAULT_GATEWAY) -> None:
    """Print the match log as you may see it (everything once it has ended)."""
    mine = _seat(match_id, seat, required=False)

    async def work(g: Gateway) -> None:
        game = (await g.view(match_id, mine)).match.game
        for entry in await g.log(match_id, mine):
            print(
                json.dumps(
                    {
                        "version": entry.version,
                        "type": entry.type,
                        "redacted": entry.redacted,
                        "event": to_dict(entry.event, game),
                    },
                    sort_keys=True,
                )
            )

    call_gateway(gateway, work)


def _end_reason(game: str, detail: dict[str, str]) -> str:
    """Why a match ended, from its outcome's detail["reason"], in the game's own words
    (their `reason` table); a reason they do not name is printed as it is."""
    reason = detail.get("reason", "")
    try:
        named = game_words(game).tables.get("reason", {}).get(reason)
    except registry.UnknownGame:
        named = None
    return named.name if named else reason.replace("_", " ") or "(no reason given)"


def _has_search_bot(game: str) -> bool:
    try:
        return registry.declaration(game).determinize is not None
    except registry.UnknownGame:
        return False


@app.command("bots")
def bots_command(
    game: Annotated[str, typer.Option("--game")],
    players: Annotated[int, typer.Option("--players", "-n")] = 2,
    seed: Annotated[int | None, typer.Option("--seed")] = None,
    course: Annotated[str, typer.Option("--course", help="El Dorado course")] = "",
    option: Options = None,
    bot: Annotated[str, typer.Option("--bot", help="random, or search (from each seat's view only)")] = "random",
    budget: Annotated[
        str, typer.Option("--budget", help="search budget per decision: iterations (default 40) or time (200ms)")
    ] = str(DEFAULT_BUDGET.iterations),
    as_json: JsonOpt = False,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Play a complete match with bots in every seat; exit 0 once it has ended."""
    config = _options(option)
    if course:
        config["course"] = course
    if bot not in KINDS:
        raise typer.BadParameter(f"--bot is one of {', '.join(KINDS)}")
    try:
        limit = parse_budget(budget, DEFAULT_BUDGET)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
    seed = random.randrange(2**31) if seed is None else seed
    if bot == "search" and not _has_search_bot(game):
        raise typer.BadParameter(f"{game} has no search bot here (docs/bots.md)")
    live: list[autoplay.BotResult] = []

    def progress() -> str:
        if not live:
            return f"setting up a {game} match for {players} {bot} bots"
        now = live[0]
        return f"match {now.match_id[:8]} ({game}, {bot} bots): {now.actions} actions, version {now.summary.version}"

    result = call_gateway(gateway, lambda g: _with_progress(
        progress, as_json,
        autoplay.play_match(g, game, players, seed, config, bot=bot, budget=limit, started=live.append),
    ))
    outcome = result.summary.outcome
    ended: dict[str, object] = {
        "ranking": list(outcome.ranking), "scores": list(outcome.scores), "detail": dict(outcome.detail)
    }
    if outcome.HasField("cooperative_win"):
        ended["cooperative_win"] = outcome.cooperative_win
    report = {"match_id": result.match_id, "game": game, "actions": result.actions, "result": ended}
    if as_json:
        print_json(report)
    else:
        console.print(f"match {result.match_id} ({game}) ended after {result.actions} actions")
        console.print(f"ended: {_end_reason(game, dict(outcome.detail))}")
        console.print(f"ranking {list(outcome.ranking)} scores {list(outcome.scores)}")


@app.command()
def queue(
    game: Annotated[str, typer.Option("--game")],
    players: Annotated[int, typer.Option("--players", "-n")] = 2,
    max_players: Annotated[int | None, typer.Option("--max-players")] = None,
    name: Annotated[str, typer.Option("--name")] = "",
    option: Options = None,
    as_json: JsonOpt = False,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """Ask the matchmaker for a match and wait for the assignment (Ctrl-C withdraws the ticket)."""
    from cli.queue import Interrupted, TicketExpired
    from cli.queue import queue as find

    profile, device = _profile(name)
    high = max_players or players
    table = f"{players}" if high == players else f"{players}-{high}"
    wanted = f"a {game} table of {table} players" + (f" ({', '.join(option or [])})" if option else "")
    try:
        found = asyncio.run(_waiting(
            wanted, as_json,
            lambda told: find(gateway, game, players, high, _options(option), device, profile[:32], told),
        ))
    except (KeyboardInterrupt, Interrupted) as stopped:  # Ctrl-C; SIGTERM, SIGHUP: 128 + the signal
        notes.print("[yellow]stopped waiting; the ticket is withdrawn[/yellow]")
        raise typer.Exit(getattr(stopped, "exit_code", 130)) from None
    except TicketExpired as expired:
        console.print(f"[yellow]{expired}[/yellow]")
        raise typer.Exit(2) from None
    except grpc.aio.AioRpcError as error:
        _refused(error, gateway)
        raise typer.Exit(1) from None
    _save_seat(Seat(found["match_id"], int(found["seat"]), found["token"]))
    if as_json:
        print_json({"ticket_id": found["ticket_id"], "match_id": found["match_id"], "seat": found["seat"]})
    else:
        console.print(f"match {found['match_id']} seat {found['seat']} (ticket {found['ticket_id']})")


async def _with_progress(describe: Callable[[], str], quiet: bool, work: Awaitable[T]) -> T:
    """Run `work`, showing `describe()` and the time so far (a live line on a terminal, else a
    line on stderr now and then); nothing with --json."""
    task = asyncio.ensure_future(work)
    if quiet:
        return await task
    loop = asyncio.get_running_loop()
    started = loop.time()
    if not notes.is_terminal:
        while not task.done():
            await asyncio.wait({task}, timeout=NOTE_EVERY)
            if not task.done():
                notes.print(f"{describe()}: {loop.time() - started:.0f} s")
        return task.result()
    with notes.status(describe()) as status:
        while not task.done():
            status.update(f"{describe()}: {loop.time() - started:.0f} s")
            await asyncio.wait({task}, timeout=0.5)
    return task.result()


async def _waiting(
    wanted: str, quiet: bool, work: Callable[[Callable[[gateway_pb.QueueResponse], None]], Awaitable[T]]
) -> T:
    """Run `work`, saying on the terminal what it waits for and for how long; with --json
    (`quiet`), a JSON line per status of the ticket on stdout instead."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    line = f"queueing for {wanted}"
    # A log, not a terminal: each new state on a line of its own, then a line now and then, on stderr.
    logged = not quiet and not notes.is_terminal

    def told(ticket: gateway_pb.QueueResponse) -> None:
        nonlocal line
        short = ticket.ticket_id[:8]
        if ticket.already_queued:
            # One ticket per player and game: this is the earlier one, with its own table size and options.
            line = f"you were already queued for this game (ticket {short}); waiting on that ticket"
        else:
            line = f"waiting for {wanted} (ticket {short})"
        if logged:
            notes.print(line)
        if quiet:
            # --json: a line on stdout at once when queued, then on every change of status.
            print(json.dumps({
                "ticket_id": ticket.ticket_id,
                "status": mmpb.TicketStatus.Name(ticket.status).removeprefix("TICKET_STATUS_").lower(),
                "already_queued": ticket.already_queued,
            }, sort_keys=True), flush=True)

    task = asyncio.ensure_future(work(told))
    if quiet:
        return await task
    if logged:
        notes.print(line)
        while not task.done():
            await asyncio.wait({task}, timeout=NOTE_EVERY)
            if not task.done():
                notes.print(f"still {line}: {loop.time() - started:.0f} s")
        return task.result()
    with notes.status(line) as status:
        while not task.done():
            status.update(f"{line}: {loop.time() - started:.0f} s  (Ctrl-C to stop)")
            await asyncio.wait({task}, timeout=0.5)
    return task.result()


@app.command()
def rating(player: str, game: Annotated[str, typer.Option("--game")], gateway: GatewayOpt = DEFAULT_GATEWAY) -> None:
    """A player's rating in one game (openskill mu, sigma and ordinal)."""
    reply = call_gateway(gateway, lambda g: g.stub.GetRating(gateway_pb.GetRatingRequest(player_id=player, game=game)))
    print_json(message_dict(reply.rating))


@app.command()
def leaderboard(
    game: Annotated[str, typer.Option("--game")],
    limit: int = 20,
    gateway: GatewayOpt = DEFAULT_GATEWAY,
) -> None:
    """The best-rated players of one game."""
    request = gateway_pb.ListLeaderboardRequest(game=game, limit=limit)

    async def work(g: Gateway) -> gateway_pb.ListLeaderboardResponse:
        await say.words_of(g, game)  # NOT_FOUND for a game this server does not host
        reply: gateway_pb.ListLeaderboardResponse = await g.stub.ListLeaderboard(request)
        return reply

    reply = call_gateway(gateway, work)
    if not reply.entries:
        notes.print(f"nobody is rated in {game} yet (ratings come from matchmade tables: `tabletop queue`)")
    for entry in reply.entries:
        r = entry.rating
        console.print(
            f"{entry.rank:>4}. {(r.display_name or r.player_id):<24} ordinal {r.ordinal:7.2f}  mu {r.mu:6.2f}  "
            f"sigma {r.sigma:5.2f}  matches {r.matches}"
        )


def main() -> None:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "gen"))
    plugins.add_to(app, sys.argv[1:])
    app()

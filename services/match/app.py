"""Match use cases: create, form, join, leave, start, submit, undo, and the reads.

The match service is the only writer of match streams. Each command is decided
against the current match (services/match/lifecycle.py), run forward by the
turn runner (rules, chance, the end: services/match/turns.py) and committed by
the unit of work (services/match/unit_of_work.py): one version-checked append
through the repository under the match's lock, a lost race caught up and
decided again, a command id applied before answered as the first time, and
then the after-commit steps (directory, deck release, finish announcement).
The clocks' part in a write (services/match/timekeeping.py `Timing`) is
composed in; what the clock keeper does is `timekeeper` (`Timekeeper`).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from google.protobuf import any_pb2
from google.protobuf.message import Message
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common import logging as tlog
from services.common import metrics
from services.common.draws import RollWindows
from services.common.errors import InvalidArgument
from services.common.redis.keys import match_stream
from services.common.rpc.ports import DeckPort, DicePort, RulesPort
from services.common.security.grants import GrantSigner
from services.common.store.event_store import EventStore, NewEvent
from services.common.table_options import InvalidConfig, game_config, table_config
from services.match import disclosure, lifecycle, log_events, records, undo
from services.match.deadlines import Deadlines, MemoryDeadlines
from services.match.directory import Directory, MemoryDirectory
from services.match.lifecycle import Holder, Match, Status
from services.match.repository import MatchRepository
from services.match.timekeeping import Timekeeper, Timing
from services.match.turns import Progress, RulesBook, TurnRunner
from services.match.unit_of_work import UnitOfWork, Written, fingerprint

__all__ = ["Joined", "MatchApp", "Submitted", "Written", "fingerprint"]

log = tlog.get("match")


@dataclass(frozen=True)
class Submitted:
    """A submit's answer; for a new action also the match it led to and that match's
    whole position (every seat's view and legal actions), so nobody asks again."""

    version: int
    duplicate: bool
    match: Match | None = None
    position: rpb.Position | None = None
    # What the action appended (versions version - len + 1 .. version).
    appended: tuple[NewEvent, ...] = ()


@dataclass(frozen=True)
class Joined:
    seat: int
    version: int
    tenure: int


class MatchApp:
    def __init__(
        self,
        store: EventStore,
        rules: Mapping[str, RulesPort],
        dice: DicePort,
        deck: DeckPort,
        snapshot_every: int = 50,
        on_finished: Callable[[str, str], Awaitable[None]] | None = None,
        directory: Directory | None = None,
        deadlines: Deadlines | None = None,
        now_ms: Callable[[], int] | None = None,
        grants: GrantSigner | None = None,
        chance_in_rules: bool = False,
        lobby_idle_seconds: float = 0,
        windows: RollWindows | None = None,
    ) -> None:
        self._store = store
        self._rules = RulesBook(rules)
        self._dice = dice
        self._matches = MatchRepository(store, self._rules, snapshot_every)
        self._turns = TurnRunner(self._rules, dice, deck, grants, chance_in_rules, windows)
        self._directory = directory or MemoryDirectory()
        self._timing = Timing(deadlines or MemoryDeadlines(), now_ms, lobby_idle_seconds)
        self._work = UnitOfWork(store, self._matches, self._turns, self._timing, self._directory, on_finished)
        # What the clock keeper calls (services/match/keeper.py).
        self.timekeeper = Timekeeper(self._timing, self._work, self._matches, self._rules, self._turns)

    # ------------------------------------------------------------ commands

    async def create(
        self, game: str, config: Mapping[str, str], seat_count: int, command_id: str = "", match_id: str = ""
    ) -> Match:
        """A new match in the lobby; the seed is committed in its first event."""
        await _check_table(self._rules, game, config, seat_count)
        match_id = match_id or uuid.uuid4().hex
        _check_match_id(match_id)

        async def plan(lobby: Match) -> Progress:
            created = await _created(self._dice, lobby, game, config, seat_count)
            return Progress(lifecycle.evolve(lobby, created), (log_events.platform_event(created),))

        asked = fingerprint("create", game, sorted(config.items()), seat_count)
        if (await self._work.open(match_id, command_id, asked, plan)).match is not None:
            log.info("match_created", match_id=match_id, game=game, seats=seat_count)
        return await self.current(match_id)

    async def form(
        self,
        game: str,
        config: Mapping[str, str],
        players: Sequence[tuple[str, str]],
        command_id: str,
        match_id: str,
    ) -> Match:
        """A started match with `players` (id, display name) in seat order, in one append.

        Creation, every seat and the start with its opening chance land together or not
        at all, so a formed group is never a half-filled lobby. A retry with the same
        command id answers the match as it stands; an existing match of this id made by
        another command is AlreadyExists.
        """
        if not players or any(not player or len(player) > 64 for player, _ in players):
            raise InvalidArgument("every seat needs a player_id (at most 64 characters)", "players")
        seat_count = len(players)
        await _check_table(self._rules, game, config, seat_count)
        _check_match_id(match_id)

        async def plan(lobby: Match) -> Progress:
            # Only the matchmaker may form (services/common/security/authz.py): the log says the table is its,
            # which is what lets ratings trust it (services/matchmaker/RATINGS.md).
            created = await _created(self._dice, lobby, game, config, seat_count, matchmade=True)
            seated = opened = lifecycle.evolve(lobby, created)
            decided: list[Message] = []
            for seat, (player, name) in enumerate(players):
                joins = lifecycle.decide_join(seated, player, seat, name)
                seated = lifecycle.evolve(seated, joins[0])
                decided += joins
            decided += lifecycle.decide_start(seated, None, None)
            started = await self._turns.apply(opened, decided)
            return Progress(started.match, (log_events.platform_event(created), *started.events))

        asked = fingerprint("form", game, sorted(config.items()), [player for player, _ in players])
        written = await self._work.open(match_id, command_id, asked, plan)
        if written.match is not None:
            log.info("match_formed", match_id=match_id, game=game, seats=seat_count, version=written.version)
        return await self.current(match_id)

    async def join(
        self, match_id: str, player_id: str, seat: int | None, command_id: str = "", display_name: str = ""
    ) -> Joined:
        """Seat `player_id`."""
        if not player_id or len(player_id) > 64:
            raise InvalidArgument("player_id is required (at most 64 characters)", "player_id")
        decided: list[ev.PlayerJoined] = []

        async def plan(match: Match) -> Progress:
            decided[:] = lifecycle.decide_join(match, player_id, seat, display_name)
            return await self._turns.apply(match, decided)

        asked = fingerprint("join", player_id, "" if seat is None else seat)
        written = await self._work.write(match_id, command_id, asked, plan)
        if written.match is not None:
            (joined,) = decided
        else:
            # A retried join answers as the first time: the seat its event
            # recorded, even if the player has left since (its tenure then no
            # longer matches the seat's, so a token for it is worthless).
            (first,) = await self._store.read(match_stream(match_id), after_version=written.version - 1, limit=1)
            joined = ev.PlayerJoined.FromString(first.data)
        return Joined(joined.seat, written.version, joined.tenure)

    async def leave(self, match_id: str, seat: int, command_id: str = "", holder: Holder | None = None) -> int:
        async def plan(match: Match) -> Progress:
            return await self._turns.apply(match, lifecycle.decide_leave(match, seat, holder))

        asked = fingerprint("leave", _holder_id(holder), seat)
        return (await self._work.write(match_id, command_id, asked, plan)).version

    async def start(
        self, match_id: str, command_id: str = "", seat: int | None = None, holder: Holder | None = None
    ) -> int:
        """Start a full lobby: set the game up and resolve its opening chance."""

        async def plan(match: Match) -> Progress:
            return await self._turns.apply(match, lifecycle.decide_start(match, seat, holder))

        # Any seated player may start: a start is the same request whoever sends it.
        return (await self._work.write(match_id, command_id, fingerprint("start"), plan)).version

    async def submit(
        self, match_id: str, seat: int, action: any_pb2.Any, command_id: str = "", holder: Holder | None = None
    ) -> Submitted:
        """Apply one action of `seat`, then any chance it triggers, in one append."""

        async def plan(match: Match) -> Progress:
            lifecycle.check_move(match, seat, holder)
            self._timing.check_time(match, seat)
            return await self._turns.act(match, seat, action)

        what = hashlib.sha256(action.value).hexdigest()
        asked = fingerprint("submit", _holder_id(holder), seat, action.type_url, what)
        written = await self._work.write(match_id, command_id, asked, plan, mover=seat)
        cached = self._matches.cached(match_id)
        metrics.ACTIONS.labels(cached.game if cached is not None else "", "ok").inc()
        if written.match is None:
            return Submitted(written.version, True)
        # The whole position, computed once (mostly by the decision that led there).
        position = await self._rules.position(written.match)
        return Submitted(written.version, False, written.match, position, written.appended)

    async def undo(
        self, match_id: str, seat: int, count: int = 1, command_id: str = "", holder: Holder | None = None
    ) -> Written:
        """Take back `seat`'s last `count` actions (services/match/undo.py says which may
        be): one ActionsUndone that returns the game to where it stood before them, the
        clocks set back to that version's, `seat` charged with the time since."""

        async def plan(match: Match) -> Progress:
            lifecycle.require_status(match, Status.ACTIVE, "match.not_active")
            lifecycle.require_seated(match, seat)
            lifecycle.require_holder(match, seat, holder)
            self._timing.check_time(match, seat)
            undo.check_undo(match.undo, seat, count)
            past = await disclosure.undisclosed(self._store, self._matches, self._turns, match, seat, count)
            return self._timing.restored(self._turns.undo(match, seat, count, past), past, seat)

        asked = fingerprint("undo", _holder_id(holder), seat, count)
        # Not ticked: an undo sets the clocks back itself.
        written = await self._work.write(match_id, command_id, asked, plan, ticked=False)
        if written.match is not None:
            log.info("actions_undone", match_id=match_id, seat=seat, count=count, version=written.version)
        return written

    # ------------------------------------------------------------ reads

    async def current(self, match_id: str) -> Match:
        """The match at its stream's current version; NotFound if there is none."""
        return await self._matches.get(match_id)

    async def view(
        self, match_id: str, viewer: int | None, holder: Holder | None = None
    ) -> tuple[Match, any_pb2.Any | None]:
        """The match and what `viewer` may see of the game (None before the start)."""
        match = await self.current(match_id)
        lifecycle.check_viewer(match, viewer, holder)
        return match, await self._rules.seen_by(match, viewer)

    async def view_at(
        self, match_id: str, version: int, viewer: int | None, holder: Holder | None = None
    ) -> tuple[Match, any_pb2.Any | None]:
        """Replay: the match and what `viewer` saw once the log reached `version`
        (who may see what: lifecycle.check_viewer and check_replay)."""
        current = await self.current(match_id)
        lifecycle.check_replay(current, version)
        lifecycle.check_viewer(current, viewer, holder)
        # The current version needs no fold (the gateway asks so for a spectator's live view).
        past = current if version == current.version else await self._matches.at(match_id, version)
        return past, await self._rules.seen_by(past, viewer)

    async def legal_actions(
        self, match_id: str, seat: int, holder: Holder | None = None
    ) -> tuple[int, list[any_pb2.Any]]:
        match = await self.current(match_id)
        lifecycle.require_seat_index(match, seat)
        lifecycle.require_holder(match, seat, holder)
        if match.status != Status.ACTIVE or seat not in match.turn.seats:
            return match.version, []
        known = self._rules.known_position(match)
        if known is not None:
            return match.version, list(known.seats[seat].legal_actions)
        reply = await self._rules.of(match.game).ListLegalActions(
            rpb.ListLegalActionsRequest(state=records.engine_state(match), seat=seat)
        )
        return match.version, list(reply.actions)

    async def position(self, match_id: str) -> tuple[Match, rpb.Position | None]:
        """The match now and its whole position (None before the start), computed once:
        submits, watchers and reads share it. Every seat's secrets are in it: for the
        trusted gateway, which shows each viewer its part."""
        match = await self.current(match_id)
        return match, await self._rules.position(match)

    async def list_matches(self, game: str = "", status: int = 0, limit: int = 50) -> list[Match]:
        """Newest matches first, filtered through the directory, each fresh."""
        ids = await self._directory.find(game, status, min(limit or 50, 500))
        matches = [await self.current(match_id) for match_id in ids]
        # The directory may lag behind a log: filter on the fresh matches again.
        return [m for m in matches if (not game or m.game == game) and (not status or m.status == status)]


async def _check_table(rules: RulesBook, game: str, config: Mapping[str, str], seat_count: int) -> None:
    """InvalidArgument unless the table options parse and the game's rules accept the
    seat count and the game's options (checked now rather than at the start)."""
    try:
        table_config(config)
    except InvalidConfig as bad:
        raise InvalidArgument(f"config[{bad.option}]: {bad}", "config", {"option": bad.option}) from None
    await rules.of(game).Setup(rpb.SetupRequest(game=game, config=game_config(config), seat_count=seat_count))


async def _created(
    dice: DicePort, lobby: Match, game: str, config: Mapping[str, str], seat_count: int, matchmade: bool = False
) -> ev.MatchCreated:
    """A new match's first event, its seed committed by the dice service."""
    commitment = (await dice.CommitSeed(dice_pb.CommitSeedRequest(match_id=lobby.match_id))).commitment
    return ev.MatchCreated(
        game=game, config=dict(config), seat_count=seat_count, seed_commitment=commitment, matchmade=matchmade
    )


def _check_match_id(match_id: str) -> None:
    if not match_id or len(match_id) > 64 or not match_id.replace("-", "").isalnum():
        raise InvalidArgument("match_id must be 1 to 64 letters, digits or dashes", "match_id")


def _holder_id(holder: Holder | None) -> str:
    return holder.player_id if holder is not None else ""

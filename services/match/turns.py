"""Running a match forward: platform events, the rules' decisions, chance, the end.

The turn runner takes a match and what a command caused (platform events, or
one seat's action), asks the rules what follows, resolves every chance request
through the dice and deck until players are asked again, and closes a game its
rules have scored (MatchEnded, then the revealed seed). With `chance_in_rules`,
every Setup and Decide carries the match's draw cursor (and, with a grant signer,
for rules in processes of their own, the match's grant: services/common/security/grants.py),
and the rules resolve the chance that follows themselves; their steps are
checked against the match's own cursor before they are logged, and the runner
resolves whatever they left. It answers the new match and the log events to append; nothing is
written here. After that append has landed, `release` lets the deck drop a
finished match's piles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from google.protobuf import any_pb2
from google.protobuf.message import Message
from tabletop.common.v1 import chance_pb2, common_pb2
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common import draws
from services.common.draws import ChanceResolver, RollWindows
from services.common.errors import FailedPrecondition, InvalidArgument, ServiceError
from services.common.lru import LRU
from services.common.rpc.ports import DeckPort, DicePort, RulesPort
from services.common.security.grants import GrantSigner
from services.common.store.event_store import NewEvent
from services.common.table_options import game_config
from services.games.common.chance import CHANCE_SEAT
from services.match import lifecycle, log_events, records
from services.match.lifecycle import Match

# A request the rules may answer with the chance they resolved under the match's grant.
Granted = TypeVar("Granted", rpb.DecideRequest, rpb.SetupRequest)
MAX_CHANCE_STEPS = 10_000
# States whose position (or views) are kept: a few per match being played.
POSITIONS = 4096
# The viewer key of the spectator in a state's views.
SPECTATOR = -2


@dataclass(frozen=True)
class Progress:
    """A match moved forward, and the log events that record the move."""

    match: Match
    events: tuple[NewEvent, ...] = ()

    def then(self, match: Match, *events: NewEvent) -> Progress:
        return Progress(match, (*self.events, *events))


@dataclass
class _Known:
    """What the rules have answered of one state: its whole position, and views asked
    alone (a spectator's of a decided position, which leaves the spectator out; any
    viewer's at a replayed version whose position was never computed)."""

    position: rpb.Position | None = None
    views: dict[int, any_pb2.Any] | None = None


class RulesBook:
    """The rules of every game this service hosts, by game name, and the match's one
    position cache: what they have answered of each state. A position and a view are
    pure functions of the game, its seat count and the engine state (and the viewer),
    so they are kept by those and never go stale; live views, replays and every
    submit's reply share them."""

    def __init__(self, rules: Mapping[str, RulesPort]) -> None:
        self._rules = dict(rules)
        self._known: LRU[tuple[str, int, bytes], _Known] = LRU(POSITIONS, fifo=True)

    def of(self, game: str) -> RulesPort:
        rules = self._rules.get(game)
        if rules is None:
            raise InvalidArgument(f"unknown game {game!r}; known: {', '.join(sorted(self._rules))}", "game")
        return rules

    def known_position(self, match: Match) -> rpb.Position | None:
        """The match's position if the rules have answered it already."""
        if match.engine_state is None:
            return None
        known = self._known.get((match.game, match.seat_count, match.engine_state))
        return known.position if known is not None else None

    async def position(self, match: Match) -> rpb.Position | None:
        """Every seat's view and legal actions and the spectator view of the match's game
        (None before the start): kept from a decision, or asked once."""
        if match.engine_state is None:
            return None
        known = self.known_position(match)
        if known is None:
            reply = await self.of(match.game).GetPosition(
                rpb.GetPositionRequest(state=records.engine_state(match), seat_count=match.seat_count)
            )
            known = reply.position
            self._keep(match.game, match.seat_count, match.engine_state, known)
        return known

    async def decide(self, match: Match, request: rpb.DecideRequest) -> rpb.DecideResponse:
        """A decision on the match's game, asking for the position it leads to as well."""
        request.position_seats = match.seat_count
        decision = await self.of(match.game).Decide(request)
        if decision.HasField("position"):
            self._keep(match.game, match.seat_count, decision.state.data, decision.position)
        return decision

    async def seen_by(self, match: Match, viewer: int | None) -> any_pb2.Any | None:
        """What `viewer` (None: a spectator) sees of the game at the match's version
        (None before the start): from the state's position where it holds that view,
        else asked of the rules once and kept beside it."""
        if match.engine_state is None:
            return None
        key = (match.game, match.seat_count, match.engine_state)
        known = self._known.get(key)
        position = known.position if known is not None else None
        if position is not None and viewer is not None:
            return position.seats[viewer].view
        if position is not None and position.HasField("spectator_view"):
            return position.spectator_view
        who = SPECTATOR if viewer is None else viewer
        if known is not None and known.views is not None and who in known.views:
            return known.views[who]
        request = rpb.GetViewRequest(state=records.engine_state(match))
        if viewer is not None:
            request.viewer = viewer
        view = (await self.of(match.game).GetView(request)).view
        known = self._known.get(key) or self._known.put(key, _Known())
        if known.views is None:
            known.views = {}
        known.views[who] = view
        return view

    def _keep(self, game: str, seat_count: int, state: bytes, position: rpb.Position) -> None:
        key = (game, seat_count, state)
        known = self._known.get(key)
        if known is None:
            self._known.put(key, _Known(position))
        else:
            known.position = position

    async def set_up(self, match: Match) -> Match:
        """The match at its opening position (after MatchStarted), its opening chance not
        yet resolved: what a rebuild folds the logged chance and events onto."""
        reply = await self.start(match, setup_request(match))
        return lifecycle.with_position(match, reply.state.data, records.turn_of(reply.turn), None)

    async def start(self, match: Match, request: rpb.SetupRequest) -> rpb.SetupResponse:
        """The rules' opening of the match's game, keeping the position if they answer it."""
        reply = await self.of(match.game).Setup(request)
        if reply.HasField("position"):
            self._keep(match.game, match.seat_count, reply.state.data, reply.position)
        return reply

    async def replay(self, match: Match, events: Sequence[tuple[str, bytes]]) -> Match:
        """The match once its game has folded `events` (type and bytes of game events
        read back from the log). A game's events are all of one message type: they
        travel as bytes under that name, without an Any around each."""
        request = rpb.ReplayRequest(state=records.engine_state(match))
        types = {type_name for type_name, _ in events}
        if len(types) == 1:
            request.event_type = types.pop()
            request.event_data.extend([data for _, data in events])
        else:
            request.events.extend(
                [any_pb2.Any(type_url=f"type.googleapis.com/{type_name}", value=data) for type_name, data in events]
            )
        reply = await self.of(match.game).Replay(request)
        return lifecycle.with_position(match, reply.state.data, records.turn_of(reply.turn), _outcome(reply))


class TurnRunner:
    def __init__(
        self,
        rules: RulesBook,
        dice: DicePort,
        deck: DeckPort,
        grants: GrantSigner | None = None,
        chance_in_rules: bool = False,
        windows: RollWindows | None = None,
    ) -> None:
        self._rules = rules
        self._dice = dice
        self._deck = deck
        # Rolls from the match's roll windows (shared with rules in this process), where kept.
        self._windows = windows
        self._chance = ChanceResolver(dice, deck, windows)
        self._grants = grants
        self._chance_in_rules = chance_in_rules
        # Each match's piles (the tuple itself, held) and their encoding in a cursor.
        self._cursor_piles: LRU[str, tuple[tuple[draws.Pile, ...], bytes]] = LRU(POSITIONS)

    def _request(self, match: Match, seat: int) -> rpb.DecideRequest:
        """A Decide on the match's state, with what the rules need to resolve what follows."""
        return self._granted(rpb.DecideRequest(state=records.engine_state(match), seat=seat), match)

    def _granted(self, request: Granted, match: Match) -> Granted:
        """`request` with the match's draw cursor, and its grant and roll window slice if
        this runner signs grants (rules in a process of their own), when the rules are to
        resolve the chance that follows."""
        if not self._chance_in_rules:
            return request
        if self._grants is not None:
            self._grants.fill(request.grant, match.match_id, match.next_counter)
            held = self._windows.slice(match.match_id, match.next_counter) if self._windows is not None else None
            if held is not None:
                window = request.window
                window.first_counter, window.dice, window.digests = held.first, held.dice, held.digests
        request.cursor.match_id = match.match_id
        request.cursor.next_counter = match.next_counter
        if match.piles:
            request.cursor.MergeFromString(self._piles_field(match))
        return request

    def _piles_field(self, match: Match) -> bytes:
        """The cursor's piles as the wire writes them. A game may keep a dozen piles, and
        most moves leave them as they were (the very same tuple): encoded once per change."""
        kept = self._cursor_piles.get(match.match_id)
        if kept is not None and kept[0] is match.piles:
            return kept[1]
        cursor = rpb.ChanceCursor(
            piles=[rpb.PileCursor(name=p.name, counter=p.counter, size=p.size, dealt=p.dealt) for p in match.piles]
        )
        return self._cursor_piles.put(match.match_id, (match.piles, cursor.SerializeToString()))[1]

    async def _set_up(self, progress: Progress) -> Progress:
        """The opening position, with the chance the rules resolved on the way."""
        match = progress.match
        reply = await self._rules.start(match, self._granted(setup_request(match), match))
        opening = rpb.DecideResponse(state=reply.state, turn=reply.turn, steps=reply.steps)
        if reply.HasField("outcome"):
            opening.outcome.CopyFrom(reply.outcome)
        return _decided(progress, opening)

    async def apply(self, match: Match, events: Sequence[Message]) -> Progress:
        """Fold platform events a command decided, set the game up when it starts,
        then settle whatever chance follows."""
        progress = Progress(match)
        for event in events:
            progress = progress.then(lifecycle.evolve(progress.match, event), log_events.platform_event(event))
            if isinstance(event, ev.MatchStarted):
                progress = await self._set_up(progress)
        return await self._settle(progress)

    async def act(self, match: Match, seat: int, action: any_pb2.Any, may_undo: bool = True) -> Progress:
        """One seat's action as the rules decide it, then the chance it triggers. An action
        the seat may take back (`may_undo`, the rules say so, nothing was drawn or rolled
        after it and the game goes on) opens its batch with an UndoPoint."""
        request = self._request(match, seat)
        request.action.CopyFrom(action)
        decision = await self._rules.decide(match, request)
        decided = _decided(Progress(match), decision)
        settled = await self._settle(decided)
        if not (may_undo and decision.undoable and not decision.steps and settled is decided):
            return settled
        point = ev.UndoPoint(seat=seat, events=len(decision.events), action=action)
        return Progress(settled.match, (log_events.undo_point_event(point), *settled.events))

    async def discloses(self, match: Match, seat: int, action: any_pb2.Any) -> bool:
        """Whether `seat`'s `action` from `match`'s position disclosed anything hidden from
        the seat (the rules' counterfactual, DecideRequest.judge_undo): then it may not be
        taken back. Decided again, chance left unresolved: the verdict needs no draw."""
        request = rpb.DecideRequest(state=records.engine_state(match), seat=seat, judge_undo=True)
        request.action.CopyFrom(action)
        return not (await self._rules.of(match.game).Decide(request)).undoable

    def undo(self, match: Match, seat: int, count: int, past: Match) -> Progress:
        """`seat`'s last `count` actions taken back: the game as it stood in `past`."""
        undone = ev.ActionsUndone(
            seat=seat, count=count, to_version=past.version, state=past.engine_state or b"", seats=past.turn.seats
        )
        return Progress(lifecycle.restored(match, undone), (log_events.undo_event(undone),))

    async def forfeit(self, match: Match, expired: ev.ClockExpired, outcome: common_pb2.Outcome) -> Progress:
        """A seat lost on time: the timeout, then the end with `outcome` and the seed."""
        progress = Progress(match, (log_events.platform_event(expired),))
        scored = lifecycle.with_position(match, match.engine_state or b"", match.turn, outcome)
        return await self._close(progress.then(scored))

    async def release(self, match: Match) -> None:
        """After a finished match's last append: its piles are no longer needed."""
        await self._deck.ReleaseMatch(deck_pb.ReleaseMatchRequest(match_id=match.match_id))

    async def _settle(self, progress: Progress) -> Progress:
        """Resolve chance requests until players are asked again, then close a finished game."""
        settled = await draws.settle(self._chance, progress.match.match_id, progress, self, MAX_CHANCE_STEPS)
        if self._grants is not None and self._windows is not None and settled.match.outcome is None:
            # The next move's rolls are the rules': their slice of the window is ready for it.
            await self._windows.top_up(settled.match.match_id, settled.match.next_counter)
        return await self._close(settled)

    # The match's side of the chance loop (draws.ChanceSide[Progress]).

    def wanted(self, at: Progress) -> chance_pb2.ChanceRequest | None:
        return at.match.turn.chance if at.match.outcome is None else None

    def cursor(self, at: Progress) -> tuple[int, Callable[[str], draws.Pile | None]]:
        return at.match.next_counter, at.match.pile

    async def resolved(
        self, at: Progress, request: chance_pb2.ChanceRequest, outcome: chance_pb2.ChanceOutcome, how: draws.Resolution
    ) -> Progress:
        match = at.match
        resolved = ev.ChanceResolved(
            counter=how.counter, request=request, outcome=outcome,
            pile_counter=how.pile_counter, pile_offset=how.pile_offset,
        )
        progress = at.then(lifecycle.evolve(match, resolved), log_events.chance_event(resolved))
        decide = self._request(progress.match, CHANCE_SEAT)
        decide.chance.CopyFrom(outcome)
        return _decided(progress, await self._rules.decide(match, decide))

    def may_stop(self, refused: ServiceError) -> bool:
        return False  # the match is the last resort: a refusal fails the command

    async def _close(self, progress: Progress) -> Progress:
        ended = lifecycle.ending(progress.match)
        if ended is None:
            return progress
        seed = (await self._dice.RevealSeed(dice_pb.RevealSeedRequest(match_id=progress.match.match_id))).seed
        for event in (ended, ev.SeedRevealed(seed=seed)):
            progress = progress.then(lifecycle.evolve(progress.match, event), log_events.platform_event(event))
        return progress


def setup_request(match: Match) -> rpb.SetupRequest:
    return rpb.SetupRequest(game=match.game, config=game_config(match.config), seat_count=match.seat_count)


def _decided(progress: Progress, decision: rpb.DecideResponse) -> Progress:
    """The rules' decision folded in: its game events logged, then each chance step the
    rules resolved (its record, then its events), the position taken."""
    progress = progress.then(progress.match, *(log_events.game_event(emitted) for emitted in decision.events))
    for step in decision.steps:
        resolved = _checked(progress.match, step)
        progress = progress.then(
            lifecycle.evolve(progress.match, resolved),
            log_events.chance_event(resolved),
            *(log_events.game_event(emitted) for emitted in step.events),
        )
    moved = lifecycle.with_position(
        progress.match, decision.state.data, records.turn_of(decision.turn), _outcome(decision)
    )
    return Progress(moved, progress.events)


def _checked(match: Match, step: rpb.ChanceStep) -> ev.ChanceResolved:
    """A step the rules resolved, as the log records it, once it is seen to use the draw
    number or pile position the match itself would have used: a rules process that
    got out of step is a platform fault (INTERNAL), and nothing is appended."""
    kind = step.request.WhichOneof("kind")
    taken = draws.Resolution(step.counter, step.pile_counter, step.pile_offset)
    try:
        expected = draws.placed(step.request, match.next_counter, match.pile) if kind is not None else None
    except FailedPrecondition:  # a deal from a pile the match never made
        expected = None
    if expected != taken:
        raise RuntimeError(f"the rules resolved {kind} out of step with match {match.match_id}")
    return ev.ChanceResolved(
        counter=step.counter, request=step.request, outcome=step.outcome,
        pile_counter=step.pile_counter, pile_offset=step.pile_offset,
    )


def _outcome(reply: rpb.DecideResponse | rpb.ReplayResponse) -> common_pb2.Outcome | None:
    """The rules' outcome, if the game has one, as a copy the match owns."""
    if not reply.HasField("outcome"):
        return None
    outcome = common_pb2.Outcome()
    outcome.CopyFrom(reply.outcome)
    return outcome

"""Where a match's draws stand, and resolving one chance request through the dice and deck.

The draw number (counter) comes from the match record, which is derived from the
log; the dice and deck answer pure functions of it, so a retried or raced
resolution gets the same outcome and consumes nothing. Two callers resolve: the
match (services/match/turns.py) and the rules deciding a move, in a process of
their own under the match's grant (services/rules/servicer.py,
services/common/security/grants.py) or in the match's process as the match. Both
advance the same cursor with `advanced`, so they cannot disagree on which draw
number or pile position comes next.

Rolls cost no call per roll. The match keeps a roll window per match (`RollWindows`:
the first tries of its next few dozen rolls, services/dice/fair.py), asked of the dice
once per `WINDOW_COUNTERS` draw numbers, and rolls from it; a rules process of its own
rolls from the slice of it the match hands over with the move (`window`), and leaves a
roll the slice does not cover to the match. Shuffles, deals and puts stay with the deck.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from tabletop.common.v1 import chance_pb2
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb

from services.common import logging as tlog
from services.common.errors import FailedPrecondition, ServiceError
from services.common.lru import LRU
from services.common.rpc.ports import DeckPort, DicePort
from services.common.security import grants
from services.dice import fair

# Draw numbers one window asks the dice for: one OpenWindow (and one revealed-seed check)
# per this many rolls, where each roll was a call of its own. 32 x 4 dice is 128 HMACs at
# the dice (about 0.35 ms) and a 4 KB reply; a short match leaves the rest unused.
WINDOW_COUNTERS = 32
# Dice per draw number in a window: the most any game here rolls at once (Discover's leader
# dice, one per seat, 4 seats; its combat rolls 2, dice_hand 2, Pig 1). A bigger roll is
# asked of the dice (RollDice) as before.
WINDOW_DICE = 4
# Draw numbers of the window handed to a rules process with one move: more than any move of
# the games here rolls for (a roll past them is left to the match, which has the rest), and
# 1 KB of request. The match tops its window up before it holds fewer than this.
SLICE_COUNTERS = 8
# Matches whose window the match process keeps (at most about 5 KB each).
WINDOWS_KEPT = 4096
# Why a rules process stopped at a roll: its slice of the window does not cover it.
WINDOW_SHORT = "chance.window_short"

log = tlog.get("draws")


@dataclass(frozen=True)
class Pile:
    """How far one hidden pile has been dealt; `counter` is the draw number of the
    shuffle (or put) that made its current order."""

    name: str
    counter: int
    size: int
    dealt: int = 0


@dataclass(frozen=True)
class Resolution:
    """What the log keeps of a resolution beside its request and outcome."""

    counter: int  # the draw number it used; -1 for a deal, which reads an earlier shuffle
    pile_counter: int = 0  # a deal's or a put's pile version ...
    pile_offset: int = 0  # ... and how many of its cards had been dealt


def placed(request: chance_pb2.ChanceRequest, counter: int, pile: Callable[[str], Pile | None]) -> Resolution:
    """Where resolving `request` reads and writes, for a match whose next draw number is
    `counter` (`pile`: its piles by name): what the resolver uses, and what the match
    checks a step the rules resolved against."""
    kind = request.WhichOneof("kind")
    if kind == "draw_cards":
        # A deal uses no new draw number: it reads the pile the shuffle (or put) made.
        mark = pile(request.draw_cards.pile)
        if mark is None:
            raise FailedPrecondition(f"pile {request.draw_cards.pile} was never shuffled", "match.pile_unknown")
        return Resolution(-1, mark.counter, mark.dealt)
    if kind == "put_cards":
        # A new version of the pile, onto what is left of the current one (if any).
        mark = pile(request.put_cards.pile)
        return Resolution(counter, *((mark.counter, mark.dealt) if mark is not None else (-1, 0)))
    return Resolution(counter)


class Resolved(Protocol):
    """A logged resolution: the match's ChanceResolved event, or a rules ChanceStep."""

    @property
    def counter(self) -> int: ...

    @property
    def request(self) -> chance_pb2.ChanceRequest: ...

    @property
    def outcome(self) -> chance_pb2.ChanceOutcome: ...


def advanced(counter: int, piles: tuple[Pile, ...], events: Iterable[Resolved]) -> tuple[int, tuple[Pile, ...]]:
    """The next draw number and the piles after a run of resolutions, piles in the order
    they were first made (a rebuild folds hundreds of these: one pass, deals added at the end)."""
    by_name = {pile.name: pile for pile in piles}
    dealt: dict[str, int] = {}  # cards drawn from each pile beyond what `by_name` says
    for event in events:
        request = event.request
        kind = request.WhichOneof("kind")
        if event.counter >= 0:
            counter = event.counter + 1
        if kind == "draw_cards":
            name = request.draw_cards.pile
            if name not in by_name:
                by_name[name] = Pile(name, 0, 0)
            dealt[name] = dealt.get(name, 0) + request.draw_cards.count
        elif kind == "shuffle_pile":
            shuffle = request.shuffle_pile
            by_name[shuffle.pile] = Pile(shuffle.pile, event.counter, len(shuffle.cards))
            dealt.pop(shuffle.pile, None)
        elif kind == "put_cards":
            # The put made a new version of the pile under this draw number.
            put = request.put_cards
            by_name[put.pile] = Pile(put.pile, event.counter, event.outcome.cards_put.size)
            dealt.pop(put.pile, None)
    for name, count in dealt.items():
        mark = by_name[name]
        by_name[name] = Pile(name, mark.counter, mark.size, mark.dealt + count)
    return counter, tuple(by_name.values())


def window_message(held: fair.Window) -> chance_pb2.RollWindow:
    return chance_pb2.RollWindow(first_counter=held.first, dice=held.dice, digests=held.digests)


def window_of(message: chance_pb2.RollWindow) -> fair.Window:
    return fair.Window(message.first_counter, message.dice, message.digests)


class Rolls(Protocol):
    """Where a resolver's rolls come from."""

    async def roll(self, match_id: str, counter: int, faces: int, count: int) -> tuple[int, ...]: ...


def _served(faces: int, count: int, dice: int) -> bool:
    """A roll a window answers: what the dice would roll (not refuse), of at most `dice` dice."""
    return 1 <= faces <= fair.MAX_FACES and 0 < count <= dice


class DiceRolls:
    """One RollDice call per roll: the match's resolver where it keeps no windows (tests' fakes)."""

    def __init__(self, dice: DicePort) -> None:
        self._dice = dice

    async def roll(self, match_id: str, counter: int, faces: int, count: int) -> tuple[int, ...]:
        request = dice_pb.RollDiceRequest(match_id=match_id, counter=counter, faces=faces, count=count)
        return tuple((await self._dice.RollDice(request)).values)


class NoRolls:
    """A rules process's: it may not roll (authz.py); what the match's slice leaves is the match's."""

    async def roll(self, match_id: str, counter: int, faces: int, count: int) -> tuple[int, ...]:
        raise FailedPrecondition("the match's roll window does not cover this roll", WINDOW_SHORT)


class RollWindows:
    """The match's roll windows, one per match (the newest `WINDOWS_KEPT`): rolls answered
    from the window, one OpenWindow per `WINDOW_COUNTERS` draw numbers, RollDice only for
    a roll of more than `WINDOW_DICE` dice or a rejected first try.

    A window is a pure function of the seed and its draw numbers, so a kept one never goes
    stale and two replicas' windows agree; only draw numbers from the match's next one on
    are kept."""

    def __init__(self, dice: DicePort, counters: int = WINDOW_COUNTERS, dice_count: int = WINDOW_DICE) -> None:
        self._dice = dice
        self._counters = counters
        self._dice_count = dice_count
        self._windows: LRU[str, fair.Window] = LRU(WINDOWS_KEPT)

    async def roll(self, match_id: str, counter: int, faces: int, count: int) -> tuple[int, ...]:
        values = None
        if _served(faces, count, self._dice_count):
            held = self._kept(match_id)
            if held is None or not held.covers(counter, count):
                held = await self._open(match_id, counter)
            values = fair.roll_from_window(held, counter, faces, count)
        if values is None:  # a roll the dice alone can answer (or refuse, as they would have)
            return await DiceRolls(self._dice).roll(match_id, counter, faces, count)
        return values

    def slice(self, match_id: str, counter: int) -> fair.Window | None:
        """What a rules process gets with a move: the window from draw number `counter`,
        at most `SLICE_COUNTERS` of it; None for a match that has no window (it never rolled)."""
        held = self._kept(match_id)
        if held is None or held.end <= counter:
            return None
        return held.since(counter, SLICE_COUNTERS)

    async def top_up(self, match_id: str, counter: int) -> None:
        """Before a rules process gets its slice: a match that rolls (it has a window) and
        has fewer than `SLICE_COUNTERS` draw numbers of it left from `counter` on gets the
        next window now, so the rules need not leave a roll to the match for it."""
        held = self._kept(match_id)
        if held is None or held.end - counter >= SLICE_COUNTERS:
            return
        try:
            if held.end <= counter:
                await self._open(match_id, counter)
                return
            following = await self._fetch(match_id, held.end)
        except ServiceError as failed:
            # Only a saving: the rules then leave the roll to the match, which meets the
            # failure itself if the move rolls at all (a move that does not must not fail).
            log.info("window_not_topped_up", match_id=match_id, reason=failed.reason)
            return
        self._keep(match_id, held.since(counter, held.end - counter).then(following))

    async def _open(self, match_id: str, counter: int) -> fair.Window:
        return self._keep(match_id, await self._fetch(match_id, counter))

    async def _fetch(self, match_id: str, first: int) -> fair.Window:
        request = dice_pb.OpenWindowRequest(match_id=match_id, first_counter=first, counters=self._counters,
                                            dice=self._dice_count)
        return window_of((await self._dice.OpenWindow(request)).window)

    def _kept(self, match_id: str) -> fair.Window | None:
        return self._windows.get(match_id)

    def _keep(self, match_id: str, held: fair.Window) -> fair.Window:
        return self._windows.put(match_id, held)


class ChanceResolver:
    """Resolves one chance request at a time: rolls through `rolls` (default: RollDice per
    roll), or from a window the caller was handed; the rest through the dice and the deck."""

    def __init__(self, dice: DicePort, deck: DeckPort, rolls: Rolls | None = None) -> None:
        self._dice = dice
        self._deck = deck
        self.rolls: Rolls = rolls if rolls is not None else DiceRolls(dice)

    async def resolve(
        self,
        match_id: str,
        counter: int,
        pile: Callable[[str], Pile | None],
        request: chance_pb2.ChanceRequest,
        grant: chance_pb2.ChanceGrant | None = None,
        window: fair.Window | None = None,
    ) -> tuple[chance_pb2.ChanceOutcome, Resolution]:
        """The outcome of `request` for a match whose next draw number is `counter`
        (`pile`: its piles by name), and what the log keeps of it. A rules process
        passes the match's `grant` and `window`; the match needs neither."""
        kind = request.WhichOneof("kind")
        outcome = chance_pb2.ChanceOutcome()
        how = placed(request, counter, pile)
        if kind in ("shuffle_pile", "put_cards"):
            grants.pile_allowed(grant, counter)  # the deck would refuse it: no call to learn that
        if kind == "roll_dice":
            r = request.roll_dice
            values = None
            if window is not None and _served(r.faces, r.count, window.dice):
                values = fair.roll_from_window(window, counter, r.faces, r.count)
            if values is None:
                values = await self.rolls.roll(match_id, counter, r.faces, r.count)
            outcome.dice_rolled.values.extend(values)
        elif kind == "permute":
            permuted = await self._dice.Permute(
                dice_pb.PermuteRequest(match_id=match_id, counter=counter, n=request.permute.n, grant=grant)
            )
            outcome.permuted.order.extend(permuted.order)
        elif kind == "shuffle_pile":
            s = request.shuffle_pile
            shuffled = await self._deck.ShufflePile(
                deck_pb.ShufflePileRequest(
                    match_id=match_id, pile=s.pile, counter=counter, cards=s.cards, keep_order=s.keep_order,
                    grant=grant,
                )
            )
            outcome.pile_shuffled.pile, outcome.pile_shuffled.size = s.pile, shuffled.size
        elif kind == "draw_cards":
            d = request.draw_cards
            drawn = await self._deck.DrawCards(
                deck_pb.DrawCardsRequest(
                    match_id=match_id, pile=d.pile, counter=how.pile_counter, offset=how.pile_offset, count=d.count,
                    grant=grant,
                )
            )
            outcome.cards_drawn.pile = d.pile
            outcome.cards_drawn.cards.extend(drawn.cards)
        elif kind == "put_cards":
            p = request.put_cards
            put = await self._deck.PutCards(
                deck_pb.PutCardsRequest(
                    match_id=match_id, pile=p.pile, counter=counter, from_counter=how.pile_counter,
                    offset=how.pile_offset, cards=p.cards, bottom=p.bottom, grant=grant,
                )
            )
            outcome.cards_put.pile, outcome.cards_put.size = p.pile, put.size
        else:
            raise FailedPrecondition("the engine asked for an unknown chance request", "match.chance_unknown")
        return outcome, how


At = TypeVar("At")


class ChanceSide(Protocol[At]):
    """Who resolves a position's chance: the match's turn runner, or a rules process on the
    match's behalf. `At` is the position as that side holds it."""

    def wanted(self, at: At) -> chance_pb2.ChanceRequest | None:
        """The chance request `at` waits on (None once players are asked, or the game ended)."""

    def cursor(self, at: At) -> tuple[int, Callable[[str], Pile | None]]:
        """The next draw number at `at`, and its piles by name."""

    async def resolved(
        self, at: At, request: chance_pb2.ChanceRequest, outcome: chance_pb2.ChanceOutcome, how: Resolution
    ) -> At:
        """`at` once the rules have taken `outcome` (what the log records as `how`)."""

    def may_stop(self, refused: ServiceError) -> bool:
        """Whether a refused resolution ends the loop where it stands (True) or fails it."""


async def settle(
    resolver: ChanceResolver,
    match_id: str,
    at: At,
    side: ChanceSide[At],
    steps: int,
    grant: chance_pb2.ChanceGrant | None = None,
    window: fair.Window | None = None,
) -> At:
    """`at` with the chance that follows it resolved, one request at a time, until players
    are asked again or `steps` requests were resolved: the one chance loop of the stack,
    run by the match (services/match/turns.py) and by a rules process alike."""
    for _ in range(steps):
        request = side.wanted(at)
        if request is None:
            break
        counter, pile = side.cursor(at)
        try:
            outcome, how = await resolver.resolve(match_id, counter, pile, request, grant, window)
        except ServiceError as refused:
            if not side.may_stop(refused):
                raise
            break
        at = await side.resolved(at, request, outcome, how)
    return at

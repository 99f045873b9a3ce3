"""Did a move disclose anything its mover could not see? The counterfactual test
behind the undo verdict (services/rules/app.py `undoable`), the same for every game.

A move the mover takes back must not have taught it anything: otherwise it could
look, undo, and choose again knowing more (issue 27: La Isla's last secret
assignment revealed every seat's cards, then was taken back). Whether it did is
derived, not declared: the game's determinizer (`GameDeclaration.determinize`)
gives whole states the mover cannot tell from the real one, and the same move is
decided in a few of them. If any of those worlds gives other events, another
turn, or the mover another view afterwards, what the move caused depended on
something hidden from its mover, and the move showed it. The mover's own secrets
stay in every world (its hand, its own secret choice), so a card played from its
hand is still its own to take back.

The worlds are drawn from a generator seeded by the state's canonical bytes:
engines are pure, and every replica reaches the same verdict. They are drawn
antithetically: each world replays the same random stream, shifted by another
1/WORLDS of every range (`SeededRng`), so where a determinizer picks one of
another seat's options the worlds pick different ones, and where it deals that
seat cards from a shuffled pile the worlds deal it different cards. At most one
world can then match the real state in that secret, however few its options:
independent worlds would both match a two-way secret one time in four (La Isla's
animal step has such secrets, and Discover's draft reveals a choice from two
characters). Other seats' views are not compared here: each differs between
worlds by its own secrets, and what the move shows them travels in its events,
which are compared whole (public ones and the mover's own; a move that tells
another seat something in private is refused before this test runs).
tests/games/test_undo_disclosure.py holds every seat's views to it in more,
independent worlds.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from services.games.common.engine import IllegalAction

if TYPE_CHECKING:  # the host imports this module
    from services.games.common.host import HostedEngine

# Worlds each undoable-looking move is decided in (each costs a determinization and a
# decide; the first one also the move's evolve and a view of the mover).
WORLDS = 2
_MASK64 = (1 << 64) - 1


class SeededRng:
    """A pure pseudo-random generator that satisfies `Rng`: each draw is a block of
    SHAKE-128 output keyed by the seed and a counter, so the worlds it draws are a function
    of the state they are drawn from. `rotation` shifts every draw by that fraction of its
    range (mod 1): generators of one seed and rotations i/k make the same draws in the
    same order, each spread 1/k of the range from the others', so the worlds they draw
    make different picks wherever a determinizer picks among options."""

    def __init__(self, seed: bytes, rotation: float = 0.0) -> None:
        self._key = hashlib.blake2b(seed, digest_size=16).digest()
        self._block = 0
        self._rotation = rotation
        self._offset64 = int(rotation * (1 << 64)) & _MASK64

    def _words(self, count: int) -> tuple[int, ...]:
        """The next block: `count` unrotated 32-bit words."""
        self._block += 1
        stream = hashlib.shake_128(self._key + self._block.to_bytes(8, "little")).digest(4 * count)
        return struct.unpack(f"<{count}I", stream)

    def _bits64(self) -> int:
        high, low = self._words(2)
        return ((high << 32 | low) + self._offset64) & _MASK64

    def random(self) -> float:
        return (self._bits64() >> 11) / (1 << 53)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        width = len(range(start, stop, step))
        if width <= 0:
            raise ValueError("empty range for randrange")
        # The top of 64 bits times the width (Lemire): a rotation by 1/k moves every pick.
        return start + step * ((self._bits64() * width) >> 64)

    def shuffle(self, x: list[str]) -> None:
        """Fisher-Yates from one block (32 bits a swap: decks are far below 2**32 cards),
        then a cyclic shift by `rotation` of the length: the k rotations of one seed leave
        every position holding another card, so what a determinizer deals from the top
        (a hand, a draft offer) is disjoint between the worlds while it is at most 1/k
        of the cards."""
        size = len(x)
        if size < 2:
            return
        for i, word in zip(range(size - 1, 0, -1), self._words(size - 1), strict=True):
            j = (word * (i + 1)) >> 32
            x[i], x[j] = x[j], x[i]
        shift = int(self._rotation * size) % size
        if shift:
            x[:] = x[shift:] + x[:shift]


def discloses(
    engine: HostedEngine[Any, Any, Any],
    move: tuple[Any, int, Any],
    caused: tuple[Sequence[Any], Any],
    seed: bytes,
    seen: tuple[object | None, object | None] = (None, None),
) -> bool:
    """Whether `move` (state, seat, action), which `caused` (its events, the state after),
    would have caused anything else in another world consistent with the mover's view
    before: then it disclosed something hidden from the mover. `seen` holds the mover's
    views before and after where the caller has them already (None: computed here). A
    game without a determinizer: False (see `GameDeclaration.determinize`)."""
    determinize = engine.declaration.determinize
    if determinize is None:
        return False
    state, seat, action = move
    events, after = caused
    before, seen_after = seen
    view = before if before is not None else engine.view(state, seat)
    expected = tuple(events)
    for world_number in range(WORLDS):
        world = determinize(view, seat, SeededRng(seed, world_number / WORLDS)).state
        try:
            told = tuple(engine.decide(world, seat, action))
        except IllegalAction:
            return True  # legal here and refused there: its legality depended on a secret
        if told != expected:
            return True
        if world_number == 0 and _shows_otherwise(engine, world, told, after, seat, seen_after):
            return True
    return False


def _shows_otherwise(
    engine: HostedEngine[Any, Any, Any], world: Any, events: Sequence[Any], after: Any, seat: int, seen: object | None
) -> bool:
    """Whether the same events leave `world` asking other seats, or showing the mover
    another view, than the real state after them. Once per move: in every game's random
    play a disclosure has always shown in the events first (the property test holds
    views to this in every world), so this guards a game whose view alone would tell."""
    for event in events:
        world = engine.evolve(world, event)
    if engine.to_move(world) != engine.to_move(after):
        return True
    return engine.view(world, seat) != (seen if seen is not None else engine.view(after, seat))


__all__ = ["WORLDS", "SeededRng", "discloses"]

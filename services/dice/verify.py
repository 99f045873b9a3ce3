"""Recompute every random outcome of a finished match from its log.

Checks that the revealed seed matches the commitment published in the first
event, that draw numbers run 0, 1, 2, ... without gaps, that every roll and
permutation equals what the seed gives, that every shuffled pile is the
seed's permutation of the listed cards, and that every deal took exactly the
cards at its recorded position of that pile.

It also answers every outcome as the seed makes it (`Report.outcomes`, by the
version of its ChanceResolved): the match audit (services/match/audit.py) feeds
those, not the logged ones, to the game's engine when it re-derives the game's
own events, so a roll or a card changed in a game event shows too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tabletop.common.v1 import chance_pb2
from tabletop.match.v1 import events_pb2 as ev

from services.dice import fair


@dataclass
class Report:
    ok: bool = True
    rolls: int = 0
    permutations: int = 0
    shuffles: int = 0
    deals: int = 0
    puts: int = 0
    problems: list[str] = field(default_factory=list)
    # The seed's outcome of each ChanceResolved, by version (none for a deal from a pile
    # that was never shuffled, nor at all when the seed does not match its commitment).
    outcomes: dict[int, chance_pb2.ChanceOutcome] = field(default_factory=dict)

    def fail(self, problem: str) -> None:
        self.ok = False
        self.problems.append(problem)


def verify(entries: Iterable[tuple[int, str, bytes]]) -> Report:
    """Check (version, type, data) log entries of one match."""
    report = Report()
    entries = list(entries)
    commitment, seed = _seed(entries, report)
    if seed is None:
        return report
    if fair.commitment(seed) != commitment:
        report.fail("the revealed seed does not match the commitment")
        return report
    expected_counter = 0
    piles: dict[tuple[str, int], tuple[str, ...]] = {}
    for version, type_name, data in entries:
        if type_name != ev.ChanceResolved.DESCRIPTOR.full_name:
            continue
        resolved = ev.ChanceResolved.FromString(data)
        if resolved.counter >= 0:
            if resolved.counter != expected_counter:
                report.fail(f"v{version}: draw number {resolved.counter}, expected {expected_counter}")
            expected_counter = resolved.counter + 1
        outcome = _check(version, resolved, seed, piles, report)
        if outcome is not None:
            report.outcomes[version] = outcome
    return report


def _seed(entries: list[tuple[int, str, bytes]], report: Report) -> tuple[str, bytes | None]:
    commitment, seed = "", None
    for _, type_name, data in entries:
        if type_name == ev.MatchCreated.DESCRIPTOR.full_name:
            commitment = ev.MatchCreated.FromString(data).seed_commitment
        elif type_name == ev.SeedRevealed.DESCRIPTOR.full_name:
            seed = bytes.fromhex(ev.SeedRevealed.FromString(data).seed)
    if not commitment:
        report.fail("no commitment: the log lacks MatchCreated")
    if seed is None:
        report.fail("no revealed seed: the match has not ended")
    return commitment, seed


def _check(
    version: int,
    resolved: ev.ChanceResolved,
    seed: bytes,
    piles: dict[tuple[str, int], tuple[str, ...]],
    report: Report,
) -> chance_pb2.ChanceOutcome | None:
    """Check one resolution against the seed; answers the seed's outcome (None: it has none)."""
    request, outcome, counter = resolved.request, resolved.outcome, resolved.counter
    kind = request.WhichOneof("kind")
    made = chance_pb2.ChanceOutcome()
    if kind == "roll_dice":
        report.rolls += 1
        wanted = fair.roll(seed, counter, request.roll_dice.faces, request.roll_dice.count)
        made.dice_rolled.values.extend(wanted)
        if tuple(outcome.dice_rolled.values) != wanted:
            report.fail(f"v{version}: roll {tuple(outcome.dice_rolled.values)} is not the seed's {wanted}")
    elif kind == "permute":
        report.permutations += 1
        made.permuted.order.extend(fair.permutation(seed, counter, request.permute.n))
        if outcome.permuted.order != made.permuted.order:
            report.fail(f"v{version}: permutation differs from the seed's")
    elif kind == "shuffle_pile":
        report.shuffles += 1
        cards = tuple(request.shuffle_pile.cards)
        order = cards if request.shuffle_pile.keep_order else fair.shuffled(seed, counter, cards)
        piles[(request.shuffle_pile.pile, counter)] = order
        made.pile_shuffled.pile, made.pile_shuffled.size = request.shuffle_pile.pile, len(order)
        if outcome.pile_shuffled.size != len(order):
            report.fail(f"v{version}: shuffled pile size {outcome.pile_shuffled.size} != {len(order)}")
    elif kind == "put_cards":
        report.puts += 1
        put = request.put_cards
        below = piles.get((put.pile, resolved.pile_counter), ()) if resolved.pile_counter >= 0 else ()
        rest = below[resolved.pile_offset :]
        piles[(put.pile, counter)] = rest + tuple(put.cards) if put.bottom else tuple(put.cards) + rest
        made.cards_put.pile, made.cards_put.size = put.pile, len(piles[(put.pile, counter)])
        if outcome.cards_put.size != made.cards_put.size:
            report.fail(f"v{version}: pile size after a put is {outcome.cards_put.size}")
    elif kind == "draw_cards":
        report.deals += 1
        dealt_from = piles.get((request.draw_cards.pile, resolved.pile_counter))
        start = resolved.pile_offset
        if dealt_from is None:
            report.fail(f"v{version}: deal from a pile that was never shuffled")
            return None
        made.cards_drawn.pile = request.draw_cards.pile
        made.cards_drawn.cards.extend(dealt_from[start : start + request.draw_cards.count])
        if outcome.cards_drawn.cards != made.cards_drawn.cards:
            report.fail(f"v{version}: dealt cards are not the pile's cards at position {start}")
    else:
        report.fail(f"v{version}: a chance request of no known kind")
        return None
    return made

"""Commit-reveal dice: determinism, ranges, uniformity, and the verifier's teeth."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st
from tabletop.common.v1 import chance_pb2
from tabletop.match.v1 import events_pb2 as ev

from services.dice import fair
from services.dice.verify import verify

SEED = bytes(range(32))


@given(counter=st.integers(0, 10**9), faces=st.integers(1, 1000), count=st.integers(1, 10))
def test_rolls_are_pure_functions_of_seed_and_counter(counter, faces, count):
    values = fair.roll(SEED, counter, faces, count)
    assert values == fair.roll(SEED, counter, faces, count)
    assert len(values) == count and all(1 <= v <= faces for v in values)


@given(counter=st.integers(0, 10**6), n=st.integers(0, 60))
def test_permutations_are_permutations(counter, n):
    assert sorted(fair.permutation(SEED, counter, n)) == list(range(n))


def test_a_six_sided_die_is_fair_enough():
    counts = Counter(v for c in range(12_000) for v in fair.roll(SEED, c, 6, 1))
    expected = 12_000 / 6
    chi_square = sum((counts[f] - expected) ** 2 / expected for f in range(1, 7))
    assert chi_square < 20.5  # p < 0.001 for 5 degrees of freedom


def test_commitment_is_the_sha256_of_the_seed():
    import hashlib

    assert fair.commitment(SEED) == hashlib.sha256(SEED).hexdigest()


def resolved(counter, request, outcome, pile_counter=0, pile_offset=0):
    return ev.ChanceResolved(
        counter=counter, request=request, outcome=outcome, pile_counter=pile_counter, pile_offset=pile_offset
    )


def honest_log():
    cards = ("a", "b", "c", "d", "e")
    order = fair.shuffled(SEED, 0, cards)
    shuffle = resolved(
        0,
        chance_pb2.ChanceRequest(shuffle_pile=chance_pb2.ShufflePile(pile="p", cards=cards)),
        chance_pb2.ChanceOutcome(pile_shuffled=chance_pb2.PileShuffled(pile="p", size=5)),
    )
    deal = resolved(
        -1,
        chance_pb2.ChanceRequest(draw_cards=chance_pb2.DrawCards(pile="p", count=2, seat=1)),
        chance_pb2.ChanceOutcome(cards_drawn=chance_pb2.CardsDrawn(pile="p", cards=order[:2])),
        0,
        0,
    )
    put = resolved(
        1,
        chance_pb2.ChanceRequest(put_cards=chance_pb2.PutCards(pile="p", cards=("z",), seat=1)),
        chance_pb2.ChanceOutcome(cards_put=chance_pb2.CardsPut(pile="p", size=4)),
        0,
        2,
    )
    next_deal = resolved(
        -1,
        chance_pb2.ChanceRequest(draw_cards=chance_pb2.DrawCards(pile="p", count=2)),
        chance_pb2.ChanceOutcome(cards_drawn=chance_pb2.CardsDrawn(pile="p", cards=("z", order[2]))),
        1,
        0,
    )
    roll = resolved(
        2,
        chance_pb2.ChanceRequest(roll_dice=chance_pb2.RollDice(count=2, faces=6)),
        chance_pb2.ChanceOutcome(dice_rolled=chance_pb2.DiceRolled(values=fair.roll(SEED, 2, 6, 2))),
    )
    body = [shuffle, deal, put, next_deal, roll]
    created = ev.MatchCreated(game="g", seat_count=2, seed_commitment=fair.commitment(SEED))
    entries = [(1, ev.MatchCreated.DESCRIPTOR.full_name, created.SerializeToString())]
    entries += [(i + 2, ev.ChanceResolved.DESCRIPTOR.full_name, e.SerializeToString()) for i, e in enumerate(body)]
    entries.append((9, ev.SeedRevealed.DESCRIPTOR.full_name, ev.SeedRevealed(seed=SEED.hex()).SerializeToString()))
    return entries


def tamper(entries, index, change):
    version, type_name, data = entries[index]
    message = ev.ChanceResolved.FromString(data)
    change(message)
    return [*entries[:index], (version, type_name, message.SerializeToString()), *entries[index + 1 :]]


def test_an_honest_log_verifies():
    report = verify(honest_log())
    assert report.ok, report.problems
    assert (report.shuffles, report.deals, report.puts, report.rolls) == (1, 2, 1, 1)


def test_a_swapped_deal_is_caught():
    entries = tamper(honest_log(), 2, lambda m: m.outcome.cards_drawn.cards.reverse())
    assert not verify(entries).ok


def test_a_card_slipped_under_a_put_is_caught():
    entries = tamper(honest_log(), 4, lambda m: m.outcome.cards_drawn.cards.__setitem__(1, "q"))
    assert not verify(entries).ok


def test_a_skipped_draw_number_is_caught():
    entries = tamper(honest_log(), 5, lambda m: setattr(m, "counter", 3))
    assert not verify(entries).ok


def test_a_wrong_seed_is_caught():
    entries = honest_log()
    entries[-1] = (9, entries[-1][1], ev.SeedRevealed(seed=bytes(32).hex()).SerializeToString())
    report = verify(entries)
    assert not report.ok and "commitment" in report.problems[0]


# Roll windows (services/dice/fair.py `window`, `roll_from_window`): the match rolls from the
# first tries of its next rolls; what it computes must be exactly what the dice would roll.
POWERS_OF_TWO = st.sampled_from([1 << k for k in range(21)])  # 1 .. 2**20 (a mask of the digest, no rejection)
NEAR_MAX = st.integers(fair.MAX_FACES - 1000, fair.MAX_FACES)
FACES = st.one_of(st.integers(1, 20), st.integers(1, fair.MAX_FACES), POWERS_OF_TWO, NEAR_MAX, st.just(3))


@given(
    seed=st.binary(min_size=32, max_size=32),
    first=st.integers(0, 10**9),
    at=st.integers(0, 15),
    faces=FACES,
    count=st.integers(0, 8),
)
def test_a_window_rolls_exactly_what_the_dice_roll(seed, first, at, faces, count):
    held = fair.window(seed, first, 16, 8)
    assert fair.roll_from_window(held, first + at, faces, count) == fair.roll(seed, first + at, faces, count)


@given(first=st.integers(0, 10**6), counters=st.integers(1, 8), dice=st.integers(1, 4), faces=FACES)
def test_a_window_answers_nothing_outside_it(first, counters, dice, faces):
    held = fair.window(SEED, first, counters, dice)
    assert held.counters == counters and held.end == first + counters
    assert fair.roll_from_window(held, first - 1, faces, 1) is None
    assert fair.roll_from_window(held, first + counters, faces, 1) is None
    assert fair.roll_from_window(held, first, faces, dice + 1) is None  # more dice than it holds
    assert fair.roll_from_window(held, first, faces, dice) == fair.roll(SEED, first, faces, dice)


def test_a_rejected_first_try_is_left_to_the_dice():
    # 2**256 % 3 == 1: the one value at or above the limit for a three-sided die is 2**256 - 1.
    rejected = fair.Window(5, 2, bytes(32) + b"\xff" * 32)
    assert fair.roll_from_window(rejected, 5, 3, 1) == (1,)  # die 0 is fine (value 0)
    assert fair.roll_from_window(rejected, 5, 3, 2) is None  # die 1 would need attempt 1
    assert fair.roll_from_window(rejected, 5, 4, 2) == (1, 4)  # a power of two rejects nothing


@given(first=st.integers(0, 1000), cut=st.integers(0, 40), take=st.integers(0, 40))
def test_slices_and_continuations_of_windows_roll_the_same(first, cut, take):
    whole = fair.window(SEED, first, 40, 2)
    part = whole.since(first + cut, take)
    assert part.first == min(first + cut, whole.end) and part.counters == max(0, min(take, 40 - cut))
    assert fair.window(SEED, first, 20, 2).then(fair.window(SEED, first + 20, 20, 2)) == whole
    for counter in range(part.first, part.end):
        assert fair.roll_from_window(part, counter, 6, 2) == fair.roll(SEED, counter, 6, 2)


def test_a_window_holds_no_permutation_label():
    """The window's digests are those of "roll:" labels only: none is the first try of any
    permutation step, so no pile order can be computed from them."""
    held = fair.window(SEED, 0, 64, 8)
    digests = {held.digests[i : i + 32] for i in range(0, len(held.digests), 32)}
    perms = {fair._digest(SEED, f"perm:{c}:{i}", a) for c in range(64) for i in range(1, 60) for a in range(2)}
    assert len(digests) == 64 * 8 and not digests & perms


def test_the_verifier_answers_the_seeds_outcome_of_every_resolution_even_where_the_log_lies():
    """What the match audit feeds the engine (services/match/audit.py): the seed's outcome,
    not the logged one, so a game event made from a false outcome shows."""
    entries = tamper(honest_log(), 5, lambda m: m.outcome.dice_rolled.values.__setitem__(0, 7))
    outcomes = verify(entries).outcomes
    assert sorted(outcomes) == [2, 3, 4, 5, 6]
    assert tuple(outcomes[6].dice_rolled.values) == fair.roll(SEED, 2, 6, 2)
    order = fair.shuffled(SEED, 0, ("a", "b", "c", "d", "e"))
    assert tuple(outcomes[3].cards_drawn.cards) == order[:2]
    assert tuple(outcomes[5].cards_drawn.cards) == ("z", order[2])
    assert (outcomes[2].pile_shuffled.size, outcomes[4].cards_put.size) == (5, 4)


def test_a_deal_from_a_pile_never_shuffled_has_no_outcome():
    entries = tamper(honest_log(), 2, lambda m: setattr(m, "pile_counter", 7))
    report = verify(entries)
    assert 3 not in report.outcomes and report.problems[0] == "v3: deal from a pile that was never shuffled"

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

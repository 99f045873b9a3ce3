"""Chance grants: the dice and the deck let a rules process draw only under a grant the
match signed for that match, those draw numbers and that time; nobody else's signature,
certificate or edits pass."""

from __future__ import annotations

import hashlib
import pathlib
import time

import pytest
from tabletop.common.v1 import chance_pb2

from services.common.errors import PermissionDenied
from services.common.security import pki
from services.common.security.grants import (
    GRANT_COUNTERS,
    GRANT_SECONDS,
    PILE_NOT_NEXT,
    GrantChecker,
    GrantSigner,
    check_call,
    pile_chain,
)
from services.common.security.tls import KnownPeer

NOW = time.time()


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def stack_pki(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return pki.ensure(tmp_path_factory.mktemp("pki"))


def _signer(pki_dir: pathlib.Path, identity: str = "match", clock: Clock | None = None) -> GrantSigner:
    files = pki.files(pki_dir, identity)
    return GrantSigner(files.cert.read_bytes(), files.key.read_bytes(), clock or Clock())


def _checker(pki_dir: pathlib.Path, clock: Clock | None = None) -> GrantChecker:
    return GrantChecker((pki_dir / "ca.crt").read_bytes(), clock or Clock())


def _refused(checker: GrantChecker, grant: chance_pb2.ChanceGrant, match_id: str, counter: int | None) -> str:
    with pytest.raises(PermissionDenied) as refused:
        checker.check(grant, match_id, counter)
    return refused.value.reason


def test_a_match_s_grant_covers_its_draw_numbers_for_its_time(stack_pki: pathlib.Path) -> None:
    clock = Clock()
    grant = _signer(stack_pki, clock=clock).grant("m1", 40)
    checker = _checker(stack_pki, clock)
    for counter in (40, 41, 40 + GRANT_COUNTERS - 1, None):
        checker.check(grant, "m1", counter)
    assert _refused(checker, grant, "m1", 39) == "chance.grant_scope"
    assert _refused(checker, grant, "m1", 40 + GRANT_COUNTERS) == "chance.grant_scope"
    assert _refused(checker, grant, "m2", 40) == "chance.grant_other_match"
    clock.now += GRANT_SECONDS + 0.01
    assert _refused(checker, grant, "m1", 40) == "chance.grant_expired"


def test_an_edited_grant_fails_its_signature(stack_pki: pathlib.Path) -> None:
    checker = _checker(stack_pki)
    grant = _signer(stack_pki).grant("m1", 40)
    checker.check(grant, "m1", 40)  # verified once, and remembered: an edit must still fail
    for field, value in (("from_counter", 0), ("counters", 10_000), ("expires_ms", grant.expires_ms + 1)):
        edited = chance_pb2.ChanceGrant()
        edited.CopyFrom(grant)
        setattr(edited, field, value)
        assert _refused(checker, edited, "m1", 40 if field != "from_counter" else 0) == "chance.grant_invalid"
    forged = chance_pb2.ChanceGrant()
    forged.CopyFrom(grant)
    forged.match_id = "m2"
    assert _refused(checker, forged, "m2", 40) == "chance.grant_invalid"


def test_only_a_match_certificate_of_this_platform_signs(stack_pki: pathlib.Path, tmp_path: pathlib.Path) -> None:
    checker = _checker(stack_pki)
    # A rules process signing its own grant, with its own certificate and key.
    assert _refused(checker, _signer(stack_pki, "rules").grant("m1", 0), "m1", 0) == "chance.grant_invalid"
    # A "match" certificate of another CA.
    other = pki.ensure(tmp_path / "other", ["match"])
    assert _refused(checker, _signer(other).grant("m1", 0), "m1", 0) == "chance.grant_invalid"
    # The real match's certificate with a signature made by another key.
    borrowed = _signer(other).grant("m1", 0)
    borrowed.signer = _signer(stack_pki).grant("m1", 0).signer
    assert _refused(checker, borrowed, "m1", 0) == "chance.grant_invalid"
    garbage = _signer(stack_pki).grant("m1", 0)
    garbage.signer = b"not a certificate"
    assert _refused(checker, garbage, "m1", 0) == "chance.grant_invalid"
    assert _refused(checker, chance_pb2.ChanceGrant(), "m1", 0) == "chance.grant_missing"


def test_only_a_rules_caller_needs_a_grant(stack_pki: pathlib.Path) -> None:
    checker = _checker(stack_pki)
    none = chance_pb2.ChanceGrant()
    check_call(checker, KnownPeer("match"), none, "m1", 3)
    check_call(checker, KnownPeer("deck"), none, "m1", 3)
    with pytest.raises(PermissionDenied):
        check_call(checker, KnownPeer("rules"), none, "m1", 3)
    check_call(checker, KnownPeer("rules"), _signer(stack_pki).grant("m1", 3), "m1", 3)


def test_one_signature_serves_moves_while_half_its_draw_numbers_and_half_its_time_are_left(
    stack_pki: pathlib.Path,
) -> None:
    clock = Clock()
    signer = _signer(stack_pki, clock=clock)
    first = signer.grant("m1", 10)
    assert first.from_counter == 10
    # Moves that roll move the match's next draw number: the same signature serves them,
    # each with the pile key of its own next draw number.
    rolled = signer.grant("m1", 11)
    assert rolled.signature == first.signature and rolled.pile_key != first.pile_key
    assert signer.grant("m1", 10 + GRANT_COUNTERS // 2 - 1).signature == first.signature
    assert signer.grant("m2", 10).signature != first.signature  # each match its own
    # Half the draw numbers used: a new grant from the next one.
    moved_on = signer.grant("m1", 10 + GRANT_COUNTERS // 2)
    assert moved_on.signature != first.signature and moved_on.from_counter == 10 + GRANT_COUNTERS // 2
    assert moved_on.pile_anchor != first.pile_anchor  # a chain of its own
    clock.now += GRANT_SECONDS / 2 + 0.01
    later = signer.grant("m1", moved_on.from_counter)
    assert later.signature != moved_on.signature and later.expires_ms > moved_on.expires_ms
    _checker(stack_pki, clock).check(later, "m1", later.from_counter + GRANT_COUNTERS - 1)


def test_under_a_grant_a_pile_is_made_only_at_the_match_s_next_draw_number(stack_pki: pathlib.Path) -> None:
    """Issue 27 item 6: a pile planted ahead of the match's cursor, in an order of the rules'
    choosing, would stand where the match's own shuffle goes."""
    checker = _checker(stack_pki)
    signer = _signer(stack_pki)
    signer.grant("m1", 40)
    grant = signer.grant("m1", 45)  # the same signature, handed out when the next draw number is 45
    checker.check(grant, "m1", 45, pile=True)
    for ahead in (46, 40 + GRANT_COUNTERS - 1):
        checker.check(grant, "m1", ahead)  # a permutation there is still covered ...
        with pytest.raises(PermissionDenied) as refused:
            checker.check(grant, "m1", ahead, pile=True)  # ... a pile is not
        assert refused.value.reason == PILE_NOT_NEXT
        with pytest.raises(PermissionDenied):
            check_call(checker, KnownPeer("rules"), grant, "m1", ahead, pile=True)
    check_call(checker, KnownPeer("match"), chance_pb2.ChanceGrant(), "m1", 46, pile=True)  # the match needs none


def test_a_pile_key_opens_only_draw_numbers_already_behind_the_match(stack_pki: pathlib.Path) -> None:
    """The key a move carries hashes to the keys of earlier draw numbers (behind the match's
    cursor, where a pile is never dealt from), never to a later one's; nor does another
    grant's key, no key, or an edited anchor serve."""
    checker = _checker(stack_pki)
    signer = _signer(stack_pki)
    signer.grant("m1", 40)
    grant = signer.grant("m1", 45)  # signed from 40, handed out at 45
    earlier = chance_pb2.ChanceGrant()
    earlier.CopyFrom(grant)
    earlier.pile_key = hashlib.sha256(grant.pile_key).digest()
    checker.check(earlier, "m1", 44, pile=True)
    with pytest.raises(PermissionDenied):
        checker.check(earlier, "m1", 45, pile=True)
    for key in (b"", b"\0" * 32, _signer(stack_pki).grant("m1", 45).pile_key, grant.pile_anchor):
        forged = chance_pb2.ChanceGrant()
        forged.CopyFrom(grant)
        forged.pile_key = key
        with pytest.raises(PermissionDenied) as refused:
            checker.check(forged, "m1", 45, pile=True)
        assert refused.value.reason == PILE_NOT_NEXT
    # The anchor is signed: a chain of the caller's own fails the signature.
    keys, anchor = pile_chain(GRANT_COUNTERS)
    rechained = chance_pb2.ChanceGrant()
    rechained.CopyFrom(grant)
    rechained.pile_anchor, rechained.pile_key = anchor, keys[46 - grant.from_counter]
    assert _refused(checker, rechained, "m1", 46) == "chance.grant_invalid"

"""Key rings and the tokens signed with them."""

from __future__ import annotations

import os
import pathlib
import stat
import time

import jwt
import pytest

from services.common.errors import PermissionDenied, Unauthenticated
from services.common.security import keyring
from services.common.security.tokens import Lifetimes, TokenAuthority, bearer_token


def test_a_ring_file_is_private_and_made_once(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "keys" / "ring.json"
    made = keyring.create_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert keyring.create_file(path) == made
    assert len(made.keys[made.active]) >= keyring.MIN_KEY_BYTES


def test_a_ring_others_can_read_or_with_weak_keys_is_refused(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "ring.json"
    keyring.create_file(path)
    os.chmod(path, 0o644)
    with pytest.raises(keyring.KeyRingError, match="readable by others"):
        keyring.load_file(path)
    with pytest.raises(keyring.KeyRingError, match="bytes"):
        keyring.loads('{"active": "k", "keys": {"k": "c2hvcnQ="}}')
    with pytest.raises(keyring.KeyRingError):
        keyring.loads("not json")
    with pytest.raises(keyring.KeyRingError, match="active"):
        keyring.loads(keyring.dumps(keyring.generate("a")).replace('"active": "a"', '"active": "b"'))


def test_rotation_keeps_old_tokens_valid_and_signs_with_the_new_key(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "ring.json"
    old = TokenAuthority(keyring.create_file(path))
    token, _ = old.issue_session("p-1")
    rotated = keyring.rotate_file(path)
    new = TokenAuthority(rotated)
    assert new.session(token).player_id == "p-1"
    fresh, _ = new.issue_session("p-2")
    assert jwt.get_unverified_header(fresh)["kid"] == rotated.active != jwt.get_unverified_header(token)["kid"]


def test_each_kind_of_token_is_only_that_kind() -> None:
    tokens = TokenAuthority(keyring.generate())
    session_token, session = tokens.issue_session("p-1")
    refresh = tokens.issue_refresh(session)
    seat, _ = tokens.issue_seat("m1", 2, "p-1", 3)
    assert tokens.session(session_token).player_id == "p-1"
    assert tokens.refresh(refresh).session_id == session.session_id
    claim = tokens.seat(seat)
    assert (claim.match_id, claim.seat, claim.player_id, claim.tenure) == ("m1", 2, "p-1", 3)
    for wrong, check in ((seat, tokens.session), (session_token, tokens.seat), (session_token, tokens.refresh)):
        with pytest.raises(Unauthenticated) as refused:
            check(wrong)
        assert refused.value.reason == "auth.wrong_token_kind"


def test_expired_forged_and_unknown_key_tokens_are_refused() -> None:
    now = [1_000_000.0]
    tokens = TokenAuthority(keyring.generate("a"), Lifetimes(session=60), clock=lambda: now[0])
    token, _ = tokens.issue_session("p-1")
    now[0] += 120
    with pytest.raises(Unauthenticated) as expired:
        tokens.session(token)
    assert expired.value.reason == "auth.expired"
    other = TokenAuthority(keyring.generate("a"))  # same key id, another key
    with pytest.raises(Unauthenticated, match="invalid"):
        tokens.session(other.issue_session("p-1")[0])
    stranger = TokenAuthority(keyring.generate("b"))
    with pytest.raises(Unauthenticated) as unknown:
        tokens.session(stranger.issue_session("p-1")[0])
    assert unknown.value.reason == "auth.unknown_key"
    none_alg = jwt.encode({"typ": "session", "sub": "p-1", "exp": 2e9, "iat": 1}, key="", algorithm="none",
                          headers={"kid": "a"})
    with pytest.raises(Unauthenticated):
        tokens.session(none_alg)


def test_seat_tokens_are_checked_against_the_match_of_the_call() -> None:
    tokens = TokenAuthority(keyring.generate())
    seat, _ = tokens.issue_seat("m1", 0, "p-1", 1)
    header = (("authorization", f"Bearer {seat}"),)
    assert tokens.seat_for_match(header, "m1").seat == 0
    with pytest.raises(PermissionDenied):
        tokens.seat_for_match(header, "m2")
    assert tokens.optional_seat_for_match((), "m1") is None
    with pytest.raises(Unauthenticated):
        bearer_token((("authorization", "Basic abc"),))


def test_a_token_checked_once_still_expires_and_stays_its_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    tokens = TokenAuthority(keyring.generate("a"), Lifetimes(session=60))
    token, session = tokens.issue_session("p-1")
    assert tokens.session(token) == tokens.session(token) == session  # the second from what the first checked
    with pytest.raises(Unauthenticated) as wrong:
        tokens.seat(token)
    assert wrong.value.reason == "auth.wrong_token_kind"
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    with pytest.raises(Unauthenticated, match="invalid"):
        tokens.session(tampered)
    later = time.time() + 120
    monkeypatch.setattr(time, "time", lambda: later)
    with pytest.raises(Unauthenticated) as expired:
        tokens.session(token)
    assert expired.value.reason == "auth.expired"

"""Chance grants: a match process's signed leave for a rules process to draw for it.

A rules process that resolves the chance following a move (services/rules/servicer.py)
calls the deck (and, for a rare public permutation, the dice) itself, which saves the
match a round trip to it and one Decide per chance step; rolls it computes from the
roll window the match hands it (services/common/draws.py), calling nobody. It holds no
standing right to draw: every such call carries the grant the match signed for it,
naming the match, its next draw number when signed (`from_counter`), a short range of
draw numbers from there and an expiry. The deck and the dice check it (`GrantChecker`)
whenever the caller is "rules"; the match and the deck call as themselves and need none.

A new pile version (a shuffle or a put) is allowed only under the match's next draw
number (`pile=True`). A pile made ahead of the match's cursor, with an order of the
rules' choosing, would jam the match's own shuffle there (`deck.pile_conflict`) or be
dealt from. Which draw number is the next one moves with every roll, while a signature
costs the match and its check the deck about as much as the round trip a grant saves;
so one signature serves many moves, and the next draw number is proven by a hash chain
instead: the grant signs the chain's end (`pile_anchor`), and each move's copy carries
the key of the match's next draw number (`pile_key`). Hashing a key gives the keys of
earlier draw numbers, where a pile is harmless (the match never makes one behind its
cursor, and checks every step the rules took against its own), never a later one's.
A grant serves further moves while at least half its draw numbers and half its time
are left (`grant`).

The signature is ECDSA (P-256, SHA-256) with the match process's own certificate
key, and the grant carries that certificate: a checker needs nothing but the
stack's CA, so no new secret is handed out. What a rules process can learn with a
grant, beyond what the move it decides needs: the rest of that match's piles, and
the permutations of the next `GRANT_COUNTERS` draw numbers, for `GRANT_SECONDS`; it
already sees every hidden card of the states it decides.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from tabletop.common.v1 import chance_pb2

from services.common.errors import PermissionDenied
from services.common.lru import LRU
from services.common.security import tls

# Draw numbers one grant covers for permutations: more than any single move of our
# games asks for (a longer run of chance is finished by the match itself).
GRANT_COUNTERS = 64
# How long a grant lasts: one move's decision, with room for a slow dependency.
GRANT_SECONDS = 10.0
# The only identity whose grants count.
SIGNER = "match"
# Grants kept for reuse (one per match being played); verified signatures kept by a checker.
KEPT = 4096
_DOMAIN = b"tabletop.chance-grant.v1"
# A rules caller's new pile version anywhere but at the match's next draw number.
PILE_NOT_NEXT = "chance.grant_pile_not_next"
PILE_NOT_NEXT_MESSAGE = "under a grant, a pile is made only at the match's next draw number"

Clock = Callable[[], float]


def signed_bytes(grant: chance_pb2.ChanceGrant) -> bytes:
    """What the signature covers: every field but the signer, the signature and the pile key."""
    fields = (grant.match_id, grant.from_counter, grant.counters, grant.expires_ms)
    return b"\0".join([_DOMAIN, *(str(value).encode() for value in fields), grant.pile_anchor])


def _hashed(key: bytes, times: int) -> bytes:
    for _ in range(times):
        key = hashlib.sha256(key).digest()
    return key


def pile_chain(counters: int) -> tuple[tuple[bytes, ...], bytes]:
    """A fresh hash chain for `counters` draw numbers: their keys in order, and the anchor,
    which SHA-256 applied i + 1 times to the i-th key gives."""
    links = [os.urandom(32)]
    for _ in range(counters):
        links.append(hashlib.sha256(links[-1]).digest())
    # links[j] is the secret hashed j times: the i-th key is links[counters - i].
    return tuple(reversed(links[1:])), hashlib.sha256(links[-1]).digest()


def opens_pile(grant: chance_pb2.ChanceGrant, counter: int) -> bool:
    """Whether the grant's pile key is the key of draw number `counter`: the match's next
    one when the key was handed out, or an earlier one (hashing a key gives those)."""
    index = counter - grant.from_counter
    if not 0 <= index < grant.counters or len(grant.pile_key) != 32 or not grant.pile_anchor:
        return False
    return hmac.compare_digest(_hashed(grant.pile_key, index + 1), grant.pile_anchor)


@dataclass(frozen=True)
class _Issued:
    """A signed grant and the keys of its chain, which only the match holds."""

    grant: chance_pb2.ChanceGrant
    keys: tuple[bytes, ...]


class GrantSigner:
    """Signs grants as the match process, with the key of its own certificate."""

    def __init__(self, cert_pem: bytes, key_pem: bytes, clock: Clock = time.time) -> None:
        key = serialization.load_pem_private_key(key_pem, password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise ValueError("a grant is signed with an EC key")
        self._key = key
        self._signer = x509.load_pem_x509_certificate(cert_pem).public_bytes(serialization.Encoding.DER)
        self._clock = clock
        self._issued: LRU[str, _Issued] = LRU(KEPT)

    def grant(self, match_id: str, next_counter: int) -> chance_pb2.ChanceGrant:
        """The grant for the match whose next draw number is `next_counter`, with that draw
        number's pile key: the one signed last while at least half its draw numbers and half
        its time are left (an ECDSA signature and its check cost about 0.03 and 0.07 ms; a
        game that rolls every move would pay both every move), else a new one."""
        granted = chance_pb2.ChanceGrant()
        self.fill(granted, match_id, next_counter)
        return granted

    def fill(self, into: chance_pb2.ChanceGrant, match_id: str, next_counter: int) -> None:
        """`grant`, written into a request's own grant field (no copy made on the way)."""
        issued = self._issued.get(match_id)
        if issued is None or not self._covers(issued.grant, next_counter):
            issued = self._issued.put(match_id, self._sign(match_id, next_counter))
        into.CopyFrom(issued.grant)
        into.pile_key = issued.keys[next_counter - issued.grant.from_counter]

    def _covers(self, grant: chance_pb2.ChanceGrant, counter: int) -> bool:
        fresh_until_ms = grant.expires_ms - GRANT_SECONDS * 500
        in_range = grant.from_counter <= counter < grant.from_counter + grant.counters // 2
        return in_range and self._clock() * 1000 <= fresh_until_ms

    def _sign(self, match_id: str, from_counter: int) -> _Issued:
        keys, anchor = pile_chain(GRANT_COUNTERS)
        grant = chance_pb2.ChanceGrant(
            match_id=match_id,
            from_counter=from_counter,
            counters=GRANT_COUNTERS,
            expires_ms=int((self._clock() + GRANT_SECONDS) * 1000),
            signer=self._signer,
            pile_anchor=anchor,
        )
        grant.signature = self._key.sign(signed_bytes(grant), ec.ECDSA(hashes.SHA256()))
        return _Issued(grant, keys)


class GrantChecker:
    """Checks a grant against the stack's CA and the call it comes with."""

    def __init__(self, ca_pem: bytes, clock: Clock = time.time) -> None:
        self._ca = x509.load_pem_x509_certificate(ca_pem)
        self._clock = clock
        self._signers: dict[bytes, ec.EllipticCurvePublicKey] = {}
        self._verified: LRU[bytes, bool] = LRU(KEPT)

    def check(
        self, grant: chance_pb2.ChanceGrant, match_id: str, counter: int | None = None, pile: bool = False
    ) -> None:
        """Refuse (PERMISSION_DENIED) unless `grant` lets its holder draw for `match_id`,
        under draw number `counter` when the call uses a new one; a new pile version
        (`pile`) only under the draw number its pile key is for, the match's next one."""
        if not grant.signature:
            raise PermissionDenied("a rules process draws only under a match's grant", "chance.grant_missing")
        if grant.match_id != match_id:
            raise PermissionDenied("the grant is for another match", "chance.grant_other_match")
        if grant.expires_ms < self._clock() * 1000:
            raise PermissionDenied("the grant has expired", "chance.grant_expired")
        if counter is not None and not grant.from_counter <= counter < grant.from_counter + grant.counters:
            raise PermissionDenied("the grant does not cover this draw number", "chance.grant_scope")
        self._verify(grant)
        if pile and (counter is None or not opens_pile(grant, counter)):
            raise PermissionDenied(PILE_NOT_NEXT_MESSAGE, PILE_NOT_NEXT)

    def _verify(self, grant: chance_pb2.ChanceGrant) -> None:
        message = signed_bytes(grant)
        seen = grant.signature + message
        if self._verified.get(seen):
            return
        try:
            self._signer(grant.signer).verify(grant.signature, message, ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise PermissionDenied("the grant's signature does not hold", "chance.grant_invalid") from None
        self._verified.put(seen, True)

    def _signer(self, der: bytes) -> ec.EllipticCurvePublicKey:
        """The signing match's public key, once its certificate is known to be ours."""
        known = self._signers.get(der)
        if known is not None:
            return known
        invalid = PermissionDenied("the grant is not signed by a match of this platform", "chance.grant_invalid")
        try:
            cert = x509.load_der_x509_certificate(der)
            cert.verify_directly_issued_by(self._ca)
        except (ValueError, TypeError, InvalidSignature):
            raise invalid from None
        names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
        now = self._clock()
        in_date = cert.not_valid_before_utc.timestamp() <= now <= cert.not_valid_after_utc.timestamp()
        key = cert.public_key()
        if [n.value for n in names] != [SIGNER] or not in_date or not isinstance(key, ec.EllipticCurvePublicKey):
            raise invalid
        if len(self._signers) < 64:  # a handful of match processes; never grown by callers beyond that
            self._signers[der] = key
        return key


# The identity that needs a grant to draw: every rules process.
HOLDER = "rules"


def check_call(
    checker: GrantChecker,
    context: tls.Authenticated,
    grant: chance_pb2.ChanceGrant,
    match_id: str,
    counter: int | None = None,
    pile: bool = False,
) -> None:
    """The dice's and the deck's check of one draw: a rules caller must hold a grant for
    it (for a new pile version, `pile`, one whose first draw number it is); the match and
    the deck call under their own standing in the policy (authz.py)."""
    if tls.caller(context) == HOLDER:  # a grpc context, or a tls.KnownPeer
        checker.check(grant, match_id, counter, pile)


def pile_allowed(grant: chance_pb2.ChanceGrant | None, counter: int) -> None:
    """What a granted rules process checks before it asks the deck for a new pile version
    under `counter`: the deck would refuse it anywhere but where its pile key opens one."""
    if grant is not None and not opens_pile(grant, counter):
        raise PermissionDenied(PILE_NOT_NEXT_MESSAGE, PILE_NOT_NEXT)

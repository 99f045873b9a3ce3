"""Redis key names, and the one table of which process owns which keys.

Every key of one match shares the hash tag `{match:<id>}`; the matchmaker's
share `{mm}`, the ratings' `{ratings}`, so every script touches one hash slot.

OWNERS lists every key family any process uses, as an ACL glob: the role that
writes it, the roles that only read it, the roles that read a stream as members
of its consumer group. CHANNELS does the same for pub/sub. Each service's Redis
user is made from these two tables (redis_credentials.py), so a process may
write only its own keys and read only what it must: the gateway reads match
logs but no seed, pile order, snapshot or command answer. Some families are
named in their own modules (the event store's, the matchmaker's, the
gateway's); tests/integration/test_redis_acl.py holds every key builder of the
code base to this table and runs a stack that must meet no NOPERM. A new key
joins this table, or its process meets NOPERM.

The globs rely on match ids holding no `}` or `:` (the match app allows letters,
digits and dashes only), so no key of one family matches another's glob.
"""

from __future__ import annotations

from dataclasses import dataclass

GATEWAY, MATCH, DICE, DECK, MATCHMAKER = "gateway", "match", "dice", "deck", "matchmaker"
ROLES = (GATEWAY, MATCH, DICE, DECK, MATCHMAKER)
"""Every role that talks to Redis (the rules processes never do)."""

FINISHED_STREAM = "tabletop:finished"
"""A global stream of {match_id, game} entries, one per finished match (at least once)."""

APPENDED_CHANNEL = "tabletop:appended"
"""Every append publishes "<stream> <last version>" here (redis_store.py)."""


def match_stream(match_id: str) -> str:
    """Event-store stream name of a match (the store adds the braces)."""
    return f"match:{match_id}"


def _tag(match_id: str) -> str:
    return "{" + match_stream(match_id) + "}"


def dice_seed(match_id: str) -> str:
    return f"{_tag(match_id)}:seed"


def dice_revealed(match_id: str) -> str:
    """Set once the match's seed has been revealed: no draw is served after it."""
    return f"{_tag(match_id)}:seed-revealed"


def deck_pile(match_id: str, pile: str, counter: int) -> str:
    return f"{_tag(match_id)}:pile:{pile}:{counter}"


def deck_index(match_id: str) -> str:
    """Set of the match's pile keys, so a finished match's piles can be dropped."""
    return f"{_tag(match_id)}:piles"


@dataclass(frozen=True)
class Keys:
    """A family of keys: its ACL glob, who writes it, who may only read it."""

    pattern: str
    owner: str
    about: str
    readers: tuple[str, ...] = ()
    # Members of the stream's consumer group: they read it and move the group's
    # cursor and pending list (XREADGROUP, XACK, XAUTOCLAIM), never add or delete
    # an entry (an ACL selector of these commands only, redis_credentials.py).
    consumers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Channel:
    """A pub/sub channel: who publishes on it and who listens."""

    pattern: str
    publisher: str
    subscribers: tuple[str, ...]


_MATCH = _tag("*")
OWNERS = (
    # The event store of a match (services/common/store/redis_store.py).
    Keys(f"{_MATCH}:log", MATCH, "a match's event log", readers=(GATEWAY, MATCHMAKER)),
    Keys(f"{_MATCH}:cmd", MATCH, "command id -> the versions its append wrote"),
    Keys(f"{_MATCH}:snap", MATCH, "the newest snapshot: the whole state, hidden cards included"),
    Keys(f"{_MATCH}:lease", MATCH, "the writer holding the match's write lease"),
    Keys(f"{_MATCH}:want", MATCH, "set while another writer waits for the lease"),
    Keys(f"{_MATCH}:once:*", MATCH, "one append call's answer, for a resent script"),
    Keys(f"{_MATCH}:at", MATCH, "when the match's last append landed (tabletop admin stuck)"),
    Keys("tabletop:streams", MATCH, "stream names by creation", readers=(MATCHMAKER,)),
    Keys("tabletop:match-directory", MATCH, "match id -> game and status (services/match/directory.py)"),
    Keys("tabletop:clock-deadlines", MATCH, "clocked matches' wake-ups (services/match/deadlines.py)"),
    Keys(FINISHED_STREAM, MATCH, "one entry per finished match", consumers=(MATCHMAKER,)),
    # Secrets: their owner alone reads them.
    Keys(dice_seed("*"), DICE, "a match's secret seed"),
    Keys(dice_revealed("*"), DICE, "set once the seed is revealed"),
    Keys(f"{_MATCH}:pile:*", DECK, "a hidden pile order"),
    Keys(deck_index("*"), DECK, "a match's pile keys"),
    # Players (gateway/identity.py, services/common/players.py).
    Keys("tabletop:identity:*", GATEWAY, "hashed sign-in identity -> player id"),
    Keys("tabletop:player:*", GATEWAY, "a player's display name", readers=(MATCHMAKER,)),
    # Tickets, pools, work queues and ratings (services/matchmaker/store.py, projection.py).
    Keys("tabletop:{mm}:*", MATCHMAKER, "tickets, pools, formation and bot jobs"),
    Keys("tabletop:{ratings}:*", MATCHMAKER, "ratings, leaderboards, what was counted"),
)

CHANNELS = (Channel(APPENDED_CHANNEL, MATCH, (GATEWAY,)),)

"""The player directory: what the platform shows of a verified player (a display name), and
how the player signs in (the kind of identity).

The gateway writes it when a player signs in (the name when one is given); the match
records the name in `PlayerJoined` when the player takes a seat (the gateway and the
matchmaker read it here first), and the gateway shows it beside ratings. The ratings
keep guests (device sign-ins) off the leaderboard until they have played enough
(services/matchmaker/ratings.py). A key per player, `tabletop:player:<player id>`,
so it spreads over a cluster like any other key.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.common.redis.commands import Commands

MAX_DISPLAY_NAME = 32
# Player ids: the gateway mints "p-<hex>" for people; the matchmaker names the bots it seats
# "bot-<n>" (and refuses FindMatch for such an id), so the two can never be confused.
BOT_PREFIX = "bot-"
# Identity kinds (gateway/identity.py): a guest is a device sign-in, one Authenticate away.
GUEST, CUSTOM, EXTERNAL = "device", "custom", "external"


def is_bot(player_id: str) -> bool:
    """Whether the id is one of the matchmaker's bots (never rated; its view is the bots' to read)."""
    return player_id.startswith(BOT_PREFIX)


def key(player_id: str) -> str:
    return f"tabletop:player:{player_id}"


async def set_display_name(redis: Commands, player_id: str, name: str) -> None:
    await redis.hset(key(player_id), "name", name)


async def set_kind(redis: Commands, player_id: str, kind: str) -> None:
    """Record how `player_id` signs in: a player id is made for one identity, so it never changes."""
    await redis.hset(key(player_id), "kind", kind)


async def kinds(redis: Commands, player_ids: Sequence[str]) -> list[str]:
    """Each player's identity kind, "" where none is recorded (a bot, or a player not signed in
    since kinds were recorded), in one round trip."""
    if not player_ids:
        return []
    async with redis.pipeline(transaction=False) as pipe:
        for player in player_ids:
            pipe.hget(key(player), "kind")
        return [_text(kind) for kind in await pipe.execute()]


async def display_names(redis: Commands, player_ids: Sequence[str]) -> list[str]:
    """Each player's display name, "" for one who never gave one (or a bot), in one
    round trip however many are asked (the matchmaker asks a formation batch's at once)."""
    humans = [p for p in player_ids if not is_bot(p)]
    if not humans:
        return [""] * len(player_ids)
    async with redis.pipeline(transaction=False) as pipe:
        for player in humans:
            pipe.hget(key(player), "name")
        found = dict(zip(humans, await pipe.execute(), strict=True))
    return [_text(found.get(p)) for p in player_ids]


def _text(name: object) -> str:
    return name.decode() if isinstance(name, bytes) else str(name or "")


def valid_display_name(name: str) -> bool:
    """1-32 printable characters, not starting or ending with a space."""
    return 0 < len(name) <= MAX_DISPLAY_NAME and name.isprintable() and name == name.strip()

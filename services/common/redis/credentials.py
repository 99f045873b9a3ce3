"""Who may talk to the Redis-compatible server, with what password, and to which keys.

The launcher keeps one random password per user in a file of its data
directory (mode 0600), created on the first start and reused afterwards, so a
restarted stack reconnects to its own data. The server gets an ACL file built
from it (`acl_rules`): the default user is off, `admin` (the launcher, the
tests, operators) may do anything, and every service has a user of its own
that may write only the keys its role owns, read only the keys its role must
read, publish or subscribe only where its role does, and run only the commands
its role's code sends (services/common/redis/keys.py holds the table of keys and
channels; COMMANDS below the commands). No service user may run an
administrative or dangerous command, nor flush, kill or load scripts or
functions.

A process that runs another service's app in process (TABLETOP_<X>_TRANSPORT=
inprocess: the match with its dice and deck, the gateway with the match or the
ticket desk) plays each of those roles: its user is named by them, joined with
"+" ("match+dice+deck"), and may do what each of them may (`hosted_roles`).
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import secrets
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence

from services.common.redis import keys
from services.common.redis.keys import DECK, DICE, GATEWAY, MATCH, MATCHMAKER
from services.common.security.private_files import write_private

ADMIN = "admin"
SERVICE_USERS = keys.ROLES
# The users of processes that host other roles' apps (see the module docstring): the
# match with its chance services in process, the gateway with the match app (which
# needs its dice and deck in process) and/or the ticket desk.
IN_PROCESS_USERS = (
    "match+dice", "match+deck", "match+dice+deck",
    "gateway+match+dice+deck", "gateway+matchmaker", "gateway+match+dice+deck+matchmaker",
)
# Deployments run each service as a process of its own (deploy/secrets.py makes these);
# the embedded server of `make run`, the tests and the benchmarks knows the others too.
USERS = (ADMIN, *SERVICE_USERS)
LAUNCHER_USERS = (*USERS, *IN_PROCESS_USERS)

# What every client sends on its own: connect, name itself, ping (health, pub/sub),
# and, on a cluster, learn the slots and the command table.
_CONNECTION = ("ping", "hello", "auth", "quit", "select", "client|setname", "client|setinfo",
               "command", "cluster|slots", "cluster|shards", "asking")
# redis-py's Script: EVALSHA, loading the script when the server answers NOSCRIPT.
_SCRIPTS = ("evalsha", "script|load", "script|exists")
# Reading a match log (services/common/store/redis_store.py read, version, wait).
_LOG_READS = ("xrange", "xrevrange", "xlen", "xread")

COMMANDS: Mapping[str, tuple[str, ...]] = {
    # Sign-ins (SET NX, GET), display names (HSET, HGET), match logs, live updates.
    GATEWAY: ("get", "set", "hget", "hset", *_LOG_READS, "subscribe", "unsubscribe"),
    # The event store's append and snapshot scripts, the directory, the clock
    # deadlines' scripts, the finished stream.
    MATCH: (*_SCRIPTS, *_LOG_READS, "get", "set", "del", "exists", "pttl", "pexpire",
            "hget", "hset", "hgetall", "hmget", "xadd", "zadd", "zrevrange", "zrangebyscore", "zscore", "zrem",
            "publish"),
    DICE: ("get", "set", "exists"),
    DECK: ("get", "set", "del", "sadd", "smembers"),
    # The ticket store's and the ratings' scripts, the work queues, match logs, display names.
    MATCHMAKER: (*_SCRIPTS, *_LOG_READS, "get", "set", "del", "incr", "expire", "persist",
                 "hget", "hset", "hdel", "hgetall", "hincrby", "hmget", "sadd", "srem", "smembers", "sismember",
                 "zadd", "zrem", "zscore", "zcard", "zrange", "zrevrange", "zrangebyscore", "zremrangebyscore",
                 "xadd", "xreadgroup", "xack", "xautoclaim", "xclaim", "xpending", "xgroup|create"),
}
# A consumer group member of another role's stream (keys.Keys.consumers): the group's
# commands only (the heartbeat script reads the pending list and claims), never XADD/XDEL.
CONSUMER_COMMANDS = ("evalsha", "xreadgroup", "xack", "xautoclaim", "xclaim", "xpending", "xgroup|create",
                     "xrange", "xrevrange", "xlen")
# Never, whatever a role's list comes to hold: these close the server's
# administration and the shared script and function caches to every service.
DENIED = ("-@admin", "-@dangerous", "-script|flush", "-script|kill", "-script|debug", "-function",
          "-fcall", "-fcall_ro", "-eval", "-eval_ro")


def roles_of(user: str) -> tuple[str, ...]:
    """The roles a service user plays ("match+dice" -> match, dice); ValueError for another name."""
    roles = tuple(user.split("+"))
    unknown = [r for r in roles if r not in keys.ROLES]
    if unknown or len(set(roles)) != len(roles):
        raise ValueError(f"not a service user: {user!r}")
    return roles


def user_of(roles: Iterable[str]) -> str:
    """The user of a process playing `roles`, in the order of keys.ROLES."""
    wanted = set(roles)
    return "+".join(role for role in keys.ROLES if role in wanted)


def hosted_roles(service: str, env: Mapping[str, str]) -> tuple[str, ...]:
    """The roles a process of `service` plays under the environment it is started with:
    its own, and those of the apps it runs in process (TABLETOP_<X>_TRANSPORT=inprocess)."""
    def inprocess(contract: str) -> bool:
        return env.get(f"TABLETOP_{contract}_TRANSPORT", "") == "inprocess"

    roles = [service]
    if service == GATEWAY and inprocess("MATCH"):
        # bootstrap/match.py embedded_match: the match app with its dice and
        # deck in process (it refuses to start otherwise).
        roles += [MATCH, DICE, DECK]
    elif service == MATCH:
        roles += [role for role in (DICE, DECK) if inprocess(role.upper())]
    if service == GATEWAY and inprocess("MATCHMAKER"):
        roles.append(MATCHMAKER)
    return tuple(role for role in keys.ROLES if role in roles)


def permissions(user: str) -> str:
    """ACL rules of a service user: its roles' keys, channels and commands, nothing else."""
    roles = roles_of(user)
    rules = ["resetkeys", "resetchannels", "-@all", *(f"+{c}" for c in _commands(roles))]
    for family in keys.OWNERS:
        if family.owner in roles:
            rules.append(f"~{family.pattern}")
        elif any(r in family.readers for r in roles):
            rules.append(f"%R~{family.pattern}")
    channels = [c.pattern for c in keys.CHANNELS if c.publisher in roles or set(c.subscribers) & set(roles)]
    rules += [f"&{pattern}" for pattern in channels]
    rules += DENIED
    rules += [_consumer_selector(f.pattern) for f in keys.OWNERS
              if f.owner not in roles and set(f.consumers) & set(roles)]
    return " ".join(rules)


def _commands(roles: Sequence[str]) -> list[str]:
    wanted = dict.fromkeys(_CONNECTION)
    for role in roles:
        wanted.update(dict.fromkeys(COMMANDS[role]))
    return list(wanted)


def _consumer_selector(pattern: str) -> str:
    # A selector is a second set of permissions: a command passes if the user's own
    # rules or one selector allow it with all its keys.
    return "(" + " ".join([f"~{pattern}", "resetchannels", "-@all", *(f"+{c}" for c in CONSUMER_COMMANDS)]) + ")"


def new_passwords(users: Iterable[str] = USERS) -> dict[str, str]:
    """A fresh strong password (256 bits, URL-safe) for each of `users` (admin and every service)."""
    return {user: secrets.token_urlsafe(32) for user in users}


def load_or_create(path: pathlib.Path, users: Iterable[str] = USERS) -> dict[str, str]:
    """The passwords kept at `path`, created there (mode 0600) if absent.

    A file that lacks one of `users` (written by an older version) gains it.
    """
    stored = json.loads(path.read_text()) if path.exists() else {}
    wanted = {**new_passwords(users), **stored}
    if wanted != stored:
        write_private(path, json.dumps(wanted, indent=2, sort_keys=True) + "\n")
    return wanted


def acl_rules(passwords: Mapping[str, str]) -> str:
    """ACL file text for these users: default user off, admin all, each service user
    held to its roles (`permissions`; a name not of roles is refused with ValueError).

    Passwords appear only as SHA-256 hashes, so the ACL file reveals none.
    """
    # The default user is off (nobody can authenticate as it) but keeps every
    # permission: Valkey 8.1 replays the append-only file as the default user
    # and re-checks its permissions at each EXEC, so a default user without
    # them silently drops every logged transaction on restart (our appends are
    # scripts, logged as MULTI/EXEC): valkey-io/valkey#3983.
    lines = ["user default off resetpass ~* &* +@all"]
    for user, password in sorted(passwords.items()):
        rules = "resetchannels ~* &* +@all" if user == ADMIN else permissions(user)
        lines.append(f"user {user} on #{_sha256(password)} {rules}")
    return "\n".join(lines) + "\n"


def url(port: int, user: str, password: str, host: str = "127.0.0.1", db: int = 0) -> str:
    """A redis:// URL that authenticates as `user`."""
    quoted = urllib.parse.quote(password, safe="")
    return f"redis://{urllib.parse.quote(user, safe='')}:{quoted}@{host}:{port}/{db}"


def masked(redis_url: str) -> str:
    """`redis_url` with its password replaced by ***, fit for printing and logs."""
    parts = urllib.parse.urlsplit(redis_url)
    if parts.password is None:
        return redis_url
    netloc = f"{parts.username or ''}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _sha256(password: str) -> str:
    return hashlib.sha256(password.encode()).hexdigest()

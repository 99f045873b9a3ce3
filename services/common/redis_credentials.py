"""Who may talk to the embedded Redis-compatible server, and with what password.

The launcher keeps one random password per user in a file of its data
directory (mode 0600), created on the first start and reused afterwards, so a
restarted stack reconnects to its own data. The server gets an ACL file built
from it: the default user is off, `admin` (the launcher, the tests, operators)
may do anything, and every service has its own user that may not run
administrative or dangerous commands (CONFIG, FLUSHALL, KEYS, SHUTDOWN, ...).
Keys stay open to every service user (`~*`): which service owns which keys is
not yet fixed enough to pin patterns without breaking the next feature.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import secrets
import urllib.parse
from collections.abc import Mapping

from services.common.private_files import write_private

ADMIN = "admin"
SERVICE_USERS = ("match", "gateway", "dice", "deck", "matchmaker")
# Everything a service does (streams, consumer groups, EVALSHA, blocking reads,
# pub/sub, the cluster client's CLUSTER SLOTS), nothing that reconfigures,
# wipes or inspects the server.
SERVICE_PERMISSIONS = "~* &* +@all -@admin -@dangerous"


def new_passwords() -> dict[str, str]:
    """A fresh strong password (256 bits, URL-safe) for admin and every service."""
    return {user: secrets.token_urlsafe(32) for user in (ADMIN, *SERVICE_USERS)}


def load_or_create(path: pathlib.Path) -> dict[str, str]:
    """The passwords kept at `path`, created there (mode 0600) if absent.

    A file that lacks a user (written by an older version) gains it.
    """
    stored = json.loads(path.read_text()) if path.exists() else {}
    wanted = {**new_passwords(), **stored}
    if wanted != stored:
        write_private(path, json.dumps(wanted, indent=2, sort_keys=True) + "\n")
    return wanted


def acl_rules(passwords: Mapping[str, str]) -> str:
    """ACL file text: default user off, admin all, each service restricted.

    Passwords appear only as SHA-256 hashes, so the ACL file reveals none.
    """
    # The default user is off (nobody can authenticate as it) but keeps every
    # permission: Valkey 8.1 replays the append-only file as the default user
    # and re-checks its permissions at each EXEC, so a default user without
    # them silently drops every logged transaction on restart (our appends are
    # scripts, logged as MULTI/EXEC): valkey-io/valkey#3983.
    lines = ["user default off resetpass ~* &* +@all"]
    for user, password in sorted(passwords.items()):
        permissions = "~* &* +@all" if user == ADMIN else SERVICE_PERMISSIONS
        lines.append(f"user {user} on #{_sha256(password)} resetchannels {permissions}")
    return "\n".join(lines) + "\n"


def url(port: int, user: str, password: str, host: str = "127.0.0.1", db: int = 0) -> str:
    """A redis:// URL that authenticates as `user`."""
    quoted = urllib.parse.quote(password, safe="")
    return f"redis://{user}:{quoted}@{host}:{port}/{db}"


def masked(redis_url: str) -> str:
    """`redis_url` with its password replaced by ***, fit for printing and logs."""
    parts = urllib.parse.urlsplit(redis_url)
    if parts.password is None:
        return redis_url
    netloc = f"{parts.username or ''}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _sha256(password: str) -> str:
    return hashlib.sha256(password.encode()).hexdigest()

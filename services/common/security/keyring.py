"""Signing keys for the tokens the platform issues, each named by a key id.

A key ring holds several keys: the active one signs new tokens, all of them
verify, so a key can be rotated without logging anyone out (add a new key and
make it active; drop the old one once its tokens have expired). No key is ever
built in: a process without a ring of strong keys refuses to start. `make run`
and the test launcher create a ring in their data directory (`create_file`).
"""

from __future__ import annotations

import base64
import json
import pathlib
import secrets
from dataclasses import dataclass

from services.common.security.private_files import write_private

MIN_KEY_BYTES = 32


class KeyRingError(ValueError):
    """The configured keys are missing, malformed or too weak."""


@dataclass(frozen=True)
class KeyRing:
    active: str
    keys: dict[str, bytes]

    def __post_init__(self) -> None:
        if self.active not in self.keys:
            raise KeyRingError(f"the active key {self.active!r} is not in the ring")
        for kid, key in self.keys.items():
            if not kid or len(kid) > 64:
                raise KeyRingError("key ids are 1-64 characters")
            if len(key) < MIN_KEY_BYTES:
                raise KeyRingError(f"key {kid!r} has {len(key)} bytes; at least {MIN_KEY_BYTES} are needed")

    def key(self, kid: str) -> bytes | None:
        return self.keys.get(kid)


def generate(kid: str | None = None) -> KeyRing:
    """A ring with one fresh random key."""
    kid = kid or secrets.token_hex(4)
    return KeyRing(kid, {kid: secrets.token_bytes(MIN_KEY_BYTES)})


def dumps(ring: KeyRing) -> str:
    keys = {kid: base64.urlsafe_b64encode(key).decode() for kid, key in ring.keys.items()}
    return json.dumps({"active": ring.active, "keys": keys}, indent=2)


def loads(text: str) -> KeyRing:
    """A ring from its JSON form: {"active": kid, "keys": {kid: base64url}}."""
    try:
        data = json.loads(text)
        keys = {str(kid): base64.urlsafe_b64decode(str(value)) for kid, value in data["keys"].items()}
        return KeyRing(str(data["active"]), keys)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        if isinstance(error, KeyRingError):
            raise
        raise KeyRingError("a key ring is JSON: {\"active\": id, \"keys\": {id: base64url key}}") from None


def load_file(path: str | pathlib.Path) -> KeyRing:
    """The ring in `path`; refuses a file that others may read."""
    path = pathlib.Path(path)
    try:
        mode = path.stat().st_mode & 0o077
        text = path.read_text()
    except OSError as error:
        raise KeyRingError(f"cannot read the key ring {path}: {error.strerror}") from None
    if mode:
        raise KeyRingError(f"the key ring {path} is readable by others; chmod 600 it")
    return loads(text)


def create_file(path: str | pathlib.Path) -> KeyRing:
    """The ring in `path`, made (mode 0600) with one random key if it does not exist yet."""
    path = pathlib.Path(path)
    if path.exists():
        return load_file(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ring = generate()
    write_private(path, dumps(ring))
    return ring


def rotate_file(path: str | pathlib.Path) -> KeyRing:
    """Add a fresh key to the ring in `path` and make it the active one."""
    ring = load_file(path)
    fresh = generate()
    rotated = KeyRing(fresh.active, {**ring.keys, **fresh.keys})
    write_private(pathlib.Path(path), dumps(rotated))
    return rotated


def main(argv: list[str] | None = None) -> int:
    """`python -m services.common.security.keyring create|rotate PATH`: make or rotate a key ring file."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] not in ("create", "rotate"):
        print("usage: python -m services.common.security.keyring create|rotate PATH", file=sys.stderr)
        return 2
    ring = create_file(args[1]) if args[0] == "create" else rotate_file(args[1])
    print(f"{args[1]}: active key {ring.active}, {len(ring.keys)} key(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

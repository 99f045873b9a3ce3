"""`python -m deploy.secrets DIR`: every secret a deployment needs, made once in DIR.

For container deployments (deploy/compose.yaml runs it as a one-shot service;
a Kubernetes operator runs it once and loads the files into Secrets). It makes,
reusing what exists (files mode 0600):

  DIR/keys/token-keys.json     the gateway's token key ring
  DIR/pki/                     the platform CA, one key and certificate per identity
  DIR/redis/<user>.password    one Redis password per service user (and admin)
  DIR/redis/users.acl          the ACL file for the server (password hashes only; mode 0644)

Processes read their Redis password from a file (TABLETOP_REDIS_USER and
TABLETOP_REDIS_PASSWORD_FILE), so no secret travels in an environment variable.
"""

from __future__ import annotations

import pathlib
import sys

from services.common.redis import credentials as redis_credentials
from services.common.security import keyring, pki
from services.common.security.private_files import write_private


def ensure(root: pathlib.Path) -> None:
    keyring.create_file(root / "keys" / "token-keys.json")
    pki.ensure(root / "pki")
    redis_dir = root / "redis"
    redis_dir.mkdir(parents=True, exist_ok=True)
    passwords = redis_credentials.load_or_create(redis_dir / "passwords.json")
    for user, password in passwords.items():
        write_private(redis_dir / f"{user}.password", password + "\n")
    acl = redis_dir / "users.acl"
    write_private(acl, redis_credentials.acl_rules(passwords))
    # Hashes only, and the server runs as its image's own user (valkey), not as this one.
    acl.chmod(0o644)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m deploy.secrets DIR", file=sys.stderr)
        return 2
    ensure(pathlib.Path(argv[0]))
    print(f"secrets ready in {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

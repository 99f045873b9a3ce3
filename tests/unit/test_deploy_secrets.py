"""The secrets a container deployment makes once, the ACL file it gives the server, and how
a process reads its Redis password."""

from __future__ import annotations

import pathlib
import stat

import pytest

from deploy import secrets
from services.common import config
from services.common.redis import credentials as redis_credentials
from services.common.security import keyring, pki


def test_every_secret_is_made_once_and_private(tmp_path: pathlib.Path) -> None:
    secrets.ensure(tmp_path)
    ring = keyring.load_file(tmp_path / "keys" / "token-keys.json")
    first = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    secrets.ensure(tmp_path)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == first
    assert keyring.load_file(tmp_path / "keys" / "token-keys.json") == ring
    for name in ("match", "gateway", "dice", "deck", "matchmaker", "admin"):
        path = tmp_path / "redis" / f"{name}.password"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(path.read_text().strip()) >= 32
    acl = (tmp_path / "redis" / "users.acl").read_text()
    assert "user default off" in acl
    assert not any((tmp_path / "redis" / f"{n}.password").read_text().strip() in acl for n in ("match", "admin"))
    for identity in pki.IDENTITIES:
        assert pki.files(tmp_path / "pki", identity).cert.exists()


def test_a_process_reads_its_redis_password_from_a_file(tmp_path: pathlib.Path) -> None:
    secret = tmp_path / "match.password"
    secret.write_text("s3cret/with:odd@chars\n")
    settings = config.load({
        "REDIS_URL": "redis://redis:6379/0",
        "TABLETOP_REDIS_USER": "match",
        "TABLETOP_REDIS_PASSWORD_FILE": str(secret),
    })
    assert settings.redis_url == "redis://match:s3cret%2Fwith%3Aodd%40chars@redis:6379/0"
    assert config.load({"REDIS_URL": "redis://h:1/0"}).redis_url == "redis://h:1/0"


def test_the_acl_file_holds_each_service_to_its_own_keys(tmp_path: pathlib.Path) -> None:
    secrets.ensure(tmp_path)
    lines = {line.split()[1]: line for line in (tmp_path / "redis" / "users.acl").read_text().splitlines()}
    # A deployment runs each service as a process of its own: no user of an in-process shape.
    assert set(lines) == {"default", *redis_credentials.USERS}
    for user in redis_credentials.SERVICE_USERS:
        rules = lines[user].split()
        assert rules[4:7] == ["resetkeys", "resetchannels", "-@all"] and "~*" not in rules and "&*" not in rules
        assert set(redis_credentials.DENIED) <= set(rules)
    gateway = lines["gateway"].split()
    assert "%R~{match:*}:log" in gateway and "~{match:*}:seed" not in gateway and "+publish" not in gateway
    assert "~{match:*}:seed" in lines["dice"].split() and "~{match:*}:pile:*" in lines["deck"].split()


def test_operators_write_acls_for_any_service_user_with_acl_rules() -> None:
    passwords = {"admin": "a" * 43, "match+dice+deck": "m" * 43, "gateway": "g" * 43}
    text = redis_credentials.acl_rules(passwords)
    hosting = next(line for line in text.splitlines() if line.startswith("user match+dice+deck "))
    assert all(f"~{pattern}" in hosting.split() for pattern in ("{match:*}:log", "{match:*}:seed", "{match:*}:piles"))
    assert "m" * 43 not in text
    with pytest.raises(ValueError, match="not a service user"):
        redis_credentials.acl_rules({"rules": "r" * 43})

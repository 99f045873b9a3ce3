"""The secrets a container deployment makes once, and how a process reads its Redis password."""

from __future__ import annotations

import pathlib
import stat

from deploy import secrets
from services.common import config, keyring, pki


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

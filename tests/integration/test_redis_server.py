"""The embedded server: closed to strangers, durable, and keeping its data dir."""

from __future__ import annotations

import pathlib
import stat

import pytest
import redis
import redis.exceptions

from services.common.redis import credentials as redis_credentials
from services.common.redis import server as redis_server
from services.common.redis.keys import APPENDED_CHANNEL, match_stream
from services.common.store.event_store import NewEvent
from services.common.store.redis_store import RedisEventStore

pytestmark = pytest.mark.integration


@pytest.fixture
def server(tmp_path: pathlib.Path):
    running = redis_server.start(data_dir=tmp_path / "data")
    yield running
    running.stop()


def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=5)


def test_a_client_without_the_password_is_refused(server):
    strangers = [
        f"redis://127.0.0.1:{server.port}/0",  # no credentials: the default user is off
        redis_credentials.url(server.port, "default", ""),
        redis_credentials.url(server.port, "admin", "wrong"),
        redis_credentials.url(server.port, "nobody", server.passwords["admin"]),
    ]
    for url in strangers:
        with _client(url) as stranger, pytest.raises(redis.exceptions.AuthenticationError):
            stranger.set("k", "v")
    with _client(server.url) as admin:
        assert admin.set("k", "v")


def test_a_service_user_works_but_cannot_administer_the_server(server):
    # Which keys each user reaches: tests/integration/test_redis_acl.py.
    log = "{" + match_stream("m-1") + "}:log"
    with _client(server.url_for("match")) as match:
        match.xadd(log, {"e": "v"})
        assert match.register_script("return redis.call('XLEN', KEYS[1])")(keys=[log]) == 1
        match.publish(APPENDED_CHANNEL, "hello")
    with _client(server.url_for("gateway")) as gateway:
        assert gateway.xread({log: "0-0"}, block=10)
        for command in (("FLUSHALL",), ("CONFIG", "GET", "dir"), ("KEYS", "*"), ("SHUTDOWN",), ("ACL", "LIST")):
            with pytest.raises(redis.exceptions.NoPermissionError):
                gateway.execute_command(*command)


def test_durable_configuration_and_private_files(server, tmp_path: pathlib.Path):
    with _client(server.url) as admin:
        config = admin.config_get("append*")
        assert config["appendonly"] == "yes"
        assert config["appendfsync"] == "always"
        assert admin.info("server")["server_name"] == "valkey"
    passwords = tmp_path / "data" / redis_server.CREDENTIALS_FILENAME
    assert stat.S_IMODE(passwords.stat().st_mode) == 0o600
    assert stat.S_IMODE((server.directory / redis_server.ACL_FILE).stat().st_mode) == 0o600
    for password in server.passwords.values():
        assert password.encode() not in _command_line(server)
    # The ACL file holds hashes only.
    for password in server.passwords.values():
        assert password not in (server.directory / redis_server.ACL_FILE).read_text()


def test_data_and_passwords_survive_a_kill_and_a_restart(server, tmp_path: pathlib.Path):
    log, once = "{match:d}:log", "{match:d}:once:1"
    with _client(server.url_for("match")) as match:
        for n in range(100):
            match.xadd(log, {"n": n})
        # A script that writes twice and a transaction: both are logged as MULTI/EXEC.
        match.register_script("redis.call('SET', KEYS[1], 'a'); redis.call('XADD', KEYS[2], '*', 'n', 'x')")(
            keys=[once, log])
    with _client(server.url) as admin, admin.pipeline(transaction=True) as pipe:
        pipe.set("{t}1", "c").set("{t}2", "d").execute()
    server.kill()
    server.restart()
    with _client(server.url) as admin:
        assert admin.xlen(log) == 101
        assert admin.mget(once, "{t}1", "{t}2") == [b"a", b"c", b"d"]
    assert "CRITICAL" not in (server.directory / "valkey.log").read_text()
    server.stop()
    assert (tmp_path / "data" / "redis").is_dir()
    again = redis_server.start(data_dir=tmp_path / "data")
    try:
        assert again.passwords == server.passwords
        with _client(again.url) as admin:
            assert admin.xlen(log) == 101
    finally:
        again.stop()


def test_a_temporary_server_removes_its_directory():
    running = redis_server.start()
    running.stop()
    assert not running.directory.exists()


def test_masked_url_hides_the_password(server):
    shown = redis_credentials.masked(server.url)
    assert server.passwords["admin"] not in shown
    assert shown == f"redis://admin:***@127.0.0.1:{server.port}/0"


async def test_a_service_user_drives_the_embedded_cluster():
    cluster = redis_server.start_cluster(3)
    try:
        store = RedisEventStore.from_url(cluster.nodes[0].url_for("match"), cluster=True)
        try:
            for n in range(20):  # streams spread over the three nodes
                stream = match_stream(f"acl-{n}")
                await store.append(stream, 0, [NewEvent("t", b"x")], command_id="c")
                assert [e.version for e in await store.read(stream)] == [1]
        finally:
            await store.close()
        for node in cluster.nodes:
            with _client(node.url) as admin:
                assert admin.config_get("masteruser") == {"masteruser": "admin"}
            assert node.passwords["admin"].encode() not in _command_line(node)
    finally:
        cluster.stop()


def _command_line(server: redis_server.RedisProcess) -> bytes:
    """What `ps` shows of the server (a secret there is visible to every local user)."""
    assert server.process is not None
    return pathlib.Path(f"/proc/{server.process.pid}/cmdline").read_bytes()

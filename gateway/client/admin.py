"""`tabletop admin`: the operator's view of matches, read from the event store itself.

Not a player's tool: it reads Redis directly with the operator's credentials
(`--redis-url` or REDIS_URL; for `make run`, the admin user of the embedded
server in the data directory), so it sees every event, hidden ones included.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import typer
from google.protobuf import json_format
from rich.console import Console
from rich.table import Table

from gateway.client import archive
from services.common import redis_credentials, redis_server
from services.common.keys import match_stream
from services.common.redis_store import RedisEventStore
from services.match.directory import RedisDirectory
from services.match.lifecycle import Status
from services.match.records import summary

admin = typer.Typer(help="Operator commands: read matches straight from the event store.", no_args_is_help=True)
console = Console()
T = TypeVar("T")
# `make run`'s embedded server: its fixed port (deploy/stack.py FIXED_PORTS, checked by a test).
MAKE_RUN_PORT = 50050
RedisOpt = Annotated[str, typer.Option("--redis-url", envvar="REDIS_URL", help="the event store, as its admin")]
ClusterOpt = Annotated[bool, typer.Option("--cluster", envvar="REDIS_CLUSTER", help="the store is a Redis Cluster")]


def _url(given: str) -> str:
    """The URL given, else the admin of `make run`'s embedded server (from its data directory)."""
    if given:
        return given
    data = pathlib.Path(os.environ.get("TABLETOP_DATA_DIR") or ".data")
    passwords = data / redis_server.CREDENTIALS_FILENAME
    if not passwords.exists():
        raise typer.BadParameter("give --redis-url (or REDIS_URL): no `make run` data directory here")
    admin_password = json.loads(passwords.read_text())[redis_credentials.ADMIN]
    return redis_credentials.url(MAKE_RUN_PORT, redis_credentials.ADMIN, admin_password)


def _with_store(url: str, cluster: bool, work: Callable[[RedisEventStore], Awaitable[T]]) -> T:
    async def main() -> T:
        store = RedisEventStore.from_url(_url(url), cluster=cluster)
        try:
            return await work(store)
        finally:
            await store.close()

    return asyncio.run(main())


@admin.command("log")
def log_command(match_id: str, redis_url: RedisOpt = "", cluster: ClusterOpt = False) -> None:
    """Every event of a match, hidden ones included: version, type, audience, command id."""
    events = _with_store(redis_url, cluster, lambda store: store.read(match_stream(match_id)))
    if not events:
        raise typer.BadParameter(f"no match {match_id} in this store")
    # One line per event (greppable): version, type, audience (and seat), what others see, command id.
    for e in events:
        audience = e.audience.name.lower() + ("" if e.seat < 0 else f":{e.seat}")
        hidden = f" redacted-as={e.redacted_type}" if e.redacted_type else ""
        command = f" command={e.command_id}" if e.command_id else ""
        print(f"{e.version:>6}  {e.type}  {audience}{hidden}{command}")


@admin.command()
def record(match_id: str, redis_url: RedisOpt = "", cluster: ClusterOpt = False) -> None:
    """The match record folded from its log: game, seats, status, version, who is to move, result."""

    async def work(store: RedisEventStore) -> str:
        events = await store.read(match_stream(match_id))
        if not events:
            raise typer.BadParameter(f"no match {match_id} in this store")
        app = await archive.replayer(match_id, events)
        return json_format.MessageToJson(summary(await app.current(match_id)), preserving_proto_field_name=True)

    print(_with_store(redis_url, cluster, work))


@admin.command()
def stuck(
    idle_minutes: Annotated[float, typer.Option("--idle-minutes", help="no event for this long")] = 30.0,
    redis_url: RedisOpt = "",
    cluster: ClusterOpt = False,
) -> None:
    """Matches being played whose log has not moved for `--idle-minutes`: who they wait for, since when."""

    async def work(store: RedisEventStore) -> list[tuple[str, float, str]]:
        directory = RedisDirectory(store.client)
        found = []
        for match_id in await directory.find("", int(Status.ACTIVE), 10_000):
            last = await store.last_append_at(match_stream(match_id))
            if last is None:
                continue
            idle = time.time() - last
            if idle >= idle_minutes * 60:
                app = await archive.replayer(match_id, await store.read(match_stream(match_id)))
                waiting = ", ".join(str(s) for s in (await app.current(match_id)).turn.seats)
                found.append((match_id, idle, waiting))
        return found

    rows = _with_store(redis_url, cluster, work)
    if not rows:
        console.print(f"no match being played has been idle for {idle_minutes:g} minutes")
        return
    table = Table("match", "idle", "waiting for seats")
    for match_id, idle, waiting in sorted(rows, key=lambda row: -row[1]):
        table.add_row(match_id, f"{idle / 60:.0f} min", waiting or "-")
    console.print(table)


@admin.command()
def export(match_id: str, file: pathlib.Path, redis_url: RedisOpt = "", cluster: ClusterOpt = False) -> None:
    """Write the whole log to FILE (every secret in it: keep it private); verify and replay read it offline."""
    events = _with_store(redis_url, cluster, lambda store: store.read(match_stream(match_id)))
    if not events:
        raise typer.BadParameter(f"no match {match_id} in this store")
    file.write_text(archive.dump(match_id, events))
    file.chmod(0o600)
    console.print(f"{len(events)} events of {match_id} written to {file}")

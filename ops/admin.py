"""`tabletop admin`: the operator's view of matches, read from the event store itself.

Not a player's tool: it reads Redis directly with the operator's credentials
(`--redis-url` or REDIS_URL; for `make run`, the admin user of the embedded
server in the data directory), so it sees every event, hidden ones included.
`make run` writes where it listens to the data directory (stack.json: the mode,
single server or cluster, and the ports), so these commands need nothing else
in either mode; the CLI's other commands find the gateway there too.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, TypeVar

import redis.exceptions
import typer
from google.protobuf import json_format
from rich.console import Console
from rich.table import Table

from cli.stack_record import data_dir, recorded
from ops import archive
from services.common.redis import credentials as redis_credentials
from services.common.redis import server as redis_server
from services.common.redis.keys import match_stream
from services.common.store.redis_store import RedisEventStore
from services.match.directory import RedisDirectory
from services.match.lifecycle import Status
from services.match.records import summary

admin = typer.Typer(help="Operator commands: read matches straight from the event store.", no_args_is_help=True)
console = Console()
T = TypeVar("T")
RedisOpt = Annotated[str, typer.Option("--redis-url", envvar="REDIS_URL", help="the event store, as its admin")]
ClusterOpt = Annotated[bool, typer.Option("--cluster", envvar="REDIS_CLUSTER", help="the store is a Redis Cluster")]


@dataclass(frozen=True)
class Target:
    """The event store to read: its admin URL, whether it is a cluster, and how it was found."""

    url: str
    cluster: bool
    found: str


def target(given: str, cluster: bool) -> Target:
    """The URL given, else the admin of `make run`'s embedded server or cluster (its data directory)."""
    if given:
        return Target(given, cluster, "--redis-url")
    data = data_dir()
    passwords = data / redis_server.CREDENTIALS_FILENAME
    stack = recorded(data)
    if not passwords.exists() or stack is None:
        raise typer.BadParameter(f"give --redis-url (or REDIS_URL): no `make run` data directory at {data}")
    ports = stack.get("redis_ports")
    if stack.get("mode") == "external" or not ports or not isinstance(ports, list):
        raise typer.BadParameter(f"the stack of {data} ran on an external REDIS_URL: give --redis-url")
    admin_password = json.loads(passwords.read_text())[redis_credentials.ADMIN]
    port = int(ports[0])
    url = redis_credentials.url(port, redis_credentials.ADMIN, admin_password)
    in_cluster = stack.get("mode") == "cluster"
    return Target(url, in_cluster or cluster, f"{data} ({stack.get('mode')} mode, port {port})")


def _with_store(url: str, cluster: bool, work: Callable[[RedisEventStore], Awaitable[T]]) -> T:
    store_at = target(url, cluster)

    async def main() -> T:
        store = RedisEventStore.from_url(store_at.url, cluster=store_at.cluster)
        try:
            return await work(store)
        finally:
            await store.close()

    try:
        return asyncio.run(main())
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
            redis.exceptions.RedisClusterException) as down:
        console.print(f"cannot reach the event store of {store_at.found}: {_first_line(down)} (is the stack running?)",
                      style="red", soft_wrap=True)
        raise typer.Exit(2) from None


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


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

    async def work(store: RedisEventStore) -> list[tuple[str, float | None, str]]:
        directory = RedisDirectory(store.client)
        found: list[tuple[str, float | None, str]] = []
        now = time.time()
        for match_id in await directory.find("", int(Status.ACTIVE), 10_000):
            last = await store.last_append_at(match_stream(match_id))
            # From the match's last event (its writer's clock); None: its log predates append times.
            idle = None if last is None else max(0.0, now - last)
            if idle is None or idle >= idle_minutes * 60:
                app = await archive.replayer(match_id, await store.read(match_stream(match_id)))
                waiting = ", ".join(str(s) for s in (await app.current(match_id)).turn.seats)
                found.append((match_id, idle, waiting))
        return found

    rows = _with_store(redis_url, cluster, work)
    if not rows:
        console.print(f"no match being played has been idle for {idle_minutes:g} minutes")
        return
    table = Table("match", "idle", "waiting for seats")
    for match_id, idle, waiting in sorted(rows, key=lambda row: -(row[1] if row[1] is not None else -1)):
        table.add_row(match_id, "unknown" if idle is None else idle_text(idle), waiting or "-")
    console.print(table)


def idle_text(seconds: float) -> str:
    """'42 s', '17 min', '3 h 05 min', '2 d 4 h': since the match's last event."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes:02d} min"
    return f"{hours // 24} d {hours % 24} h"



@admin.command()
def export(match_id: str, file: pathlib.Path, redis_url: RedisOpt = "", cluster: ClusterOpt = False) -> None:
    """Write the whole log to FILE (every secret in it: keep it private); verify and replay read it offline."""
    events = _with_store(redis_url, cluster, lambda store: store.read(match_stream(match_id)))
    if not events:
        raise typer.BadParameter(f"no match {match_id} in this store")
    file.write_text(archive.dump(match_id, events))
    file.chmod(0o600)
    console.print(f"{len(events)} events of {match_id} written to {file}")

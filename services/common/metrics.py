"""Prometheus metrics, in a registry per process role.

The gRPC families have the gRPC ecosystem's names and labels (those of
go-grpc-middleware's and py-grpc-prometheus's interceptors), so the dashboards
and alerts written for them apply: `grpc_server_started_total`,
`grpc_server_handled_total` and `grpc_server_handling_seconds` by grpc_type,
grpc_service, grpc_method (and grpc_code), and the same as `grpc_client_*` for
the calls a process makes to the internal services. A call carried on an
Exchange stream or in a Batch (services/common/rpc/mux.py, batch.py) is counted as
the unary call it stands for; the stream or the batch is counted as well, under
its own method.

Each family belongs to one role, and a process exposes the roles it plays:
every gRPC process the RPC families, the match process (or the gateway that runs
the match app) the match families, and so on (`roles`).
"""

from __future__ import annotations

import functools

from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    start_http_server,
)

from services.common.config import Settings

# Every process that serves gRPC.
RPC = CollectorRegistry(auto_describe=True)
# Every process that calls the internal services (all but the dice, which call none).
CLIENT = CollectorRegistry(auto_describe=True)
# The match app: its actions, appends, cache, folds and clocks.
MATCH = CollectorRegistry(auto_describe=True)
# A rules process, or the match or gateway that runs the rules in process.
RULES = CollectorRegistry(auto_describe=True)
# The matchmaker, or the gateway serving ticket calls itself: its families are defined
# beside its code (services/matchmaker), on prometheus_client's default registry, which
# no process exposes whole (it holds whatever any imported module defined).
MATCHMAKER = REGISTRY

# grpc_type values, as the ecosystem's interceptors name them.
UNARY, CLIENT_STREAM, SERVER_STREAM, BIDI_STREAM = "unary", "client_stream", "server_stream", "bidi_stream"
_CALL = ["grpc_type", "grpc_service", "grpc_method"]
_HANDLED = [*_CALL, "grpc_code"]
# The ecosystem's default buckets start at 5 ms; our internal calls take well under one.
_SECONDS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0)

SERVER_STARTED = Counter("grpc_server_started_total", "Total number of RPCs started on the server.", _CALL,
                         registry=RPC)
SERVER_HANDLED = Counter(
    "grpc_server_handled_total", "Total number of RPCs completed on the server, regardless of success or failure.",
    _HANDLED, registry=RPC,
)
SERVER_HANDLING = Histogram(
    "grpc_server_handling_seconds",
    "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
    _CALL, buckets=_SECONDS, registry=RPC,
)
CLIENT_STARTED = Counter("grpc_client_started_total", "Total number of RPCs started on the client.", _CALL,
                         registry=CLIENT)
CLIENT_HANDLED = Counter(
    "grpc_client_handled_total", "Total number of RPCs completed by the client, regardless of success or failure.",
    _HANDLED, registry=CLIENT,
)
CLIENT_HANDLING = Histogram(
    "grpc_client_handling_seconds",
    "Histogram of response latency (seconds) of the gRPC until it is finished by the application.",
    _CALL, buckets=_SECONDS, registry=CLIENT,
)
# Ours, beside them: what the ecosystem's families do not tell.
INFLIGHT = Gauge("tabletop_rpc_inflight", "Unary gRPC calls being served (carried ones included)", registry=RPC)
OPEN_STREAMS = Gauge("tabletop_rpc_open_streams", "gRPC streams open", registry=RPC)
# How the unary calls served travelled: those carried in an Exchange message or a Batch item
# (each also counted in grpc_server_*); the rest came as calls of their own.
CARRIED = Counter(
    "tabletop_rpc_carried_total", "Unary calls served that came in an Exchange message or a Batch item, by carrier",
    ["grpc_service", "grpc_method", "carrier"], registry=RPC,
)

ACTIONS = Counter("tabletop_actions_total", "Actions applied to matches", ["game", "outcome"], registry=MATCH)
APPENDS = Counter("tabletop_appends_total", "Event-store appends", ["result"], registry=MATCH)
STATE_CACHE = Counter("tabletop_state_cache_total", "Match state cache lookups", ["result"], registry=MATCH)
# A match read back from its log: "catch_up" brings a match not current in this process to
# its stream's end (from its snapshot), "replay" folds a finished match's log to an earlier version.
FOLDS = Histogram(
    "tabletop_match_fold_seconds",
    "Reading a match's log and folding it (from a snapshot or the start), by why",
    ["why"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
    registry=MATCH,
)
FOLDED_EVENTS = Counter("tabletop_match_folded_events_total", "Events read back and folded, by why", ["why"],
                        registry=MATCH)
CLOCK_TIMEOUTS = Counter(
    "tabletop_clock_timeouts_total", "Seats whose turn clock ran out, by the policy applied", ["game", "policy"],
    registry=MATCH,
)
CHANCE_LEFT = Counter(
    "tabletop_rules_chance_left_total",
    "Chance a rules process left to the match under a grant, by why it stopped",
    ["reason"],
    registry=RULES,
)


class Calls:
    """The series of one method (served, or called), looked up once: labels() takes a
    lock and builds a tuple on every call."""

    def __init__(self, started: Counter, handled: Counter, handling: Histogram, kind: str, service: str,
                 method: str) -> None:
        self.started = started.labels(kind, service, method)
        self.seconds = handling.labels(kind, service, method)
        self._handled = handled
        self._labels = (kind, service, method)
        self._ok = handled.labels(kind, service, method, "OK")

    def handled(self, code: str) -> None:
        (self._ok if code == "OK" else self._handled.labels(*self._labels, code)).inc()


@functools.cache
def served(kind: str, service: str, method: str) -> Calls:
    return Calls(SERVER_STARTED, SERVER_HANDLED, SERVER_HANDLING, kind, service, method)


@functools.cache
def carried(service: str, method: str, carrier: str) -> Counter:
    return CARRIED.labels(service, method, carrier)


@functools.cache
def called(kind: str, service: str, method: str) -> Calls:
    return Calls(CLIENT_STARTED, CLIENT_HANDLED, CLIENT_HANDLING, kind, service, method)


def roles(name: str, settings: Settings) -> list[CollectorRegistry]:
    """The registries of what process `name` ("gateway", "match", "rules-pig", ...) runs,
    its own and what it runs in process (TABLETOP_<X>_TRANSPORT=inprocess)."""
    found = [RPC] if name == "dice" else [RPC, CLIENT]
    match_here = name == "match" or (name == "gateway" and settings.match_transport == "inprocess")
    if match_here:
        found.append(MATCH)
    if name.startswith("rules") or (match_here and settings.rules_transport == "inprocess"):
        found.append(RULES)
    if name == "matchmaker" or (name == "gateway" and settings.matchmaker_transport == "inprocess"):
        found.append(MATCHMAKER)
    return found


def registry_of(registries: list[CollectorRegistry]) -> CollectorRegistry:
    """One registry serving the process's own collectors (CPU, memory, GC) and the families of `registries`."""
    exposed = CollectorRegistry(auto_describe=True)
    for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
        exposed.register(collector)
    for registry in registries:
        # The default registry also holds the process collectors registered above: its own families only.
        exposed.register(_Families(registry, "tabletop_" if registry is REGISTRY else ""))
    return exposed


class _Families:
    """A registry's families (those whose names start with `prefix`), collected into another registry."""

    def __init__(self, registry: CollectorRegistry, prefix: str = "") -> None:
        self._registry = registry
        self._prefix = prefix

    def collect(self):  # type: ignore[no-untyped-def]
        return (family for family in self._registry.collect() if family.name.startswith(self._prefix))

    def describe(self):  # type: ignore[no-untyped-def]
        return []


def expose(port: int, registries: list[CollectorRegistry] | None = None) -> int:
    """Serve /metrics on `port` (0: any free port) with the families of `registries` (none:
    only the process's own collectors); returns the port, -1 if disabled."""
    if port < 0:
        return -1
    server, _ = start_http_server(port, addr="127.0.0.1", registry=registry_of(registries or []))
    return int(server.server_port)

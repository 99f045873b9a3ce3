"""Prometheus metrics shared by every process."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, start_http_server

RPCS = Counter("tabletop_rpc_total", "gRPC calls served", ["method", "code"])
RPC_SECONDS = Histogram(
    "tabletop_rpc_seconds",
    "gRPC call latency",
    ["method"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0),
)
ACTIONS = Counter("tabletop_actions_total", "Actions applied to matches", ["game", "outcome"])
APPENDS = Counter("tabletop_appends_total", "Event-store appends", ["result"])
INFLIGHT = Gauge("tabletop_rpc_inflight", "Unary gRPC calls being served")
OPEN_STREAMS = Gauge("tabletop_rpc_open_streams", "gRPC streams open")
STATE_CACHE = Counter("tabletop_state_cache_total", "Match state cache lookups", ["result"])
CHANCE_LEFT = Counter(
    "tabletop_rules_chance_left_total",
    "Chance a rules process left to the match under a grant, by why it stopped",
    ["reason"],
)
# A match read back from its log: "catch_up" brings a match not current in this process to
# its stream's end (from its snapshot), "replay" folds a finished match's log to an earlier version.
FOLDS = Histogram(
    "tabletop_match_fold_seconds",
    "Reading a match's log and folding it (from a snapshot or the start), by why",
    ["why"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
)
FOLDED_EVENTS = Counter("tabletop_match_folded_events_total", "Events read back and folded, by why", ["why"])
CLOCK_TIMEOUTS = Counter(
    "tabletop_clock_timeouts_total", "Seats whose turn clock ran out, by the policy applied", ["game", "policy"]
)


def expose(port: int) -> int:
    """Serve /metrics on `port` (0: any free port); returns the port, -1 if disabled."""
    if port < 0:
        return -1
    server, _ = start_http_server(port, addr="127.0.0.1")
    return int(server.server_port)

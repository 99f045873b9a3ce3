"""`python -m deploy.probe [SERVICE]`: exit 0 when this container's process is SERVING.

A container engine's health check runs a command inside the container; this one asks
the gRPC health service on the plaintext health-only port (TABLETOP_HEALTH_PORT), so
it needs no client certificate. SERVICE "" (the default) is readiness: NOT_SERVING
while Redis is away or while draining; "tabletop.liveness" only says the process runs.
The edge has no gRPC health: where no health port is set, the probe asks its
HTTP /healthz on TABLETOP_PORT instead (200 while the gateway behind it serves).
The image's HEALTHCHECK runs this one command in every container.
"""

from __future__ import annotations

import contextlib
import os
import sys
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def serving(port: int, service: str = "", timeout: float = 3.0) -> bool:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def http_serving(port: int, timeout: float = 3.0) -> bool:
    with contextlib.suppress(OSError), urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as r:
        return bool(r.status == 200)
    return False


def main(argv: list[str]) -> int:
    port = int(os.environ.get("TABLETOP_HEALTH_PORT", "-1") or -1)
    if port > 0:
        return 0 if serving(port, argv[0] if argv else "") else 1
    edge = int(os.environ.get("TABLETOP_PORT", "-1") or -1)
    if edge <= 0:
        print("neither TABLETOP_HEALTH_PORT nor TABLETOP_PORT names a port", file=sys.stderr)
        return 2
    return 0 if http_serving(edge) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

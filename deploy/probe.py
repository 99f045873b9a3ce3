"""`python -m deploy.probe [SERVICE]`: exit 0 when this container's process is SERVING.

A container engine's health check runs a command inside the container; this one asks
the gRPC health service on the plaintext health-only port (TABLETOP_HEALTH_PORT), so
it needs no client certificate. SERVICE "" (the default) is readiness: NOT_SERVING
while Redis is away or while draining; "tabletop.liveness" only says the process runs.
"""

from __future__ import annotations

import os
import sys

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


def main(argv: list[str]) -> int:
    port = int(os.environ.get("TABLETOP_HEALTH_PORT", "-1"))
    if port <= 0:
        print("TABLETOP_HEALTH_PORT names no port", file=sys.stderr)
        return 2
    return 0 if serving(port, argv[0] if argv else "") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

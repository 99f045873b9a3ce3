"""The bare gRPC server of the baseline: one health check method and nothing else.

`python -m bench.bare_server` serves plaintext on a free loopback port and
prints that port on its first line; it stops when its stdin closes, so it
never outlives the bench that started it.
"""

from __future__ import annotations

import asyncio
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


class Serving(health_pb2_grpc.HealthServicer):
    """Answers every Check at once: the cheapest unary call a Python gRPC server can serve."""

    async def Check(  # type: ignore[override]  # the async form of the generated servicer method
        self, request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext[object, object]
    ) -> health_pb2.HealthCheckResponse:
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


async def serve() -> None:
    server = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(Serving(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    # Until the parent closes our stdin (or dies).
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0)


if __name__ == "__main__":
    asyncio.run(serve())

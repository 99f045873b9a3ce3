"""The Redis Cluster client's own CPU per command: redis-py's `RedisCluster` against
the one the services use (`LeanCluster`, services/common/redis/internals.py), on the
embedded three-master cluster, alternating, medians of the repetitions.

One operation is what a matchmaker's ticket costs the client most often: a script
naming eight keys of one hash tag, a GET, and a pipeline of two reads. Run alone
(`python -m bench.cluster_client`) or with `BENCH_EXTRAS=1 make bench`.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from redis.asyncio.cluster import RedisCluster

from services.common.redis import server as redis_server
from services.common.redis.internals import LeanCluster

SCRIPT = "return redis.call('HGET', KEYS[1], 'f')"
KEYS = [f"tabletop:{{mm}}:bench-{i}" for i in range(8)]
ARGS = ["a", 1, 2.5, "b", 7, "c", "d", "e", 1, 2, 3, 4, 5]
CLIENTS: dict[str, Any] = {"redis-py": RedisCluster, "lean": LeanCluster}


async def _us_per_operation(client_class: Any, url: str, operations: int, callers: int) -> float:
    client = client_class.from_url(url, socket_timeout=5.0)
    script = client.register_script(SCRIPT)
    await script(keys=KEYS, args=ARGS)  # connects, learns the slots, loads the script

    async def caller(count: int) -> None:
        for _ in range(count):
            await script(keys=KEYS, args=ARGS)
            await client.get(KEYS[0])
            async with client.pipeline(transaction=False) as pipe:
                pipe.get(KEYS[1])
                pipe.hget(KEYS[2], "f")
                await pipe.execute()

    started = time.process_time()
    await asyncio.gather(*(caller(operations // callers) for _ in range(callers)))
    spent = time.process_time() - started
    await client.aclose()
    return 1e6 * spent / operations


def run(repeats: int = 3, operations: int = 2000) -> dict[str, dict[str, float]]:
    """Median client CPU (us) per operation, by client and number of concurrent callers."""
    cluster = redis_server.start_cluster(3)
    found: dict[str, dict[int, list[float]]] = {name: {1: [], 16: []} for name in CLIENTS}
    try:
        for _ in range(repeats):
            for name, client_class in CLIENTS.items():
                for callers in (1, 16):
                    us = asyncio.run(_us_per_operation(client_class, cluster.url, operations, callers))
                    found[name][callers].append(us)
    finally:
        cluster.stop()
    return {name: {f"callers_{n}": round(statistics.median(v), 1) for n, v in by.items()} for name, by in found.items()}


def main() -> None:
    figures = run()
    for callers in ("callers_1", "callers_16"):
        stock, lean = figures["redis-py"][callers], figures["lean"][callers]
        print(f"cluster client, {callers.replace('_', ' ')}: redis-py {stock:.0f} us, lean {lean:.0f} us "
              f"per script + GET + pipeline of two ({lean / stock:.2f}x)")


if __name__ == "__main__":
    main()

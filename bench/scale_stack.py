"""The stack with K replicas of every stateless tier, on the embedded three-master cluster.

Gateway, match, each game's rules, dice, deck and matchmaker each run K
processes; a caller of a tier dials every replica of it (`ipv4:a,b,...`, round
robin: one Exchange lane per replica, a dead one skipped). Each process is
started uncapped (importing Python under a twentieth of a core would take
minutes) and moved into its own capped cgroup once it is ready: from then on it
is one small machine. Redis and the load generator stay uncapped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bench.scale_cgroup import CpuGroups
from deploy.stack import UNLIMITED_CALLERS, Stack

PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}
# The stateless tiers, in start order (each dials the ones before it).
TIERS = ("dice", "deck", "rules", "match", "matchmaker", "gateway")


def scale_env(shards: int) -> dict[str, str]:
    return {
        **PIG,
        **UNLIMITED_CALLERS,
        # Calls to a match go to any replica (round robin): a write lease would make
        # every hand-over between replicas wait it out.
        "TABLETOP_MATCH_LEASE_MS": "0",
        "TABLETOP_MM_POOL_SHARDS": str(shards),
    }


@dataclass
class ScaleStack(Stack):
    """`Stack` with `replicas` processes of each stateless tier, each capped by `groups`."""

    replicas: int = 1
    groups: CpuGroups | None = None
    # Each replica stands for a machine of its own: its callers reach it over TCP.
    unix_sockets: bool = False
    tiers: dict[str, list[str]] = field(default_factory=dict)  # tier -> its process names

    def start(self) -> ScaleStack:
        self.games = self.games or ("pig",)
        self.cluster_nodes = self.cluster_nodes or 3
        self.matchmakers = 0  # launched here, K of them, with the other tiers
        super().start()
        return self

    # Stack.start launches one of each tier; these overrides launch K instead.
    def _launch(self, name: str, module: str, env: dict[str, str], *args: Any, **kwargs: Any) -> Any:
        if name == "edge":
            return None  # the HTTP edge is no part of what is measured
        tier = "rules" if name.startswith("rules-") else name
        if tier not in TIERS:
            return super()._launch(name, module, env, *args, **kwargs)
        if tier == "gateway" and "matchmaker" not in self.tiers:
            # Matchmakers before the gateways, which are told every replica's address.
            self._launch("matchmaker", "services.matchmaker", self._core_env())
        first = None
        for replica in range(self.replicas):
            named = f"{name}-{replica}"
            wired = {**env, **self._dialled(tier)}
            if tier == "matchmaker":
                wired["TABLETOP_REPLICA_NAME"] = named
            proc = super()._launch(named, module, wired)  # no layout: any free port
            self.tiers.setdefault(tier, []).append(named)
            if self.groups is not None and proc.process is not None:
                self.groups.cap(named, proc.process.pid)
            first = first or proc
        return first

    def _dialled(self, tier: str) -> dict[str, str]:
        """Where a process of `tier` finds every replica of the tiers it calls."""
        env: dict[str, str] = {}
        if tier in ("deck", "rules", "match", "gateway", "matchmaker"):
            env["TABLETOP_DICE_ADDR"] = self.targets("dice")
        if tier in ("rules", "match", "gateway", "matchmaker"):
            env["TABLETOP_DECK_ADDR"] = self.targets("deck")
        if tier in ("match", "gateway", "matchmaker"):
            env["TABLETOP_RULES_ADDRS"] = ",".join(
                f"{game}={self.targets('rules-' + game)}" for game in self.games)
        if tier in ("matchmaker", "gateway"):
            env["TABLETOP_MATCH_ADDR"] = self.targets("match")
        if tier == "gateway":
            env["TABLETOP_MATCHMAKER_ADDR"] = self.targets("matchmaker")
        return env

    def addr(self, name: str) -> str:
        """A process's address; a tier's name ("dice", "rules-pig") gives every replica's."""
        if name in self.procs:
            return super().addr(name)
        return self.targets(name)

    def targets(self, prefix: str) -> str:
        """One gRPC target for every running replica named `prefix-<i>`."""
        addrs = [super(ScaleStack, self).addr(n) for n in self.procs if n.rsplit("-", 1)[0] == prefix]
        if not addrs:
            raise KeyError(prefix)
        return addrs[0] if len(addrs) == 1 else "ipv4:" + ",".join(addrs)

    @property
    def gateway_addrs(self) -> list[str]:
        return [self.addr(n) for n in self.tiers.get("gateway", [])]

    @property
    def gateway_addr(self) -> str:
        return self.gateway_addrs[0]

    def restart(self, name: str) -> None:
        """Start a killed replica again on its port, back in its capped group."""
        super().restart(name)
        proc = self.procs[name]
        if self.groups is not None and proc.process is not None:
            self.groups.cap(name, proc.process.pid)

    def pids(self) -> dict[str, int]:
        """Every process of the stack by name, the cluster's nodes as redis-<i>."""
        named = {n: p.process.pid for n, p in self.procs.items() if p.process is not None}
        named |= {f"redis-{i}": node.process.pid for i, node in enumerate(self.redis_nodes)
                  if node.process is not None}
        return named


def tier_of(name: str) -> str:
    """The tier of a process name ("rules-pig-2" -> "rules", "redis-0" -> "redis")."""
    return name.split("-", 1)[0]

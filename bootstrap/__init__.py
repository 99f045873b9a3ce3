"""How each process is wired: one module per process, and what they share here.

    dice, deck, rules, match, matchmaker, gateway, edge   each a `main()`: its settings,
                                                          clients, app and server

A process's `__main__` (`python -m services.dice`, `python -m gateway`, ...) only runs
its module's `main`. This package sits above every service package and the gateway
and below the processes: nothing but a `__main__` imports it. What the processes
share is here: the games hosted, the dialling of a platform identity, and one rules
client per game, remote or in process as the settings say (the match and the
gateway both need them). The deployment shapes these choices make are named in
services/common/config.py (`SHAPES`) and checked when the settings are loaded.
"""

from __future__ import annotations

from services.common import grpc_io

# Before anything imports grpc (every process's `__main__` imports this package first):
# the imports below come after it on purpose.
grpc_io.choose()

from services.common.config import Settings  # noqa: E402
from services.common.draws import ChanceResolver  # noqa: E402
from services.common.rpc.adapters import RulesClient  # noqa: E402
from services.common.rpc.ports import RulesPort  # noqa: E402
from services.common.security import tls  # noqa: E402
from services.games import registry  # noqa: E402


def load_extra_games(settings: Settings) -> None:
    """Register the extra engine packages the settings name."""
    for name, package in settings.extra_games.items():
        registry.add_package(name, package)


def dial(settings: Settings, target: str) -> tls.Dial:
    """Credentials for calling the platform identity `target` as this process."""
    return tls.dial(tls.material(settings), target)


def rules_clients(settings: Settings, caller: str = "", chance: ChanceResolver | None = None) -> dict[str, RulesPort]:
    """One client per game: the configured addresses, or every registered engine in process,
    called as `caller` (default: this process's identity); in process, `chance` is what
    the rules resolve a move's chance with (the caller's own dice and deck)."""
    load_extra_games(settings)
    if settings.rules_transport == "inprocess":
        from services.rules.app import EngineHost
        from services.rules.servicer import RulesServicer

        caller = caller or tls.identity(settings)
        return {
            name: RulesClient.in_process(RulesServicer(EngineHost(registry.game(name)), chance), caller)
            for name in registry.available()
        }
    how = dial(settings, "rules")
    calls = settings.internal_calls
    return {name: RulesClient.remote(addr, how, calls=calls) for name, addr in settings.rules_addrs.items()}

"""gRPC's I/O path, chosen for every process before grpc is first imported.

gRPC's core reads GRPC_EXPERIMENTS once, when the grpc package is first imported; a
setting made later changes nothing. gRPC 1.85 runs a Python process's calls and
stream messages on its EventEngine, threads of its own beside the asyncio loop; with
its two experiments below turned off, they go the earlier way (the completion queue
the loop polls). That way costs less CPU for every call and message: through the
separate services, dice_hand, the EventEngine's threads were 12-24% of each
process's CPU, and the stack's CPU per action fell by about a tenth without them
(docs/design-notes.md, "gRPC's I/O: the completion queue, not the EventEngine").

This module imports nothing of grpc's, so a process's entry can import it first
(bootstrap/__init__.py, which every process's `__main__` imports before anything else;
bench/bare_server.py, the floor's server, which must pay what the stack pays).
"""

from __future__ import annotations

import os

# Turned off: the EventEngine for channels (client calls) and for listeners (servers).
EXPERIMENTS = "-event_engine_client,-event_engine_listener"


def choose() -> None:
    """Set the I/O path for this process, unless the operator set GRPC_EXPERIMENTS."""
    os.environ.setdefault("GRPC_EXPERIMENTS", EXPERIMENTS)

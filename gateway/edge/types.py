"""The one place the edge learns every message type an Any may carry.

Views, legal actions and log events travel inside google.protobuf.Any; the
JSON mapping can write or read an Any only when its type is in the descriptor
pool it is given. Until gateway/payloads.py (the registry shared with server
reflection) exists, this module loads every generated `tabletop` module,
which registers each game's and the platform's messages in the default pool.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

import tabletop
from google.protobuf import descriptor_pool


@cache
def pool() -> descriptor_pool.DescriptorPool:
    """The descriptor pool the JSON codec resolves Any payloads in."""
    for module in pkgutil.walk_packages(tabletop.__path__, prefix="tabletop."):
        if module.name.endswith("_pb2"):
            importlib.import_module(module.name)
    return descriptor_pool.Default()

"""The one place the edge learns every message type an Any may carry.

Views, legal actions and log events travel inside google.protobuf.Any; the
JSON mapping can write or read an Any only when its type is in the descriptor
pool it is given: the payload registry that server reflection shares
(contract/payloads.py), for the games this stack hosts (extra games included).
"""

from __future__ import annotations

from functools import cache

from google.protobuf import descriptor_pool

from bootstrap import load_extra_games
from contract import payloads
from services.common import config


@cache
def pool() -> descriptor_pool.DescriptorPool:
    """The descriptor pool the JSON codec resolves Any payloads in."""
    load_extra_games(config.load())
    return payloads.descriptor_pool()

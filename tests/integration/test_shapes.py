"""Every named deployment shape plays a whole match with chance in it, verified from its
log: the launcher starts each shape by its name (services/common/config.py SHAPES)."""

from __future__ import annotations

import pytest
from tabletop.match.v1 import match_service_pb2 as mpb

from cli import autoplay
from cli.api import Gateway
from deploy.stack import Stack
from services.common.config import SHAPES, Transport
from services.dice.verify import verify
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("shape", [s.name for s in SHAPES])
async def test_each_shape_plays_a_match_whose_log_verifies(redis_url: str, shape: str) -> None:
    with Stack(redis_url=redis_url, extra_env=PIG, games=("pig",), matchmakers=0, shape=shape) as stack:
        chosen = next(s for s in SHAPES if s.name == shape)
        # Each contract a process of its own exactly where the shape says so.
        assert ("rules-pig" in stack.procs) == (chosen.rules == Transport.GRPC)
        assert ("dice" in stack.procs, "deck" in stack.procs) == (
            chosen.dice == Transport.GRPC, chosen.deck == Transport.GRPC)
        assert ("match" in stack.procs) == (chosen.match == Transport.GRPC)
        async with Gateway(stack.gateway_addr) as gateway:
            result = await autoplay.play_match(gateway, "pig", 2, seed=5)
            assert result.summary.status == mpb.MATCH_STATUS_FINISHED
            entries = await gateway.log(result.match_id)
            assert verify((e.version, e.type, e.event.value) for e in entries).ok

"""Every process runs on uvloop (a dependency) unless told to use asyncio's own loop."""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from services.common import runtime


def test_uvloop_is_the_default_and_asyncio_is_one_setting_away():
    assert importlib.util.find_spec("uvloop") is not None, "uvloop is a dependency"
    assert runtime.event_loop({}) == "uvloop"
    assert runtime.event_loop({"TABLETOP_EVENT_LOOP": "uvloop"}) == "uvloop"
    assert runtime.event_loop({"TABLETOP_EVENT_LOOP": "asyncio"}) == "asyncio"


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_run_drives_main_to_its_end_on_the_chosen_loop(monkeypatch: pytest.MonkeyPatch, loop: str):
    monkeypatch.setenv("TABLETOP_EVENT_LOOP", loop)
    seen: list[str] = []

    async def main() -> None:
        await asyncio.sleep(0)
        seen.append(type(asyncio.get_running_loop()).__module__.split(".")[0])

    runtime.run(main)
    assert seen == [runtime.event_loop()]

"""make profile's reading of py-spy's raw stacks, and its settings."""

from __future__ import annotations

import pytest

from bench.profile import Settings, fold


def test_a_stacks_samples_count_for_its_leaf_alone_and_for_every_frame_inclusively() -> None:
    samples = fold([
        "main (a.py:1);submit (b.py:2);append (c.py:3) 5\n",
        "main (a.py:1);submit (b.py:2) 3\n",
        "main (a.py:1);watch (d.py:4);append (c.py:3) 2\n",
    ])
    assert samples.total == 10
    assert samples.own["append (c.py:3)"] == 7
    assert samples.own["submit (b.py:2)"] == 3
    assert "main (a.py:1)" not in samples.own
    assert samples.inclusive["main (a.py:1)"] == 10
    assert samples.inclusive["submit (b.py:2)"] == 8
    assert samples.inclusive["append (c.py:3)"] == 7


def test_a_recursive_function_counts_once_per_sample_and_unreadable_lines_are_skipped() -> None:
    samples = fold(["f (a.py:1);f (a.py:1);f (a.py:1) 4", "", "garbage", "g (b.py:2) x"])
    assert samples.total == 4
    assert samples.inclusive["f (a.py:1)"] == 4
    assert samples.own["f (a.py:1)"] == 4


def test_settings_come_from_the_environment_and_refuse_what_cannot_run() -> None:
    chosen = Settings.from_env({"PROFILE_SHAPE": "services", "PROFILE_PROCESS": "match",
                                "PROFILE_MATCHES": "64", "PROFILE_NATIVE": "1"})
    assert (chosen.shape, chosen.process, chosen.matches, chosen.native) == ("services", "match", 64, True)
    assert Settings.from_env({}) == Settings()
    with pytest.raises(SystemExit, match="PROFILE_SHAPE"):
        Settings.from_env({"PROFILE_SHAPE": "cluster"})
    with pytest.raises(SystemExit, match="PROFILE_SECONDS"):
        Settings.from_env({"PROFILE_SECONDS": "1"})

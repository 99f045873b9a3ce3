"""A Play stream's watch answers the stream's own submits: each submit is answered once,
by the first update at or past its version, or on its own when that version was sent."""

from __future__ import annotations

from gateway.watching import Answers


def test_a_submit_is_answered_by_the_first_update_at_or_past_its_version() -> None:
    answers = Answers(after_version=4)
    assert answers.wait_for(7, "a")
    assert answers.carried_by(6) == []  # an update before the submit's version answers nothing
    assert answers.carried_by(9) == ["a"]  # a batch that ran past it answers it
    assert answers.carried_by(12) == []  # and only once


def test_a_submit_whose_version_the_watch_already_sent_is_answered_on_its_own() -> None:
    answers = Answers(after_version=0)
    assert answers.carried_by(10) == []
    assert not answers.wait_for(10, "late")
    assert not answers.wait_for(3, "older")
    assert answers.wait_for(11, "next")


def test_a_watch_from_a_later_version_never_owes_what_it_skipped() -> None:
    answers = Answers(after_version=20)
    assert not answers.wait_for(15, "before the watch")


def test_several_submits_in_one_batch_are_answered_together_in_order() -> None:
    answers = Answers(after_version=0)
    assert answers.wait_for(3, "a") and answers.wait_for(5, "b") and answers.wait_for(8, "c")
    assert answers.carried_by(5) == ["a", "b"]
    assert answers.carried_by(8) == ["c"]

"""`make bots-eval` (bots/eval.py): games in worker processes add up to what one process plays."""

from __future__ import annotations

from bots.eval import Job, Row, run
from bots.search import Budget


def _jobs() -> tuple[Row, Row, list[Job]]:
    two, three = Row("discover", "2", "all random"), Row("discover", "3", "all random")
    jobs: list[Job] = [(two, ("discover", ("random",) * 2, 2000 + i, Budget(iterations=2), ())) for i in range(3)]
    jobs += [(three, ("discover", ("random",) * 3, 2000 + i, Budget(iterations=2), ())) for i in range(2)]
    return two, three, jobs


def _figures(row: Row) -> tuple[object, ...]:
    return row.games, row.wins, row.decisions, row.days, row.stages, dict(row.reasons or {})


def test_rows_gather_their_games_whatever_the_number_of_workers() -> None:
    two, three, jobs = _jobs()
    finished: list[Row] = []
    assert run(jobs, 2, finished.append) == [two, three]
    assert sorted(finished, key=id) == sorted([two, three], key=id)
    assert (two.games, three.games) == (3, 2)
    assert two.decisions > 0 and sum((two.reasons or {}).values()) == 3

    alone_two, alone_three, alone = _jobs()
    run(alone, 1, lambda row: None)
    assert _figures(alone_two) == _figures(two) and _figures(alone_three) == _figures(three)


def test_the_evaluation_splits_the_games_as_each_declares_how_it_is_won() -> None:
    """Discover's seats win or lose together (its Outcome's cooperative_win): the
    evaluation scores it as a team because its declaration says so, not by its name."""
    from bots import eval as evaluation
    from services.games import registry

    assert evaluation.COOPERATIVE == ("discover",)
    assert evaluation.COMPETITIVE == ("el_dorado", "la_isla")
    assert set(evaluation.COMPETITIVE) | set(evaluation.COOPERATIVE) == set(registry.GAMES)
    assert registry.declaration("discover").cooperative and not registry.declaration("la_isla").cooperative

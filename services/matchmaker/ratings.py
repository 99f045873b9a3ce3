"""Rating updates from match outcomes with openskill: pure, no I/O.

Competitive matches: every seat is its own team, ranked by the outcome's
places (1 = first, equal places tie) under the Plackett-Luce model.
Co-operative matches (the outcome sets `cooperative_win`): all seats form one
team against a virtual `scenario` opponent whose rating is fixed (it is used,
never updated): a win ranks the table first, a loss second. Bots are rated
like a newcomer every time and never stored. See RATINGS.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    matches: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate (mu - 3 sigma) leaderboards sort by."""
        return self.mu - 3 * self.sigma

    def encode(self) -> str:
        return f"{self.mu!r} {self.sigma!r} {self.matches}"

    @classmethod
    def decode(cls, text: str | bytes) -> Rating:
        mu, sigma, matches = (text.decode() if isinstance(text, bytes) else text).split()
        return cls(float(mu), float(sigma), int(matches))


DEFAULT = Rating(MODEL.mu, MODEL.sigma)
# The virtual opponent of a co-operative table: a newcomer's rating, never updated.
SCENARIO = DEFAULT


@dataclass(frozen=True)
class Result:
    """What the ratings need of a finished match."""

    game: str
    # Player id per seat.
    players: tuple[str, ...]
    # Place per seat (1 = first); ties share a place.
    ranking: tuple[int, ...]
    # None for a competitive game; for a co-operative one whether the table won.
    cooperative_win: bool | None = None


def rate(result: Result, current: Sequence[Rating]) -> list[Rating]:
    """New ratings of the seats of `result`, given their `current` ones (seat order)."""
    ratings = [MODEL.rating(mu=r.mu, sigma=r.sigma) for r in current]
    if result.cooperative_win is not None:
        scenario = MODEL.rating(mu=SCENARIO.mu, sigma=SCENARIO.sigma)
        ranks = [1.0, 2.0] if result.cooperative_win else [2.0, 1.0]
        team = MODEL.rate([ratings, [scenario]], ranks=ranks)[0]
        return [Rating(r.mu, r.sigma, c.matches + 1) for r, c in zip(team, current)]
    if len(ratings) < 2:
        return list(current)  # one player alone ranks against nobody: nothing learned
    teams = MODEL.rate([[r] for r in ratings], ranks=[float(place) for place in result.ranking])
    return [Rating(t[0].mu, t[0].sigma, c.matches + 1) for t, c in zip(teams, current)]

"""Rating updates from match outcomes with openskill, and which matches may be rated: pure, no I/O.

Competitive matches: every seat is its own team, ranked by the outcome's
places (1 = first, equal places tie) under the Plackett-Luce model.
Co-operative matches (the outcome sets `cooperative_win`): all seats form one
team against a virtual `scenario` opponent whose rating is fixed (it is used,
never updated): a win ranks the table first, a loss second. Bots are rated
like a newcomer every time and never stored.

Only matches that can be trusted are rated (`untrusted`): tables the
matchmaker formed, custom ones only where the operator says so, and never one
where a player holds two seats, nor one a game's safety cap stopped undecided.
A guest's rating stays off the leaderboard until it has played enough
matchmade games (`on_board`). See RATINGS.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from services.common.players import GUEST, is_bot

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    # Rated matches played ...
    matches: int = 0
    # ... of which the matchmaker formed this many (what a guest needs for the leaderboard).
    matchmade: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate (mu - 3 sigma) leaderboards sort by."""
        return self.mu - 3 * self.sigma

    def encode(self) -> str:
        return f"{self.mu!r} {self.sigma!r} {self.matches} {self.matchmade}"

    @classmethod
    def decode(cls, text: str | bytes) -> Rating:
        # Ratings stored before matchmade games were counted have three fields: none counted.
        mu, sigma, matches, *matchmade = (text.decode() if isinstance(text, bytes) else text).split()
        return cls(float(mu), float(sigma), int(matches), int(matchmade[0]) if matchmade else 0)


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
    # Whether the matchmaker formed the table (MatchCreated.matchmade), rather than players
    # who made a lobby and chose who joins it.
    matchmade: bool = False
    # A game's safety cap stopped it before its rules ended it (outcome reason
    # STOPPED_REASON): nobody won or lost, so it is never rated.
    stopped: bool = False


@dataclass(frozen=True)
class RatingRules:
    """The operator's say on what is rated and shown (services/matchmaker/config.py)."""

    # Rate custom tables (CreateMatch and joined by hand) too: their players choose their
    # opponents, so a player can feed themselves wins from accounts they made for it.
    rate_custom_tables: bool = False
    # A guest (device sign-in) appears on the leaderboard only after this many matchmade games.
    guest_min_matches: int = 10


DEFAULT_RULES = RatingRules()


def untrusted(result: Result, rules: RatingRules) -> str | None:
    """Why the match must not be rated (a stable reason id), or None if it may be."""
    if result.stopped:
        return "ratings.stopped"  # a cap, not the rules, ended it: a verdict nobody earned
    humans = [p for p in result.players if p and not is_bot(p)]
    if len(set(humans)) < len(humans):
        return "ratings.self_seated"  # one player on both sides: a win over oneself, never rated
    if not result.matchmade and not rules.rate_custom_tables:
        return "ratings.custom_table"
    return None


def on_board(rating: Rating, kind: str, rules: RatingRules) -> bool:
    """Whether a rated player of sign-in `kind` is shown on the leaderboard.

    A guest account costs one Authenticate: until it has played enough matchmade games
    its rating says little about a person, and a board open to it would rank accounts
    made to be beaten. Accounts of the operator's (custom, external) are shown at once;
    so is a player whose kind was never recorded (signed in before kinds were).
    """
    return kind != GUEST or rating.matchmade >= rules.guest_min_matches


def rate(result: Result, current: Sequence[Rating]) -> list[Rating]:
    """New ratings of the seats of `result`, given their `current` ones (seat order)."""
    ratings = [MODEL.rating(mu=r.mu, sigma=r.sigma) for r in current]
    made = int(result.matchmade)
    if result.cooperative_win is not None:
        scenario = MODEL.rating(mu=SCENARIO.mu, sigma=SCENARIO.sigma)
        ranks = [1.0, 2.0] if result.cooperative_win else [2.0, 1.0]
        team = MODEL.rate([ratings, [scenario]], ranks=ranks)[0]
        return [Rating(r.mu, r.sigma, c.matches + 1, c.matchmade + made) for r, c in zip(team, current)]
    if len(ratings) < 2:
        return list(current)  # one player alone ranks against nobody: nothing learned
    teams = MODEL.rate([[r] for r in ratings], ranks=[float(place) for place in result.ranking])
    return [Rating(t[0].mu, t[0].sigma, c.matches + 1, c.matchmade + made) for t, c in zip(teams, current)]

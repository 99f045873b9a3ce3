"""Setup (rulebook "Preparar"): options, the start tile, survivors, and the setup agenda.

Every random part of setup (leader dice, deck shuffles, dealing) is a step on the
agenda that the chance seat answers; `setup` itself is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping

from services.games.common.engine import InvalidConfig
from services.games.common.options import OptionSpec, parse_options
from services.games.discover import state as st
from services.games.discover.content import SCENARIOS, Content, load
from services.games.discover.state import Phase, State, Status, Survivor
from services.games.discover.vocab import Hex

DEFAULT_SCENARIO = SCENARIOS[0]
# A safety cap, not a rule ("Fase nocturna": the game goes on until every survivor has won
# or lost): by default far beyond any measured game (at most 30 days, RULES.md "Quest,
# winning, end"); a game it stops is stopped, not lost, and never rated.
MAX_DAYS = 365
DEFAULT_MAX_DAYS = MAX_DAYS
OPTIONS = (
    OptionSpec.choice("scenario", SCENARIOS, DEFAULT_SCENARIO, "The scenario to play"),
    OptionSpec.integer(
        "max_days",
        DEFAULT_MAX_DAYS,
        1,
        MAX_DAYS,
        "Safety cap: days after which an unfinished game is stopped (not lost, never rated)",
    ),
    OptionSpec.string(
        "characters",
        "",
        "Fixed characters, one number per seat separated by commas (e.g. 3,7); empty: each seat drafts in secret",
    ),
)
COLOURS = ("red", "blue", "green", "yellow")


def card_id(prefix: str, number: int) -> str:
    """The canonical string of a numbered card in a pile ("P03")."""
    return f"{prefix}{number:02d}"


def card_number(card: str) -> int:
    return int(card[1:])


def setup(config: Mapping[str, str], seats: int) -> State:
    """The initial state of a game of 1-4 survivors."""
    options = parse_options(OPTIONS, config)
    content = load(str(options["scenario"]))
    characters = _characters(str(options["characters"]), seats, content)
    return _initial(content, seats, int(options["max_days"]), characters)


def _characters(raw: str, seats: int, content: Content) -> tuple[int, ...]:
    """Optional fixed characters, one per seat ("3,7"); empty: the secret draft."""
    if not raw:
        return ()
    parts = raw.split(",")
    if len(parts) != seats or not all(p.strip().isdigit() for p in parts):
        raise InvalidConfig("characters needs one character number per seat", "characters")
    chosen = tuple(int(p) for p in parts)
    if len(set(chosen)) != seats or any(c not in content.characters for c in chosen):
        raise InvalidConfig("characters must be distinct known character numbers", "characters")
    return chosen


def _initial(content: Content, seats: int, max_days: int, characters: tuple[int, ...]) -> State:
    start = content.tiles[0]
    centre = content.slots[0].centre
    camp = next(centre + s.hex for s in start.spaces if s.camp)
    survivors = tuple(_survivor(content, seat, seats, camp, characters) for seat in range(seats))
    return State(
        scenario=content.scenario,
        players=seats,
        max_days=max_days,
        phase=Phase.SETUP,
        day=0,
        leader=0,
        turn_order=(),
        survivors=survivors,
        tiles={0: 0},
        features={centre + s.hex: s.feature_pool for s in start.spaces if s.feature_pool},
        fires={centre + s.hex: True for s in start.spaces if s.fire},
        shelters=frozenset(),
        placed={},
        enemies=(),
        enemy_serial=1,
        piles={},
        night_pile="night:II",
        threat_pile="threats",
        night_discard=(),
        threat_discard=(),
        table=(),
        stage=1,
        stage_complete=False,
        stages_done=0,
        clues=0,
        investigated=frozenset(),
        resolved=frozenset(),
        unlocked=frozenset(),
        agenda=_agenda(content, seats, bool(characters)),
    )


def _survivor(content: Content, seat: int, seats: int, camp: Hex, characters: tuple[int, ...]) -> Survivor:
    # Solo play uses no combat-support cards (rulebook, setup step 7.3).
    support = () if seats == 1 else tuple(c for c in sorted(content.support) if c.startswith(COLOURS[seat]))
    character = characters[seat] if characters else 0
    return Survivor(
        seat=seat,
        character=character,
        offer=(),
        chosen=character,
        stamina=content.stamina_by_players[seats],
        damage=(),
        space=camp,
        status=Status.ACTIVE,
        resources=dict(content.starting_resources),
        items=(),
        hand=(),
        support=support,
        ongoing=(),
    )


def _agenda(content: Content, seats: int, fixed_characters: bool) -> tuple[st.Step, ...]:
    steps: list[st.Step] = []
    if seats > 1:
        steps.append(st.RollLeader(tuple(range(seats))))
    steps.extend(_shuffles(content))
    if not fixed_characters:
        cards = tuple(card_id("C", n) for n in sorted(content.characters))
        steps.append(st.Shuffle("characters", cards, False))
        steps.extend(st.DealCharacters(seat, content.characters_dealt[seats]) for seat in range(seats))
    steps.extend(st.DealProjects(seat, content.projects_by_players[seats]) for seat in range(seats))
    if not fixed_characters:
        steps.append(st.ChooseCharacters())
    steps.append(st.StartDay())
    return tuple(steps)


def _shuffles(content: Content) -> list[st.Step]:
    """Night deck (two piles, level I drawn first), numeric decks, and the shuffled piles."""
    night = sorted(content.night.values(), key=lambda c: c.id)
    steps: list[st.Step] = [
        # Level II is shuffled first, then level I goes on top (drawn first, flow.night_pile).
        st.Shuffle("night:II", tuple(c.id for c in night if c.tier == "II"), False),
        st.Shuffle("night:I", tuple(c.id for c in night if c.tier == "I"), False),
        st.Shuffle("exploration", tuple(card_id("E", n) for n in sorted(content.exploration)), True),
        st.Shuffle("enemies", tuple(card_id("N", n) for n in sorted(content.enemies)), True),
        st.Shuffle("items", tuple(card_id("I", n) for n in sorted(content.items)), True),
        st.Shuffle("projects", tuple(card_id("P", n) for n in sorted(content.projects)), False),
        st.Shuffle("threats", tuple(sorted(content.threats)), False),
    ]
    for group in sorted({s.group for s in content.slots if s.group != "start"}):
        tiles = sorted(t.id for t in content.tiles.values() if t.group == group)
        steps.append(st.Shuffle(f"tiles:{group}", tuple(card_id("L", n) for n in tiles), False))
    for pool in sorted({p for p, _ in content.features.values()}):
        tokens = sorted(t for t, (p, _) in content.features.items() if p == pool)
        steps.append(st.Shuffle(f"feature:{pool}", tuple(tokens), False))
    steps.append(st.Shuffle("monsters", tuple(sorted(content.monster_tokens)), False))
    return steps

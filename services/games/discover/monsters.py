"""Monster tokens (rulebook "Fichas de monstruo"): spawning, moving, and the leader's tie-breaks."""

from __future__ import annotations

from services.games.common.engine import IllegalAction
from services.games.common.values import replace
from services.games.discover import actions as act
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover import vocab as v
from services.games.discover.board import board, distances, neighbours
from services.games.discover.content import load
from services.games.discover.rules import at
from services.games.discover.state import Enemy, Source, State, Status
from services.games.discover.vocab import Hex


def spawn(state: State, seat: int, effect: v.SpawnMonster) -> tuple[list[ev.Event], list[st.Step]]:
    """Place a token face down (special: face up); nothing when no token or no space is available."""
    if not _token_available(state, effect):
        return [], []
    spaces = _spawn_spaces(state, seat, effect)
    if not spaces:
        return [], []  # e.g. a landmark not yet on the map: the monster is not spawned
    if len(spaces) == 1:
        return [spawned(state, effect.special, effect.enemy or 0, spaces[0])], []
    return [], [st.PickSpawn(effect.special, effect.enemy or 0, spaces)]


def spawned(state: State, special: bool, enemy: int, space: Hex) -> ev.EnemySpawned:
    prefix = "S" if special else "X"
    return ev.EnemySpawned(f"{prefix}{state.enemy_serial}", enemy if special else 0, space, special)


def _token_available(state: State, effect: v.SpawnMonster) -> bool:
    if effect.special:
        copies = load(state.scenario).special_tokens.get(effect.enemy or 0, 0)
        return sum(1 for e in state.enemies if e.special and e.number == effect.enemy) < copies
    face_down = sum(1 for e in state.enemies if e.number == 0)
    return state.piles.get("monsters", 0) - face_down > 0


def _spawn_spaces(state: State, seat: int, effect: v.SpawnMonster) -> tuple[Hex, ...]:
    if effect.at is v.SpawnAt.THIS_SPACE:
        return (state.survivors[seat].space,)
    if effect.at is v.SpawnAt.LANDMARK:
        space = board(state).landmarks.get(effect.landmark or 0)
        return (space,) if space is not None else ()
    return farthest_spaces(state)


def farthest_spaces(state: State) -> tuple[Hex, ...]:
    """Revealed non-ocean spaces without an enemy, farthest from every survivor (stand-in rule)."""
    dist = distances(state, (state.survivors[s].space for s in state.active()))
    occupied = {e.space for e in state.enemies}
    spaces = board(state).spaces
    free = [h for h in dist if h not in occupied and spaces[h].terrain != "ocean"]
    if not free:
        return ()
    best = max(dist[h] for h in free)
    return tuple(sorted(h for h in free if dist[h] == best))


# Special monster tokens "no se mueven con cartas nocturnas o cartas de amenaza"; every other effect moves them.
STILL_SPECIALS = (Source.NIGHT, Source.THREAT)


def plan_move(state: State, seat: int, effect: v.MoveMonsters, source: Source) -> list[st.Step]:
    """Steps to move monster tokens; special monsters stay put only for night and threat cards."""
    movers = sorted(e.id for e in state.enemies if not (e.special and source in STILL_SPECIALS))
    toward = seat if effect.toward is v.Toward.SELF else -1
    if effect.which is v.Which.ALL:
        return [st.MoveMonsters(tuple(movers), effect.steps, effect.steps, toward, ())] if movers else []
    dist = distances(state, (state.survivors[seat].space,))
    reach = {m: dist[state.enemy(m).space] for m in movers if state.enemy(m).space in dist}
    if not reach:
        return []
    best = min(reach.values())
    nearest = tuple(m for m in movers if reach.get(m) == best)
    if len(nearest) == 1:
        return [st.MoveMonsters(nearest, effect.steps, effect.steps, toward, ())]
    return [st.PickMover(seat, effect.steps, nearest)]


def next_spaces(state: State, enemy: Enemy, toward_seat: int) -> tuple[Hex, ...]:
    """Spaces one step closer to the target survivor(s), over revealed tiles, ignoring terrain."""
    if toward_seat >= 0 and state.survivors[toward_seat].status is Status.ACTIVE:
        sources: tuple[Hex, ...] = (state.survivors[toward_seat].space,)
    else:
        sources = tuple(state.survivors[s].space for s in state.active())
    dist = distances(state, sources)
    here = dist.get(enemy.space)
    if not here:
        return ()
    return tuple(sorted(n for n in neighbours(enemy.space) if dist.get(n) == here - 1))


def move_step(state: State, step: st.MoveMonsters) -> list[ev.Event]:
    """One space for the first mover; a tie waits for the leader."""
    following = replace(step, movers=step.movers[1:], steps_left=step.steps, choices=())
    done: list[ev.Event] = [ev.StepDone(), ev.StepsQueued((following,))] if following.movers else [ev.StepDone()]
    enemy = next((e for e in state.enemies if e.id == step.movers[0]), None) if step.movers else None
    if enemy is None or step.steps_left == 0 or at(state, enemy.space):
        return done
    options = next_spaces(state, enemy, step.toward_seat)
    if not options:
        return done
    if len(options) == 1:
        return moved(state, step, enemy.id, options[0])
    return [ev.StepDone(), ev.StepsQueued((replace(step, choices=options),))]


def moved(state: State, step: st.MoveMonsters, enemy: str, to: Hex) -> list[ev.Event]:
    """A monster stops when it enters a survivor's space."""
    left = 0 if at(state, to) else step.steps_left - 1
    return [
        ev.MonsterMoved(enemy, to),
        ev.StepDone(),
        ev.StepsQueued((replace(step, steps_left=left, choices=()),)),
    ]


def decide_monster_choice(state: State, action: act.Action) -> list[ev.Event]:
    """The leader's tie-breaks: a monster's next space, which monster moves, where one spawns."""
    head = state.agenda[0]
    match head, action:
        case st.MoveMonsters(), act.ChooseSpace(space=space) if space in head.choices:
            return moved(state, head, head.movers[0], space)
        case st.PickMover(), act.ChooseEnemy(enemy=enemy) if enemy in head.candidates:
            step = st.MoveMonsters((enemy,), head.steps, head.steps, head.seat, ())
            return [ev.StepDone(), ev.StepsQueued((step,))]
        case st.PickSpawn(), act.ChooseSpace(space=space) if space in head.candidates:
            return [ev.StepDone(), spawned(state, head.special, head.enemy, space)]
    raise IllegalAction("discover.monsters.tie_choice", "pick one of the tied options")

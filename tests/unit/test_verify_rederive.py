"""Verification re-derives the game: a finished match's log, written by the real match
use cases with the real engines, dice and deck, verifies; every kind of tampering
with it fails, naming the version and what differs.

The logs come from seeded random play (the seed of each match is planted in the dice
service's key before the match is created, so each run writes the same logs), with
undos, and for Pig turn clocks whose timeouts pass, play a bot move, or forfeit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import pathlib
import random
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from tabletop.match.v1 import events_pb2 as ev

from gateway import views
from ops import archive
from ops.verify import log_entries
from services.common.audience import Audience
from services.common.errors import FailedPrecondition
from services.common.redis import keys
from services.common.rpc.adapters import DeckClient, DiceClient, RulesClient
from services.common.security import pki
from services.common.security.grants import GrantChecker
from services.common.store.event_store import MemoryEventStore, StoredEvent
from services.deck.app import DeckApp
from services.deck.servicer import DeckServicer, DicePermuter
from services.dice import fair
from services.dice.app import DiceApp
from services.dice.servicer import DiceServicer
from services.games import registry
from services.match import audit
from services.match.app import MatchApp
from services.match.lifecycle import Status
from services.rules.app import EngineHost
from services.rules.servicer import RulesServicer

ROOT = pathlib.Path(__file__).resolve().parents[2]
T0 = 1_800_000_000_000
CLOCK = {"clock": "move", "clock_seconds": "30"}


@dataclasses.dataclass(frozen=True)
class Case:
    game: str
    seats: int
    seed: int
    config: dict[str, str] = dataclasses.field(default_factory=dict)
    undo_rate: float = 0.2
    timeout_every: int = 0  # force a timeout every so many moves (clocked Pig only)


CASES = {
    "pig": Case("pig", 2, 11, {**CLOCK, "clock_timeout": "pass"}, 0.7, 5),
    "pig_bot": Case("pig", 2, 12, {"clock": "game", "clock_seconds": "30", "clock_timeout": "bot"}, 0.3, 4),
    "pig_forfeit": Case("pig", 2, 13, {**CLOCK, "clock_timeout": "forfeit"}, 0.3, 9),
    "dice_hand": Case("dice_hand", 2, 14),
    "el_dorado": Case("el_dorado", 2, 15, undo_rate=0.02),
    "la_isla": Case("la_isla", 2, 16),
    "discover": Case("discover", 3, 17),
}
Logs = dict[str, tuple[str, list[StoredEvent]]]


# ---------------------------------------------------------------- honest logs


@pytest.fixture(scope="module")
def logs(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logs]:
    for name in ("pig", "dice_hand"):
        registry.add_package(name, f"tests.fixtures.{name}")
    try:
        yield asyncio.run(_play_all(redis_url, pki.ensure(tmp_path_factory.mktemp("pki"), ["match"])))
    finally:
        for name in ("pig", "dice_hand"):
            registry.forget(name)


async def _play_all(redis_url: str, pki_dir: pathlib.Path) -> Logs:
    redis = aioredis.Redis.from_url(redis_url)
    try:
        checker = GrantChecker((pki_dir / "ca.crt").read_bytes())
        dice = DiceClient.in_process(DiceServicer(DiceApp(redis), checker), "match")
        permuter = DicePermuter(DiceClient.in_process(DiceServicer(DiceApp(redis), checker), "deck"))
        deck = DeckClient.in_process(DeckServicer(DeckApp(redis, permuter), checker), "match")
        rules = {
            name: RulesClient.in_process(RulesServicer(EngineHost(registry.game(name))), "match")
            for name in registry.available()
        }
        store, now = MemoryEventStore(), [T0]
        app = MatchApp(store, rules, dice, deck, now_ms=lambda: now[0])
        played: Logs = {}
        for name, case in CASES.items():
            match_id = f"{name.replace('_', '-')}-{uuid.uuid4().hex[:8]}"
            await redis.set(keys.dice_seed(match_id), case.seed.to_bytes(fair.SEED_BYTES, "big"))
            await _play(app, case, match_id, now)
            played[name] = (match_id, await store.read(keys.match_stream(match_id)))
        return played
    finally:
        await redis.aclose()


async def _play(app: MatchApp, case: Case, match_id: str, now: list[int]) -> None:
    """Random bots to the end, taking moves back now and then; a clocked table's seat
    that lets its time run out every `timeout_every` moves."""
    await app.create(case.game, case.config, case.seats, match_id=match_id)
    for seat in range(case.seats):
        await app.join(match_id, f"player-{seat}", seat)
    await app.start(match_id)
    rng = random.Random(case.seed)
    for step in range(1, 100_000):
        match = await app.current(match_id)
        if match.status != Status.ACTIVE:
            return
        now[0] += 1_000
        if case.timeout_every and step % case.timeout_every == 0:
            now[0] += 31_000
        if match.clock is not None and match.clock.overdue(now[0]):
            # An emptied bank (per-game clocks) times out at once, move after move.
            await app.timekeeper.expire(match_id)
            continue
        if match.undo.available and rng.random() < case.undo_rate:
            try:
                await app.undo(match_id, match.undo.seat, 1)
                continue
            except FailedPrecondition:
                pass  # a bound on undos: play on
        seat = rng.choice(match.turn.seats)
        _, actions = await app.legal_actions(match_id, seat)
        await app.submit(match_id, seat, rng.choice(actions))
    raise AssertionError(f"{case.game} did not end")


def _verified(logs: Logs, name: str, events: list[StoredEvent] | None = None) -> audit.Verdict:
    match_id, honest = logs[name]
    return audit.verify(audit.from_store(honest if events is None else events), match_id)


@pytest.mark.parametrize("name", CASES)
def test_an_honest_log_of_every_game_verifies(logs: Logs, name: str) -> None:
    verdict = _verified(logs, name)
    assert verdict.ok, verdict.problems
    game = verdict.game
    assert game.moves > 0 and game.chance_outcomes > 0
    # Every game event was re-derived: by a legal move or from a chance outcome.
    events = [e for e in logs[name][1] if not e.type.startswith(audit.PLATFORM)]
    assert game.game_events == len(events)


def test_the_honest_logs_hold_undos_every_timeout_policy_and_a_forfeit(logs: Logs) -> None:
    verdicts = {name: _verified(logs, name).game for name in CASES}
    assert all(verdicts[name].undos > 0 for name in ("pig", "el_dorado", "la_isla", "discover"))
    assert verdicts["pig"].timeouts > 0 and verdicts["pig_bot"].timeouts > 0
    policies = {ev.ClockExpired.FromString(e.data).policy for name in ("pig", "pig_bot", "pig_forfeit")
                for e in logs[name][1] if e.type == ev.ClockExpired.DESCRIPTOR.full_name}
    assert policies == {"pass", "bot", "forfeit"}
    ended = ev.MatchEnded.FromString(_find(logs["pig_forfeit"][1], ev.MatchEnded)[1].data)
    assert ended.outcome.detail["reason"] == "timeout"


@pytest.mark.parametrize("name", CASES)
def test_the_log_as_the_gateway_serves_a_finished_match_verifies(logs: Logs, name: str) -> None:
    """GetMatchLog after the end: seats' events whole, ActionsUndone (server-only) without its state."""
    match_id, events = logs[name]
    served = views.entries_for(events, None, True)
    verdict = audit.verify(log_entries(served), match_id)
    assert verdict.ok, verdict.problems
    undos = [e for e in served if e.type == ev.ActionsUndone.DESCRIPTOR.full_name]
    assert all(e.redacted for e in undos) and verdict.game.undos == len(undos)


def test_a_hidden_move_of_the_gateways_log_changed_fails_there(logs: Logs) -> None:
    match_id, events = logs["pig"]
    index, dealt = _find(events, "BonusDealt")
    seat = _game_event(dealt).seat  # type: ignore[attr-defined]
    served = views.entries_for(_edit_game(events, index, seat=1 - seat), None, True)
    difference = _first(audit.verify(log_entries(served), match_id))
    assert (difference.version, difference.event, difference.field) == (dealt.version, "BonusDealt", "seat")


# ---------------------------------------------------------------- tampering helpers


def _find(events: list[StoredEvent], kind: Any, where: Callable[[Any], bool] = lambda _: True,
          after: int = 0) -> tuple[int, StoredEvent]:
    """The index and entry of the first event of `kind` (a platform message class, or a
    game event dataclass name) from index `after` on for which `where` holds."""
    for index, event in enumerate(events[after:], after):
        if isinstance(kind, str):
            decoded = _game_event(event)
            if decoded is not None and type(decoded).__name__ == kind and where(decoded):
                return index, event
        elif event.type == kind.DESCRIPTOR.full_name and where(kind.FromString(event.data)):
            return index, event
    raise LookupError(f"no {kind} in the log")


def _game_event(event: StoredEvent) -> object | None:
    for name in registry.available():
        codec = registry.game(name).codec
        if event.type == codec.event_message.DESCRIPTOR.full_name:
            return codec.decode_event(codec.event_message.FromString(event.data))
    return None


def _game_codec(event: StoredEvent) -> Any:
    return next(registry.game(n).codec for n in registry.available()
                if registry.game(n).codec.event_message.DESCRIPTOR.full_name == event.type)


def _edit_game(events: list[StoredEvent], index: int, **changes: object) -> list[StoredEvent]:
    """The log with the game event at `index` changed (its fields in `changes`)."""
    codec = _game_codec(events[index])
    changed = dataclasses.replace(_game_event(events[index]), **changes)  # type: ignore[type-var]
    return _put(events, index, events[index]._replace(data=codec.encode_event(changed).SerializeToString()))


def _edit(events: list[StoredEvent], index: int, kind: Any, change: Callable[[Any], None]) -> list[StoredEvent]:
    """The log with the platform event at `index` changed in place by `change`."""
    message = kind.FromString(events[index].data)
    change(message)
    return _put(events, index, events[index]._replace(data=message.SerializeToString()))


def _put(events: list[StoredEvent], index: int, event: StoredEvent) -> list[StoredEvent]:
    return [*events[:index], event, *events[index + 1 :]]


def _renumbered(events: list[StoredEvent]) -> list[StoredEvent]:
    """Versions 1..n again, as a tamperer who drops or inserts an event would leave them."""
    return [event._replace(version=version) for version, event in enumerate(events, 1)]


def _differences(verdict: audit.Verdict) -> list[audit.Difference]:
    assert not verdict.ok
    return verdict.game.differences


def _first(verdict: audit.Verdict) -> audit.Difference:
    return _differences(verdict)[0]


# ---------------------------------------------------------------- the tamper kinds


def test_a_die_changed_in_the_chance_event_fails_at_its_version(logs: Logs) -> None:
    events = logs["pig"][1]
    index, roll = _find(events, ev.ChanceResolved, lambda r: r.request.WhichOneof("kind") == "roll_dice")
    value = ev.ChanceResolved.FromString(roll.data).outcome.dice_rolled.values[0]
    tampered = _edit(events, index, ev.ChanceResolved,
                     lambda r: r.outcome.dice_rolled.values.__setitem__(0, value % 6 + 1))
    verdict = _verified(logs, "pig", tampered)
    assert not verdict.ok
    assert verdict.chance.problems == [f"v{roll.version}: roll ({value % 6 + 1},) is not the seed's ({value},)"]


def test_a_die_changed_inside_the_games_own_event_fails_with_the_field_and_both_values(logs: Logs) -> None:
    """The defect this verifier was built for: the chance event left honest, the game's
    DieRolled after it changed; the seed's roll fed to the engine says otherwise."""
    events = logs["pig"][1]
    index, rolled = _find(events, "DieRolled", lambda e: e.value > 1)
    value = _game_event(rolled).value  # type: ignore[attr-defined]
    verdict = _verified(logs, "pig", _edit_game(events, index, value=value % 6 + 1))
    assert verdict.chance.ok  # the chance event itself is untouched
    difference = _first(verdict)
    assert (difference.version, difference.event, difference.field) == (rolled.version, "DieRolled", "value")
    assert (difference.logged, difference.derived) == (str(value % 6 + 1), str(value))
    assert f"chance at v{rolled.version - 1}" in difference.what
    assert str(difference).startswith(f"v{rolled.version} DieRolled: ")


def test_a_card_dealt_changed_in_the_chance_event_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, deal = _find(events, ev.ChanceResolved, lambda r: r.request.WhichOneof("kind") == "draw_cards")
    card = ev.ChanceResolved.FromString(deal.data).outcome.cards_drawn.cards[0]
    other = next(c for c in "123456" if c != card)
    tampered = _edit(events, index, ev.ChanceResolved, lambda r: r.outcome.cards_drawn.cards.__setitem__(0, other))
    verdict = _verified(logs, "pig", tampered)
    assert any(p.startswith(f"v{deal.version}: dealt cards") for p in verdict.chance.problems)


@pytest.mark.parametrize("name, kind", [("pig", "BonusDealt"), ("el_dorado", "CardsDrawnToHand")])
def test_a_card_dealt_changed_inside_the_games_own_event_fails(logs: Logs, name: str, kind: str) -> None:
    events = logs[name][1]
    index, dealt = _find(events, kind)
    event: Any = _game_event(dealt)
    if kind == "BonusDealt":
        changes: dict[str, object] = {"card": "6" if event.card != "6" else "5"}
    else:
        changes = {"cards": ("not-a-card", *event.cards[1:])}
    difference = _first(_verified(logs, name, _edit_game(events, index, **changes)))
    assert (difference.version, difference.event) == (dealt.version, kind)
    assert difference.field in ("card", "cards[0]")


@pytest.mark.parametrize("name", ["pig", "el_dorado", "la_isla", "discover", "dice_hand"])
def test_a_dropped_game_event_fails_where_it_was(logs: Logs, name: str) -> None:
    events = logs[name][1]
    index, dropped = _game_at(events, len(events) // 2)
    tampered = _renumbered([*events[:index], *events[index + 1 :]])
    difference = _first(_verified(logs, name, tampered))
    assert difference.version == dropped.version  # the event after it now stands there, or nothing does


@pytest.mark.parametrize("name", ["pig", "el_dorado", "la_isla", "discover", "dice_hand"])
def test_an_inserted_game_event_fails_where_it_was_put(logs: Logs, name: str) -> None:
    events = logs[name][1]
    index, copied = _game_at(events, len(events) // 2)
    tampered = _renumbered([*events[: index + 1], copied, *events[index + 1 :]])
    difference = _first(_verified(logs, name, tampered))
    assert difference.version == copied.version + 1


@pytest.mark.parametrize("name", ["pig", "el_dorado", "la_isla", "discover", "dice_hand"])
def test_two_events_swapped_fail_at_the_first(logs: Logs, name: str) -> None:
    """Two game events of one move where a game has such moves, else (Pig: one event a move)
    a move's event and the chance record after it."""
    events = logs[name][1]
    both = [i for i in range(len(events) // 3, len(events) - 1)
            if _game_event(events[i]) is not None and events[i].data != events[i + 1].data]
    index = next((i for i in both if _game_event(events[i + 1]) is not None), both[0])
    first, second = events[index], events[index + 1]
    tampered = _put(_put(events, index, second._replace(version=first.version)),
                    index + 1, first._replace(version=second.version))
    difference = _first(_verified(logs, name, tampered))
    # At the first, or (where some legal move's events begin with the second) at the second.
    assert difference.version in (first.version, second.version)


def _game_at(events: list[StoredEvent], start: int) -> tuple[int, StoredEvent]:
    """The first game event from index `start` on."""
    index = next(i for i in range(start, len(events)) if _game_event(events[i]) is not None)
    return index, events[index]


def test_a_changed_outcome_fails_with_the_field(logs: Logs) -> None:
    events = logs["la_isla"][1]
    index, ended = _find(events, ev.MatchEnded)
    ranking = list(ev.MatchEnded.FromString(ended.data).outcome.ranking)
    tampered = _edit(events, index, ev.MatchEnded, lambda m: m.outcome.ranking.__setitem__(0, ranking[1]))
    differences = _differences(_verified(logs, "la_isla", tampered))
    assert [(d.version, d.event, d.what, d.field) for d in differences] == \
        [(ended.version, "MatchEnded", "not the engine's result", "outcome.ranking[0]")]


def test_a_forfeit_with_another_loser_fails(logs: Logs) -> None:
    events = logs["pig_forfeit"][1]
    index, ended = _find(events, ev.MatchEnded)
    tampered = _edit(events, index, ev.MatchEnded, lambda m: m.outcome.ranking.reverse())
    difference = _first(_verified(logs, "pig_forfeit", tampered))
    assert (difference.version, difference.what) == (ended.version, "not the forfeit's outcome")


def test_a_changed_seed_fails_against_its_commitment(logs: Logs) -> None:
    events = logs["pig"][1]
    index, _ = _find(events, ev.SeedRevealed)
    tampered = _edit(events, index, ev.SeedRevealed, lambda m: setattr(m, "seed", bytes(32).hex()))
    verdict = _verified(logs, "pig", tampered)
    assert not verdict.ok and verdict.chance.problems == ["the revealed seed does not match the commitment"]


def test_a_changed_commitment_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    tampered = _edit(events, 0, ev.MatchCreated, lambda m: setattr(m, "seed_commitment", fair.commitment(b"x")))
    verdict = _verified(logs, "pig", tampered)
    assert not verdict.ok and "commitment" in verdict.chance.problems[0]


def test_an_undo_whose_state_is_not_the_state_it_names_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, undone = _find(events, ev.ActionsUndone)
    to_version = ev.ActionsUndone.FromString(undone.data).to_version
    codec = registry.game("pig").codec
    state = codec.decode_state(ev.ActionsUndone.FromString(undone.data).state)
    forged = codec.encode_state(dataclasses.replace(state, scores=(state.scores[0] + 9, *state.scores[1:])))
    tampered = _edit(events, index, ev.ActionsUndone, lambda m: setattr(m, "state", forged))
    difference = _first(_verified(logs, "pig", tampered))
    assert (difference.version, difference.event) == (undone.version, "ActionsUndone")
    assert difference.field == "state.scores[0]"
    assert f"state at v{to_version}" in difference.what


def test_an_undo_to_another_version_than_the_track_allows_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, undone = _find(events, ev.ActionsUndone)
    tampered = _edit(events, index, ev.ActionsUndone, lambda m: setattr(m, "to_version", m.to_version - 1))
    difference = _first(_verified(logs, "pig", tampered))
    assert (difference.version, difference.field) == (undone.version, "to_version")


def test_a_seat_move_changed_into_one_no_legal_action_makes_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, held = _find(events, "TurnHeld")
    banked = _game_event(held).banked  # type: ignore[attr-defined]
    difference = _first(_verified(logs, "pig", _edit_game(events, index, banked=banked + 5)))
    assert (difference.version, difference.event, difference.field) == (held.version, "TurnHeld", "banked")
    assert "no legal action of seat" in difference.what and "Hold()" in difference.what


def test_a_deal_from_another_position_of_the_pile_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, deal = _find(events, ev.ChanceResolved, lambda r: r.request.WhichOneof("kind") == "draw_cards",
                        after=_find(events, ev.MatchStarted)[0] + 3)
    tampered = _edit(events, index, ev.ChanceResolved, lambda r: setattr(r, "pile_offset", r.pile_offset + 1))
    differences = _differences(_verified(logs, "pig", tampered))
    assert (differences[0].version, differences[0].field) == (deal.version, "pile_offset")


def test_a_hidden_event_logged_for_everyone_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, dealt = _find(events, "BonusDealt")
    tampered = _put(events, index, dealt._replace(audience=Audience.PUBLIC, seat=-1))
    difference = _first(_verified(logs, "pig", tampered))
    assert (difference.version, difference.field) == (dealt.version, "audience")
    assert (difference.logged, difference.derived) == ("public", f"seat {_game_event(dealt).seat}")  # type: ignore[attr-defined]


def test_a_clock_with_more_time_than_the_arithmetic_gives_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, clock = _find(events, ev.ClockSet, after=len(events) // 2)
    tampered = _edit(events, index, ev.ClockSet, lambda c: setattr(c.seats[0], "remaining_ms", 10**9))
    difference = _first(_verified(logs, "pig", tampered))
    assert (difference.version, difference.event) == (clock.version, "ClockSet")
    assert difference.field == "seats[0].remaining_ms"


def test_a_timeout_before_its_deadline_or_under_another_policy_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, expired = _find(events, ev.ClockExpired)
    early = _edit(events, index, ev.ClockExpired, lambda c: setattr(c, "deadline_ms", c.deadline_ms + 5))
    assert _first(_verified(logs, "pig", early)).field == "deadline_ms"
    other = _edit(events, index, ev.ClockExpired, lambda c: setattr(c, "policy", "bot"))
    difference = _first(_verified(logs, "pig", other))
    assert (difference.version, difference.field, difference.logged, difference.derived) == \
        (expired.version, "policy", "bot", "pass")


def test_a_timeout_move_other_than_the_policy_makes_fails(logs: Logs) -> None:
    """Under `pass` a timed-out seat holds when it may; a log where its timeout rolled instead fails."""
    events = logs["pig"][1]
    index, expired = _find(events, ev.ClockExpired, lambda c: c.policy == "pass")
    seat = ev.ClockExpired.FromString(expired.data).seat
    move = events[index + 1]
    forged = registry.game("pig").codec.encode_event(_rolled(seat))
    tampered = _put(events, index + 1, move._replace(data=forged.SerializeToString()))
    difference = _first(_verified(logs, "pig", tampered))
    assert difference.version == move.version and "timeout" in difference.what


def _rolled(seat: int) -> object:
    """The event of a Roll by `seat` (Pig's fixture is imported once the registry knows it)."""
    from tests.fixtures.pig import DieRolled

    return DieRolled(seat, 0)


def test_a_seat_that_leaves_after_the_start_fails(logs: Logs) -> None:
    events = logs["pig"][1]
    index, started = _find(events, ev.MatchStarted)
    leave = ev.PlayerLeft(seat=0, player_id="player-0")
    left = StoredEvent(0, leave.DESCRIPTOR.full_name, leave.SerializeToString())
    tampered = _renumbered([*events[: index + 1], left, *events[index + 1 :]])
    difference = _first(_verified(logs, "pig", tampered))
    assert (difference.version, difference.event) == (started.version + 1, "PlayerLeft")
    assert "match.leave_after_start" in difference.what


def test_a_game_event_after_the_end_fails(logs: Logs) -> None:
    events = logs["la_isla"][1]
    index, ended = _find(events, ev.MatchEnded)
    _, last_game = _game_at(events, index - 3)
    tampered = _renumbered([*events[:index], last_game, *events[index:]])
    assert _first(_verified(logs, "la_isla", tampered)).version == ended.version


# ---------------------------------------------------------------- the command line


def test_tabletop_verify_reads_an_archive_and_exits_by_the_verdict(logs: Logs, tmp_path: pathlib.Path) -> None:
    """`tabletop verify --file`: exit 0 and a summary line for the honest archive; exit 1, the
    version, event and field of the difference for a tampered one; --json lists them."""
    match_id, events = logs["pig"]
    index, rolled = _find(events, "DieRolled", lambda e: e.value > 1)
    value = _game_event(rolled).value  # type: ignore[attr-defined]
    honest, forged = tmp_path / "honest.json", tmp_path / "forged.json"
    honest.write_text(archive.dump(match_id, events))
    forged.write_text(archive.dump(match_id, _edit_game(events, index, value=value % 6 + 1)))
    ok = _tabletop("verify", "--file", str(honest))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("ok: ") and "game events re-derived from" in ok.stdout
    failed = _tabletop("verify", "--file", str(forged))
    assert failed.returncode == 1 and failed.stdout.startswith("FAILED: ")
    said = failed.stdout.splitlines()[1].strip()
    assert said == (f"v{rolled.version} DieRolled: not what the engine makes of the chance at v{rolled.version - 1}: "
                    f"value is {value % 6 + 1} in the log, {value} re-derived")
    listed = json.loads(_tabletop("verify", "--file", str(forged), "--json").stdout)
    assert listed["ok"] is False and listed["moves"] > 0
    assert listed["differences"][0] == {
        "version": rolled.version, "event": "DieRolled", "field": "value", "logged": str(value % 6 + 1),
        "derived": str(value), "what": f"not what the engine makes of the chance at v{rolled.version - 1}",
    }


def _tabletop(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_a_bot_timeout_plays_the_move_seeded_by_its_match_version_and_seat(logs: Logs) -> None:
    """Under `bot` the clock's move is the match's seeded choice: re-derived under another
    match id, some timeout's move is not the one that seed chooses."""
    match_id, events = logs["pig_bot"]
    assert audit.verify(audit.from_store(events), match_id).ok
    difference = _first(audit.verify(audit.from_store(events), "another-match"))
    expired = {e.version for e in events if e.type == ev.ClockExpired.DESCRIPTOR.full_name}
    assert difference.version - 1 in expired and "the bot move its timeout plays" in difference.what


def test_a_forfeited_seat_that_plays_on_fails(logs: Logs) -> None:
    """A forfeit ends the match in its own batch: a move slipped in after it fails there."""
    events = logs["pig_forfeit"][1]
    index, expired = _find(events, ev.ClockExpired)
    _, move = _game_at(events, index - 6)
    tampered = _renumbered([*events[: index + 1], move, *events[index + 1 :]])
    differences = _differences(_verified(logs, "pig_forfeit", tampered))
    assert differences[0].version == expired.version + 1
    assert differences[0].what == "a forfeit must end the match at once"

"""What a bot may believe about a match: whole states consistent with one seat's view.

Nearly everything in Discover is on the table. A seat cannot see the other
seats' project cards and, during the draft, their dealt characters and secret
picks; nor the order of any pile, nor what lies under a face-down tile,
feature or monster. Those are drawn by chance when they turn face up
(RULES.md "Chance"), so their piles hold whatever is not on the table yet:

* `characters`, `projects`: the cards no seat is known to hold, dealt here to
  the other seats first (their hand sizes are public), the rest to the pile.
* `night:I` and the current level II pile, `threats` (or its rebuilt pile):
  the deck's cards not in its discard, not in front of a survivor and not
  being resolved.
* `tiles:<group>`: the group's tiles not yet revealed.
* `feature:<icon>`, `monsters`: tokens of the icon (every monster token) less
  the monsters face up on the map.
* `exploration`, `enemies`, `items`: numeric piles searched by number, in
  their canonical order.

Each unknown is sampled uniformly. Known approximation (docs/bots.md): the
engine keeps no record of which feature tokens were gathered, which monsters
were killed, nor which threat cards a casualty took with it, so those piles
are sampled among every token or card that could still be in them, with the
pile's public size.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from services.games.common.host import Determinization, Rng
from services.games.discover import state as st
from services.games.discover.content import Content, load
from services.games.discover.setup import card_id, card_number
from services.games.discover.state import Enemy, Source, State, Survivor, Trade
from services.games.discover.view import SurvivorView, View


def _pick(rng: Rng, cards: Sequence[str], count: int) -> list[str]:
    """`count` of `cards` in a uniformly random order (all of them if fewer)."""
    pool = list(cards)
    rng.shuffle(pool)
    return pool[:count]


def _latest(view: View, base: str) -> str:
    """The pile of a deck drawn now: the last one rebuilt (`base.<n>`), else `base`."""
    names = {p for p in view.piles if p == base or p.startswith(base + ".")}
    names |= {s.pile for s in view.agenda if isinstance(s, st.Shuffle) and s.pile.startswith(base + ".")}
    return max(names, key=lambda p: int(p.rsplit(".", 1)[1]) if "." in p else 0, default=base)


def _resolving(view: View, source: Source) -> set[str]:
    return {s.key for s in view.agenda if isinstance(s, st.RunEffects) and s.source is source}


def _deck_piles(view: View, content: Content, night_pile: str, threat_pile: str, rng: Rng) -> dict[str, list[str]]:
    """Night and threat piles: the cards of the deck that are nowhere else."""
    out: dict[str, list[str]] = {}
    gone_night = {*view.night_discard, *_resolving(view, Source.NIGHT)}
    for pile, tier in (("night:I", "I"), (night_pile, "II")):
        cards = sorted(c for c, spec in content.night.items() if spec.tier == tier and c not in gone_night)
        out[pile] = _pick(rng, cards, view.piles.get(pile, 0))
    ongoing = {c for s in view.survivors for c in s.ongoing}
    gone = {*view.threat_discard, *ongoing, *_resolving(view, Source.THREAT)}
    out[threat_pile] = _pick(rng, sorted(c for c in content.threats if c not in gone), view.piles.get(threat_pile, 0))
    return out


def _token_piles(view: View, content: Content, rng: Rng) -> dict[str, list[str]]:
    """Tiles per group, feature tokens per icon, monster tokens: what is not face up on the table."""
    out: dict[str, list[str]] = {}
    shown = {t.tile for t in view.tiles}
    for group in {s.group for s in content.slots if s.group != "start"}:
        tiles = [card_id("L", n) for n, t in sorted(content.tiles.items()) if t.group == group and n not in shown]
        out[f"tiles:{group}"] = _pick(rng, tiles, view.piles.get(f"tiles:{group}", 0))
    for pool in {p for p, _ in content.features.values()}:
        tokens = sorted(t for t, (p, _) in content.features.items() if p == pool)
        out[f"feature:{pool}"] = _pick(rng, tokens, view.piles.get(f"feature:{pool}", 0))
    face_up = Counter(e.number for e in view.enemies if e.id.startswith("X") and e.number)
    monsters = []
    for token, number in sorted(content.monster_tokens.items()):
        if face_up[number] > 0:
            face_up[number] -= 1
        else:
            monsters.append(token)
    out["monsters"] = _pick(rng, monsters, view.piles.get("monsters", 0))
    return out


def _numeric_piles(content: Content) -> dict[str, list[str]]:
    return {
        "exploration": [card_id("E", n) for n in sorted(content.exploration)],
        "enemies": [card_id("N", n) for n in sorted(content.enemies)],
        "items": [card_id("I", n) for n in sorted(content.items)],
    }


def _shuffled(rng: Rng, prefix: str, numbers: Iterable[int]) -> list[str]:
    """Numbered cards as pile cards ("P03"), in a uniformly random order."""
    cards = [card_id(prefix, n) for n in numbers]
    rng.shuffle(cards)
    return cards


def _numbers(cards: Sequence[str]) -> tuple[int, ...]:
    return tuple(card_number(c) for c in cards)


def _dealt(view: View, seat: int) -> bool:
    return not any(isinstance(s, st.DealCharacters) and s.seat == seat for s in view.agenda)


def _characters(view: View, content: Content, rng: Rng) -> tuple[dict[int, tuple[int, ...]], list[str]]:
    """The other seats' dealt characters (during the draft) and the characters pile."""
    mine = {*view.offer, *(s.character for s in view.survivors)}
    unseen = _shuffled(rng, "C", (n for n in sorted(content.characters) if n not in mine))
    offers: dict[int, tuple[int, ...]] = {}
    if any(s.character == 0 for s in view.survivors):
        count = content.characters_dealt[view.players]
        for s in view.survivors:
            if s.seat != view.viewer and _dealt(view, s.seat):
                offers[s.seat], unseen = _numbers(unseen[:count]), unseen[count:]
    return offers, unseen[: view.piles.get("characters", 0)]


def _projects(view: View, content: Content, rng: Rng) -> tuple[dict[int, tuple[int, ...]], list[str]]:
    """The other seats' project hands, then the projects pile, from the projects no one has shown."""
    known = {*view.table, *view.hand}
    unseen = _shuffled(rng, "P", (n for n in sorted(content.projects) if n not in known))
    hands: dict[int, tuple[int, ...]] = {}
    for s in view.survivors:
        if s.seat != view.viewer:
            hands[s.seat], unseen = _numbers(unseen[: s.hand_size]), unseen[s.hand_size :]
    return hands, unseen[: view.piles.get("projects", 0)]


def _survivor(view: View, s: SurvivorView, offer: tuple[int, ...], hand: tuple[int, ...], rng: Rng) -> Survivor:
    if s.seat == view.viewer:
        offer, chosen, hand = view.offer, view.chosen, view.hand
    elif s.character:
        offer, chosen = (), s.character
    else:
        chosen = offer[rng.randrange(len(offer))] if s.has_chosen and offer else 0
    return Survivor(
        seat=s.seat,
        character=s.character,
        offer=offer if not s.character else (),
        chosen=chosen if not s.character else s.character,
        stamina=s.stamina,
        damage=s.damage,
        space=s.space,
        status=s.status,
        resources=dict(s.resources),
        items=s.items,
        hand=hand,
        support=s.support,
        ongoing=tuple(zip(s.ongoing, s.ongoing_until, strict=True)),
    )


def _serial(enemies: Iterable[Enemy]) -> int:
    """Past the highest enemy id on the map: new ids stay unique (killed enemies' ids are not reused)."""
    return 1 + max((int(e.id[1:]) for e in enemies if e.id[1:].isdigit()), default=0)


def determinize(view: View, seat: int, rng: Rng) -> Determinization[State]:
    """A state `seat` cannot tell from the real one, and the order of every pile it holds."""
    content = load(view.scenario)
    offers, characters = _characters(view, content, rng)
    hands, projects = _projects(view, content, rng)
    survivors = tuple(
        _survivor(view, s, offers.get(s.seat, ()), hands.get(s.seat, ()), rng) for s in view.survivors
    )
    night_pile, threat_pile = _latest(view, "night:II"), _latest(view, "threats")
    piles: dict[str, list[str]] = {
        **_deck_piles(view, content, night_pile, threat_pile, rng),
        **_token_piles(view, content, rng),
        **_numeric_piles(content),
        "characters": characters,
        "projects": projects,
    }
    state = State(
        scenario=view.scenario,
        players=view.players,
        max_days=view.max_days,
        phase=view.phase,
        day=view.day,
        leader=view.leader,
        turn_order=view.turn_order,
        survivors=survivors,
        tiles={t.slot: t.tile for t in view.tiles},
        features={f.space: f.pool for f in view.features},
        fires={f.space: f.lit for f in view.fires},
        shelters=frozenset(view.shelters),
        placed={p.item: p.space for p in view.placed},
        enemies=view.enemies,
        enemy_serial=_serial(view.enemies),
        piles=dict(view.piles),
        night_pile=night_pile,
        threat_pile=threat_pile,
        night_discard=view.night_discard,
        threat_discard=view.threat_discard,
        table=view.table,
        stage=view.stage,
        stage_complete=view.stage_complete,
        stages_done=view.stages_done,
        clues=view.clues,
        investigated=frozenset(view.investigated),
        resolved=frozenset(view.resolved),
        unlocked=frozenset(view.unlocked),
        agenda=view.agenda,
        combat=view.combat,
        fighter=view.fighter,
        votes=dict(view.fighter_votes),
        trade=Trade(view.trade_partner, view.trade_gives, view.trade_asks, view.trade_offered)
        if view.trade_partner >= 0
        else None,
        won=view.won,
        end_reason=view.end_reason,
    )
    kept = {name: cards for name, cards in piles.items() if name in view.piles}
    return Determinization(state, kept)


__all__ = ["determinize"]

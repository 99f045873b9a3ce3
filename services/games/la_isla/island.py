"""The island of one match: the fixed graph painted by the teeth in their slots."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.la_isla.content import Face, IslandSpec, RegionSpec


@dataclass(frozen=True)
class Island:
    """Faces of every space and the region graph, precomputed once per layout."""

    faces: tuple[Face, ...]
    regions: tuple[RegionSpec, ...]
    regions_of: tuple[tuple[int, ...], ...]


def build(spec: IslandSpec, order: tuple[int, ...]) -> Island:
    """The island with tooth `order[k]` in slot k (rulebook: Preparar, random teeth)."""
    centre = dict(spec.centre)
    teeth = [dict(spec.teeth[tooth]) for tooth in order]
    faces = tuple(centre[s.local] if s.slot is None else teeth[s.slot][s.local] for s in spec.spaces)
    regions_of = tuple(
        tuple(r for r, region in enumerate(spec.regions) if space in region.spaces) for space in range(len(spec.spaces))
    )
    return Island(faces, spec.regions, regions_of)

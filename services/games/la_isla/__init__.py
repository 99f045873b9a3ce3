"""La Isla: the pure rules engine."""

from services.games.la_isla.engine import ENGINE

__all__ = ["ENGINE"]

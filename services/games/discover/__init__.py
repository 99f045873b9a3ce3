"""Discover: Lands Unknown (Fantasy Flight Games, 2018): a pure, co-operative rules engine."""

from services.games.discover.engine import ENGINE

__all__ = ["ENGINE"]

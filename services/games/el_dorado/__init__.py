"""The Quest for El Dorado: a pure rules engine (see RULES.md)."""

from services.games.el_dorado.engine import ENGINE

__all__ = ["ENGINE"]

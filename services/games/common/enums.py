"""The games' enumerations: hashed by identity.

An Enum member hashes its name in Python code (`Enum.__hash__`); the engines use
members as keys and set elements on every move (La Isla's payments look colours
up about 200 times per position), which made that hash a few percent of an
action. A member is a singleton and equal only to itself, so identity is a
consistent hash, and object's is C. Iteration order of a set of members was
never fixed across processes (string hashes are salted per process); nothing
may rely on it, and encoding sorts such sets (protocodec).
"""

from __future__ import annotations

from enum import Enum


class GameEnum(Enum):
    """An Enum whose members hash by identity."""

    __hash__ = object.__hash__

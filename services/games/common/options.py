"""Match options as data: each engine declares its options once, as a tuple of
`OptionSpec`, and parses a match's config through `parse_options`.

The same declaration is what clients see (RulesService.DescribeGame and the
gateway's ListGames carry it as `GameOption`s) and what `setup` enforces, so
the advertised options and the accepted ones cannot drift apart. Config values
travel as strings; `parse_options` checks every key and value against the spec
and returns typed values (str, bool or int), defaults filled in. A refusal is
`InvalidConfig` whose `option` names the offending option.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from services.games.common.engine import InvalidConfig

# Digits an integer option may have before it is even parsed: no option needs
# more, and it keeps a 60-digit string from becoming a 60-digit int.
MAX_INT_DIGITS = 9


class OptionType(Enum):
    """How an option's string value is read."""

    CHOICE = "choice"  # one of `choices`
    BOOL = "bool"  # "true" or "false"
    INT = "int"  # a decimal integer within [minimum, maximum]
    STRING = "string"  # free text; the engine checks its shape itself


@dataclass(frozen=True)
class OptionSpec:
    """One match option: its name, type, default (as the string a client would
    send), a one-line description, the allowed values of a CHOICE and the
    inclusive range of an INT."""

    name: str
    type: OptionType
    default: str
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def __post_init__(self) -> None:
        if self.type is OptionType.CHOICE and not self.choices:
            raise ValueError(f"option {self.name}: a choice needs its choices")
        if self.type is not OptionType.CHOICE and self.choices:
            raise ValueError(f"option {self.name}: only a choice has choices")
        if self.type is OptionType.INT:
            if self.minimum is None or self.maximum is None or self.minimum > self.maximum:
                raise ValueError(f"option {self.name}: an int needs a range minimum <= maximum")
            if max(len(str(abs(self.minimum))), len(str(abs(self.maximum)))) > MAX_INT_DIGITS:
                raise ValueError(f"option {self.name}: range beyond {MAX_INT_DIGITS} digits")
        elif self.minimum is not None or self.maximum is not None:
            raise ValueError(f"option {self.name}: only an int has a range")
        self.parse(self.default)  # the default itself must be acceptable

    @staticmethod
    def choice(name: str, choices: Sequence[str], default: str, description: str) -> OptionSpec:
        return OptionSpec(name, OptionType.CHOICE, default, description, choices=tuple(choices))

    @staticmethod
    def boolean(name: str, default: bool, description: str) -> OptionSpec:
        return OptionSpec(name, OptionType.BOOL, "true" if default else "false", description)

    @staticmethod
    def integer(name: str, default: int, minimum: int, maximum: int, description: str) -> OptionSpec:
        return OptionSpec(name, OptionType.INT, str(default), description, minimum=minimum, maximum=maximum)

    @staticmethod
    def string(name: str, default: str, description: str) -> OptionSpec:
        return OptionSpec(name, OptionType.STRING, default, description)

    def parse(self, raw: str) -> str | bool | int:
        """The typed value of `raw`; InvalidConfig naming this option when it is not allowed."""
        if self.type is OptionType.CHOICE:
            if raw not in self.choices:
                raise InvalidConfig(f"{self.name} must be one of {', '.join(self.choices)}", self.name)
            return raw
        if self.type is OptionType.BOOL:
            if raw not in ("true", "false"):
                raise InvalidConfig(f"{self.name} must be true or false", self.name)
            return raw == "true"
        if self.type is OptionType.INT:
            assert self.minimum is not None and self.maximum is not None
            digits = raw[1:] if raw.startswith("-") else raw
            if not (digits.isascii() and digits.isdigit()) or len(digits) > MAX_INT_DIGITS:
                raise InvalidConfig(
                    f"{self.name} must be an integer from {self.minimum} to {self.maximum}", self.name
                )
            value = int(raw)
            if not self.minimum <= value <= self.maximum:
                raise InvalidConfig(f"{self.name} must be from {self.minimum} to {self.maximum}", self.name)
            return value
        return raw


def parse_options(specs: Sequence[OptionSpec], config: Mapping[str, str]) -> dict[str, str | bool | int]:
    """Every declared option's typed value (the default where `config` omits it);
    InvalidConfig naming the first unknown or unacceptable option."""
    known = {spec.name: spec for spec in specs}
    unknown = sorted(set(config) - set(known))
    if unknown:
        raise InvalidConfig(
            f"unknown option {unknown[0]} (options: {', '.join(known) or 'none'})", unknown[0]
        )
    return {name: spec.parse(config.get(name, spec.default)) for name, spec in known.items()}


__all__ = ["MAX_INT_DIGITS", "InvalidConfig", "OptionSpec", "OptionType", "parse_options"]

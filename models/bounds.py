"""A bound on a number, from what the number means: shared by the catalog's figures and the
inventory's number columns, so both refuse the same things (NaN, infinities, true/false) and
state their limits the same way."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema, PydanticCustomError, core_schema


@dataclass(frozen=True)
class Bound:
    """The values a kind of figure may take, from what the figure means.

    ``kind`` names the figure in messages ("money (USD) must be >= 0"); ``minimum`` and
    ``maximum`` are the limits, each included unless ``minimum_open`` / ``maximum_open``.
    ``ceiling`` (and ``floor``, for figures that divide) is a limit of plausibility rather than
    of meaning (money has no upper limit by
    what it is, but a billion dollars an hour is a unit mistake, and a cost the solver takes
    for infinite): refused with its own message and ``why``, so that the rule a figure's
    meaning gives (``>= 0``) reads as before.
    Written as ``Annotated[float, MONEY]``, it makes pydantic refuse any other value, NaN and
    infinities, and ``true``/``false`` (which pydantic would otherwise read as 1 and 0).
    """

    kind: str
    minimum: float | None = None
    maximum: float | None = None
    minimum_open: bool = False
    maximum_open: bool = False
    why: str = ""  # the reason for the limits, where they are a judgement (docs show it)
    ceiling: float | None = None  # the most a figure plausibly is (included), for ``why``
    floor: float | None = None  # the least a figure plausibly is (included), for ``why``

    @property
    def rule(self) -> str:
        """The bound as people read it: ``>= 0``, ``> 0 and <= 1``."""
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.minimum_open else '>='} {self.minimum:g}")
        if self.maximum is not None:
            parts.append(f"{'<' if self.maximum_open else '<='} {self.maximum:g}")
        return " and ".join(parts)

    @property
    def words(self) -> str:
        """The bound in a sentence a planner reads: ``> 0 and at most 100,000``."""
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.minimum_open else '>='} {self.minimum:g}")
        if self.maximum is not None:
            word = "below" if self.maximum_open else "at most"
            parts.append(f"{word} {self.maximum:,.0f}")
        return " and ".join(parts)

    @property
    def ceiling_rule(self) -> str:
        """The ceiling as people read it: ``at most 1,000,000,000``."""
        return "" if self.ceiling is None else f"at most {self.ceiling:,.0f}"

    def allows(self, value: float) -> bool:
        """Whether ``value`` lies within the bound (and its ceiling)."""
        low, high = self.minimum, self.maximum
        above = low is None or (value > low if self.minimum_open else value >= low)
        below = high is None or (value < high if self.maximum_open else value <= high)
        return above and below and self._under_ceiling(value) and self._over_floor(value)

    def _under_ceiling(self, value: float) -> bool:
        return self.ceiling is None or value <= self.ceiling

    def _over_floor(self, value: float) -> bool:
        return self.floor is None or value >= self.floor

    def _a_finite_number(self, value: Any) -> Any:
        if isinstance(value, bool):
            raise PydanticCustomError(
                "catalog_number", "{kind} must be a number, not true/false", {"kind": self.kind}
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise PydanticCustomError(
                "catalog_number", "{kind} must be a finite number", {"kind": self.kind}
            )
        return value

    def _within(self, value: float) -> float:
        if not self._under_ceiling(value):
            raise PydanticCustomError(
                "catalog_bound",
                "{kind} must be {rule} ({why})",
                {"kind": self.kind, "rule": self.ceiling_rule, "why": self.why},
            )
        if not self._over_floor(value) and (self.minimum is None or value > self.minimum):
            # Within what the figure means (> 0), but so small that what is divided by it
            # overflows: its own message, so that "must be > 0" reads as before.
            raise PydanticCustomError(
                "catalog_bound",
                "{kind} must be at least {floor} ({why})",
                {"kind": self.kind, "floor": f"{self.floor:g}", "why": self.why},
            )
        if not self.allows(value):
            raise PydanticCustomError(
                "catalog_bound", "{kind} must be {rule}", {"kind": self.kind, "rule": self.rule}
            )
        return value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        bounded = core_schema.no_info_after_validator_function(self._within, handler(source))
        return core_schema.no_info_before_validator_function(self._a_finite_number, bounded)

"""A sweep's result as data: what ``placement sweep --format json`` writes and the report reads.

The full plans of a sweep stay in memory (``comparing.sweep.SweepResult``); this is the part a
file carries: each grid point's values, cost, chip-hour shares and decisions, and the
break-evens between points.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SweptParameter(_Out):
    """A parameter and the grid values it took."""

    path: str = Field(description="A catalog path or inventory column, as --param takes it.")
    values: list[float]


class SweepBreakEven(_Out):
    """Where the plan changes along the first parameter: between ``low`` (the last value with
    the old decisions) and ``high`` (the first with the new), at ``other`` of the second."""

    low: float
    high: float
    value: float = Field(description="The bracket's midpoint.")
    other: float | None = Field(description="The second parameter's value (grid sweeps).")
    changes: str = Field(description="What changes, in words.")


class SweepSummary(_Out):
    """A sweep: one record per grid point (values by path, ``status``,
    ``objective_monthly_usd``, ``savings_vs_all_h100_on_demand_usd``, ``families_ported``,
    ``migrations``, ``optimum``, ``share_<accelerator>``), the lowest-cost point's values and
    the break-evens."""

    parameters: list[SweptParameter] = Field(min_length=1, max_length=2)
    points: list[dict[str, Any]]
    optimum: list[float] | None
    break_evens: list[SweepBreakEven]

    def frame(self) -> pd.DataFrame:
        """One row per grid point."""
        return pd.DataFrame(self.points)

    @property
    def first(self) -> str:
        return self.parameters[0].path

    @property
    def second(self) -> str | None:
        return self.parameters[1].path if len(self.parameters) == 2 else None

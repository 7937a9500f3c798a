"""The roadmap model every horizon constraint family adds to: the PuLP problem, its variables by
month, the readiness of each port and migration programme, and each month's cost expressions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np
import pandas as pd
import pulp

from placement.estimating.economics.commitments import CommitmentBook
from placement.estimating.profiles import SliceGrid

Ready: TypeAlias = pulp.LpVariable | float
"""A readiness value: a binary variable, or a constant 0 or 1."""


COMPONENTS = ("on_demand_usd", "commitments_usd", "porting_usd", "migration_usd", "switching_usd")
"""A month's cost components, in the order the roadmap reports them."""


@dataclass
class HorizonModel:
    """The PuLP problem, its variables and the month-by-month cost expressions."""

    problem: pulp.LpProblem
    months: int
    rows: pd.DataFrame  # the model's (workload, accelerator) rows, with group keys
    factors: np.ndarray  # phi[j, m-1]
    outlives: np.ndarray  # whether workload j runs on after month N
    interim: dict[int, str]
    book: CommitmentBook
    grid: SliceGrid
    purchasable: frozenset[str] | None = None
    # The options of each epoch of the SDK's roadmap, by its first month (1: the catalog now).
    epochs: dict[int, pd.DataFrame] = field(default_factory=dict)
    assign: dict[int, pulp.LpVariable] = field(default_factory=dict)
    fixed: set[int] = field(default_factory=set)
    # Per row: the month it must be on its target by (needed_in_weeks, or its start with
    # nowhere to wait), and y_{j,k} (on its target in month k) where it may wait for it.
    deadline: dict[int, int] = field(default_factory=dict)
    on_target: dict[int, dict[int, pulp.LpVariable]] = field(default_factory=dict)
    adopt: dict[tuple[str, int], Ready] = field(default_factory=dict)
    port: dict[tuple[str, str, int], Ready] = field(default_factory=dict)
    lead_months: dict[str, int] = field(default_factory=dict)
    port_months: dict[tuple[str, str], int] = field(default_factory=dict)
    units: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    plan_usd: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    monthly: list[dict[str, pulp.LpAffineExpression]] = field(default_factory=list)
    # Commitment payments after the last month: all of them, and those charged (see add_costs).
    after_horizon: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    after_horizon_charged: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    in_use: dict[tuple[str, int, int], pulp.LpAffineExpression] = field(default_factory=dict)
    covered: dict[tuple[str, int, int], pulp.LpAffineExpression] = field(default_factory=dict)
    # Chips in use by eligibility class, (accelerator, month, slice, class), and each
    # reservation product's cover, (product, month, slice).
    in_use_by_class: dict[tuple[str, int, int, float], pulp.LpAffineExpression] = field(
        default_factory=dict
    )
    reserved_cover: dict[tuple[str, int, int], pulp.LpVariable] = field(default_factory=dict)
    # Short work's chip-hours and run hours per (accelerator, month, figure): what bounds its
    # cover (``add_short_work_bound``).
    short_work: dict[tuple[str, int, str], pulp.LpAffineExpression] = field(default_factory=dict)
    # The run hours of all the short work that could run on an accelerator in a month.
    short_run_most: dict[tuple[str, int], float] = field(default_factory=dict)

    def may_buy(self, pricing: str) -> bool:
        """Whether new commitments may be bought under this pricing option."""
        return self.purchasable is None or pricing in self.purchasable

    def x(self, oid: int) -> pulp.LpAffineExpression:
        """``x_{j,a}`` of a row: its variable, or the constant 1 for a workload's only row."""
        if oid in self.fixed:
            return pulp.LpAffineExpression(constant=1.0)
        return pulp.LpAffineExpression([(self.assign[oid], 1.0)])

    def ready(self, readiness: tuple[str, ...] | None, month: int) -> Ready:
        """``R_{G,month}`` (1 for a target that needs nothing)."""
        if readiness is None:
            return 1.0
        month = min(max(month, 1), self.months + 1)
        if readiness[0] == "port":
            return self.port[(readiness[1], readiness[2], month)]
        return self.adopt[(readiness[1], month)]

    def ready_value(self, readiness: tuple[str, ...] | None, month: int) -> float:
        """``R_{G,month}`` at the solution (fractional after an LP relaxation)."""
        ready = self.ready(readiness, month)
        return ready if isinstance(ready, float) else (ready.varValue or 0.0)


def readiness_of(
    needs_port: bool, needs_migration: bool, family: str, platform: str
) -> tuple[str, ...] | None:
    """The readiness group of a (workload, accelerator) row."""
    if needs_port:
        return ("port", family, platform)
    if needs_migration:
        return ("adopt", platform)
    return None

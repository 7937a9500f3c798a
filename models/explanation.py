"""The result of ``placement explain``: one workload's options, its choice and what would
change it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from placement.models.plan import OptionEvaluation


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ForcedPlan(_Out):
    """The whole plan re-solved with the workload pinned to one other accelerator."""

    accelerator: str
    monthly_cost_usd: float | None = Field(
        description="The pinned plan's monthly cost; None where it has no solution."
    )
    gap_usd: float | None = Field(
        description="monthly_cost_usd minus the plan's: what choosing it costs the plan."
    )
    reason: str | None = Field(
        default=None, description="Why the workload cannot run there (no feasible option)."
    )


class FlipPoint(_Out):
    """A figure that, moved far enough, moves the workload: re-solving the whole plan at
    ``flips_at`` places it on ``to``; at ``last_unchanged`` it stays where it is."""

    path: str = Field(description="The figure, as --set or sweep --param names it.")
    value: float = Field(description="Its value in this plan.")
    flips_at: float = Field(description="The nearest value found at which the choice changes.")
    to: str | None = Field(description="Where the workload runs there (None: nowhere).")
    last_unchanged: float = Field(
        description="The farthest value tried towards flips_at at which the choice holds."
    )
    direction: Literal["up", "down"]
    change: float = Field(description="flips_at / value - 1.")


class SteadyFigure(_Out):
    """A deciding figure searched without the choice changing."""

    path: str
    value: float
    searched_to: float = Field(description="The farthest value tried (the choice held there).")
    direction: Literal["up", "down"]


class Explanation(_Out):
    """One workload in full (``placement explain INV ID``)."""

    workload_id: str
    status: str = Field(description="The plan's status.")
    plan_monthly_usd: float | None = Field(description="The plan's objective.")
    chosen: str | None = Field(description="The accelerator the plan runs it on (None: unplaced).")
    pricing: str | None = Field(description="How the plan mostly pays for it there.")
    monthly_cost_usd: float | None = Field(description="Its cost in the plan, a month.")
    runner_up: str | None = Field(
        description="The other accelerator whose pinned plan is cheapest (None: none can run it)."
    )
    gap_usd: float | None = Field(
        description="The runner-up's pinned plan minus the plan, a month."
    )
    options: list[OptionEvaluation] = Field(description="Every option, as in the plan.")
    reasons: list[str] = Field(description="Why, in sentences with numbers.")
    forced: list[ForcedPlan] = Field(description="The plan pinned to each other accelerator.")
    flip_points: list[FlipPoint] = Field(description="Nearest first.")
    steady_figures: list[SteadyFigure] = Field(
        description="Deciding figures that moved as far as searched without a flip."
    )
    tolerance: float = Field(
        description="Each flip point is bracketed to within this fraction of the figure's value."
    )
    solves: int = Field(description="Plans re-solved to find the runner-up and flip points.")

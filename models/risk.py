"""The result of ``placement risk``: what the sampled futures say about the point plan."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Spread(_Out):
    """A monthly cost over the samples that define it (USD): mean and percentiles."""

    mean: float | None
    p10: float | None
    p50: float | None
    p90: float | None
    samples: int = Field(description="Samples in which the cost is defined.")


class Regret(_Out):
    """The base plan held fixed minus the sample's optimum (USD a month, never negative)."""

    mean: float | None
    p90: float | None
    max: float | None
    samples: int


class Driver(_Out):
    """One uncertain figure and how much it moves the sample's optimum."""

    path: str
    effect_usd: float = Field(
        description="The optimum's change across the figure's range (low to high), from the "
        "least-squares slope of the optimum on the figure over the samples."
    )
    rank_correlation: float = Field(description="Spearman's rank correlation with the optimum.")
    low: float
    point: float
    high: float


class FigureDrawn(_Out):
    """An uncertain figure as it was sampled."""

    path: str
    low: float
    point: float
    high: float
    distribution: str
    linked: str | None = Field(description="The group of figures it moves with, if any.")
    against: bool = Field(description="Whether it falls as its group's common factor rises.")


class SampleCosts(_Out):
    """One sample's monthly costs (USD; None where undefined or where the sample failed)."""

    sample: int
    optimal_usd: float | None
    base_plan_usd: float | None
    all_h100_usd: float | None
    staying_usd: float | None
    regret_usd: float | None
    error: str | None = None
    roadmap_usd: float | None = Field(
        default=None,
        description="With --horizon: the point roadmap held fixed, its months' sum at the "
        "sample's figures (None: no horizon, or the figures leave it unable to run).",
    )


class MonthSpread(_Out):
    """One month of the point roadmap held fixed, over the samples (USD)."""

    month: int
    planned_usd: float = Field(description="The month's cost as the roadmap reports it.")
    point_usd: float = Field(
        description="The month priced alone at the catalog's points (placement/held.py's "
        "pricing; within the solver's gap of planned_usd)."
    )
    mean: float | None
    p10: float | None
    p50: float | None
    p90: float | None


class RiskHorizon(_Out):
    """``risk --horizon``: the point roadmap held fixed in every sample, month by month: its
    placement each month, its ports, programmes and moves when it makes them, its commitments
    for their terms, all paid at the sample's figures (docs/risk.md)."""

    horizon_months: int
    roadmap_status: str = Field(description="The point roadmap's status (as a plan's).")
    planned_total_usd: float | None = Field(
        description="The point roadmap's total_usd as planned (None: no roadmap)."
    )
    point_total_usd: float | None = Field(
        description="Its months' sum priced month by month at the catalog's points."
    )
    total_usd: Spread = Field(
        description="Its months' sum at each sample's figures (payments after the horizon "
        "not included)."
    )
    broken_samples: int = Field(
        description="Samples whose figures leave some workload unable to run where the "
        "roadmap has it (its memory, latency or a feature): the held roadmap has no cost there."
    )
    months: list[MonthSpread] = Field(description="The fan chart: each month's spread.")
    drivers: list[Driver] = Field(description="Figures by how much they move the total.")


class RiskResult(_Out):
    """``placement risk``: the point plan against the catalog's ranges, sample by sample."""

    samples: int
    seed: int
    failed_samples: int
    failures: list[SampleCosts] = Field(description="The samples that could not be planned.")
    point_plan_status: str = Field(description="The point plan's status (as a plan's).")
    point_plan_unplaced: int = Field(description="Workloads the point plan cannot place.")
    point_plan_cost_usd: float | None = Field(description="The point plan's monthly cost.")
    optimal_cost_usd: Spread = Field(description="Each sample's optimum.")
    base_plan_cost_usd: Spread = Field(
        description="The point plan held fixed in each sample: its commitments, ports and "
        "migration paid at the sample's figures, placement and on-demand use chosen again."
    )
    all_h100_cost_usd: Spread = Field(description="The best plan without migrating.")
    staying_cost_usd: Spread = Field(description="Staying where the team is.")
    regret_usd: Regret
    probability_beats_all_h100: float | None = Field(
        description="Share of samples whose optimum costs less than the best plan without "
        "migrating (by more than the solver's gap): how likely migrating pays."
    )
    probability_beats_staying: float | None = Field(
        description="Share of samples whose optimum costs less than staying (beyond the gap)."
    )
    probability_base_plan_beats_all_h100: float | None = Field(
        description="Share of samples in which the point plan, held fixed, costs less than the "
        "best plan without migrating (beyond the gap)."
    )
    probability_base_plan_beats_staying: float | None
    base_plan_infeasible_samples: int = Field(
        description="Samples in which the held plan leaves some workload nowhere to run."
    )
    trainium_share: dict[str, float] = Field(
        description="Workload id -> share of the samples whose optimum runs it on an "
        "accelerator of a platform that needs porting (Trainium2 in the default catalog)."
    )
    trainium_accelerators: list[str]
    drivers: list[Driver] = Field(description="Figures by how much they move the optimum.")
    figures: list[FigureDrawn]
    sample_costs: list[SampleCosts]
    solver: str
    gap: float
    scenario: str | None = Field(default=None, description="The scenario applied first, if any.")
    horizon: RiskHorizon | None = Field(
        default=None, description="With --horizon: the point roadmap held fixed, month by month."
    )

    @property
    def point_plan_complete(self) -> bool:
        """Whether the point plan places every workload (exit code 0, as ``plan``'s)."""
        return self.point_plan_unplaced == 0 and self.point_plan_status not in (
            "infeasible",
            "no_solution",
        )

"""``whatif``: the base plan and each scenario's, side by side, with each scenario's diff.

Every scenario is checked against the catalog and the inventory before any solve starts, so a
bad one fails the whole command (exit 2) with nothing planned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from placement.catalog import CatalogSource, read_catalog
from placement.comparing.batch import (
    CatalogSpec,
    PlanJob,
    Progress,
    planned_inventory,
    run_jobs,
)
from placement.comparing.diff import PlanDiff, plan_diff
from placement.comparing.limits import compared_work_problem
from placement.errors import PlacementInputError
from placement.models.plan import Plan
from placement.models.risk import RiskResult
from placement.pipeline import SolverOptions
from placement.reading import Inventory
from placement.scenarios import Scenario, ScenarioError, check_scenario

BASE = "base"


@dataclass(frozen=True)
class Outcome:
    """One column of the comparison: the scenario (None for the base), its plan, and its diff
    against the base (None for the base)."""

    name: str
    scenario: Scenario | None
    plan: Plan
    diff: PlanDiff | None
    risk: RiskResult | None = None  # its plan over sampled futures (``with_risk``)


@dataclass(frozen=True)
class WhatIfResult:
    """The base and every scenario, in the order given."""

    outcomes: list[Outcome]

    @property
    def base(self) -> Outcome:
        return self.outcomes[0]

    def summary(self) -> pd.DataFrame:
        """One row per plan: the figures planners compare (see :func:`summary_row`)."""
        return pd.DataFrame([summary_row(o.name, o.plan, o.risk) for o in self.outcomes])

    def moves(self) -> pd.DataFrame:
        """Every scenario's moves and repricings against the base, one row each."""
        frames = [
            o.diff.moves_frame().assign(scenario=o.name)
            for o in self.outcomes
            if o.diff is not None
        ]
        if not frames:
            return pd.DataFrame(columns=["scenario"])
        frame = pd.concat(frames, ignore_index=True)
        return frame[["scenario", *[c for c in frame.columns if c != "scenario"]]]

    def record(self, plans: bool = True) -> dict[str, Any]:
        """JSON-ready: the summary rows, each scenario's diff, and every plan (not with
        ``plans=False``: for a writer that adds them one at a time)."""
        record: dict[str, Any] = {
            "summary": [summary_row(o.name, o.plan, o.risk) for o in self.outcomes],
            "diffs": {o.name: o.diff.record() for o in self.outcomes if o.diff is not None},
        }
        if plans:
            record["plans"] = {o.name: o.plan.model_dump(mode="json") for o in self.outcomes}
        if any(o.risk is not None for o in self.outcomes):
            record["risk"] = {
                o.name: o.risk.model_dump(mode="json") for o in self.outcomes if o.risk
            }
        return record


def chip_hours_share(plan: Plan) -> dict[str, float]:
    """The share of the plan's chip-hours on each accelerator it uses (4 decimals)."""
    hours = sum(a.chip_hours for a in plan.assignments)
    by_accelerator: dict[str, float] = {}
    for a in plan.assignments:
        by_accelerator[a.accelerator] = by_accelerator.get(a.accelerator, 0.0) + a.chip_hours
    return {acc: round(h / hours, 4) if hours else 0.0 for acc, h in sorted(by_accelerator.items())}


def summary_row(name: str, plan: Plan, risk: RiskResult | None = None) -> dict[str, Any]:
    """The figures of one plan that a comparison shows (with ``risk``, its spread over the
    sampled futures too)."""
    costs = plan.cost_breakdown
    bought = [c for c in plan.commitments if not c.owned]
    finops = plan.finops
    base = plan.baselines
    return {
        "scenario": name,
        "status": plan.status,
        "objective_monthly_usd": plan.objective_monthly_usd,
        "on_demand_usd": costs.on_demand_usd,
        "commitments_usd": costs.reserved_usd,
        "porting_amortized_usd": costs.porting_amortized_usd,
        "migration_amortized_usd": costs.migration_amortized_usd,
        "switching_amortized_usd": costs.switching_amortized_usd,
        "chip_hours_share": chip_hours_share(plan),
        "commitments_bought_monthly_usd": round(sum(c.monthly_cost_usd for c in bought), 2),
        "commitments_bought": [
            f"{c.units} x {c.unit_chips} {c.accelerator} {c.pricing}"
            if c.kind == "reserved"
            else f"${c.usd_per_hour:,.2f}/h {c.pricing}"
            for c in bought
        ],
        "commitment_coverage": finops.commitment_coverage if finops else None,
        "commitment_utilization": finops.commitment_utilization if finops else None,
        "families_ported": [f"{p.family} -> {p.platform}" for p in plan.ported_families],
        "migrations": [m.platform for m in plan.migrations],
        "savings_vs_all_h100_on_demand_usd": base.savings_vs_all_h100_on_demand_usd,
        "savings_vs_all_h100_optimal_usd": base.savings_vs_all_h100_optimal_usd,
        "savings_vs_greedy_usd": base.savings_vs_greedy_usd,
        "placed": len(plan.assignments),
        "unplaced": len(plan.unplaced),
        **({} if risk is None else risk_columns(risk)),
    }


def risk_columns(risk: RiskResult) -> dict[str, Any]:
    """A plan's risk as a comparison shows it: how likely migrating pays, the plan held fixed
    (P10/P50/P90) and its mean regret, over the sampled futures."""
    held = risk.base_plan_cost_usd
    return {
        "risk_samples": risk.samples,
        "risk_pays_probability": risk.probability_beats_all_h100,
        "risk_held_p10_usd": held.p10,
        "risk_held_p50_usd": held.p50,
        "risk_held_p90_usd": held.p90,
        "risk_regret_mean_usd": risk.regret_usd.mean,
    }


def whatif(
    inventory: str | Inventory,
    scenarios: Sequence[Scenario],
    catalog: CatalogSource | None = None,
    solver: SolverOptions | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    horizon: int | None = None,
) -> WhatIfResult:
    """Plan the base and every scenario (in parallel: ``workers`` local processes, or the Dask
    cluster at ``scheduler``) and compare each with the base; ``horizon`` plans each as a
    roadmap over that many months. Each plan's risk is added by
    ``placement.uncertainty.compared.with_risk``."""
    catalog = catalog or read_catalog()
    solver = solver or SolverOptions()
    inventory = planned_inventory(inventory, catalog)
    too_much = compared_work_problem(len(scenarios), len(inventory.workloads), horizon)
    if too_much:  # before any plan is made
        raise PlacementInputError([too_much], title="invalid option")
    problems = []
    for scenario in scenarios:  # every file's problems in one message
        try:
            check_scenario(inventory, catalog, scenario)
        except PlacementInputError as err:
            problems.extend(err.problems)
    if problems:
        raise ScenarioError(problems)
    spec = CatalogSpec.of(catalog)
    jobs = [PlanJob(inventory, spec, None, solver, horizon)] + [
        PlanJob(inventory, spec, s, solver, horizon) for s in scenarios
    ]
    plans = run_jobs(jobs, workers, scheduler, progress)
    base = plans[0]
    outcomes = [Outcome(BASE, None, base, None)]
    names = _unique([s.name for s in scenarios])
    for name, scenario, plan in zip(names, scenarios, plans[1:], strict=True):
        outcomes.append(Outcome(name, scenario, plan, plan_diff(base, plan)))
    return WhatIfResult(outcomes)


def _unique(names: list[str]) -> list[str]:
    """Scenario names as columns: a repeated name gets ``#2``, ``#3``."""
    seen: dict[str, int] = {BASE: 1}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} #{seen[n]}")
    return out

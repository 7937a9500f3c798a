"""Plan a horizon: the roadmap MILP, the stay-put comparison, and the end state it leads to."""

from __future__ import annotations

from dataclasses import dataclass

import pulp

from placement.estimating import Estimates
from placement.formulation import FormulationSettings
from placement.horizon.formulation import HorizonModel, build_horizon_model
from placement.horizon.roadmap import build_roadmap
from placement.horizon.start import early_start, priced
from placement.models.catalog import Catalog
from placement.models.plan import Roadmap
from placement.solve import SolveResult, solve_model


@dataclass(frozen=True)
class HorizonResult:
    """The roadmap (None without a solution), its solve, and where each workload ends up
    (workload position -> accelerator in the horizon's last month)."""

    result: SolveResult
    roadmap: Roadmap | None
    end_placement: dict[int, str]


def solve_horizon(
    estimates: Estimates,
    catalog: Catalog,
    months: int,
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> HorizonResult:
    """Solve the stay-put model, then the roadmap MILP from the stay-put plan (a feasible
    roadmap: nobody moves), and build the roadmap."""
    stay = _stay_put(estimates, catalog, months, solver, time_limit_s, gap)
    model = build_horizon_model(estimates, catalog, months)
    start = _cheaper_start(model, stay, estimates, catalog, solver, time_limit_s, gap)
    result = solve_model(model, solver, time_limit_s, gap, start=start)
    if not result.has_solution:
        return HorizonResult(result, None, {})
    roadmap = build_roadmap(model, stay, estimates.workloads, catalog)
    position = {str(i): k for k, i in enumerate(estimates.workloads["id"].astype(str))}
    end = {
        position[w.workload_id]: (
            w.target_accelerator
            if w.ready_month is not None or w.interim_accelerator is None
            else w.interim_accelerator
        )
        for w in roadmap.workloads
    }
    return HorizonResult(result, roadmap, end)


def _cheaper_start(
    model: HorizonModel,
    stay: HorizonModel | None,
    estimates: Estimates,
    catalog: Catalog,
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> dict[pulp.LpVariable, float] | None:
    """The stay-put plan or the early roadmap (``placement.horizon.start``), whichever costs
    less, as the search's start."""
    candidates: list[tuple[float, dict[pulp.LpVariable, float]]] = []
    if stay is not None:
        stay_cost = pulp.value(stay.problem.objective)
        if stay_cost is not None:
            candidates.append((float(stay_cost), _start_from(model, stay)))
    early = early_start(model, estimates, catalog)
    if early is not None:
        found = priced(model, early, solver, time_limit_s, gap)
        if found is not None:
            candidates.append(found)
    if not candidates:
        return None
    return min(candidates, key=lambda c: c[0])[1]


def _start_from(model: HorizonModel, stay: HorizonModel) -> dict[pulp.LpVariable, float]:
    """The integer values of the stay-put plan in the roadmap model: every workload targets
    its interim place, nothing is migrated or ported, the same reservations are bought (HiGHS
    completes the continuous rest)."""
    where = dict(
        zip(stay.rows["workload"].astype(int), stay.rows["accelerator"].astype(str), strict=True)
    )
    rows = model.rows
    start: dict[pulp.LpVariable, float] = {
        var: float(where.get(int(rows.at[oid, "workload"])) == rows.at[oid, "accelerator"])
        for oid, var in model.assign.items()
    }
    for ready in [*model.adopt.values(), *model.port.values()]:
        if isinstance(ready, pulp.LpVariable):
            start[ready] = 0.0
    for key, var in model.units.items():
        bought = stay.units.get(key)
        start[var] = float(round(bought.varValue or 0.0)) if bought is not None else 0.0
    return start


def _stay_put(
    estimates: Estimates,
    catalog: Catalog,
    months: int,
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> HorizonModel | None:
    """The horizon model with every workload on its interim place (those with none free)."""
    probe = build_horizon_model(estimates, catalog, 1)
    fixed = dict(probe.interim)
    free = set(probe.rows["workload"].astype(int)) - set(fixed)
    options = estimates.options
    for w in free:  # a new workload with nowhere to wait keeps its own options
        rows = options[options["workload"].eq(w) & options["feasible"]]
        if len(rows):
            fixed[w] = str(rows.sort_values("monthly_cost_usd")["accelerator"].iloc[0])
    stay = build_horizon_model(
        estimates, catalog, months, FormulationSettings(fixed_accelerators=fixed)
    )
    result = solve_model(stay, solver, time_limit_s, gap)
    return stay if result.has_solution else None

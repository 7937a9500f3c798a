"""Plan a horizon: the roadmap MILP, the stay-put comparison, and the end state it leads to."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import pulp

from placement.estimating import Estimates
from placement.formulation import FormulationSettings
from placement.horizon.formulation import HorizonModel, build_horizon_model, epoch_options
from placement.horizon.roadmap import build_roadmap
from placement.horizon.start import early_start, priced, stay_put_start
from placement.horizon.timeline import interim_accelerators
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
    epochs = epoch_options(estimates, catalog, months)  # estimated once for both models
    stay = _stay_put(estimates, catalog, months, epochs, solver, time_limit_s, gap)
    model = build_horizon_model(estimates, catalog, months, epochs=epochs)
    start = _cheaper_start(model, stay, estimates, catalog, solver, time_limit_s, gap)
    result = solve_model(model, solver, time_limit_s, gap, start=start)
    if not result.has_solution:
        return HorizonResult(result, None, {})
    roadmap = build_roadmap(model, stay, estimates.workloads, catalog)
    # A target never ready within the horizon is reported as its interim place already.
    position = {str(i): k for k, i in enumerate(estimates.workloads["id"].astype(str))}
    end = {position[w.workload_id]: w.target_accelerator for w in roadmap.workloads}
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
            candidates.append((float(stay_cost), stay_put_start(model, stay)))
    early = early_start(model, estimates, catalog)
    if early is not None:
        found = priced(model, early, solver, time_limit_s, gap)
        if found is not None:
            candidates.append(found)
    if not candidates:
        return None
    return min(candidates, key=lambda c: c[0])[1]


def _stay_put(
    estimates: Estimates,
    catalog: Catalog,
    months: int,
    epochs: dict[int, pd.DataFrame],
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> HorizonModel | None:
    """The horizon model with every workload on its interim place; a new workload with
    nowhere to wait stays on its cheapest feasible option."""
    options = estimates.options
    feasible = options[options["feasible"]]
    cheapest = feasible.loc[feasible.groupby("workload")["monthly_cost_usd"].idxmin()]
    fixed = dict(
        zip(cheapest["workload"].astype(int), cheapest["accelerator"].astype(str), strict=True)
    )
    fixed.update(interim_accelerators(options, estimates.workloads))
    stay = build_horizon_model(
        estimates, catalog, months, FormulationSettings(fixed_accelerators=fixed), epochs
    )
    result = solve_model(stay, solver, time_limit_s, gap)
    return stay if result.has_solution else None

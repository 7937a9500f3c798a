"""The greedy start: the greedy placement priced by the pool model (what it commits to), and its
integer values as the plan the solver searches from."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pulp

from placement.estimating import Estimates
from placement.formulating.build import build_model
from placement.formulating.model import FormulationSettings, PlacementModel
from placement.models.catalog import Catalog
from placement.solving.greedy import greedy_placement
from placement.solving.solver import SolveResult, SolverOptions
from placement.solving.whole_chips import solve_plan_model


def start_values(
    model: PlacementModel, start: GreedyPlan | None
) -> dict[pulp.LpVariable, float] | None:
    """The integer variables' values of a priced placement: where each workload runs and the
    reservation units it buys (HiGHS completes the rest)."""
    if start is None or not start.placement:
        return None
    opts = model.options
    values = {
        model.assign[oid]: float(start.placement.get(int(w)) == a)
        for oid, w, a in zip(opts.index, opts["workload"], opts["accelerator"], strict=True)
        if oid in model.assign
    }
    values.update(
        {
            var: start.commitments[key]
            for key, var in model.units.items()
            if key in start.commitments
        }
    )
    # Savings plans (continuous) are left for HiGHS to complete: fixing a continuous value
    # from another model can leave it a rounding error short of feasible at large scales.
    return values


@dataclass(frozen=True)
class SolvedStart:
    """The greedy placement's pricing: its solved model and the solve's outcome, so that the
    plan can be read from it where the start is the plan."""

    model: PlacementModel
    result: SolveResult


@dataclass(frozen=True)
class GreedyPlan:
    """The greedy placement, priced by the pool model: its optimum and the reservation units
    it buys (by product key). ``usd`` is None where it places not every
    placeable workload or has no solution; ``solved`` is then None too."""

    placement: dict[int, str]
    usd: float | None = None
    commitments: dict[str, float] = field(default_factory=dict)
    solved: SolvedStart | None = field(default=None, compare=False, repr=False)

    def without_model(self) -> GreedyPlan:
        """The same plan without its solved model (which holds every variable in memory)."""
        return replace(self, solved=None)


def price_greedy(estimates: Estimates, catalog: Catalog, solver: SolverOptions) -> GreedyPlan:
    """Place greedily (pins and the porting cap respected), then choose what to commit to."""
    options = estimates.options
    placement = greedy_placement(options, catalog)
    placeable = set(options.loc[options["feasible"], "workload"])
    if not placeable or set(placement) != placeable:
        return GreedyPlan(placement)
    model = build_model(
        options,
        estimates.workloads["id"].tolist(),
        catalog,
        FormulationSettings(fixed_accelerators=placement),
    )
    result = solve_plan_model(model, catalog, solver)
    if not result.has_solution:
        return GreedyPlan(placement)
    commitments = {key: float(round(var.varValue or 0.0)) for key, var in model.units.items()}
    return GreedyPlan(placement, result.objective, commitments, SolvedStart(model, result))

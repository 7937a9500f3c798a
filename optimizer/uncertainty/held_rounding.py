"""The base plan held fixed, solved within the places its relaxation gives each workload where
the relaxation's bound proves that plan, without the whole MILP.

Holding a first stage (``formulating.first_stage``) leaves a MILP: where each workload runs,
with the commitments, ports and migration fixed. The sample's relaxation with short work pooled
(``solving.proof.pooled_relaxation``, already solved for the sample's own optimum) is, with the
same stage held, a relaxation of it: its optimum ``L`` bounds every held plan's cost from below.
Its placement is nearly whole (the held decisions leave each workload a few places, priced
apart; on the 1,000-workload benchmark it splits one to three workloads), so the held MILP is
solved with each workload kept to the places the relaxation gives a share of it

.. math:: x_{j,a} = 0 \\quad \\text{where } \\bar x_{j,a} \\le \\epsilon

(only places the held stage allows carry any: ``x_{j,a} <= port_{f,s}``, held at 0 or 1): the
whole workloads fixed, a binary choice left for the few split ones, cover counted in whole
chips as every plan is (``solve_plan_model``): a held plan costing ``U``. Where
``U - L <= gap |U|`` it is within the gap of the held optimum, as the MILP solved to that gap
would be, and is the held plan. Otherwise the whole held MILP is solved (``solve_held``;
where the exact short-work cover of the relaxation's placement costs more than its pooled
cover: 3 of 16 samples of that benchmark, 0.2-0.7% above ``L``, whose MILP reached ``L`` by
moving other work).

Measured on that benchmark (16 samples, one process): 13 proven; the held plan in 85-176 ms,
mean 117 ms (the relaxation's model re-used), where the MILP took 0.21-1.19 s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, replace

import pandas as pd

from placement.estimating import Estimates
from placement.formulating.build import build_model
from placement.formulating.first_stage import FirstStage, FirstStageInfeasible, hold_first_stage
from placement.formulating.model import PlacementModel
from placement.models.catalog import Catalog
from placement.solving.fixing import kept_bounds
from placement.solving.proof import proven_by
from placement.solving.solver import SolveResult, SolverOptions, SolveStatus, solve_model
from placement.solving.whole_chips import solve_plan_model

SHARE_TOLERANCE = 1e-6
"""The share of a workload below which the relaxation is taken not to place it there (an LP's
values are exact only to its tolerances, about 1e-7 in HiGHS)."""


@dataclass(frozen=True)
class RoundedHeld:
    """The held relaxation's bound ``L`` and, where the rounded placement has a plan, its cost
    ``U`` (both monthly USD)."""

    bound_usd: float
    cost_usd: float | None

    def proven(self, gap: float) -> bool:
        """Whether the rounded plan is within ``gap`` of the held optimum."""
        return self.cost_usd is not None and proven_by(self.cost_usd, self.bound_usd, gap)


@contextlib.contextmanager
def stage_held(model: PlacementModel, stage: FirstStage, catalog: Catalog) -> Iterator[None]:
    """``stage`` held on ``model`` for the block (``hold_first_stage``, its sunk cost in the
    objective's constant); the bounds and the constant given back after it, the solved values
    kept. Raises ``FirstStageInfeasible`` before the block, the model unchanged."""
    objective = model.problem.objective
    assert objective is not None  # build_model always sets one
    constant = objective.constant
    with kept_bounds(model.problem.variables()):
        try:
            objective.constant = constant + hold_first_stage(model, stage, catalog)
            yield
        finally:
            objective.constant = constant


def held_relaxation_bound(
    pooled: PlacementModel, stage: FirstStage, catalog: Catalog, solver: SolverOptions
) -> float | None:
    """The optimum of ``pooled`` (a relaxation with short work pooled) with ``stage`` held, its
    sunk cost included: a lower bound on the held plan's cost; None where the LP has no
    optimum. The model's bounds and objective are given back; its variables keep the LP's
    values. Raises ``FirstStageInfeasible`` where the stage leaves a workload nowhere to run."""
    with stage_held(pooled, stage, catalog):
        relaxed = solve_model(pooled, solver.solver, solver.time_limit_s, solver.gap, relax=True)
    if relaxed.status is not SolveStatus.OPTIMAL:
        return None
    return relaxed.objective


def relaxed_places(model: PlacementModel) -> dict[int, frozenset[str]]:
    """Each placeable workload's accelerators where the solved relaxation puts a share of it
    above ``SHARE_TOLERANCE``: one for a workload it places whole, several for one it splits."""
    options = model.options
    places: dict[int, set[str]] = {}
    for oid, workload, accelerator in zip(
        options.index, options["workload"], options["accelerator"], strict=True
    ):
        share = 1.0 if oid in model.fixed else (model.assign[oid].varValue or 0.0)
        if share > SHARE_TOLERANCE:
            places.setdefault(int(workload), set()).add(str(accelerator))
    return {workload: frozenset(where) for workload, where in places.items()}


def rounded_held(
    pooled: PlacementModel,
    estimates: Estimates,
    catalog: Catalog,
    stage: FirstStage,
    solver: SolverOptions,
) -> RoundedHeld | None:
    """The held relaxation's bound and the held cost of the relaxation's places (see the
    module); None where the relaxation has no optimum. Raises ``FirstStageInfeasible`` as
    ``held_relaxation_bound`` does."""
    bound = held_relaxation_bound(pooled, stage, catalog, solver)
    if bound is None:
        return None
    places = relaxed_places(pooled)
    if set(places) != set(pooled.placeable):
        return RoundedHeld(bound, None)  # defensive: a workload the relaxation left nowhere
    return RoundedHeld(bound, held_usd_within(places, estimates, catalog, stage, solver))


def held_usd_within(
    places: dict[int, frozenset[str]],
    estimates: Estimates,
    catalog: Catalog,
    stage: FirstStage,
    solver: SolverOptions,
) -> float | None:
    """The held plan's cost with each workload kept to its ``places`` (its other options made
    infeasible), solved as every plan is; None where the stage or the places leave no plan."""
    options = estimates.options
    allowed = pd.Series(
        [
            accelerator in places.get(int(workload), ())
            for workload, accelerator in zip(
                options["workload"], options["accelerator"], strict=True
            )
        ],
        index=options.index,
    )
    restricted = replace(estimates, options=options.assign(feasible=options["feasible"] & allowed))
    try:
        _, result = solve_held(restricted, catalog, stage, solver)
    except FirstStageInfeasible:
        return None
    return result.objective if result.has_solution else None


def solve_held(
    estimates: Estimates, catalog: Catalog, stage: FirstStage, solver: SolverOptions
) -> tuple[PlacementModel, SolveResult]:
    """The plan's model for these estimates with ``stage`` held (its sunk decisions in the
    objective), solved as every plan is. Raises ``FirstStageInfeasible`` where the stage
    leaves a workload nowhere to run."""
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog)
    sunk = hold_first_stage(model, stage, catalog)
    objective = model.problem.objective
    if objective is not None:
        objective.constant += sunk
    return model, solve_plan_model(model, catalog, solver)

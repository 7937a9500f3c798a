"""The base plan held fixed, found without a search where a relaxation proves a rounded plan.

Holding a first stage (``formulating.first_stage``) leaves a MILP: where each workload runs,
with the commitments, ports and migration fixed. The sample's relaxation with short work pooled
(``solving.proof.pooled_relaxation``, already solved for the sample's own optimum) is, with the
same stage held, a relaxation of it: its optimum ``L`` bounds every held plan's cost from below.
Its placement is nearly whole (the held decisions leave each workload a few places, priced
apart), so each workload is put where the relaxation puts most of it

.. math:: a_j = \\arg\\max_{a} x_{j,a}

(only places the held stage allows carry any of it: ``x_{j,a} <= port_{f,s}``, held at 0 or 1),
and that placement is priced with the stage held, cover counted in whole chips, as every plan
is (``solve_plan_model``): a held plan costing ``U``. Where ``U - L <= gap |U|`` it is within
the gap of the held optimum, as the MILP solved to that gap would be, and is the held plan.
Otherwise (a quarter of the samples of the 1,000-workload benchmark) the MILP is solved.

Measured on the 1,000-workload benchmark inventory, 12 samples: 9 proven; the held plan in
0.17-0.25 s (with the relaxation's model built for it) against 0.21-1.19 s for the MILP,
each within the gap of the other.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from placement.estimating import Estimates
from placement.formulating.build import build_model
from placement.formulating.first_stage import FirstStage, FirstStageInfeasible, hold_first_stage
from placement.formulating.model import FormulationSettings, PlacementModel
from placement.models.catalog import Catalog
from placement.solving.fixing import kept_bounds
from placement.solving.proof import proven_by
from placement.solving.solver import SolverOptions, SolveStatus, solve_model
from placement.solving.whole_chips import solve_plan_model


@dataclass(frozen=True)
class RoundedHeld:
    """The held relaxation's bound ``L`` and, where the rounded placement has a plan, its cost
    ``U`` (both monthly USD)."""

    bound_usd: float
    cost_usd: float | None

    def proven(self, gap: float) -> bool:
        """Whether the rounded plan is within ``gap`` of the held optimum."""
        return self.cost_usd is not None and proven_by(self.cost_usd, self.bound_usd, gap)


def held_relaxation_bound(
    pooled: PlacementModel, stage: FirstStage, catalog: Catalog, solver: SolverOptions
) -> float | None:
    """The optimum of ``pooled`` (a relaxation with short work pooled) with ``stage`` held, its
    sunk cost included: a lower bound on the held plan's cost; None where the LP has no
    optimum. The model's bounds and objective are given back; its variables keep the LP's
    values. Raises ``FirstStageInfeasible`` where the stage leaves a workload nowhere to run."""
    problem = pooled.problem
    objective = problem.objective
    assert objective is not None  # build_model always sets one
    constant = objective.constant
    with kept_bounds(problem.variables()):
        try:
            objective.constant = constant + hold_first_stage(pooled, stage, catalog)
            relaxed = solve_model(
                pooled, solver.solver, solver.time_limit_s, solver.gap, relax=True
            )
        finally:
            objective.constant = constant
    if relaxed.status is not SolveStatus.OPTIMAL:
        return None
    return relaxed.objective


def relaxed_placement(model: PlacementModel) -> dict[int, str]:
    """Each placeable workload's accelerator where the solved relaxation puts most of it (the
    first of equal shares, in the model's option order)."""
    options = model.options
    if options.empty:
        return {}
    share = pd.Series(
        [
            1.0 if oid in model.fixed else (model.assign[oid].varValue or 0.0)
            for oid in options.index
        ],
        index=options.index,
    )
    chosen = share.groupby(options["workload"]).idxmax()
    accelerators = options.loc[chosen.to_numpy(), "accelerator"].astype(str)
    return dict(zip(chosen.index.astype(int), accelerators, strict=True))


def rounded_held(
    pooled: PlacementModel,
    estimates: Estimates,
    catalog: Catalog,
    stage: FirstStage,
    solver: SolverOptions,
) -> RoundedHeld | None:
    """The held relaxation's bound and the rounded placement's held cost (see the module);
    None where the relaxation has no optimum. Raises ``FirstStageInfeasible`` as
    ``held_relaxation_bound`` does."""
    bound = held_relaxation_bound(pooled, stage, catalog, solver)
    if bound is None:
        return None
    placement = relaxed_placement(pooled)
    model = build_model(
        estimates.options,
        estimates.workloads["id"].tolist(),
        catalog,
        FormulationSettings(fixed_accelerators=placement),
    )
    if set(model.placeable) != set(pooled.placeable):
        return RoundedHeld(bound, None)  # defensive: a workload the rounding left unplaced
    try:
        sunk = hold_first_stage(model, stage, catalog)
    except FirstStageInfeasible:  # a place the relaxation gave no share can need a port
        return RoundedHeld(bound, None)
    objective = model.problem.objective
    assert objective is not None
    objective.constant += sunk
    result = solve_plan_model(model, catalog, solver)
    return RoundedHeld(bound, result.objective if result.has_solution else None)

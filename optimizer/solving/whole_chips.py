"""Solving so that the cover a plan states is one a schedule of whole chips gets.

The model places fractional chips in a slice (a service at 1.37 chips, flexible work spread
evenly), and covers ``min(C, phi)`` of them: right when the commitments able to cover them hold
a whole number of chips no larger or no smaller than what runs, too high when the cover reaches
into a chip that runs only part of the slice (``placement.formulating.month.
cover_in_part_chips``). So: solve; find those slices; keep the plan's placement (and so its
chips in use in every slice) and count those slices' cover in whole chips
(``add_whole_chip_cover``, linear once the chips in use are fixed); solve again, until none is
left. The first solve's objective bounds the whole-chip
optimum from below (its model is a relaxation of it); each later solve's plan is one whole
chips achieve, so its objective is what the plan costs.

Where what the cover overstates is worth at most ``WHOLE_CHIP_SHARE_OF_GAP`` of the gap asked
(those chip-hours paid on demand instead), the plan is kept as it is: it costs, run on whole
chips, at most that much more than it states (a large fleet's part chips are a few of its
hundreds), and the solver's message says how much. The re-solves are for plans where it counts
(four 1-GPU jobs of 250 h: a savings plan worth 0.37 of a GPU "used" all month).
"""

from __future__ import annotations

import pulp

from placement.estimating.economics.rates import on_demand_rates
from placement.formulating.commitments import held_by
from placement.formulating.model import PlacementModel
from placement.formulating.month import add_whole_chip_cover, cover_in_part_chips
from placement.models.catalog import Catalog
from placement.solving.solver import SolveResult, SolverOptions, solve_model

WHOLE_CHIP_SHARE_OF_GAP = 0.5
"""The share of the gap asked that part-chip cover may overstate a plan's cost by before the
plan is re-solved in whole chips (the rest of the gap is left to the solver)."""


def _fix_placement(model: PlacementModel) -> None:
    """Keep the solved plan's placement and flexible work's chips in each slice, so that every
    slice's chips in use are fixed: the re-solve re-chooses its commitments and cover (the
    reservation units its only integers)."""
    fixed = [*model.assign.values(), *model.month.flexible.values()]
    for var in fixed:
        value = var.varValue or 0.0
        var.lowBound = var.upBound = float(round(value)) if var.cat == pulp.LpInteger else value


def solve_in_whole_chips(
    model: PlacementModel,
    on_demand_usd: dict[str, float],
    solver: str,
    time_limit: float | None,
    gap: float,
    start: dict[pulp.LpVariable, float] | None = None,
) -> SolveResult:
    """Solve ``model`` in place, restricting the slices whose cover reaches into part of a
    chip until none does (each round adds slices, so it ends within the slices there are);
    ``on_demand_usd``: each accelerator's on-demand rate, what overstated cover really costs."""
    result = solve_model(model, solver, time_limit, gap, start=start)
    relaxed = result.objective
    restricted: frozenset[tuple[str, int]] = frozenset()
    overstated_usd = 0.0
    while result.has_solution:
        held = held_by(model)
        found = cover_in_part_chips(model.month, model.book, held, restricted)
        overstated_usd = sum(
            chips * float(model.grid.hours[t]) * on_demand_usd[acc]
            for (acc, t), chips in found.items()
        )
        if not found or overstated_usd <= WHOLE_CHIP_SHARE_OF_GAP * gap * abs(
            result.objective or 0
        ):
            break
        if not restricted:
            _fix_placement(model)
        add_whole_chip_cover(model.problem, model.month, model.book, model.names.keys, held, found)
        restricted |= found.keys()
        values = {var: var.varValue for var in model.problem.variables()}
        before = result
        result = solve_model(model, solver, time_limit, gap)
        if not result.has_solution and any(
            v.upBound is not None for v in model.month.flexible.values()
        ):
            # A solver's round-off in the placement can leave the fixed flexible chips a hair
            # off their sums: free them (the slices' fraction of a chip is then the one found).
            for var in model.month.flexible.values():
                var.lowBound, var.upBound = 0.0, None
            result = solve_model(model, solver, time_limit, gap)
        if not result.has_solution:
            # Round-off in the fixed chips can leave a solver short of feasible: keep the plan
            # found before (these slices not counted in whole chips after all), and say what
            # its cover overstates.
            for var, value in values.items():
                var.varValue = value
            restricted -= found.keys()
            result = before
            break
    notes = []
    if restricted and relaxed is not None:
        notes.append(
            f"cover counted in whole chips in {len(restricted)} slices (the fractional-chip "
            f"relaxation's objective: {relaxed:,.2f})"
        )
    if overstated_usd > 0 and result.has_solution:
        notes.append(f"part-chip cover overstated by ${overstated_usd:,.2f} a month at most")
    if notes:
        result = SolveResult(
            result.status,
            result.solver,
            result.time_s,
            result.objective,
            result.gap,
            "; ".join([result.termination, *notes]),
            relaxed if restricted else None,
        )
    return result


def solve_plan_model(
    model: PlacementModel,
    catalog: Catalog,
    options: SolverOptions,
    start: dict[pulp.LpVariable, float] | None = None,
) -> SolveResult:
    """Solve a plan's model (the plan's, a baseline's, the greedy plan's) as every plan is
    solved: with the run's solver options, cover in whole chips."""
    return solve_in_whole_chips(
        model,
        on_demand_rates(catalog),
        options.solver,
        options.time_limit_s,
        options.gap,
        start=start,
    )

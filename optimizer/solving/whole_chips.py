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

from collections.abc import Mapping
from dataclasses import dataclass, replace

import pulp

from placement.estimating.economics.commitments import CommitmentBook
from placement.estimating.economics.rates import on_demand_rates
from placement.estimating.profiles import SliceGrid
from placement.formulating.commitments import held_by
from placement.formulating.model import PlacementModel
from placement.formulating.month import (
    Held,
    Month,
    add_whole_chip_cover,
    cover_in_part_chips,
)
from placement.models.catalog import Catalog
from placement.solving.fixing import fixed_values
from placement.solving.solver import (
    SolveResult,
    SolverOptions,
    SolveStatus,
    relative_gap,
    solve_model,
)

WHOLE_CHIP_SHARE_OF_GAP = 0.5
"""The share of the gap asked that part-chip cover may overstate a plan's cost by before the
plan is re-solved in whole chips (the rest of the gap is left to the solver)."""


@dataclass
class Months:
    """What the whole-chip rounds work on: a problem's months with what each holds, the
    variables that fix its chips in use once fixed (the placement, flexible work's chips per
    slice), and the names and figures the rows need."""

    problem: pulp.LpProblem
    months: list[tuple[Month, Held]]
    placement: list[pulp.LpVariable]
    book: CommitmentBook
    grid: SliceGrid
    keys: dict[str, str]


def plan_months(model: PlacementModel) -> Months:
    """A steady-state plan's one month."""
    return Months(
        model.problem,
        [(model.month, held_by(model))],
        [*model.assign.values(), *model.month.flexible.values()],
        model.book,
        model.grid,
        model.names.keys,
    )


def _fix(variables: list[pulp.LpVariable]) -> None:
    """Keep the solved values (the placement, flexible work's chips in each slice), so that
    every slice's chips in use are fixed: the re-solve re-chooses commitments and cover (the
    reservation units its only integers)."""
    for var in variables:
        value = var.varValue or 0.0
        var.lowBound = var.upBound = float(round(value)) if var.cat == pulp.LpInteger else value


def solve_in_whole_chips(
    model: Months,
    on_demand_usd: dict[str, float],
    solver: str,
    time_limit: float | None,
    gap: float,
    start: dict[pulp.LpVariable, float] | None = None,
    highs_options: Mapping[str, object] | None = None,
    solved: SolveResult | None = None,
    keep_integers: bool = False,
    kept_time_limit: float | None = None,
) -> SolveResult:
    """Solve ``model`` in place, restricting the slices whose cover reaches into part of a
    chip until none does (each round adds slices, so it ends within the slices there are);
    ``on_demand_usd``: each accelerator's on-demand rate, what overstated cover really costs;
    ``highs_options`` for every solve (``solve_model``); ``solved``: the first solve, where
    the caller has made it (the model's variables holding its values); ``keep_integers``:
    where the first solve stopped at its time limit, the rounds keep its integers (each round
    then an LP re-choosing cover; still feasible, whole-chip rows only lower what cover can
    count) rather than run the MILP to the same limit again, each round within
    ``kept_time_limit`` (an LP's; default ``time_limit``), and the gap reported is from the
    first solve's bound, which bounds the whole-chip optimum too (optimal where that is within
    the gap: a first solve stopped at its objective target, its gap measured from a
    relaxation's bound)."""
    result = solved or solve_model(
        model, solver, time_limit, gap, start=start, highs_options=highs_options
    )
    bound = result.bound
    keep = keep_integers and result.status is SolveStatus.FEASIBLE
    integers = (
        [var for var in model.problem.variables() if var.cat == pulp.LpInteger] if keep else []
    )
    kept = {var: float(round(var.varValue or 0.0)) for var in integers}
    rounds_limit = time_limit if not keep or kept_time_limit is None else kept_time_limit
    with fixed_values(kept):
        result = _rounds(model, on_demand_usd, solver, rounds_limit, gap, highs_options, result)
    if kept and bound is not None and result.objective:
        proven = relative_gap(result.objective, bound)
        status = SolveStatus.OPTIMAL if proven <= gap else SolveStatus.FEASIBLE
        result = replace(result, status=status, gap=proven)
    return result


def _rounds(
    model: Months,
    on_demand_usd: dict[str, float],
    solver: str,
    time_limit: float | None,
    gap: float,
    highs_options: Mapping[str, object] | None,
    result: SolveResult,
) -> SolveResult:
    """The whole-chip rounds after the first solve, ``result`` (see ``solve_in_whole_chips``)."""
    relaxed = result.objective
    restricted: list[frozenset[tuple[str, int]]] = [frozenset() for _ in model.months]
    overstated_usd = 0.0
    flexible = [var for month, _ in model.months for var in month.flexible.values()]
    while result.has_solution:
        found = [
            cover_in_part_chips(month, model.book, held, done)
            for (month, held), done in zip(model.months, restricted, strict=True)
        ]
        overstated_usd = sum(
            chips * float(model.grid.hours[t]) * on_demand_usd[acc]
            for slices in found
            for (acc, t), chips in slices.items()
        )
        if not any(found) or overstated_usd <= WHOLE_CHIP_SHARE_OF_GAP * gap * abs(
            result.objective or 0
        ):
            break
        if not any(restricted):
            _fix(model.placement)
        for (month, held), slices in zip(model.months, found, strict=True):
            if slices:
                add_whole_chip_cover(model.problem, month, model.book, model.keys, held, slices)
        restricted = [done | slices.keys() for done, slices in zip(restricted, found, strict=True)]
        values = {var: var.varValue for var in model.problem.variables()}
        before = result
        result = solve_model(model, solver, time_limit, gap, highs_options=highs_options)
        if not result.has_solution and any(v.upBound is not None for v in flexible):
            # A solver's round-off in the placement can leave the fixed flexible chips a hair
            # off their sums: free them (the slices' fraction of a chip is then the one found).
            for var in flexible:
                var.lowBound, var.upBound = 0.0, None
            result = solve_model(model, solver, time_limit, gap, highs_options=highs_options)
        if not result.has_solution:
            # Round-off in the fixed chips can leave a solver short of feasible: keep the plan
            # found before (these slices not counted in whole chips after all), and say what
            # its cover overstates.
            for var, value in values.items():
                var.varValue = value
            restricted = [
                done - slices.keys() for done, slices in zip(restricted, found, strict=True)
            ]
            result = before
            break
    count = sum(len(done) for done in restricted)
    notes = []
    if count and relaxed is not None:
        notes.append(
            f"cover counted in whole chips in {count} slices (the fractional-chip "
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
            relaxed if count else None,
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
        plan_months(model),
        on_demand_rates(catalog),
        options.solver,
        options.time_limit_s,
        options.gap,
        start=start,
    )

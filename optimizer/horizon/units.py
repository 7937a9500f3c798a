"""Whole reservation units from a relaxation, the largest units first: a start for a MILP
whose only integers are the units bought.

A relaxation buys part units (an H100 node of 8 GPUs 9.28 times over). Rounding each product
on its own is poor where an accelerator is sold in units of several sizes: the remainder of
a large unit is best bought as small ones, not as one more large unit or none (on the
sample's 30 workloads over 36 months, the nearest whole units of the relaxation cost 2.5%
above its bound, the units fixed largest first 1.1%, the optimum 0.6%). So, per accelerator,
from its largest unit down:

.. math:: z_{q,m} \\in \\big\\{\\lfloor z^{LP}_{q,m} \\rfloor,
    \\lfloor z^{LP}_{q,m} + 1/2 \\rfloor\\big\\} \\text{ (a larger unit)}, \\quad
    z_{q,m} = \\lfloor z^{LP}_{q,m} + 1/2 \\rfloor \\text{ (its smallest unit)}

each size fixed before the relaxation is solved again for the next (which then buys what the
larger units left uncovered). A larger unit's part is usually best bought small (down), but
not where only that unit can hold the work (a replica larger than the small unit): the
sample's first 10 workloads over 120 months have 0.98 of a 16-chip Trainium2 unit for ten
months, and rounding it down costs 3.1% above the bound where to the nearest costs 0.9%. So
where the two differ, both are solved and the cheaper kept. Rounded month by month, the units
of a row that holds units alone (what may be held at once, ``add_purchases``) are rounded down
where the rounding breaks it (``within``). The units are only a start: the MILP searches from
them, and the optimum it proves does not depend on them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import pulp

from placement.estimating.economics.commitments import CommitmentBook
from placement.solving.block_relaxation import BlockRelaxation
from placement.solving.fixing import kept_bounds
from placement.solving.solver import HasProblem, SolveResult, SolveStatus, solve_model

WHOLE_UNIT_TOLERANCE = 1e-6
"""A relaxation's purchase this close below a whole number of units is that number."""

Units = Mapping[tuple[str, int], pulp.LpVariable]
"""Reservation units bought, by (product key, month)."""


@dataclass(frozen=True)
class WholeUnits:
    """Whole units for every variable of a model's ``units``, and ``bound``: the first
    relaxation's optimum (solved by blocks: their lower bound ``L``), a lower bound on every
    plan of the model, found in ``relaxation_s`` seconds; ``by_blocks``: whether it was
    solved by blocks (the whole LP did not finish in the time it was given)."""

    values: dict[pulp.LpVariable, float]
    bound: float
    relaxation_s: float
    by_blocks: bool = False


def units_largest_first(
    model: HasProblem,
    units: Units,
    book: CommitmentBook,
    solver: str,
    time_limit_s: float | None,
    gap: float,
    by_blocks: ByBlocks | None = None,
) -> WholeUnits | None:
    """Whole units for every variable of ``units`` (see the module); None where a relaxation
    has no solution. ``by_blocks``: where the first relaxation is not solved whole within
    its ``whole_s``, it and the rest are solved by blocks (``ByBlocks``). The variables'
    bounds are as before when it returns."""
    products = {q.key: q for q in book.reservations}
    sizes: dict[str, list[int]] = {}
    for q in products.values():
        sizes.setdefault(q.accelerator, []).append(q.unit_chips)
    rank = {
        key: sorted(set(sizes[q.accelerator]), reverse=True).index(q.unit_chips)
        for key, q in products.items()
    }
    smallest = {key: rank[key] == len(set(sizes[q.accelerator])) - 1 for key, q in products.items()}
    whole: dict[pulp.LpVariable, float] = {}
    caps = unit_rows(model.problem, units.values())
    with kept_bounds(units.values()):
        relaxed, blocks = _first_relaxation(model, by_blocks, solver, time_limit_s, gap)
        if relaxed.status is not SolveStatus.OPTIMAL or relaxed.objective is None:
            return None
        values = {var: var.varValue or 0.0 for var in units.values()}
        for stage in range(1 + max(rank.values(), default=-1)):
            at_stage = [(key, var) for (key, _), var in units.items() if rank[key] == stage]
            nearest = within(
                caps, {var: rounded_units(var, values[var], 0.5) for _, var in at_stage}, values
            )
            if all(smallest[key] for key, _ in at_stage):
                whole.update(nearest)
                continue
            # An accelerator's smallest unit is rounded to the nearest in either choice, where
            # a stage holds it beside another accelerator's larger units.
            down = within(
                caps,
                {
                    var: rounded_units(var, values[var], 0.5 if smallest[key] else 1.0)
                    for key, var in at_stage
                },
                values,
            )
            tried = [down] if down == nearest else [down, nearest]
            best: tuple[float, dict[pulp.LpVariable, float], dict[pulp.LpVariable, float]] | None
            best = None
            for choice in tried:
                for var, value in choice.items():
                    var.lowBound = var.upBound = value
                again = _relaxed(model, blocks, solver, time_limit_s, gap)
                cost = again.objective if again.status is SolveStatus.OPTIMAL else None
                if cost is not None and (best is None or cost < best[0]):
                    now = {var: var.varValue or 0.0 for var in units.values()}
                    best = (cost, choice, now)
            if best is None:
                return None
            _, chosen, values = best
            for var, value in chosen.items():
                var.lowBound = var.upBound = value
            whole.update(chosen)
    bound = relaxed.bound if relaxed.bound is not None else relaxed.objective
    return WholeUnits(whole, bound, relaxed.time_s, by_blocks=blocks is not None)


@dataclass(frozen=True)
class ByBlocks:
    """How a model's relaxations may be solved by blocks: ``build`` splits the model into
    them (``placement.solving.block_relaxation``, its shared columns including the units;
    built only where needed), and the whole LP is tried first for ``whole_s`` seconds."""

    build: Callable[[], BlockRelaxation | None]
    whole_s: float


def _first_relaxation(
    model: HasProblem,
    by_blocks: ByBlocks | None,
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> tuple[SolveResult, BlockRelaxation | None]:
    """The first relaxation: whole, within ``by_blocks.whole_s`` where given, else by blocks
    (else whole again, within ``time_limit_s``); and the blocks that solved it, if any,
    which solve the later ones too."""
    if by_blocks is None:
        return solve_model(model, solver, time_limit_s, gap, relax=True), None
    started = time.perf_counter()
    limit = math.inf if time_limit_s is None else time_limit_s
    if by_blocks.whole_s >= limit:
        return solve_model(model, solver, time_limit_s, gap, relax=True), None
    whole = solve_model(model, solver, by_blocks.whole_s, gap, relax=True)
    if whole.status is SolveStatus.OPTIMAL:
        return whole, None
    model.problem.solverModel = None  # the stopped LP's HiGHS copy: memory the blocks need
    blocks = by_blocks.build()
    result = blocks.solve(time_limit_s, gap) if blocks is not None else None
    if result is None:  # no decomposition, or it gave up: the whole LP, within the limit
        blocks = None
        result = solve_model(model, solver, time_limit_s, gap, relax=True)
    # Its time from the first try: what the relaxation cost.
    return replace(result, time_s=time.perf_counter() - started), blocks


def _relaxed(
    model: HasProblem,
    blocks: BlockRelaxation | None,
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> SolveResult:
    """``model``'s LP relaxation solved by ``blocks`` where given and it succeeds, else
    whole; the units hold its values."""
    result = blocks.solve(time_limit_s, gap) if blocks is not None else None
    return result or solve_model(model, solver, time_limit_s, gap, relax=True)


def unit_rows(problem: pulp.LpProblem, units: Iterable[pulp.LpVariable]) -> list[pulp.LpConstraint]:
    """The ``<=`` rows of ``problem`` that hold units bought and nothing else: what may be
    held at once, ``sum_{m' in term(m)} z_{q,m'} <= cap_q`` (``add_purchases``)."""
    held = set(units)
    return [
        row
        for row in problem._constraints.values()
        if row.sense == pulp.LpConstraintLE and len(row) and all(var in held for var in row)
    ]


def within(
    rows: Sequence[pulp.LpConstraint],
    rounded: dict[pulp.LpVariable, float],
    relaxed: Mapping[pulp.LpVariable, float],
) -> dict[pulp.LpVariable, float]:
    """``rounded`` with the units of every row of ``rows`` it breaks rounded down instead.

    Each month's purchase is rounded on its own, so a row over several months can be broken
    where the relaxation held up to the cap: 0.6 of a unit bought in each of four months,
    at most three held at once, rounds to four. Rounded down they sum to no more than the
    relaxation's values, which keep the row (the relaxation's other values and every unit
    fixed at an earlier stage, rounded whole, stand in for the row's other terms)."""
    out = dict(rounded)

    def value(var: pulp.LpVariable) -> float:
        return out.get(var, var.lowBound if var.lowBound == var.upBound else relaxed[var])

    for row in rows:
        mine = [var for var in row if var in out]
        if not mine:
            continue
        total = row.constant + sum(coefficient * value(var) for var, coefficient in row.items())
        if total > WHOLE_UNIT_TOLERANCE:
            for var in mine:
                out[var] = rounded_units(var, relaxed[var], 1.0)
    return out


def rounded_units(units: pulp.LpVariable, value: float, up_from: float) -> float:
    """A relaxation's ``value`` of ``units`` made whole: a part unit of at least ``up_from``
    rounded up (1/2: to the nearest; 1: down), within the variable's bounds."""
    whole_units = math.floor(value + WHOLE_UNIT_TOLERANCE)
    part = value - whole_units
    whole_units += int(part > WHOLE_UNIT_TOLERANCE and part >= up_from)
    if units.upBound is not None:
        whole_units = min(whole_units, math.floor(units.upBound))
    return float(max(whole_units, 0))

"""Whole reservation units from a relaxation, the largest units first: a start for a MILP
whose only integers are the units bought.

A relaxation buys part units (an H100 node of 8 GPUs 9.28 times over). Rounding each product
on its own is poor where an accelerator is sold in units of several sizes: the remainder of
a large unit is best bought as small ones, not as one more large unit or none (on the
sample's 30 workloads over 36 months, the nearest whole units of the relaxation cost 2.5%
above its bound, the units fixed largest first 1.1%, the optimum 0.6%). So, per accelerator,
from its largest unit down:

.. math:: z_{q,m} = \\lfloor z^{LP}_{q,m} \\rfloor \\text{ (a larger unit)}, \\quad
    z_{q,m} = \\lfloor z^{LP}_{q,m} + 1/2 \\rfloor \\text{ (its smallest unit)}

each size fixed before the relaxation is solved again for the next (which then buys what the
larger units left uncovered). The units are only a start: the MILP searches from them, and
the optimum it proves does not depend on them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pulp

from placement.estimating.economics.commitments import CommitmentBook
from placement.solving.solver import HasProblem, SolveStatus, solve_model

WHOLE_UNIT_TOLERANCE = 1e-6
"""A relaxation's purchase this close below a whole number of units is that number."""

Units = Mapping[tuple[str, int], pulp.LpVariable]
"""Reservation units bought, by (product key, month)."""


def units_largest_first(
    model: HasProblem,
    units: Units,
    book: CommitmentBook,
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> dict[pulp.LpVariable, float] | None:
    """Whole units for every variable of ``units`` (see the module); None where a relaxation
    has no solution. The variables' bounds are as before when it returns."""
    products = {q.key: q for q in book.reservations}
    sizes: dict[str, list[int]] = {}
    for q in products.values():
        sizes.setdefault(q.accelerator, []).append(q.unit_chips)
    rank = {
        key: sorted(set(sizes[q.accelerator]), reverse=True).index(q.unit_chips)
        for key, q in products.items()
    }
    smallest = {key: rank[key] == len(set(sizes[q.accelerator])) - 1 for key, q in products.items()}
    bounds = {var: (var.lowBound, var.upBound) for var in units.values()}
    whole: dict[pulp.LpVariable, float] = {}
    try:
        for stage in range(1 + max(rank.values(), default=-1)):
            relaxed = solve_model(model, solver, time_limit_s, gap, relax=True)
            if relaxed.status is not SolveStatus.OPTIMAL:
                return None
            for (key, _), var in units.items():
                if rank[key] != stage:
                    continue
                value = var.varValue or 0.0
                value = math.floor(value + (0.5 if smallest[key] else WHOLE_UNIT_TOLERANCE))
                if var.upBound is not None:
                    value = min(value, math.floor(var.upBound))
                whole[var] = float(max(value, 0))
                var.lowBound = var.upBound = whole[var]
    finally:
        for var, (low, up) in bounds.items():
            var.lowBound, var.upBound = low, up
    return whole

"""The LP relaxation of a model whose rows fall into blocks joined by a few columns, solved by
Benders decomposition.

A roadmap's pricing (``placement.horizon.pricing``) is the steady state's month model once per
month: for the sample's 30 workloads over 120 months, 139,359 columns and 157,031 rows, whose
LP relaxation HiGHS's dual simplex took 35-65 s to solve (its interior point method as long).
Yet a month's rows hold that month's own columns and only a few others: what commitments
hold in the month (one column per product, or a month's purchase itself). Given those, the
months are independent LPs of about a thousand columns each. So (Benders; one cut per block,
as ``placement.solving.lshaped`` does for samples):

The caller names the blocks' rows, ``B_1 .. B_K``; the other rows are the master's. A column
is block k's own where only rows of ``B_k`` hold it; every other column (held by a master
row, by two blocks, or by no row) is shared, ``x``. The objective splits alike,
``c^T x + sum_k q_k^T y_k``. Block k's cost at ``x`` is its LP with its shared columns fixed:

.. math:: v_k(x) = \\min_{y_k} \\{\\, q_k^\\top y_k : B_k(y_k, x) \\,\\}

convex and piecewise linear in ``x``; the reduced costs ``g_k`` of the fixed columns at its
optimum are a subgradient, so for every ``x^i`` tried

.. math:: \\theta_k \\ge v_k(x^i) + g_k^{i\\top} (x - x^i)

holds for the cost of every ``x``. The master is

.. math:: \\min\\ c^\\top x + \\sum_k \\theta_k \\quad \\text{s.t. the master's rows, the
    bounds of } x, \\text{ the cuts}, \\ \\theta_k \\ge \\underline{v}_k

(``underline v_k``: block k's cost with its shared columns free within their bounds, which
keeps the first master bounded). Its optimum ``L`` bounds the relaxation's from below; the
best ``U = c^T x^i + sum_k v_k(x^i)`` of the ``x`` tried bounds it from above. The rounds stop
when ``U - L <= DECOMPOSITION_GAP_SHARE * gap * |U|``. On the sample's 30 workloads over 120
months that took eight rounds and 4.7 s (the blocks built in 2 s more), the same optimum.

The bounds of the shared columns are read from the variables at each solve, so a caller that
fixes some (whole reservation units, largest first) solves again with every cut kept: a
block's cost does not depend on those bounds, so its cuts stay valid. Only the shared
columns' values are set on the variables (the values to round); the blocks' own are not.
Where a block has no solution at some ``x``, or a round limit or the time limit is reached,
the decomposition gives up (None) and the caller solves the whole LP.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import highspy
import numpy as np
import pulp

from placement.solving.solver import (
    SolveResult,
    SolveStatus,
    highs_threads,
    relative_gap,
    run_highs,
    run_highs_together,
)

DECOMPOSITION_GAP_SHARE = 0.0001
"""How close the decomposition's bounds end, as a share of the gap asked: ``L`` is then the
relaxation's optimum but for a ten-thousandth of the gap (a bound that tight costs a few
more rounds of a tenth of a second; at a tenth of the gap, a 100-workload pricing's ``x``
was not yet the LP's optimum)."""

MAX_ROUNDS = 200
"""Rounds (every block, then the master) before the decomposition gives up."""

_OPTIMAL = highspy.HighsModelStatus.kOptimal


@dataclass
class _Block:
    """One block: its HiGHS LP (its own columns first, then its shared ones, fixed at each
    ``x``), and the master's positions of its shared columns."""

    highs: highspy.Highs
    own: int
    shared: np.ndarray


@dataclass
class BlockRelaxation:
    """A model's LP relaxation split into blocks (see the module), built once and solved as
    often as its shared columns' bounds change (``solve``)."""

    shared: list[pulp.LpVariable]
    master: highspy.Highs
    blocks: list[_Block]
    cost: np.ndarray
    constant: float
    rounds: int = 0

    def solve(self, time_limit_s: float | None, gap: float) -> SolveResult | None:
        """The relaxation's optimum within ``DECOMPOSITION_GAP_SHARE * gap`` (see the module):
        ``objective`` the best ``U``, ``gap`` from ``L``; the shared columns' values set on
        their variables. None where the decomposition gives up."""
        started = time.perf_counter()
        lower = np.array([_bound(var.lowBound, -math.inf) for var in self.shared])
        upper = np.array([_bound(var.upBound, math.inf) for var in self.shared])
        columns = np.arange(len(self.shared), dtype=np.int32)
        self.master.changeColsBounds(len(columns), columns, lower, upper)
        tolerance = DECOMPOSITION_GAP_SHARE * gap
        best: tuple[float, np.ndarray] | None = None
        tried: np.ndarray | None = None
        for _ in range(MAX_ROUNDS):
            x = self._master_optimum(time_limit_s, started)
            if x is None:
                return None
            bound = self.constant + float(self.master.getInfo().objective_function_value)
            if best is not None and best[0] - bound <= tolerance * max(abs(best[0]), 1.0):
                break
            if tried is not None and np.array_equal(x, tried):
                # The master chose the x it was just told every block's cost at: its cuts are
                # exact there, so nothing cheaper is left but for the solvers' tolerances.
                break
            tried = x
            costs = self._priced_at(x, time_limit_s, started)
            if costs is None:
                return None
            upper_bound = self.constant + float(self.cost @ x) + costs
            if best is None or upper_bound < best[0]:
                best = (upper_bound, x)
            self.rounds += 1
        else:
            return None
        if best is None:
            return None
        for var, value in zip(self.shared, best[1], strict=True):
            var.varValue = float(value)
        return SolveResult(
            status=SolveStatus.OPTIMAL,
            solver="highs",
            time_s=time.perf_counter() - started,
            objective=best[0],
            gap=relative_gap(best[0], bound),
            termination=f"optimal (the relaxation by blocks, {self.rounds} rounds in all)",
        )

    def _master_optimum(self, time_limit_s: float | None, started: float) -> np.ndarray | None:
        """The master's optimal ``x`` (None where it has none in time)."""
        if not _time_left(self.master, time_limit_s, started):
            return None
        run_highs(self.master)
        if self.master.getModelStatus() != _OPTIMAL:
            return None
        return np.array(self.master.getSolution().col_value)[: len(self.shared)]

    def _priced_at(self, x: np.ndarray, time_limit_s: float | None, started: float) -> float | None:
        """Every block's ``v_k(x)``, its cut added to the master; the sum of the costs, None
        where a block has no optimum in time."""
        for block in self.blocks:
            values = x[block.shared]
            count = len(block.shared)
            columns = np.arange(block.own, block.own + count, dtype=np.int32)
            block.highs.changeColsBounds(count, columns, values, values)
            if not _time_left(block.highs, time_limit_s, started):
                return None
        run_highs_together((block.highs for block in self.blocks), 1)
        total = 0.0
        theta = len(self.shared)
        for k, block in enumerate(self.blocks):
            if block.highs.getModelStatus() != _OPTIMAL:
                return None
            cost = float(block.highs.getInfo().objective_function_value)
            slopes = np.array(block.highs.getSolution().col_dual)[block.own :]
            values = x[block.shared]
            # theta_k - g^T x >= v_k(x^i) - g^T x^i
            index = np.concatenate(([theta + k], block.shared)).astype(np.int32)
            coefficients = np.concatenate(([1.0], -slopes))
            self.master.addRow(
                cost - float(slopes @ values), highspy.kHighsInf, len(index), index, coefficients
            )
            total += cost
        return total


def block_relaxation(
    problem: pulp.LpProblem,
    blocks: Sequence[Sequence[pulp.LpConstraint]],
    shared_too: Sequence[pulp.LpVariable] = (),
) -> BlockRelaxation | None:
    """``problem``'s LP relaxation split into ``blocks`` (each a list of its rows; see the
    module), ``shared_too`` shared whatever rows hold them (the columns whose values the
    caller reads), each block's LP solved once with its shared columns free
    (``underline v_k``). None where there are fewer than two blocks or a block has no
    optimum so."""
    if len(blocks) < 2:
        return None
    in_block: dict[str, int] = {}
    for k, rows in enumerate(blocks):
        for row in rows:
            in_block[row.name] = k
    holders: dict[pulp.LpVariable, set[int]] = {}
    master_rows = []
    for row in problem._constraints.values():
        k = in_block.get(row.name, -1)
        if k < 0:
            master_rows.append(row)
        for var in row:
            holders.setdefault(var, set()).add(k)
    objective = problem.objective if problem.objective is not None else pulp.LpAffineExpression()
    for var in objective:
        holders.setdefault(var, set())
    for var in shared_too:
        holders.setdefault(var, set()).add(-1)
    own: list[list[pulp.LpVariable]] = [[] for _ in blocks]
    shared: list[pulp.LpVariable] = []
    for var, ks in holders.items():
        if len(ks) == 1 and -1 not in ks:
            own[next(iter(ks))].append(var)
        else:
            shared.append(var)
    position = {var: i for i, var in enumerate(shared)}
    cost = np.array([float(objective.get(var, 0.0)) for var in shared])
    master = _highs()
    _add_columns(master, shared)
    master.changeColsCost(len(shared), np.arange(len(shared), dtype=np.int32), cost)
    _add_rows(master, master_rows, position)
    made = []
    for k, rows in enumerate(blocks):
        linked = sorted({position[var] for row in rows for var in row if var in position})
        columns = {var: i for i, var in enumerate(own[k])}
        columns.update({shared[p]: len(own[k]) + i for i, p in enumerate(linked)})
        highs = _highs()
        _add_columns(highs, [*own[k], *(shared[p] for p in linked)])
        q = np.array([float(objective.get(var, 0.0)) for var in own[k]] + [0.0] * len(linked))
        highs.changeColsCost(len(q), np.arange(len(q), dtype=np.int32), q)
        _add_rows(highs, rows, columns)
        made.append(_Block(highs, len(own[k]), np.array(linked, dtype=np.int64)))
    run_highs_together((block.highs for block in made), 1)
    floors = []
    for block in made:
        if block.highs.getModelStatus() != _OPTIMAL:
            return None
        floors.append(float(block.highs.getInfo().objective_function_value))
    count = len(made)
    master.addVars(count, np.array(floors), np.full(count, highspy.kHighsInf))
    thetas = np.arange(len(shared), len(shared) + count, dtype=np.int32)
    master.changeColsCost(count, thetas, np.ones(count))
    return BlockRelaxation(shared, master, made, cost, float(objective.constant))


def _highs() -> highspy.Highs:
    """An empty HiGHS LP configured as every solve here is: quiet, the process's threads."""
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    threads = highs_threads()
    if threads is not None:
        highs.setOptionValue("threads", threads)
    return highs


def _add_columns(highs: highspy.Highs, variables: list[pulp.LpVariable]) -> None:
    """Continuous columns with the variables' bounds (a relaxation: integrality dropped)."""
    lower = np.array([_bound(var.lowBound, -math.inf) for var in variables])
    upper = np.array([_bound(var.upBound, math.inf) for var in variables])
    highs.addVars(len(variables), lower, upper)


def _add_rows(
    highs: highspy.Highs,
    rows: Sequence[pulp.LpConstraint],
    columns: dict[pulp.LpVariable, int],
) -> None:
    """``rows`` (``sum a x + constant`` compared with 0) in the columns' positions."""
    lower: list[float] = []
    upper: list[float] = []
    starts: list[int] = []
    index: list[int] = []
    value: list[float] = []
    for row in rows:
        rhs = -float(row.constant)
        lower.append(rhs if row.sense != pulp.LpConstraintLE else -math.inf)
        upper.append(rhs if row.sense != pulp.LpConstraintGE else math.inf)
        starts.append(len(index))
        for var, coefficient in row.items():
            index.append(columns[var])
            value.append(float(coefficient))
    highs.addRows(
        len(rows),
        np.array(lower),
        np.array(upper),
        len(index),
        np.array(starts, dtype=np.int32),
        np.array(index, dtype=np.int32),
        np.array(value),
    )


def _bound(value: float | None, missing: float) -> float:
    return missing if value is None else float(value)


def _time_left(highs: highspy.Highs, time_limit_s: float | None, started: float) -> bool:
    """Sets ``highs``'s time limit to what is left of ``time_limit_s``; whether any is."""
    if time_limit_s is None:
        return True
    left = time_limit_s - (time.perf_counter() - started)
    if left <= 0:
        return False
    highs.setOptionValue("time_limit", left)
    return True

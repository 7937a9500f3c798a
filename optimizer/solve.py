"""Run a solver on the model and map every outcome to a typed result.

HiGHS (through highspy) is the default; CBC (bundled with PuLP 3.x) is the alternative. The
relative MIP gap is always set explicitly: the solvers' defaults differ (HiGHS 1e-4, CBC 0).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pulp

from placement.errors import PlacementInputError
from placement.formulation import PlacementModel

SOLVERS = ("highs", "cbc")
# 0.1%: closing the last 0.01% can take minutes at 10,000 workloads (docs/performance.md).
DEFAULT_GAP = 1e-3


class SolveStatus(StrEnum):
    """What the solver achieved, whatever the solver."""

    OPTIMAL = "optimal"  # proven optimal within the gap
    FEASIBLE = "feasible"  # a solution, but stopped (time limit) before proving the gap
    INFEASIBLE = "infeasible"  # no assignment satisfies the constraints
    NO_SOLUTION = "no_solution"  # stopped before finding any solution
    ERROR = "error"  # the solver failed or the model is unbounded (a modelling bug)


@dataclass(frozen=True)
class SolveResult:
    """The solver's outcome: status, objective (if a solution exists), time and gap."""

    status: SolveStatus
    solver: str
    time_s: float
    objective: float | None
    gap: float | None
    termination: str

    @property
    def has_solution(self) -> bool:
        return self.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)


class _HiGHSFromStart(pulp.HiGHS):
    """PuLP's highspy interface, given a (partial) MIP start before it runs: HiGHS completes
    the values given (solving for the rest) and searches from that plan. PuLP's own
    ``warmStart`` is not available for highspy."""

    def __init__(self, start: dict[pulp.LpVariable, float], **options: object) -> None:
        super().__init__(**options)
        self.start = start

    def callSolver(self, lp: pulp.LpProblem) -> None:
        index = np.array([var.index for var in self.start], dtype=np.int32)
        values = np.array(list(self.start.values()), dtype=np.float64)
        lp.solverModel.setSolution(len(index), index, values)
        lp.solverModel.run()


def make_solver(
    solver: str,
    time_limit: float | None,
    gap: float,
    msg: bool = False,
    start: dict[pulp.LpVariable, float] | None = None,
) -> pulp.LpSolver:
    """A configured PuLP solver; unknown names are a usage error. ``start`` (HiGHS only) gives
    variable values to start the search from."""
    if solver == "highs":
        if start:
            return _HiGHSFromStart(start, msg=msg, timeLimit=time_limit, gapRel=gap, threads=None)
        return pulp.HiGHS(msg=msg, timeLimit=time_limit, gapRel=gap, threads=None)
    if solver == "cbc":
        # PuLP 3.3 (pinned) still bundles CBC; 4.0 will drop PULP_CBC_CMD and warn about it.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return pulp.PULP_CBC_CMD(msg=msg, timeLimit=time_limit, gapRel=gap)
    raise PlacementInputError(
        [f"--solver {solver!r}: expected one of {', '.join(SOLVERS)}"], title="invalid option"
    )


def solve_model(
    model: PlacementModel,
    solver: str = "highs",
    time_limit: float | None = None,
    gap: float = DEFAULT_GAP,
    msg: bool = False,
    start: dict[pulp.LpVariable, float] | None = None,
) -> SolveResult:
    """Solve in place (PuLP stores values on the variables) and classify the outcome.

    ``start``: values of some variables forming a known plan (the greedy one), so that the
    solver begins from it; the optimum and the gap proven do not depend on it."""
    engine = make_solver(solver, time_limit, gap, msg, start)
    started = time.perf_counter()
    if not model.problem.variables():
        # Everything is fixed: the objective is its constant (owned commitments, fixed work).
        constant = float(model.problem.objective.constant) if model.problem.objective else 0.0
        return SolveResult(SolveStatus.OPTIMAL, solver, 0.0, constant, 0.0, "empty model")
    with _stdout_to(sys.stderr.fileno() if msg else None):
        model.problem.solve(engine)
    elapsed = time.perf_counter() - started
    sol_status = model.problem.sol_status
    status_text = pulp.LpStatus.get(model.problem.status, str(model.problem.status))
    if sol_status == pulp.LpSolutionOptimal:
        status = SolveStatus.OPTIMAL
    elif sol_status == pulp.LpSolutionIntegerFeasible:
        status = SolveStatus.FEASIBLE
    elif sol_status == pulp.LpSolutionInfeasible:
        status = SolveStatus.INFEASIBLE
    elif sol_status == pulp.LpSolutionNoSolutionFound:
        status = SolveStatus.NO_SOLUTION
    else:
        status = SolveStatus.ERROR
    objective = (
        pulp.value(model.problem.objective)
        if status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
        else None
    )
    return SolveResult(
        status=status,
        solver=solver,
        time_s=elapsed,
        objective=None if objective is None else float(objective),
        gap=_gap(model, solver, status, gap),
        termination=f"{status_text} ({pulp.LpSolution.get(sol_status, sol_status)})",
    )


def _gap(model: PlacementModel, solver: str, status: SolveStatus, gap: float) -> float | None:
    """The proven relative gap: HiGHS reports it; CBC's is bounded by the gap we asked for."""
    if status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
        return None
    if solver == "highs":
        highs = getattr(model.problem, "solverModel", None)
        if highs is not None:
            info = highs.getInfo()
            if info.mip_node_count < 0:  # pure LP: no MIP gap
                return 0.0
            value = float(info.mip_gap)
            return value if value < float("inf") else None
    return gap if status is SolveStatus.OPTIMAL else None


@contextlib.contextmanager
def _stdout_to(fd: int | None) -> Iterator[None]:
    """Send C-level stdout elsewhere while the solver runs.

    HiGHS prints a banner on stdout when constructed, whatever its options; stdout carries
    JSON and CSV output, so solver chatter goes to stderr (``msg``) or nowhere.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    target = os.open(os.devnull, os.O_WRONLY) if fd is None else os.dup(fd)
    try:
        os.dup2(target, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(target)

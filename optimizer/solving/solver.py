"""Run a solver on the model and map every outcome to a typed result.

HiGHS (through highspy) is the default; CBC (bundled with PuLP 3.x) is the alternative. The
relative MIP gap is always set explicitly: the solvers' defaults differ (HiGHS 1e-4, CBC 0).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import os
import queue
import sys
import threading
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

import highspy
import numpy as np
import pulp

from placement.errors import PlacementInputError
from placement.solving.choices import DEFAULT_GAP, SOLVERS


class HasProblem(Protocol):
    """A model to solve: anything holding a PuLP problem (the steady-state and roadmap models)."""

    problem: pulp.LpProblem


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
    relaxed_objective: float | None = None  # before whole-chip cover (a bound); see whole_chips

    @property
    def has_solution(self) -> bool:
        return self.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)

    @property
    def bound(self) -> float | None:
        """The lower bound the solve proved, from its objective and relative gap,
        ``L = U - gap |U|``; None where it has neither."""
        if self.objective is None or self.gap is None:
            return None
        return self.objective - self.gap * abs(self.objective)


class _HiGHS(pulp.HiGHS):
    """PuLP's highspy interface, copying the model into HiGHS in two batched calls (PuLP adds
    columns and rows one call at a time, which costs more than HiGHS's solve on large models),
    and given an optional (partial) MIP start before it runs: HiGHS completes the values given
    (solving for the rest) and searches from that plan. PuLP's own ``warmStart`` is not
    available for highspy."""

    def __init__(self, start: dict[pulp.LpVariable, float] | None = None, **options: object):
        super().__init__(**options)
        self.start = start or {}
        self.watch: StallWatch | None = None

    def createAndConfigureSolver(self, lp: pulp.LpProblem) -> None:
        _swallow_banner()
        super().createAndConfigureSolver(lp)

    def buildSolverModel(self, lp: pulp.LpProblem) -> None:
        inf = highspy.kHighsInf
        sign = -1.0 if lp.sense == pulp.LpMaximize else 1.0
        variables = lp.variables()
        objective = lp.objective if lp.objective is not None else pulp.LpAffineExpression()
        costs = np.empty(len(variables))
        col_lower = np.empty(len(variables))
        col_upper = np.empty(len(variables))
        integers = []
        for i, var in enumerate(variables):
            var.index = i
            costs[i] = sign * objective.get(var, 0.0)
            col_lower[i] = -inf if var.lowBound is None else var.lowBound
            col_upper[i] = inf if var.upBound is None else var.upBound
            if var.cat == pulp.LpInteger and self.mip:
                integers.append(i)
        none = np.empty(0, dtype=np.int32)
        highs = lp.solverModel
        highs.addCols(len(variables), costs, col_lower, col_upper, 0, none, none, np.empty(0))
        # The objective's constant (owned commitments, workloads with one place to go) is
        # HiGHS's too, so that its relative gap is measured against the whole monthly cost.
        highs.changeObjectiveOffset(sign * float(objective.constant))
        if integers:
            highs.changeColsIntegrality(
                len(integers),
                np.array(integers, dtype=np.int32),
                np.full(len(integers), highspy.HighsVarType.kInteger.value, dtype=np.uint8),
            )
        constraints = list(lp._constraints.values())
        row_lower = np.empty(len(constraints))
        row_upper = np.empty(len(constraints))
        starts = np.empty(len(constraints), dtype=np.int32)
        indices: list[int] = []
        values: list[float] = []
        for i, constraint in enumerate(constraints):
            constraint.index = i
            starts[i] = len(indices)
            for var, coefficient in constraint.items():
                if coefficient != 0:
                    indices.append(var.index)
                    values.append(coefficient)
            lb, ub = constraint.getLb(), constraint.getUb()
            row_lower[i] = -inf if lb is None else lb
            row_upper[i] = inf if ub is None else ub
        highs.addRows(
            len(constraints),
            row_lower,
            row_upper,
            len(indices),
            starts,
            np.array(indices, dtype=np.int32),
            np.array(values, dtype=np.float64),
        )

    def actualSolve(self, lp: pulp.LpProblem) -> int:
        # PuLP's solve asks the problem for its variables four times, and each time walks
        # every coefficient of every row for variables not yet registered (0.25 s a time
        # on the relaxation of 100,000 workloads); nothing is added while it solves, so the
        # list made once answers every call.
        columns = lp.variables()
        lp.variables = lambda: columns
        try:
            return int(super().actualSolve(lp))
        finally:
            del lp.variables

    def callSolver(self, lp: pulp.LpProblem) -> None:
        if self.start:
            index = np.array([var.index for var in self.start], dtype=np.int32)
            values = np.array(list(self.start.values()), dtype=np.float64)
            lp.solverModel.setSolution(len(index), index, values)
        stall = STALL.get()
        if stall is not None and self.mip and self.gapRel is not None:
            self.watch = StallWatch(stall, float(self.gapRel))
            lp.solverModel.cbMipInterrupt.subscribe(self.watch)
        run_highs(lp.solverModel)


def relative_gap(cost: float, bound: float) -> float:
    """How far a plan costing ``cost`` may be above the optimum, by a lower bound ``bound`` on
    every plan's cost: ``max(0, U - L) / max(|U|, 1)`` (a bound a rounding error above the
    cost proves the plan optimal; a cost under a dollar is measured against a dollar)."""
    return max(0.0, cost - bound) / max(abs(cost), 1.0)


@dataclass(frozen=True)
class Stall:
    """When a MILP search counts as stalled: it has branched for ``seconds`` since it began
    branching or found its last plan cheaper than the one before by ``share_of_gap`` of the
    gap asked (relative), whichever is later. A search with no plan yet never is."""

    seconds: float
    share_of_gap: float


STALL: contextvars.ContextVar[Stall | None] = contextvars.ContextVar("stall", default=None)
"""The stall rule of every HiGHS MILP solved in the block of ``stopped_when_stalled``."""


@contextlib.contextmanager
def stopped_when_stalled(stall: Stall | None) -> Iterator[None]:
    """Every HiGHS MILP solved in the block stops once its search has stalled (``Stall``;
    None: none does), keeping the best plan it found: ``feasible``, with its gap."""
    token = STALL.set(stall)
    try:
        yield
    finally:
        STALL.reset(token)


class StallWatch:
    """HiGHS's MIP interrupt callback for a ``Stall``: the time of the last plan that counts
    as better, of the first node branched (the root's LP and cuts are never cut short: a
    large model's root can take minutes before any search), and whether it stopped the
    search."""

    def __init__(self, stall: Stall, gap: float):
        self.stall = stall
        self.improvement = stall.share_of_gap * gap
        self.best = math.inf
        self.found_s = 0.0
        self.branching_s: float | None = None
        self.stopped = False

    def __call__(self, event: highspy.HighsCallbackEvent) -> None:
        out = event.data_out
        now, primal = float(out.running_time), float(out.mip_primal_bound)
        if math.isfinite(primal) and (
            not math.isfinite(self.best) or relative_gap(self.best, primal) > self.improvement
        ):
            self.best, self.found_s = primal, now
        if out.mip_node_count > 0 and self.branching_s is None:
            self.branching_s = now
        if self.branching_s is None or not math.isfinite(self.best):
            return
        if now - max(self.found_s, self.branching_s) >= self.stall.seconds:
            self.stopped = True
            event.interrupt()


WAIT_STEP_S = 0.1
"""How often the main thread looks up from waiting on a solve (and so how soon a Ctrl-C or
SIGTERM is acted on)."""

SOLVES_LEFT_RUNNING: list[highspy.Highs] = []
"""HiGHS runs an interrupt left behind (``run_highs``): the command exits without waiting for
them."""


def run_highs(highs: highspy.Highs) -> None:
    """``highs.run()`` in a thread of its own, the main thread waiting on it in short steps
    (``run_highs_together`` of one instance).

    A signal's Python handler runs in the main thread between Python steps, so a solve run
    from the main thread would hold a Ctrl-C or SIGTERM for as long as HiGHS takes (minutes
    for a long horizon). Interrupted, the solve is left running (HiGHS has no safe way to stop
    it from outside but a callback on every iteration) and recorded, and the interrupt goes
    on: the command removes what it was writing and exits without waiting for HiGHS. Not
    highspy's ``startSolve``: its locks are shared by every instance, so two threads could not
    each solve their own."""
    run_highs_together([highs], 1)


def run_highs_together(models: Iterable[highspy.Highs], at_once: int) -> None:
    """Run every HiGHS instance of ``models`` (independent problems), ``at_once`` at a time,
    each ``run`` in one of ``at_once`` threads of this call (HiGHS releases the GIL while it
    solves, so they use as many cores). ``models`` is read lazily in this thread: building
    the next instance overlaps the solves under way. The calling thread waits in short steps
    (an interrupt acts at once, as in ``run_highs``); interrupted, no further solve starts and
    the ones under way are left running and recorded."""
    todo: queue.SimpleQueue[highspy.Highs | None] = queue.SimpleQueue()
    finished: queue.SimpleQueue[highspy.Highs | BaseException] = queue.SimpleQueue()
    stop = threading.Event()

    def solve_in_turn() -> None:
        while (highs := todo.get()) is not None and not stop.is_set():
            SOLVES_LEFT_RUNNING.append(highs)  # until it ends: an interrupt leaves it running
            outcome: highspy.Highs | BaseException = highs
            try:
                highs.run()
            except BaseException as error:  # handed to the calling thread, raised there
                outcome = error
            SOLVES_LEFT_RUNNING.remove(highs)
            finished.put(outcome)

    threads = [threading.Thread(target=solve_in_turn, daemon=True) for _ in range(max(at_once, 1))]
    try:
        for thread in threads:
            thread.start()
        count = 0
        for highs in models:
            todo.put(highs)
            count += 1
        for _ in threads:
            todo.put(None)
        for _ in range(count):
            while True:
                try:
                    outcome = finished.get(timeout=WAIT_STEP_S)
                    break
                except queue.Empty:
                    continue
            if isinstance(outcome, BaseException):
                raise outcome
    finally:
        stop.set()
        for _ in threads:
            todo.put(None)


def highs_of(model: HasProblem, time_limit: float | None, relax: bool) -> highspy.Highs:
    """``model`` copied into a HiGHS instance configured as ``solve_model`` configures it
    (every column's ``index`` set), not run: for a caller that runs and re-runs it itself
    (``run_highs``, ``run_highs_together``) and reads its solution from it."""
    engine = make_solver("highs", time_limit, DEFAULT_GAP, relax=relax)
    assert isinstance(engine, _HiGHS)
    engine.createAndConfigureSolver(model.problem)
    engine.buildSolverModel(model.problem)
    highs = model.problem.solverModel
    assert isinstance(highs, highspy.Highs)
    return highs


HIGHS_THREADS = 1
"""Threads each HiGHS run may use (HiGHS's ``threads`` option), in every process alike: one,
as HiGHS advises where several instances run at once (a batch runs a worker per core, and a
plan runs its solves two at a time in threads of its own). The same number everywhere also
keeps a seed's figures the same on any number of workers: HiGHS's result can depend on its
thread count (a 50-workload inventory's risk figures did, by up to 0.3%, with its default in
one process and one thread in the others)."""


@functools.cache
def highs_threads() -> int | None:
    """The ``threads`` option of this process's HiGHS runs: ``HIGHS_THREADS``, or None (HiGHS's
    own choice) where the process's HiGHS cannot have it.

    HiGHS sizes its thread pool once per process, at its first run, and fails a later run that
    asks for another size. So the first call runs an empty column asking for
    ``HIGHS_THREADS``: where that succeeds the pool has that size (made now, or already) and
    every run asks for it; where it fails (a program that ran HiGHS itself before, with its own
    choice) the runs keep HiGHS's choice, which any pool accepts. Decided once per process
    (two threads asking at once may both probe: each asks for the same size)."""
    _swallow_banner()
    probe = highspy.Highs()
    probe.setOptionValue("output_flag", False)
    probe.setOptionValue("threads", HIGHS_THREADS)
    probe.addVar(0.0, 1.0)
    return HIGHS_THREADS if probe.run() == highspy.HighsStatus.kOk else None


def make_solver(
    solver: str,
    time_limit: float | None,
    gap: float,
    msg: bool = False,
    start: dict[pulp.LpVariable, float] | None = None,
    relax: bool = False,
    target: float | None = None,
    highs_options: Mapping[str, object] | None = None,
) -> pulp.LpSolver:
    """A configured PuLP solver; unknown names are a usage error. ``start`` (HiGHS only) gives
    variable values to start the search from; ``relax`` solves the LP relaxation instead;
    ``target`` (HiGHS only) stops the search at the first plan costing no more."""
    if solver == "highs":
        options: dict[str, object] = dict(highs_options or {})
        if target is not None:
            options["objective_target"] = target
        return _HiGHS(
            start,
            msg=msg,
            timeLimit=time_limit,
            gapRel=gap,
            threads=highs_threads(),
            mip=not relax,
            **options,
        )
    if solver == "cbc":
        # PuLP 3.3 (pinned) still bundles CBC; 4.0 will drop PULP_CBC_CMD and warn about it.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return pulp.PULP_CBC_CMD(msg=msg, timeLimit=time_limit, gapRel=gap, mip=not relax)
    raise PlacementInputError(
        [f"--solver {solver!r}: expected one of {', '.join(SOLVERS)}"], title="invalid option"
    )


def has_variables(problem: pulp.LpProblem) -> bool:
    """Whether the objective or any row holds a variable: ``problem.variables()`` is not empty,
    known without its walk over every coefficient (the solve makes that walk once)."""
    objective = problem.objective
    return (objective is not None and len(objective) > 0) or any(
        len(row) for row in problem._constraints.values()
    )


def solve_model(
    model: HasProblem,
    solver: str = "highs",
    time_limit: float | None = None,
    gap: float = DEFAULT_GAP,
    msg: bool = False,
    start: dict[pulp.LpVariable, float] | None = None,
    relax: bool = False,
    target: float | None = None,
    highs_options: Mapping[str, object] | None = None,
) -> SolveResult:
    """Solve in place (PuLP stores values on the variables) and classify the outcome.

    ``start``: values of some variables forming a known plan (the greedy one), so that the
    solver begins from it; the optimum and the gap proven do not depend on it. Should the run
    end in a solver error, it is run once more without the start. ``relax``: solve the LP
    relaxation (integer variables continuous), whose optimum bounds the MIP's from below.
    ``target``: stop at the first plan costing no more (status feasible unless proven).
    ``highs_options``: HiGHS options for this model (ignored by other solvers)."""
    engine = make_solver(solver, time_limit, gap, msg, start, relax, target, highs_options)
    started = time.perf_counter()
    if not has_variables(model.problem):
        # Everything is fixed: the objective is its constant (owned commitments, fixed work).
        constant = float(model.problem.objective.constant) if model.problem.objective else 0.0
        return SolveResult(SolveStatus.OPTIMAL, solver, 0.0, constant, 0.0, "empty model")
    # Only a solver log asked for moves stdout (to stderr) for the whole solve: a redirection
    # of the process's stdout made by one thread would swallow another's output.
    with _stdout_to(sys.stderr.fileno()) if msg else contextlib.nullcontext():
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
    if relax and status is SolveStatus.FEASIBLE:
        # An LP stopped at its time limit holds the simplex's last basis, not a plan: 10
        # workloads' 120-month pricing relaxation stopped at 9 s stood at -$810 million.
        status = SolveStatus.NO_SOLUTION
    objective = (
        pulp.value(model.problem.objective)
        if status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
        else None
    )
    if start and (_highs_failed(model) or _start_came_back(model, objective)):
        # A start is only a hint: at extreme magnitudes (millions of chips) completing it can
        # leave HiGHS a rounding error short of feasible, which it reports as a solve error;
        # and its values can come back for columns presolve dropped (``_start_came_back``).
        return solve_model(model, solver, time_limit, gap, msg, None, relax, target, highs_options)
    return SolveResult(
        status=status,
        solver=solver,
        time_s=elapsed,
        objective=None if objective is None else float(objective),
        gap=_gap(model, solver, status, gap),
        termination=f"{status_text} ({pulp.LpSolution.get(sol_status, sol_status)})"
        + _stalled_note(engine),
    )


def _stalled_note(engine: pulp.LpSolver) -> str:
    """What the termination adds where the search was stopped as stalled."""
    watch = getattr(engine, "watch", None)
    if not isinstance(watch, StallWatch) or not watch.stopped:
        return ""
    return f"; stopped: no better plan in {watch.stall.seconds:g} s of search"


VALUES_AGREE_REL = 1e-6
"""How far the cost of the values HiGHS returns may differ from the objective it reports."""


def _start_came_back(model: HasProblem, objective: float | None) -> bool:
    """Whether HiGHS returned values costing other than the objective it reports: seen with a
    start whose columns presolve drops (two reserved units covering nothing, costing 5% of a
    stay-put pricing), where the start's values come back for them although HiGHS's own
    solution, without them, is the one it reports."""
    highs = getattr(model.problem, "solverModel", None)
    if objective is None or not isinstance(highs, highspy.Highs):
        return False
    reported = highs.getInfo().objective_function_value
    return abs(objective - reported) > VALUES_AGREE_REL * max(1.0, abs(reported))


def _highs_failed(model: HasProblem) -> bool:
    """Whether HiGHS ended in its own error (PuLP reports that as "no solution found")."""
    highs = getattr(model.problem, "solverModel", None)
    return isinstance(highs, highspy.Highs) and highs.getModelStatus() in (
        highspy.HighsModelStatus.kSolveError,
        highspy.HighsModelStatus.kPostsolveError,
    )


def _gap(model: HasProblem, solver: str, status: SolveStatus, gap: float) -> float | None:
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


_BANNER_LOCK = threading.Lock()
_BANNER_SWALLOWED = threading.Event()


def _swallow_banner() -> None:
    """HiGHS prints a banner on stdout the first time an instance is made in the process,
    whatever its options; stdout carries JSON and CSV output, so that first instance is made
    here with stdout sent nowhere, once (later instances print nothing unless asked to)."""
    if _BANNER_SWALLOWED.is_set():
        return
    with _BANNER_LOCK:
        if not _BANNER_SWALLOWED.is_set():
            with _stdout_to(None):
                highspy.Highs()
            _BANNER_SWALLOWED.set()


@contextlib.contextmanager
def _stdout_to(fd: int | None) -> Iterator[None]:
    """Send C-level stdout elsewhere (``fd``; None: nowhere) within the block: the process's,
    so only where no other thread may write to it meanwhile (a solver log asked for, the
    banner of the first HiGHS instance)."""
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


@dataclass(frozen=True)
class SolverOptions:
    """How to solve: solver name, time limit (s) and relative MIP gap."""

    solver: str = "highs"
    time_limit_s: float | None = None
    gap: float = DEFAULT_GAP

"""The two-stage stochastic program solved by decomposition: the multi-cut L-shaped method.

The extensive form (``placement.formulating.stochastic``) joins K sample models into one LP
whose root HiGHS solves from nothing: 50 samples of 1,000 workloads are about 150,000 columns
and 107 s. Its first stage (reservation units ``z_q``, savings plans ``Z_q``, ports and
adoptions: a few dozen variables) is all that links the samples; given it, each sample is an
LP of its own. So (Van Slyke and Wets; one cut per sample, Birge and Louveaux):

Each sample k's cost at a first stage ``x`` is its model's LP with the first-stage variables
fixed at ``x``, plus the prices ``r_k`` of first-stage decisions its model has no variable for:

.. math:: c_k(x) = \\min_y \\{\\, q_k^\\top y : W_k y \\ge h_k - T_k x \\,\\} + r_k^\\top x

convex and piecewise linear in ``x``; the reduced costs ``d_k`` of the fixed columns at the
optimum are a subgradient, so for every first stage ``x^i`` tried

.. math:: \\theta_k \\ge c_k(x^i) + (d_k^i + r_k)^\\top (x - x^i)

holds for the cost of every ``x``. The master problem is the program's objective over the
first stage's own rows (those of a sample model holding first-stage variables only: the
porting capacity, a port needing its migration) and these cuts:

.. math:: \\min\\ (1 - \\omega) \\sum_k p_k \\theta_k + \\omega \\Big(\\eta + \\frac{1}{1 -
    \\alpha} \\sum_k p_k u_k\\Big) \\quad\\text{s.t.}\\quad u_k \\ge \\theta_k - \\eta,\\ u_k
    \\ge 0,\\ \\text{the cuts}

Its optimum ``L`` bounds the program's from below; the program's objective at each ``x^i``
tried, from its samples' costs, bounds it from above (``U``: the best). It stops when
``U - L <= gap |U|``. The first ``x`` is the point plan's first stage; a variable without an
upper bound (units, savings plans) is boxed at :data:`BOX_GROWTH` times its first value (at
least :data:`BOX_FLOOR`), that many times wider whenever the master's optimum reaches it, and a
lower bound counts only from a master whose optimum is inside every box. Each sample keeps its
HiGHS model: a later ``x`` changes its fixed columns' bounds, and the dual simplex starts from
the last basis. A round's sample LPs are independent: they run as many at a time as the caller
asks (``run_highs_together``; each HiGHS solve in its own thread, the GIL released while it
runs). On the sample inventory at 20 samples the method proved its first stage within
0.1% in two rounds, 8.9 s, where the extensive form took 24 s.

Where a sample has no solution at some ``x`` (a workload left nowhere to run), or the solver
is not HiGHS, the method gives up (None) and the caller solves the extensive form.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import highspy
import numpy as np
import pulp

from placement.formulating.first_stage import FirstStage
from placement.formulating.model import PlacementModel
from placement.formulating.stochastic import (
    ExtensiveForm,
    absent_first_stage_cost,
    join_first_stage,
    program_objective,
)
from placement.models.catalog import Catalog
from placement.solving.fixing import kept_bounds
from placement.solving.proof import proven_by
from placement.solving.solver import (
    has_variables,
    highs_of,
    run_highs_together,
    solve_model,
)

MAX_ROUNDS = 100
"""Rounds (master, then every sample) before the method stops with the best stage found."""

MASTER_GAP_SHARE = 0.1
"""The master MILP's gap, as a share of the program's: its bound is the lower bound used."""

BOX_GROWTH = 4.0
"""An unbounded first-stage variable's box: this many times its first value, and this many
times wider each time the master's optimum reaches it."""

BOX_FLOOR = 8.0
"""The smallest box of an unbounded first-stage variable (units, or USD per hour)."""


@dataclass(frozen=True)
class Decomposed:
    """The first stage found, the program's objective there (``U``), the lower bound proven
    (``L``, None where no master's optimum was inside its boxes), the rounds and seconds."""

    stage: FirstStage
    objective: float
    bound: float | None
    rounds: int
    time_s: float


@dataclass
class _Sample:
    """One sample: its model, its first-stage columns mapped to the master's variables, what
    it pays for the master's decisions it has no variable for, and its solved HiGHS model."""

    model: PlacementModel
    shared: dict[pulp.LpVariable, pulp.LpVariable]
    absent: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    highs: highspy.Highs | None = None


def solve_by_decomposition(
    models: Sequence[PlacementModel],
    catalogs: Sequence[Catalog],
    start: FirstStage,
    cvar_alpha: float,
    cvar_weight: float,
    solver: str,
    time_limit_s: float | None,
    gap: float,
    at_once: int = 1,
) -> Decomposed | None:
    """The program's first stage over the sample models (see the module), from ``start``,
    the samples' LPs run ``at_once`` at a time; None where the method does not apply (not
    HiGHS, a sample with no solution). The models' first-stage bounds are as before when it
    returns."""
    if solver != "highs" or not models:
        return None
    master = ExtensiveForm(pulp.LpProblem("master", pulp.LpMinimize))
    samples = [_Sample(model, join_first_stage(master, model)) for model in models]
    for sample, catalog in zip(samples, catalogs, strict=True):
        sample.absent = absent_first_stage_cost(master, sample.model, catalog)
    with kept_bounds([var for sample in samples for var in sample.shared]):
        return _rounds(master, samples, start, cvar_alpha, cvar_weight, time_limit_s, gap, at_once)


def _rounds(
    master: ExtensiveForm,
    samples: list[_Sample],
    start: FirstStage,
    alpha: float,
    weight: float,
    time_limit_s: float | None,
    gap: float,
    at_once: int,
) -> Decomposed | None:
    """The rounds of the method (see the module): every sample priced at ``x``, its cut added,
    then the master's next ``x``, until the bound proves the best or the time is up."""
    started = time.perf_counter()
    theta = _complete_master(master, samples, alpha, weight)
    first = _first_stage_variables(master)
    x = _start_values(master, start)
    box = _boxes(first, x)
    best: tuple[float, dict[pulp.LpVariable, float]] | None = None
    bound: float | None = None
    for rounds in range(1, MAX_ROUNDS + 1):
        priced = _price_samples(samples, x, _left(time_limit_s, started), at_once)
        if priced is None:
            if best is not None and _left(time_limit_s, started) == 0.0:
                break  # the run's time is up: the best first stage priced stands
            return None
        costs = [cost for cost, _ in priced]
        for k, (cost, slopes) in enumerate(priced):
            cut = pulp.lpSum(slope * (var - x[var]) for var, slope in slopes.items())
            master.problem.addConstraint(theta[k] >= cost + cut, f"cut_{rounds}_{k}")
        upper = _program_objective(costs, alpha, weight)
        if best is None or upper < best[0]:
            best = (upper, dict(x))
        if bound is not None and proven_by(best[0], bound, gap):
            break
        if _left(time_limit_s, started) == 0.0:
            break
        solved = solve_model(master, "highs", _left(time_limit_s, started), gap * MASTER_GAP_SHARE)
        if not solved.has_solution:
            break
        tried = x
        x = {var: _value(var) for var in first}
        boxed = [var for var in first if var in box and x[var] >= box[var] - 1e-6]
        if boxed:  # the master's optimum is at a box, not the program's: widen, go on
            for var in boxed:
                box[var] = var.upBound = BOX_GROWTH * box[var]
        elif solved.bound is not None:
            bound = solved.bound if bound is None else max(bound, solved.bound)
            # The master choosing the stage it was just told the cost of: its cuts there are
            # exact, so nothing cheaper is left (up to the master's own gap and rounding).
            if proven_by(best[0], bound, gap) or x == tried:
                break
    assert best is not None
    for var, value in best[1].items():
        var.varValue = value
    stage = master.first_stage()
    return Decomposed(stage, best[0], bound, rounds, time.perf_counter() - started)


def _left(time_limit_s: float | None, started: float) -> float | None:
    """Seconds left of the run's time limit (None: no limit)."""
    if time_limit_s is None:
        return None
    return max(time_limit_s - (time.perf_counter() - started), 0.0)


def _first_stage_variables(master: ExtensiveForm) -> list[pulp.LpVariable]:
    return [
        *master.units.values(),
        *master.plan_usd.values(),
        *master.port.values(),
        *master.adopt.values(),
    ]


def _complete_master(
    master: ExtensiveForm, samples: list[_Sample], alpha: float, weight: float
) -> list[pulp.LpVariable]:
    """The master problem before any cut: to its first stage (every sample's, joined), the
    first stage's own rows (a sample's rows holding first-stage variables only, once each),
    ``theta_k`` per sample and the program's objective over them. Returns the ``theta_k``."""
    seen: set[object] = set()
    for sample in samples:
        for row in sample.model.problem._constraints.values():
            if not len(row) or any(var not in sample.shared for var in row):
                continue
            terms = tuple(sorted((sample.shared[v].name, c) for v, c in row.items()))
            if (terms, row.sense, row.constant) in seen:
                continue
            seen.add((terms, row.sense, row.constant))
            expr = pulp.LpAffineExpression([(sample.shared[v], c) for v, c in row.items()])
            master.problem.addConstraint(
                pulp.LpConstraint(expr, row.sense, f"first_{len(seen)}", -row.constant)
            )
    theta = [master.problem.add_variable(f"theta_{k}") for k in range(len(samples))]
    costs = [pulp.LpAffineExpression([(t, 1.0)]) for t in theta]
    program_objective(master.problem, costs, alpha, weight)
    return theta


def _start_values(master: ExtensiveForm, start: FirstStage) -> dict[pulp.LpVariable, float]:
    """The point plan's first stage, in the master's variables and within their bounds."""
    values = {var: float(start.units.get(key, 0)) for key, var in master.units.items()}
    values.update({var: start.plan_usd.get(key, 0.0) for key, var in master.plan_usd.items()})
    values.update({var: float(pair in start.ported) for pair, var in master.port.items()})
    values.update({var: float(key in start.adopted) for key, var in master.adopt.items()})
    for var, value in values.items():
        value = max(value, var.lowBound or 0.0)
        values[var] = value if var.upBound is None else min(value, var.upBound)
    return values


def _boxes(
    first: list[pulp.LpVariable], x: dict[pulp.LpVariable, float]
) -> dict[pulp.LpVariable, float]:
    """A box on every first-stage variable without an upper bound (see the module)."""
    box = {}
    for var in first:
        if var.upBound is None:
            box[var] = var.upBound = max(BOX_FLOOR, BOX_GROWTH * x[var])
    return box


def _price_samples(
    samples: list[_Sample],
    x: dict[pulp.LpVariable, float],
    time_limit_s: float | None,
    at_once: int,
) -> list[tuple[float, dict[pulp.LpVariable, float]]] | None:
    """Every sample's ``c_k(x)`` and its slope in each first-stage decision (the master's
    variable; see the module), their LPs run ``at_once`` at a time; None where a sample has
    no solution at ``x``. A sample's HiGHS instance is made the first time (its fixed columns
    then at ``x``) and kept: later, only those columns' bounds change."""
    limit = math.inf if time_limit_s is None else time_limit_s

    def fixed_at_x() -> Iterator[highspy.Highs]:
        for sample in samples:
            if not has_variables(sample.model.problem):
                continue  # everything fixed already: its cost is its objective's constant
            if sample.highs is None:
                for var, shared in sample.shared.items():
                    var.lowBound = var.upBound = x[shared]
                sample.highs = highs_of(sample.model, time_limit_s, relax=True)
            else:
                index = np.array([var.index for var in sample.shared], dtype=np.int32)
                fixed = np.array([x[shared] for shared in sample.shared.values()])
                sample.highs.changeColsBounds(len(index), index, fixed, fixed)
                sample.highs.setOptionValue("time_limit", limit)
            yield sample.highs

    run_highs_together(fixed_at_x(), at_once)
    priced = []
    for sample in samples:
        highs = sample.highs
        if highs is None:
            objective = sample.model.problem.objective
            cost, slopes = (0.0 if objective is None else float(objective.constant)), {}
        elif highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        else:
            column_duals = highs.getSolution().col_dual
            slopes = {
                shared: float(column_duals[var.index]) for var, shared in sample.shared.items()
            }
            cost = float(highs.getInfo().objective_function_value)
        cost += sample.absent.constant
        for shared, usd in sample.absent.items():
            slopes[shared] = slopes.get(shared, 0.0) + usd
            cost += usd * x[shared]
        priced.append((cost, slopes))
    return priced


def _program_objective(costs: list[float], alpha: float, weight: float) -> float:
    """The program's objective from its samples' costs: ``(1 - w) E[c] + w CVaR_alpha(c)``."""
    mean = sum(costs) / len(costs)
    if weight <= 0:
        return mean
    return (1 - weight) * mean + weight * _cvar(costs, alpha)


def _cvar(costs: list[float], alpha: float) -> float:
    """``min_eta eta + E[(c - eta)^+] / (1 - alpha)``, at ``eta`` = a sample's cost (the
    minimum is at one)."""
    p = 1.0 / len(costs)
    return min(eta + sum(max(c - eta, 0.0) for c in costs) * p / (1 - alpha) for eta in costs)


def _value(var: pulp.LpVariable) -> float:
    value = var.varValue or 0.0
    return float(round(value)) if var.cat == pulp.LpInteger else max(float(value), 0.0)

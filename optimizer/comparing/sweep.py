"""``sweep``: the optimum along one parameter (or a grid of two), and where the plan changes.

A parameter is a catalog value by dotted path (``accelerators.h100.on_demand_usd_per_chip_hour``,
as ``--set`` takes it) or an inventory column: ``inventory.COLUMN`` sets it for every workload
(a volume column for every workload whose volume is given in it), ``inventory[ID].COLUMN`` for
one. Each point is a scenario made on the fly and planned like any
other, in parallel.

The plan *changes* where its decisions change: a workload's accelerator, a family ported or a
migration adopted (commitment sizes follow volumes smoothly and are not break-evens). Between two
neighbouring grid points whose decisions differ, the break-even is located by bisection: the
interval is halved, one batch of solves per round for every interval at once, until it is
narrower than ``tolerance`` of the grid step. A midpoint whose decisions match neither end
splits its interval in two, each bisected on: every change inside one grid step is found (the
migration dropped and, a little further, one workload moved), not only the first, within a
budget of solves (``BISECTION_SOLVES_PER_CHANGE`` a change, and for roadmaps a bound of work
over them all, ``limits.MAX_BISECTED_ROADMAP_WORKLOAD_PLANS``); past it, the widest intervals
are narrowed first and the rest reported as far as they were narrowed.
"""

from __future__ import annotations

import difflib
import itertools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from placement.catalog import CatalogSource, Setting, read_catalog
from placement.comparing.batch import (
    CatalogSpec,
    PlanJob,
    Progress,
    Runner,
    planned_inventory,
    progress_after,
    run_job,
)
from placement.comparing.diff import port_label
from placement.comparing.limits import bisected_solves_at_most, swept_work_problem
from placement.comparing.whatif import chip_hours_share
from placement.errors import PlacementInputError
from placement.models.plan import Plan
from placement.models.sweep import SweepBreakEven, SweepSummary, SweptParameter
from placement.models.workload import VOLUME_COLUMNS
from placement.pipeline import SolverOptions, steady_state_decisions
from placement.reading import Inventory
from placement.scenarios import InventoryChange, Scenario, check_scenario
from placement.scenarios.apply import text_matches

MAX_SWEEP_STEPS = 250
"""Grid points of one parameter at most: each is a whole plan (a finer question is a narrower
range; break-evens are located far more finely than the grid anyway)."""

MAX_SWEEP_POINTS = 250
"""Grid points of a sweep at most, over both parameters (``STEPS x STEPS``): each is a whole
plan, and each row's break-evens are bisected on top (a 500 x 500 grid would be 250,000 plans,
a day of solving). Larger inventories and roadmaps get fewer (``comparing.limits``)."""

BISECTION_TOLERANCE = 1 / 256
"""A break-even is located to within this fraction of the grid step (8 halvings)."""

BISECTION_SOLVES_PER_CHANGE = 16
"""The bisection's solves at most, counted over the sweep: this many for each grid interval
whose decisions differ (twice what halving one interval to ``BISECTION_TOLERANCE`` takes: two
changes inside each grid step located in full). A midpoint whose decisions match neither end
splits its interval, and a large inventory's decisions differ at nearly every price (10,000
workloads: 5 grid points gave 110 break-evens in 211 s), so an interval could take 255 solves;
once the budget is spent, the intervals still open are reported as far as they were narrowed
(their ``low`` and ``high``)."""

# The id runs to the last "]." (an id may hold brackets itself: "[prod] llama-70b").
_ONE_WORKLOAD = re.compile(r"^inventory\[(?P<id>.+)\]\.(?P<column>\w+)$")
_EVERY_WORKLOAD = re.compile(r"^inventory\.(?P<column>\w+)$")


@dataclass(frozen=True)
class Parameter:
    """A swept parameter: its path and the values of its grid."""

    path: str
    values: tuple[float, ...]
    # The rows an ``inventory.COLUMN`` parameter sets (a scenario filter; every row if empty).
    rows: tuple[tuple[str, tuple[Any, ...]], ...] = ()

    @classmethod
    def parse_range(cls, path: str, text: str) -> Parameter:
        """``START:STOP:STEPS`` (STEPS points from START to STOP, both included; START and
        STOP finite and different, or every point would be the same plan)."""
        parts = text.split(":")
        problem = None
        try:
            if len(parts) != 3:
                raise ValueError(text)
            start, stop, steps = float(parts[0]), float(parts[1]), int(parts[2])
            if not 2 <= steps <= MAX_SWEEP_STEPS:
                problem = f"expected STEPS from 2 to {MAX_SWEEP_STEPS}"
            elif not (math.isfinite(start) and math.isfinite(stop)):
                problem = "expected START and STOP finite numbers"
            elif start == stop:
                problem = (
                    f"START and STOP must differ (both are {start:g}: each of the {steps} "
                    "points would be the same plan)"
                )
        except ValueError:
            problem = "expected START:STOP:STEPS, e.g. 1000:20000:20"
        if problem:
            raise PlacementInputError(
                [f"--range {text!r} for {path}: {problem}"], title="invalid option"
            )
        return cls(path, tuple(float(v) for v in np.linspace(start, stop, steps)))

    def on(self, inventory: Inventory) -> Parameter:
        """The parameter as it applies to ``inventory``: a volume column
        (``inventory.h100_gpu_hours`` or ``inventory.monthly_tokens_b``) sets the workloads
        whose volume is given in that column, since a workload gives exactly one of the two.
        ``inventory[ID].COLUMN`` with an ID no workload has is refused here, naming the ID (the
        scenario made of it would only say that its filter matches nothing)."""
        one = _ONE_WORKLOAD.match(self.path)
        if one:
            self._check_workload(one.group("id"), inventory)
        every = _EVERY_WORKLOAD.match(self.path)
        column = every.group("column") if every else None
        if column not in VOLUME_COLUMNS:
            return self
        others = [c for c in VOLUME_COLUMNS if c != column and c in inventory.workloads]
        if not any(inventory.workloads[c].notna().any() for c in others):
            return self
        return replace(self, rows=tuple((c, (None,)) for c in others))

    def _check_workload(self, wanted: str, inventory: Inventory) -> None:
        """Refuse an ID (or shell-style pattern, as a scenario's ``where`` takes it) that no
        workload of ``inventory`` has, with the nearest ids."""
        ids = inventory.workloads["id"].astype(str).tolist()
        if any(text_matches(i, wanted) for i in ids):
            return
        close = difflib.get_close_matches(wanted, ids, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise PlacementInputError(
            [f"--param {self.path}: no workload {wanted!r} in the inventory "
             f"({inventory.source}){hint}"],
            title="invalid option",
        )  # fmt: skip

    def scenario(self, value: float, other: Scenario | None = None) -> Scenario:
        """A scenario setting this parameter to ``value`` (added to ``other``'s changes)."""
        label = f"{self.path}={value:g}"
        settings: tuple[Setting, ...] = other.settings if other else ()
        changes: tuple[InventoryChange, ...] = other.changes if other else ()
        one = _ONE_WORKLOAD.match(self.path)
        every = _EVERY_WORKLOAD.match(self.path)
        if one or every:
            match = one or every
            assert match is not None
            where = {"id": [match.group("id")]} if one else {k: list(v) for k, v in self.rows}
            change = InventoryChange(
                "set", {"column": match.group("column"), "value": value}, where, len(changes), None
            )
            changes = (*changes, change)
        else:
            setting = Setting(self.path, value, f"{value:g}", "--param", f"--param {self.path}")
            settings = (*settings, setting)
        name = f"{other.name}, {label}" if other else label
        return Scenario(name, "", "--param", "", settings, changes)


Decisions = tuple[
    tuple[tuple[str, str], ...], tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]
]
"""What a break-even changes: (workload id, accelerator) placements, unplaced workload ids,
(family, platform) ports and migrated platforms, each sorted."""


def decisions(plan: Plan) -> Decisions:
    """A plan's decisions."""
    return (
        tuple(sorted((a.workload_id, a.accelerator) for a in plan.assignments)),
        tuple(sorted(u.workload_id for u in plan.unplaced)),
        tuple(sorted((p.family, p.platform) for p in plan.ported_families)),
        tuple(sorted(m.platform for m in plan.migrations)),
    )


def decide(job: PlanJob) -> Decisions:
    """A steady-state job's decisions, from its solve alone (no baselines, no assembly):
    equal to ``decisions`` of its plan (a module-level function, so workers can call it)."""
    estimates, _, decided = steady_state_decisions(
        job.inventory, job.catalog.read(), job.solver, job.scenario
    )
    options = estimates.options
    feasible = options.groupby("workload", sort=False)["feasible"].any()
    ids = dict(zip(options["workload"], options["workload_id"], strict=False))
    unplaced = tuple(sorted(str(ids[w]) for w, ok in feasible.items() if not ok))
    if decided is None:
        return ((), unplaced, (), ())
    chosen = decided.chosen
    placed = zip(chosen["workload_id"].astype(str), chosen["accelerator"].astype(str), strict=True)
    return (
        tuple(sorted(placed)),
        unplaced,
        tuple(sorted((str(p.family), str(p.platform)) for p in decided.ported.itertuples())),
        tuple(sorted(decided.adopted)),
    )


@dataclass(frozen=True)
class Point:
    """One solved point: the parameters' values and the plan."""

    values: tuple[float, ...]
    plan: Plan


@dataclass(frozen=True)
class BreakEven:
    """Where the plan changes along the first parameter, between ``low`` and ``high`` (the
    last value with the old decisions and the first with the new), at fixed second value."""

    low: float
    high: float
    other: float | None  # the second parameter's value (grid sweeps)
    changes: str

    @property
    def value(self) -> float:
        return (self.low + self.high) / 2


@dataclass(frozen=True)
class SweepResult:
    parameters: tuple[Parameter, ...]
    points: list[Point]  # the grid, in grid order
    break_evens: list[BreakEven] = field(default_factory=list)

    def frame(self) -> pd.DataFrame:
        """One row per grid point: the values, cost, shares and decisions."""
        rows = []
        best = self.optimum
        accelerators = sorted({a.accelerator for q in self.points for a in q.plan.assignments})
        for p in self.points:
            plan = p.plan
            row: dict[str, Any] = {
                par.path: v for par, v in zip(self.parameters, p.values, strict=True)
            }
            row |= {
                "status": plan.status,
                "objective_monthly_usd": plan.objective_monthly_usd,
                "savings_vs_all_h100_on_demand_usd": (
                    plan.baselines.savings_vs_all_h100_on_demand_usd
                ),
                "families_ported": len(plan.ported_families),
                "migrations": ", ".join(m.platform for m in plan.migrations),
                "optimum": p is best,
            }
            shares = chip_hours_share(plan)
            for acc in accelerators:
                row[f"share_{acc}"] = shares.get(acc, 0.0)
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def optimum(self) -> Point | None:
        """The grid point with the lowest monthly cost."""
        solved = [p for p in self.points if p.plan.objective_monthly_usd is not None]
        return min(solved, key=lambda p: p.plan.objective_monthly_usd or 0.0) if solved else None

    def summary(self) -> SweepSummary:
        """The sweep without its plans: what a file carries and the report reads."""
        best = self.optimum
        return SweepSummary(
            parameters=[
                SweptParameter(path=p.path, values=list(p.values)) for p in self.parameters
            ],
            points=json.loads(self.frame().to_json(orient="records")),
            optimum=None if best is None else list(best.values),
            break_evens=[
                SweepBreakEven(
                    low=b.low, high=b.high, value=b.value, other=b.other, changes=b.changes
                )
                for b in self.break_evens
            ],
        )

    def record(self) -> dict[str, Any]:
        return self.summary().model_dump(mode="json")


def _describe(before: Decisions, after: Decisions) -> str:
    """What changes between two sets of decisions: the first moves, then ports and
    migrations (as ``placement diff`` words them)."""
    old, new = dict(before[0]), dict(after[0])
    known = (set(old) | set(before[1])) & (set(new) | set(after[1]))
    moves = [
        f"{w} {old.get(w) or '-'} -> {new.get(w) or '-'}"
        for w in sorted(known)
        if old.get(w) != new.get(w)
    ]
    parts = moves[:5]
    if len(moves) > 5:
        parts.append(f"and {len(moves) - 5} more")
    ports_before = {port_label(f, p) for f, p in before[2]}
    ports_after = {port_label(f, p) for f, p in after[2]}
    parts += [f"port {p}" for p in sorted(ports_after - ports_before)]
    parts += [f"no port {p}" for p in sorted(ports_before - ports_after)]
    parts += [f"migrate {m}" for m in sorted(set(after[3]) - set(before[3]))]
    parts += [f"no migration {m}" for m in sorted(set(before[3]) - set(after[3]))]
    return "; ".join(parts) or "decisions changed"


def _whole_numbers(
    values: Sequence[float],
    at: Callable[[float], Scenario],
    inventory: Inventory,
    catalog: CatalogSource,
) -> bool:
    """Whether a parameter takes whole numbers only: every grid value is one, and half a
    step past the first is refused (checked on the scenario, without solving)."""
    if not all(float(v).is_integer() for v in values):
        return False
    try:
        check_scenario(inventory, catalog, at(values[0] + 0.5))
    except PlacementInputError:
        return True
    return False


def _plan_decisions(job: PlanJob) -> Decisions:
    """A job's decisions from its whole plan (a roadmap's end state)."""
    return decisions(run_job(job))


def check_grid(parameters: Sequence[Parameter]) -> None:
    """Refuse, before anything is solved, what is not a grid to sweep: other than one or two
    parameters, one parameter twice, or more than ``MAX_SWEEP_POINTS`` points."""
    if not 1 <= len(parameters) <= 2:
        raise PlacementInputError(["sweep takes one or two parameters"], title="invalid option")
    if len(parameters) == 2 and parameters[0].path == parameters[1].path:
        raise PlacementInputError(
            [f"--param {parameters[0].path} is given twice: a grid of one parameter against "
             "itself; expected two different parameters (or one)"],
            title="invalid option",
        )  # fmt: skip
    points = math.prod(len(p.values) for p in parameters)
    if points > MAX_SWEEP_POINTS:
        sizes = " x ".join(f"{len(p.values)}" for p in parameters)
        raise PlacementInputError(
            [f"--range: {sizes} = {points:,} grid points; expected at most "
             f"{MAX_SWEEP_POINTS:,} in one sweep (each is a whole plan, its break-evens "
             "bisected on top): fewer STEPS, or one parameter at a time"],
            title="invalid option",
        )  # fmt: skip


def sweep(
    inventory: str | Inventory,
    parameters: Sequence[Parameter],
    catalog: CatalogSource | None = None,
    solver: SolverOptions | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
    tolerance: float = BISECTION_TOLERANCE,
    horizon: int | None = None,
) -> SweepResult:
    """Plan every grid point, then bisect every interval of the first parameter where the
    decisions change; ``horizon`` plans each point as a roadmap over that many months."""
    check_grid(parameters)
    catalog = catalog or read_catalog()
    solver = solver or SolverOptions()
    inventory = planned_inventory(inventory, catalog)
    parameters = [p.on(inventory) for p in parameters]
    too_much = swept_work_problem(
        math.prod(len(p.values) for p in parameters), len(inventory.workloads), horizon
    )
    if too_much:  # before any plan is made
        raise PlacementInputError([too_much], title="invalid option")
    spec = CatalogSpec.of(catalog)
    first = parameters[0]
    second = parameters[1] if len(parameters) == 2 else None
    others: list[float | None] = list(second.values) if second else [None]

    def scenario(x: float, y: float | None) -> Scenario:
        base = second.scenario(y) if second is not None and y is not None else None
        return first.scenario(x, base)

    grid = [(x, y) for y in others for x in first.values]
    # The grid's corners: a value out of bounds is at an end of its range.
    corners = {(x, y) for x in (first.values[0], first.values[-1]) for y in (others[0], others[-1])}
    for x, y in sorted(corners, key=str):
        check_scenario(inventory, catalog, scenario(x, y))
    with Runner(workers, scheduler) as runner:  # one pool for the grid and every round
        plans = runner.run(
            [PlanJob(inventory, spec, scenario(x, y), solver, horizon) for x, y in grid],
            progress,
        )
        points = [
            Point((x,) if y is None else (x, y), plan)
            for (x, y), plan in zip(grid, plans, strict=True)
        ]
        step = abs(first.values[1] - first.values[0])
        # Open intervals: (low value, its decisions, high value, its decisions, other value).
        open_: list[tuple[float, Decisions, float, Decisions, float | None]] = []
        for y in others:
            row = [
                (x, decisions(plan)) for (x, yy), plan in zip(grid, plans, strict=True) if yy == y
            ]
            for (x0, d0), (x1, d1) in itertools.pairwise(row):
                if d0 != d1:
                    open_.append((x0, d0, x1, d1, y))
        # Inside an interval only the decisions matter: a roadmap's are its plan's, a steady
        # state's come from its solve alone.
        task = decide if horizon is None else _plan_decisions
        # A whole-number parameter (a chip limit, a month) is bisected on whole numbers, down
        # to neighbours: a fractional value would be refused.
        whole = _whole_numbers(first.values, lambda v: scenario(v, others[0]), inventory, catalog)

        def wide(lo: float, hi: float) -> bool:
            return hi - lo > 1 if whole else abs(hi - lo) > tolerance * step

        def halvings_left(lo: float, hi: float) -> int:
            """The solves an interval still needs (whole numbers: at most that many)."""
            width, count = abs(hi - lo), 0
            while wide(0.0, width):
                width = math.ceil(width / 2) if whole else width / 2
                count += 1
            return count

        solved = len(grid)
        budget = solved + BISECTION_SOLVES_PER_CHANGE * len(open_)
        # Within a bound of work too: a long roadmap is a minute a solve.
        most = bisected_solves_at_most(len(inventory.workloads), horizon)
        budget = budget if most is None else min(budget, solved + most)
        while narrowing := [i for i, (lo, _, hi, _, _) in enumerate(open_) if wide(lo, hi)]:
            if solved + len(narrowing) > budget:  # the budget's last round: the widest first
                narrowing.sort(key=lambda i: -abs(open_[i][2] - open_[i][0]))
                narrowing = sorted(narrowing[: budget - solved])
                if not narrowing:
                    break
            halves = [(open_[i][0] + open_[i][2]) / 2 for i in narrowing]
            mids = [float(math.floor(h)) if whole else h for h in halves]
            # Progress counts every solve, the grid's and the bisection's: the total is what
            # the open intervals still need, re-counted each round (a split adds to it).
            expected = min(budget, solved + sum(halvings_left(lo, hi) for lo, _, hi, _, _ in open_))
            found = runner.run(
                [
                    PlanJob(inventory, spec, scenario(m, open_[i][4]), solver, horizon)
                    for i, m in zip(narrowing, mids, strict=True)
                ],
                progress_after(progress, solved, expected),
                task=task,
            )
            solved += len(found)
            split: list[tuple[float, Decisions, float, Decisions, float | None]] = []
            for i, m, made in zip(narrowing, mids, found, strict=True):
                lo, d_lo, hi, d_hi, y = open_[i]
                if made == d_lo:
                    open_[i] = (m, made, hi, d_hi, y)
                elif made == d_hi:
                    open_[i] = (lo, d_lo, m, made, y)
                else:
                    # A third set of decisions in between: the plan changes on both sides of
                    # the midpoint (two break-evens in one grid step); follow both.
                    open_[i] = (lo, d_lo, m, made, y)
                    split.append((m, made, hi, d_hi, y))
            open_ += split
        if progress is not None and solved > len(grid):
            progress(solved, solved)  # whole-number intervals can need fewer than counted
    break_evens = [BreakEven(lo, hi, y, _describe(d_lo, d_hi)) for lo, d_lo, hi, d_hi, y in open_]
    return SweepResult(
        tuple(parameters), points, sorted(break_evens, key=lambda b: (b.other or 0, b.low))
    )

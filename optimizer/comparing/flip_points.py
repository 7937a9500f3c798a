"""``explain``: one workload in full, and what it would take to move it.

The plan is solved once; then, for the workload asked about:

- **the runner-up**: the whole plan re-solved with the workload pinned to each other accelerator
  that has a feasible option for it (a scenario ``pin``). The runner-up is the accelerator whose
  pinned plan is cheapest; ``gap_usd`` is that plan's monthly cost minus the plan's: what the
  choice is worth to the plan as a whole, ports, migrations and shared commitments included.
- **the flip points**: each deciding figure (the chosen accelerator's on-demand rate, upwards;
  each other feasible accelerator's, downwards; the workload's volume and its TTFT objective,
  both ways; the porting weeks and migration one-off of a platform an option needs, against the
  option that needs it) is moved to ``value x f`` for ``f`` in :data:`UP_FACTORS` or
  :data:`DOWN_FACTORS`, the whole plan re-solved at each; the nearest value that places the
  workload elsewhere brackets the flip with the value before it, and the bracket is halved
  (one batch of re-solves per round for every figure at once) until it is narrower than
  ``tolerance`` of the figure's value. ``flips_at`` is the bracket's end where the choice has
  changed, ``last_unchanged`` the end where it holds.

Why re-solves, not the solver's ranging: a catalog figure moves many coefficients at once (a
rate prices every option, reservation and savings plan on that accelerator; a volume moves
chips, cover and commitments), and the choice is an integer decision; LP ranging of the MILP
with its integers fixed gives the range of one coefficient with every other decision held,
which is neither. Near a flip the two plans cost the same within the solver's gap, so a flip
point is exact to the gap asked (``--gap``).
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import pandas as pd

from placement.analysing.evaluations import evaluations_of
from placement.catalog import CatalogSource, Setting, read_catalog
from placement.comparing.batch import (
    CatalogSpec,
    PlanJob,
    Progress,
    Runner,
    planned_inventory,
    progress_after,
)
from placement.errors import PlacementInputError
from placement.models.catalog import Catalog
from placement.models.explanation import Explanation, FlipPoint, ForcedPlan, SteadyFigure
from placement.models.numbers import figure_text, signed_percent, usd
from placement.models.plan import Assignment
from placement.models.workload import VOLUME_COLUMNS
from placement.pipeline import SolverOptions, plan, steady_state_decisions
from placement.reading import Inventory
from placement.scenarios import Scenario

FLIP_TOLERANCE = 1e-3
"""A flip point is bracketed to within this fraction of the figure's value."""

UP_FACTORS = (1.1, 1.5, 2.5, 5.0, 10.0)
"""Multiples of a figure's value tried upwards, nearest first."""

DOWN_FACTORS = (0.9, 0.6, 0.3, 0.1, 0.01)
"""Multiples of a figure's value tried downwards, nearest first."""

Direction = Literal["up", "down"]


@dataclass(frozen=True)
class Probe:
    """One re-solve: the plan's inventory and catalog with ``scenario`` applied; what is asked
    is where ``workload_id`` runs and what the plan costs."""

    job: PlanJob
    workload_id: str


@dataclass(frozen=True)
class Probed:
    accelerator: str | None  # None: the workload is not placed (or the plan has no solution)
    objective: float | None


def probe(item: Probe) -> Probed:
    """Re-solve one probe's plan (a module-level function: worker processes and Dask call it)."""
    job = item.job
    _, result, decided = steady_state_decisions(
        job.inventory, job.catalog.read(), job.solver, job.scenario
    )
    where = None
    if decided is not None:
        chosen = decided.chosen
        hit = chosen.loc[chosen["workload_id"].astype(str).eq(item.workload_id), "accelerator"]
        where = str(hit.iloc[0]) if len(hit) else None
    return Probed(where, result.objective if result.has_solution else None)


@dataclass(frozen=True)
class DecidingFigure:
    """A figure that can move the workload, its value in the plan and the ways to try."""

    path: str
    value: float
    directions: tuple[Direction, ...]


def deciding_figures(
    workload: pd.Series, options: pd.DataFrame, chosen: str, catalog: Catalog
) -> list[DecidingFigure]:
    """The figures worth moving for a workload placed on ``chosen`` (see the module)."""
    ways: dict[str, set[Direction]] = {}
    values: dict[str, float] = {}

    def add(path: str, value: float | None, *directions: Direction) -> None:
        if value is None or not math.isfinite(value) or value <= 0:
            return  # a multiple of nothing moves nothing
        values[path] = float(value)
        ways.setdefault(path, set()).update(directions)

    feasible = options[options["feasible"].astype(bool)]
    for accelerator in dict.fromkeys(feasible["accelerator"].astype(str)):
        rate = catalog.accelerators[accelerator].on_demand_usd_per_chip_hour
        path = f"accelerators.{accelerator}.on_demand_usd_per_chip_hour"
        add(path, None if rate is None else rate.value, "up" if accelerator == chosen else "down")
    wid = str(workload["id"])
    for column in [*VOLUME_COLUMNS, "ttft_slo_ms"]:
        value = workload.get(column)
        if value is not None and not pd.isna(value):
            add(f"inventory[{wid}].{column}", float(value), "up", "down")
    for row in feasible.itertuples():
        toward: Direction = "up" if row.accelerator == chosen else "down"
        platform = catalog.platforms[str(row.platform)]
        if row.needs_port:
            add(
                f"platforms.{row.platform}.porting_weeks_per_family",
                platform.porting_weeks_per_family.value,
                toward,
            )
        if row.needs_migration:
            add(
                f"platforms.{row.platform}.migration_one_off_usd",
                platform.migration_one_off_usd.value,
                toward,
            )
    order: tuple[Direction, ...] = ("up", "down")
    return [
        DecidingFigure(path, values[path], tuple(d for d in order if d in ways[path]))
        for path in ways
    ]


def _moved(
    inventory: Inventory, base: Scenario | None, workload_id: str, path: str, value: object
) -> tuple[Inventory, Scenario | None]:
    """The inventory and scenario of one probe: ``base``'s catalog settings (its inventory
    changes are in ``inventory`` already) with the figure at ``path`` set to ``value``: a
    catalog setting, or ``inventory[ID].COLUMN`` (``pin``: its ``pinned_accelerator``) set on
    the workload's row itself (a scenario's ``where`` matches ids as patterns, ignoring case)."""
    settings = base.settings if base else ()
    prefix = f"inventory[{workload_id}]."
    if path == "pin" or path.startswith(prefix):
        column = "pinned_accelerator" if path == "pin" else path[len(prefix) :]
        frame = inventory.workloads.copy()
        if isinstance(value, str):
            frame[column] = frame[column].astype(object)
        frame.loc[frame["id"].astype(str).eq(workload_id), column] = value
        inventory = replace(inventory, workloads=frame)
    else:
        settings = (*settings, Setting(path, value, f"{value}", "explain", f"explain {path}"))
    if not settings:
        return inventory, None
    name = f"{base.name}, {path}={value}" if base else f"{path}={value}"
    return inventory, Scenario(name, "", "explain", "", settings)


@dataclass
class _Search:
    """One figure moved one way: the values tried so far and the open bracket."""

    figure: DecidingFigure
    direction: Direction
    tried: list[tuple[float, str | None]]  # nearest first
    low: float = math.nan  # the choice holds here
    high: float = math.nan  # and has changed here
    to: str | None = None

    @property
    def factors(self) -> tuple[float, ...]:
        return UP_FACTORS if self.direction == "up" else DOWN_FACTORS


def explain_workload(
    inventory: str | Inventory,
    workload_id: str,
    catalog: CatalogSource | None = None,
    solver: SolverOptions | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    scenario: Scenario | None = None,
    progress: Progress | None = None,
    tolerance: float = FLIP_TOLERANCE,
    flip_points: bool = True,
) -> Explanation:
    """Plan the inventory and explain ``workload_id`` (see the module): its options, the
    runner-up by pinned re-solves and, if ``flip_points``, each deciding figure's flip."""
    catalog = catalog or read_catalog()
    solver = solver or SolverOptions()
    inventory = planned_inventory(inventory, catalog)
    ids = inventory.workloads["id"].astype(str).tolist()
    if workload_id not in ids:
        close = difflib.get_close_matches(workload_id, ids, n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise PlacementInputError(
            [f"{inventory.source}: no workload with id {workload_id!r}{hint}"],
            title="unknown workload",
        )
    result = plan(inventory, catalog, solver, scenario=scenario)
    made = result.plan
    options = result.estimates.options
    mine = options[options["workload_id"].astype(str).eq(workload_id)]
    workloads = result.inventory.workloads
    row = workloads[workloads["id"].astype(str).eq(workload_id)].iloc[0]
    assignment = next((a for a in made.assignments if a.workload_id == workload_id), None)
    unplaced = next((u for u in made.unplaced if u.workload_id == workload_id), None)
    spec = CatalogSpec.of(catalog)
    chosen = assignment.accelerator if assignment else None
    others = [
        str(a)
        for a in dict.fromkeys(mine.loc[mine["feasible"].astype(bool), "accelerator"].astype(str))
        if a != chosen
    ]

    def job(path: str, value: object) -> Probe:
        moved, changed = _moved(result.inventory, scenario, workload_id, path, value)
        return Probe(PlanJob(moved, spec, changed, solver), workload_id)

    searches: list[_Search] = []
    if assignment is not None and flip_points:
        figures = deciding_figures(row, mine, assignment.accelerator, result.catalog)
        searches = [_Search(f, d, []) for f in figures for d in f.directions]
    solves = 0
    with Runner(workers, scheduler) as runner:
        first = [job("pin", a) for a in (others if assignment is not None else [])]
        first += [job(s.figure.path, s.figure.value * f) for s in searches for f in s.factors]
        found = runner.run(first, progress, task=probe)
        solves += len(first)
        pinned = dict(zip(others, found[: len(others)], strict=False))
        at = iter(found[len(pinned) :])
        for s in searches:
            s.tried = [(s.figure.value * f, next(at).accelerator) for f in s.factors]
            _open(s, chosen)
        while narrowing := [s for s in searches if _wide(s, tolerance)]:
            mids = [(s.low + s.high) / 2 for s in narrowing]
            # Progress counts these solves after the first batch's, out of what the searches
            # still need.
            expected = solves + sum(_halvings_left(s, tolerance) for s in searches)
            found = runner.run(
                [job(s.figure.path, m) for s, m in zip(narrowing, mids, strict=True)],
                progress_after(progress, solves, expected),
                task=probe,
            )
            solves += len(mids)
            for s, m, p in zip(narrowing, mids, found, strict=True):
                if p.accelerator == chosen:
                    s.low = m
                else:
                    s.high, s.to = m, p.accelerator
        if progress is not None and solves > len(first):
            progress(solves, solves)
    objective = made.objective_monthly_usd if result.solve.has_solution else None
    forced = _forced(mine, chosen, pinned if assignment is not None else {}, objective)
    feasible_forced = [f for f in forced if f.gap_usd is not None]
    runner_up = min(feasible_forced, key=lambda f: f.gap_usd or 0.0, default=None)
    flips, steady = _flip_results(searches)
    return Explanation(
        workload_id=workload_id,
        status=made.status,
        plan_monthly_usd=objective,
        chosen=chosen,
        pricing=assignment.pricing if assignment else None,
        monthly_cost_usd=assignment.monthly_cost_usd if assignment else None,
        runner_up=runner_up.accelerator if runner_up else None,
        gap_usd=runner_up.gap_usd if runner_up else None,
        options=evaluations_of(mine),
        reasons=[
            *(f"No plan: these cannot all hold: {c}" for c in made.conflicts or []),
            *_reasons(assignment, unplaced.reasons if unplaced else [], forced, flips),
        ],
        forced=forced,
        flip_points=flips,
        steady_figures=steady,
        tolerance=tolerance,
        solves=solves,
    )


def _open(search: _Search, chosen: str | None) -> None:
    """Bracket the nearest value tried that moves the workload (none: the search is done)."""
    before = search.figure.value
    for value, where in search.tried:
        if where != chosen:
            search.low, search.high, search.to = before, value, where
            return
        before = value


def _wide(search: _Search, tolerance: float) -> bool:
    """Whether a search's bracket is still wider than ``tolerance`` of its figure's value."""
    return _halvings_left(search, tolerance) > 0


def _halvings_left(search: _Search, tolerance: float) -> int:
    """The solves a search's bracket still needs to be narrower than ``tolerance`` of its
    figure's value (none for a search with no bracket)."""
    if math.isnan(search.high):
        return 0
    width, count = abs(search.high - search.low), 0
    while width > tolerance * abs(search.figure.value):
        width /= 2
        count += 1
    return count


def _flip_results(searches: Sequence[_Search]) -> tuple[list[FlipPoint], list[SteadyFigure]]:
    flips, steady = [], []
    for s in searches:
        value = s.figure.value
        if math.isnan(s.high):
            steady.append(
                SteadyFigure(
                    path=s.figure.path,
                    value=value,
                    searched_to=s.tried[-1][0],
                    direction=s.direction,
                )
            )
            continue
        flips.append(
            FlipPoint(
                path=s.figure.path,
                value=value,
                flips_at=s.high,
                to=s.to,
                last_unchanged=s.low,
                direction=s.direction,
                change=s.high / value - 1,
            )
        )
    return sorted(flips, key=lambda f: abs(f.change)), steady


def _forced(
    options: pd.DataFrame,
    chosen: str | None,
    pinned: dict[str, Probed],
    objective: float | None,
) -> list[ForcedPlan]:
    """The pinned plans, and why the accelerators with no feasible option cannot run it."""
    out = []
    for accelerator in dict.fromkeys(options["accelerator"].astype(str)):
        if accelerator == chosen:
            continue
        if accelerator in pinned:
            cost = pinned[accelerator].objective
            placed = pinned[accelerator].accelerator == accelerator
            gap = (
                cost - objective if cost is not None and objective is not None and placed else None
            )
            out.append(
                ForcedPlan(
                    accelerator=accelerator, monthly_cost_usd=cost if placed else None, gap_usd=gap
                )
            )
            continue
        reasons = options.loc[options["accelerator"].astype(str).eq(accelerator), "reason"]
        reason = "; ".join(dict.fromkeys(str(r) for r in reasons.dropna()))
        out.append(
            ForcedPlan(
                accelerator=accelerator,
                monthly_cost_usd=None,
                gap_usd=None,
                reason=reason or "no feasible option",
            )
        )
    return out


def _reasons(
    assignment: Assignment | None,
    unplaced: list[str],
    forced: list[ForcedPlan],
    flips: list[FlipPoint],
) -> list[str]:
    """The explanation in sentences, each with its numbers."""
    out = list(unplaced)
    if assignment is not None:
        out.append(f"On {assignment.accelerator} ({assignment.pricing}): {assignment.why}.")
    for f in forced:
        if f.gap_usd is not None:
            out.append(
                f"Pinned to {f.accelerator}, the whole plan costs {usd(f.monthly_cost_usd)} a "
                f"month: {usd(f.gap_usd)} more."
            )
        elif f.reason and assignment is not None:  # unplaced: its reasons say it already
            out.append(f"{f.accelerator} cannot run it: {f.reason}.")
        elif not f.reason:
            out.append(f"Pinned to {f.accelerator}, the plan has no solution.")
    for flip in flips:
        where = f"moves to {flip.to}" if flip.to else "cannot be placed"
        verb = "rises" if flip.direction == "up" else "falls"
        out.append(
            f"It {where} if {flip.path} {verb} from {figure_text(flip.value)} to "
            f"{figure_text(flip.flips_at)} ({signed_percent(flip.change)})."
        )
    return out

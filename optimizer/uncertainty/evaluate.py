"""One sample of the figures, planned: its optimum, its baselines, and the base plan held fixed.

A sample is the catalog with every uncertain figure at the sample's value (``sampling``). For
each, in the order a worker runs them:

- **the optimum**: the steady-state plan of the sample's catalog, solved as ``plan`` solves it
  (from the greedy start, proven by the relaxation where it can be);
- **the best without migrating** (``all_h100_usd``): the baselines' optimum with only the
  platforms adopted today (``baselines.all_h100_optimal_usd``);
- **staying where the team is** (``staying_usd``): every workload with a
  ``current_accelerator`` there, every other one on an adopted platform with nothing ported;
- **the base plan held fixed** (``base_plan_usd``): the point plan's commitments, ports and
  migration (its first stage) fixed and paid at the sample's figures, where work runs and what
  is paid on demand chosen again (``formulating.first_stage``): solved with each workload kept
  to the places the sample's relaxation (held) gives it, where that relaxation's bound proves
  the plan within the gap (``held_rounding``), else as the whole MILP. None where the held
  decisions leave a workload nowhere to run.

The base plan held fixed is a plan of the sample's model, so the sample's optimum is never
above it: where a solve's gap leaves the optimum found above it, the held plan is the best plan
known for the sample and the optimum takes its cost (regret is then 0, never negative).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from placement.analysing.baselines import compute_baselines
from placement.analysing.extract import Solution
from placement.estimating import Estimates, estimate
from placement.formulating.build import build_model
from placement.formulating.first_stage import FirstStage, FirstStageInfeasible
from placement.formulating.model import PlacementModel
from placement.horizon.held import RoadmapBroken, held_roadmap_months
from placement.models.catalog import Catalog
from placement.models.plan import Roadmap
from placement.pipeline import solve_from_greedy, strings_as_objects
from placement.reading import Inventory
from placement.solving.proof import pooled_relaxation
from placement.solving.solver import SolveResult, SolverOptions
from placement.solving.whole_chips import solve_plan_model
from placement.uncertainty.held_rounding import rounded_held, stage_held
from placement.uncertainty.sampling import Figure, SampleRows, sampled


@dataclass(frozen=True)
class SampleOutcome:
    """What one sample's plans cost (monthly USD; None where undefined) and where its optimum
    runs each workload (by inventory position; None: unplaced). ``error``: why the sample could
    not be planned (its figures are then not counted)."""

    index: int
    optimal_usd: float | None = None
    base_plan_usd: float | None = None
    all_h100_usd: float | None = None
    staying_usd: float | None = None
    placement: tuple[str | None, ...] = ()
    error: str | None = None
    roadmap_months: tuple[float, ...] | None = None
    roadmap_broken: bool = False

    @property
    def roadmap_usd(self) -> float | None:
        """The held roadmap's months summed (None: no roadmap priced)."""
        return None if self.roadmap_months is None else sum(self.roadmap_months)


@dataclass(frozen=True)
class SampleBatch:
    """Samples for one worker task: the inventory and the catalog as plain data (sent once per
    batch), the figures drawn, each sample's (index, values), the base plan's first stage and
    how to solve."""

    inventory: Inventory
    document: dict[str, Any]
    figures: tuple[Figure, ...]
    samples: SampleRows
    first_stage: FirstStage
    solver: SolverOptions
    roadmap: Roadmap | None = None


def first_stage_of(solution: Solution | None) -> FirstStage:
    """The commitments bought, the ports and the migrations of a solved plan (nothing where
    there is no solution)."""
    if solution is None:
        return FirstStage.nothing()
    products = solution.products
    reserved = products[products["kind"].eq("reserved")]
    plans = products[products["kind"].eq("savings_plan")]
    return FirstStage(
        units={
            str(key): int(units)
            for key, units in zip(reserved["product"], reserved["units_bought"], strict=True)
            if units
        },
        plan_usd={
            str(key): float(usd)
            for key, usd in zip(plans["product"], plans["usd_per_hour_bought"], strict=True)
            if usd
        },
        ported=frozenset(
            (str(f), str(s))
            for f, s in zip(solution.ported["family"], solution.ported["platform"], strict=True)
        ),
        adopted=frozenset(solution.adopted),
    )


@strings_as_objects()
def evaluate_batch(batch: SampleBatch) -> list[SampleOutcome]:
    """Every sample of the batch (a module-level function: worker processes and Dask call it).
    A sample that fails is recorded with its error; the others go on."""
    document = batch.document
    figures = list(batch.figures)
    outcomes = []
    for index, values in batch.samples:
        try:
            catalog, inventory = sampled(document, batch.inventory, figures, values)
            outcomes.append(
                evaluate_sample(
                    index, inventory, catalog, batch.first_stage, batch.solver, batch.roadmap
                )
            )
        except Exception as err:
            outcomes.append(SampleOutcome(index, error=f"{type(err).__name__}: {err}"))
    return outcomes


def evaluate_sample(
    index: int,
    inventory: Inventory,
    catalog: Catalog,
    stage: FirstStage,
    solver: SolverOptions,
    roadmap: Roadmap | None = None,
) -> SampleOutcome:
    """The sample's optimum, baselines and held base plan (see the module's docstring), and
    the ``roadmap`` held fixed month by month where one is given (``risk --horizon``)."""
    estimates = estimate(inventory.workloads, catalog)
    pooled, bound = pooled_relaxation(estimates, catalog, solver)
    greedy, result, solution = solve_from_greedy(estimates, catalog, solver, bound=bound)
    baselines = compute_baselines(estimates, catalog, solver, result.objective, greedy)
    held = held_plans_usd(estimates, catalog, (stage,), solver, pooled)[0]
    optimal = best_known(result, held)
    all_h100 = baselines.all_h100_optimal_usd
    months = None if roadmap is None else held_roadmap(roadmap, estimates, catalog, solver)
    return SampleOutcome(
        index=index,
        optimal_usd=optimal,
        base_plan_usd=held,
        all_h100_usd=all_h100,
        staying_usd=staying_usd(estimates, catalog, solver, all_h100),
        placement=placement_by_position(solution, len(estimates.workloads)),
        roadmap_months=months,
        roadmap_broken=roadmap is not None and months is None,
    )


def held_roadmap(
    roadmap: Roadmap, estimates: Estimates, catalog: Catalog, solver: SolverOptions
) -> tuple[float, ...] | None:
    """Each month's cost of ``roadmap`` held fixed at these figures
    (``placement.horizon.held``); None where they leave it unable to run (broken)."""
    try:
        months = held_roadmap_months(roadmap, estimates, catalog, solver)
    except RoadmapBroken:
        return None
    return tuple(m.cost_usd for m in months)


def held_plan_usd(
    estimates: Estimates, catalog: Catalog, stage: FirstStage, solver: SolverOptions
) -> float | None:
    """The monthly cost of the sample's best placement under the held first stage; None where
    the stage leaves a workload nowhere to run or no placement fits it."""
    return held_plans_usd(estimates, catalog, (stage,), solver)[0]


def held_plans_usd(
    estimates: Estimates,
    catalog: Catalog,
    stages: tuple[FirstStage, ...],
    solver: SolverOptions,
    pooled: PlacementModel | None = None,
) -> tuple[float | None, ...]:
    """``held_plan_usd`` of each stage: the plan within the relaxation's places where the
    relaxation's bound proves it (``held_rounding``; ``pooled``, the sample's relaxation with
    short work pooled, where the caller has built it), else the MILP, each stage held in turn
    on one built model: each solve's bounds and sunk cost are given back after it, and the
    model is built again only where a solve's whole-chip rounds added rows to it (a build
    costs about as much as a held solve on 1,000 workloads)."""
    model: PlacementModel | None = None
    costs: list[float | None] = []
    if pooled is None and stages:
        pooled, _ = pooled_relaxation(estimates, catalog, solver)
    for stage in stages:
        assert pooled is not None
        try:
            rounded = rounded_held(pooled, estimates, catalog, stage, solver)
        except FirstStageInfeasible:
            costs.append(None)
            continue
        if rounded is not None and rounded.proven(solver.gap):
            costs.append(rounded.cost_usd)
            continue
        if model is None:
            model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog)
        problem = model.problem
        rows = len(problem._constraints)
        try:
            with stage_held(model, stage, catalog):
                result = solve_plan_model(model, catalog, solver)
        except FirstStageInfeasible:
            costs.append(None)
            continue
        # The rounded plan is a held plan too: the MILP's, within its gap, may cost more.
        plans = [result.objective if result.has_solution else None]
        plans.append(None if rounded is None else rounded.cost_usd)
        costs.append(min((usd for usd in plans if usd is not None), default=None))
        if len(problem._constraints) != rows:
            model = None
    return tuple(costs)


def best_known(result: SolveResult, *held: float | None) -> float | None:
    """The sample's optimum: its solve's cost, or a held plan's where that is lower (a held
    plan is a plan of the same model, found within the same gap)."""
    return lowest_known(result.objective if result.has_solution else None, held)


def lowest_known(optimal: float | None, held: Iterable[float | None]) -> float | None:
    """``optimal`` (a sample's optimum found; None: none), or the lowest of ``held`` (its held
    plans' costs) where that is lower; None where no optimum was found."""
    if optimal is None:
        return None
    return min([optimal, *(h for h in held if h is not None)])


def staying_usd(
    estimates: Estimates, catalog: Catalog, solver: SolverOptions, no_migration: float | None
) -> float | None:
    """Staying where the team is: each workload with a current accelerator there, the others on
    adopted platforms with nothing ported; commitments chosen as in any plan. Without current
    accelerators that is the best plan without migrating (``no_migration``). None where a
    placeable workload cannot stay."""
    workloads = estimates.workloads
    if "current_accelerator" not in workloads or workloads["current_accelerator"].isna().all():
        return no_migration
    options = estimates.options
    current = options["workload"].map(workloads["current_accelerator"])
    new_here = current.isna() & ~options["needs_migration"] & ~options["needs_port"]
    allowed = options["feasible"] & (new_here | options["accelerator"].eq(current))
    placeable = set(options.loc[options["feasible"], "workload"])
    if set(options.loc[allowed, "workload"]) != placeable:
        return None
    restricted = options.assign(feasible=allowed)
    model = build_model(restricted, workloads["id"].tolist(), catalog)
    result = solve_plan_model(model, catalog, solver)
    return result.objective if result.has_solution else None


def placement_by_position(solution: Solution | None, workloads: int) -> tuple[str | None, ...]:
    """The accelerator of each of ``workloads`` workloads in the solution, by inventory
    position (None: not placed)."""
    where: dict[int, str] = {}
    if solution is not None:
        chosen = solution.chosen
        where = dict(
            zip(chosen["workload"].astype(int), chosen["accelerator"].astype(str), strict=True)
        )
    return tuple(where.get(i) for i in range(workloads))


def placement_frame(outcomes: list[SampleOutcome], ids: list[str]) -> pd.DataFrame:
    """Where each workload runs in each sample's optimum: one row per sample, one column per
    workload id (failed samples left out)."""
    rows = [o.placement for o in outcomes if o.error is None]
    return pd.DataFrame(rows, columns=ids)


@dataclass(frozen=True)
class StageBatch:
    """Samples in which to price several first stages held fixed, or, with no stage, each
    sample's own optimum: for ``plan --robust``."""

    inventory: Inventory
    document: dict[str, Any]
    figures: tuple[Figure, ...]
    samples: SampleRows
    stages: tuple[FirstStage, ...]
    solver: SolverOptions


@dataclass(frozen=True)
class StageCosts:
    """One sample: its optimum (None where not asked or not found) and each stage's held cost
    (None where the stage cannot run there)."""

    index: int
    optimal_usd: float | None = None
    held_usd: tuple[float | None, ...] = ()
    error: str | None = None


def price_stages(batch: StageBatch) -> list[StageCosts]:
    """Every sample of the batch (a module-level function for worker processes and Dask)."""
    figures = list(batch.figures)
    out = []
    for index, values in batch.samples:
        try:
            catalog, inventory = sampled(batch.document, batch.inventory, figures, values)
            estimates = estimate(inventory.workloads, catalog)
            held = held_plans_usd(estimates, catalog, batch.stages, batch.solver)
            optimal = None
            if not batch.stages:
                _, result, _ = solve_from_greedy(estimates, catalog, batch.solver)
                optimal = best_known(result, *held)
            out.append(StageCosts(index, optimal, held))
        except Exception as err:
            out.append(StageCosts(index, error=f"{type(err).__name__}: {err}"))
    return out

"""``placement risk``: the point plan against the catalog's ranges, by Monte Carlo.

1. The point plan: every figure at its point, planned as ``placement plan`` plans it.
2. ``samples`` draws of every uncertain figure (``sampling``), sample ``i`` from ``(seed, i)``
   alone, so the figures and every result are the same whatever runs them.
3. Each sample planned (``evaluate``) in batches of tens, on local worker processes or a Dask
   cluster (``comparing.batch.Runner``); a sample that fails is recorded, not fatal.
4. The summary (``summary``): spreads, regret, chances, shares and drivers.
5. With ``horizon``: the point roadmap too, held fixed in every sample, month by month
   (``held_roadmap``): the fan chart of its monthly cost.

Where no figure varies (every range of zero width), every sample is the point case: it is
planned once and its plan is every sample's.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from placement.catalog import CatalogSource, read_catalog
from placement.comparing.batch import Runner, planned_inventory
from placement.errors import PlacementInputError
from placement.formulating.first_stage import FirstStage
from placement.models.catalog import Catalog
from placement.models.plan import Roadmap
from placement.models.risk import RiskResult
from placement.pipeline import PlanResult, plan
from placement.reading import Inventory
from placement.scenarios import Scenario, apply_scenario
from placement.solving.solver import SolverOptions
from placement.uncertainty.evaluate import (
    SampleBatch,
    SampleOutcome,
    evaluate_batch,
    first_stage_of,
    placement_by_position,
    placement_frame,
    staying_usd,
)
from placement.uncertainty.held_roadmap import horizon_summary, point_roadmap_months
from placement.uncertainty.limits import (
    DEFAULT_SAMPLES,
    MAX_SAMPLES,
    sampled_work_problem,
)
from placement.uncertainty.sampling import (
    Figure,
    catalog_document,
    draw_values,
    inventory_figures,
    sample_chunks,
    uncertain_figures,
)
from placement.uncertainty.summary import (
    beats,
    drivers,
    figures_drawn,
    regret,
    sample_costs,
    spread,
    trainium_share,
)

SAMPLES_PER_TASK = (10, 50)
"""A task holds between this many samples: enough to pay for sending the inventory and catalog
once, few enough that every worker stays busy to the end."""

SampleProgress = Callable[[int, int], None]
"""Told (samples done, samples in all) as batches finish."""


def risk(
    inventory: str | os.PathLike[str] | Inventory,
    catalog: Catalog | CatalogSource | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    solver: SolverOptions | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: SampleProgress | None = None,
    input_format: str | None = None,
    sheet: str | None = None,
    scenario: Scenario | None = None,
    horizon: int | None = None,
) -> RiskResult:
    """The risk result of ``risk_with_point_plan`` (the same arguments)."""
    result, _ = risk_with_point_plan(
        inventory,
        catalog,
        samples,
        seed,
        solver,
        workers,
        scheduler,
        progress,
        input_format,
        sheet,
        scenario,
        horizon,
    )
    return result


def risk_with_point_plan(
    inventory: str | os.PathLike[str] | Inventory,
    catalog: Catalog | CatalogSource | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    solver: SolverOptions | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: SampleProgress | None = None,
    input_format: str | None = None,
    sheet: str | None = None,
    scenario: Scenario | None = None,
    horizon: int | None = None,
) -> tuple[RiskResult, PlanResult]:
    """Plan the inventory at the catalog's points, then in ``samples`` draws of its ranges
    (see the module's docstring); ``workers`` local processes (default: every core) or the Dask
    cluster at ``scheduler`` plan the samples. ``scenario`` (from ``read_scenario``) changes the
    catalog and the inventory first: the futures are drawn around its figures. ``horizon``
    (months) also plans the roadmap and prices it, held fixed, in every sample. Returns the
    result and the point plan it stands on (what ``risk --save`` saves beside it)."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise PlacementInputError(
            [f"--samples {samples}: expected a whole number from 1 to {MAX_SAMPLES:,}"],
            title="invalid option",
        )
    solver = solver or SolverOptions()
    given: Catalog | CatalogSource = catalog if catalog is not None else read_catalog()

    def read(model: Catalog) -> Inventory:
        return planned_inventory(inventory, model, input_format, sheet)

    if scenario is None:
        inv = read(given.catalog if isinstance(given, CatalogSource) else given)
    else:
        given, inv = apply_scenario(given, scenario, read)
    model = given.catalog if isinstance(given, CatalogSource) else given
    too_much = sampled_work_problem(samples, len(inv.workloads), months=horizon)
    if too_much:
        raise PlacementInputError([too_much], title="invalid option")
    point = plan(inv, given, solver)
    figures = uncertain_figures(model) + inventory_figures(inv.workloads, model)
    values = draw_values(model, figures, seed, samples)
    stage = first_stage_of(point.solution)
    planned = None if horizon is None else plan(inv, given, solver, horizon=horizon)
    roadmap, point_months = (
        (None, None) if planned is None else point_roadmap_months(planned, model, solver)
    )
    if figures:
        work = Work(stage, solver, roadmap)
        outcomes = _sampled(inv, model, figures, values, work, workers, scheduler, progress)
    else:
        point_outcome = _point_outcome(point, solver, point_months, roadmap is not None)
        outcomes = [replace(point_outcome, index=i) for i in range(samples)]
        if progress:
            progress(samples, samples)
    result = _summarise(point, model, figures, values, outcomes, seed, solver)
    update: dict[str, object] = {"scenario": scenario.name if scenario else None}
    if planned is not None and horizon is not None:
        update["horizon"] = horizon_summary(
            horizon, planned, point_months, figures, values, outcomes
        )
    return result.model_copy(update=update), point


@dataclass(frozen=True)
class Work:
    """What each sample is asked: the base plan's first stage to hold, how to solve, and the
    roadmap to hold month by month (``--horizon``; None without)."""

    stage: FirstStage
    solver: SolverOptions
    roadmap: Roadmap | None


def _sampled(
    inventory: Inventory,
    catalog: Catalog,
    figures: list[Figure],
    values: np.ndarray,
    work: Work,
    workers: int | None,
    scheduler: str | None,
    progress: SampleProgress | None,
) -> list[SampleOutcome]:
    """Every sample planned, in batches, in sample order."""
    count = len(values)
    runner = Runner(workers, scheduler)
    size = _batch_size(count, runner.workers if scheduler is None else 8)
    document = catalog_document(catalog)
    batches = [
        SampleBatch(
            inventory, document, tuple(figures), chunk, work.stage, work.solver, work.roadmap
        )
        for chunk in sample_chunks(values, range(count), size)
    ]

    def told(done: int, total: int) -> None:
        if progress:
            progress(min(done * size, count), count)

    with runner:
        results = runner.run(batches, told, task=evaluate_batch)
    return [outcome for batch in results for outcome in batch]


def _batch_size(samples: int, workers: int) -> int:
    """Samples per task: four tasks a worker where that keeps within ``SAMPLES_PER_TASK``."""
    smallest, largest = SAMPLES_PER_TASK
    return max(1, min(largest, max(smallest, math.ceil(samples / (4 * max(workers, 1))))))


def _point_outcome(
    point: PlanResult,
    solver: SolverOptions,
    roadmap_months: tuple[float, ...] | None = None,
    with_roadmap: bool = False,
) -> SampleOutcome:
    """The point case as a sample: its plan is the point plan, held or not, and with a
    roadmap its months priced at the points (broken where even they cannot hold it)."""
    objective = point.solve.objective if point.solve.has_solution else None
    no_migration = point.plan.baselines.all_h100_optimal_usd
    return SampleOutcome(
        index=0,
        optimal_usd=objective,
        base_plan_usd=objective,
        all_h100_usd=no_migration,
        staying_usd=staying_usd(point.estimates, point.catalog, solver, no_migration),
        placement=placement_by_position(point.solution, len(point.estimates.workloads)),
        roadmap_months=roadmap_months,
        roadmap_broken=with_roadmap and roadmap_months is None,
    )


def _summarise(
    point: PlanResult,
    catalog: Catalog,
    figures: list[Figure],
    values: np.ndarray,
    outcomes: list[SampleOutcome],
    seed: int,
    solver: SolverOptions,
) -> RiskResult:
    good = [o for o in outcomes if o.error is None]
    optimal = [o.optimal_usd for o in good]
    held = [o.base_plan_usd for o in good]
    no_migration = [o.all_h100_usd for o in good]
    staying = [o.staying_usd for o in good]
    porting = catalog.porting_accelerators()
    ids = point.inventory.workloads["id"].astype(str).tolist()
    costs_by_sample = {o.index: o.optimal_usd for o in good}
    return RiskResult(
        samples=len(outcomes),
        seed=seed,
        failed_samples=len(outcomes) - len(good),
        failures=[sample_costs(o) for o in outcomes if o.error is not None],
        point_plan_status=point.plan.status,
        point_plan_unplaced=len(point.plan.unplaced),
        point_plan_cost_usd=None
        if point.solve.objective is None
        else round(point.solve.objective, 2),
        optimal_cost_usd=spread(optimal),
        base_plan_cost_usd=spread(held),
        all_h100_cost_usd=spread(no_migration),
        staying_cost_usd=spread(staying),
        regret_usd=regret(good),
        probability_beats_all_h100=beats(optimal, no_migration, solver.gap),
        probability_beats_staying=beats(optimal, staying, solver.gap),
        probability_base_plan_beats_all_h100=beats(held, no_migration, solver.gap),
        probability_base_plan_beats_staying=beats(held, staying, solver.gap),
        base_plan_infeasible_samples=sum(o.base_plan_usd is None for o in good),
        trainium_share=trainium_share(placement_frame(good, ids), set(porting)),
        trainium_accelerators=porting,
        drivers=drivers(
            figures,
            values,
            [costs_by_sample.get(i) for i in range(len(values))],
        )
        if figures
        else [],
        figures=figures_drawn(figures),
        sample_costs=[sample_costs(o) for o in outcomes],
        solver=solver.solver,
        gap=solver.gap,
    )

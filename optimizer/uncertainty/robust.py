"""``plan --robust``: a plan whose commitments, ports and migration hold up when the figures
move.

1. The point plan (given: ``plan``'s result, any scenario applied), and ``samples`` draws of
   the catalog's figures (``sampling``, the draws of ``risk`` for the same seed).
2. The two-stage stochastic program over the samples (``formulating.stochastic``): the first
   stage shared, placement per sample (relaxed), expected cost plus an optional CVaR term.
3. Its first stage and the point plan's, each held fixed and priced in every sample with whole
   placements and whole chips (``first_stage.hold_first_stage``), beside each sample's own
   optimum (which needs no first stage: the workers solve it while step 2 runs here). The
   first stage chosen is the one with the lower objective (expected cost, and CVaR with its
   weight) among those that run in every sample: so the robust plan's expected cost on its
   samples is never above the point plan's.
4. Both priced again on fresh samples (indexes after the first ``samples``): the mean gap and
   its 95% interval (normal approximation), as mpi-sppy's ``mmw_ci`` does for a candidate.
5. The plan itself: the point figures' plan with the chosen first stage held (its placement
   and on-demand use chosen at the points), with the ``robust`` block.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from functools import partial
from statistics import NormalDist

import numpy as np

from placement.analysing.assembly import assemble_plan
from placement.analysing.baselines import compute_baselines
from placement.analysing.extract import extract_solution
from placement.comparing.batch import Runner, default_workers
from placement.errors import PlacementInputError
from placement.estimating import estimate
from placement.formulating.build import build_model
from placement.formulating.first_stage import FirstStage, FirstStageInfeasible
from placement.formulating.stochastic import extensive_form
from placement.models.catalog import Catalog
from placement.models.plan import OutOfSample, RobustReport
from placement.pipeline import PlanResult
from placement.reading import Inventory
from placement.solving.lshaped import solve_by_decomposition
from placement.solving.solver import SolverOptions, solve_model
from placement.uncertainty.evaluate import (
    StageBatch,
    StageCosts,
    first_stage_of,
    lowest_known,
    price_stages,
)
from placement.uncertainty.held_rounding import solve_held
from placement.uncertainty.limits import (
    DEFAULT_ROBUST_SAMPLES,
    MAX_ROBUST_SAMPLES,
    robust_work_problem,
)
from placement.uncertainty.sampling import (
    Figure,
    catalog_document,
    draw_values,
    inventory_figures,
    sample_chunks,
    sampled,
    uncertain_figures,
)
from placement.uncertainty.summary import cents

UNWEIGHTED_CVAR_ALPHA = 0.95
"""The tail's level given to the program where no ``--cvar`` weights the tail (its weight is
then 0, and the level changes nothing)."""

CONFIDENCE = 0.95
"""Of the out-of-sample interval on the gap."""

SAMPLES_PER_TASK = 5
"""Samples priced per worker task (each prices two held stages, or its own optimum)."""


def robust_plan(
    point: PlanResult,
    samples: int = DEFAULT_ROBUST_SAMPLES,
    seed: int = 0,
    cvar: tuple[float, float] | None = None,
    solver: SolverOptions | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    out_of_sample: int | None = None,
) -> PlanResult:
    """The robust plan of the steady-state plan ``point`` (from ``plan``, its scenario already
    applied; see the module's docstring). ``cvar`` is (alpha, weight): the level of the tail
    and its weight against the expected cost (0 to 1); ``out_of_sample`` fresh samples to check
    it on (default: as many as ``samples``; 0: none)."""
    if not 2 <= samples <= MAX_ROBUST_SAMPLES:
        raise PlacementInputError(
            [f"--samples {samples}: expected 2 to {MAX_ROBUST_SAMPLES} for --robust"],
            title="invalid option",
        )
    too_much = robust_work_problem(samples, len(point.inventory.workloads))
    if too_much:
        raise PlacementInputError([too_much], title="invalid option")
    solver = solver or SolverOptions()
    alpha, weight = cvar if cvar is not None else (None, 0.0)
    model = point.catalog
    point_stage = first_stage_of(point.solution)
    figures = uncertain_figures(model) + inventory_figures(point.inventory.workloads, model)
    fresh = samples if out_of_sample is None else out_of_sample
    values = draw_values(model, figures, seed, samples + fresh)
    document = catalog_document(model)
    futures = [sampled(document, point.inventory, figures, row) for row in values[:samples]]
    batches = partial(_stage_batches, point.inventory, document, figures, values, solver=solver)
    with Runner(workers, scheduler) as runner:
        # Each sample's own optimum needs no first stage: the workers start on it while this
        # process builds the sample models and solves the program.
        optima = runner.submit(batches(range(samples), ()), task=price_stages)
        program_stage, program_objective = _solve_program(
            point, point_stage, futures, alpha, weight, solver, workers or default_workers()
        )
        stages = (program_stage, point_stage)
        held = _flat(runner.run(batches(range(samples), stages), task=price_stages))
        priced = _with_optima(held, _flat(optima.results()))
        good = [p for p in priced if p.error is None]
        objectives = [_objective([p.held_usd[i] for p in good], alpha, weight) for i in (0, 1)]
        chosen_index = (
            0
            if objectives[0] is not None
            and (objectives[1] is None or objectives[0] <= objectives[1])
            else 1
        )
        chosen = stages[chosen_index]
        checked = (
            _flat(
                runner.run(
                    batches(range(samples, samples + fresh), (chosen, point_stage)),
                    task=price_stages,
                )
            )
            if fresh
            else []
        )
    report = _report(
        good, len(priced), chosen_index, seed, alpha, weight, program_objective, checked
    )
    return _held_plan(point, chosen, report, solver)


def _solve_program(
    point: PlanResult,
    point_stage: FirstStage,
    futures: list[tuple[Catalog, Inventory]],
    alpha: float | None,
    weight: float,
    solver: SolverOptions,
    at_once: int,
) -> tuple[FirstStage, float | None]:
    """The stochastic program's first stage over the samples, and its objective: by
    decomposition from the point plan's first stage (``solving.lshaped``, ``at_once`` sample
    LPs at a time), else (another solver, a sample the method cannot price) as the extensive
    form."""
    ids = point.estimates.workloads["id"].tolist()
    catalogs = [c for c, _ in futures]
    models = [build_model(estimate(inv.workloads, c).options, ids, c) for c, inv in futures]
    decomposed = solve_by_decomposition(
        models,
        catalogs,
        point_stage,
        alpha or UNWEIGHTED_CVAR_ALPHA,
        weight,
        solver.solver,
        solver.time_limit_s,
        solver.gap,
        at_once,
    )
    if decomposed is not None:
        return decomposed.stage, decomposed.objective
    form = extensive_form(models, catalogs, alpha or UNWEIGHTED_CVAR_ALPHA, weight)
    result = solve_model(form, solver.solver, solver.time_limit_s, solver.gap)
    if not result.has_solution:
        return FirstStage.nothing(), None
    return form.first_stage(), result.objective


def _stage_batches(
    inventory: Inventory,
    document: dict,
    figures: list[Figure],
    values: np.ndarray,
    indexes: range,
    stages: tuple[FirstStage, ...],
    solver: SolverOptions,
) -> list[StageBatch]:
    """The samples of ``indexes`` in worker tasks pricing ``stages`` held; with no stage, each
    sample's own optimum."""
    return [
        StageBatch(inventory, document, tuple(figures), chunk, stages, solver)
        for chunk in sample_chunks(values, indexes, SAMPLES_PER_TASK)
    ]


def _flat(batches: Iterable[list[StageCosts]]) -> list[StageCosts]:
    """The samples' costs, in order, from the workers' batches."""
    return [costs for batch in batches for costs in batch]


def _with_optima(held: list[StageCosts], optima: list[StageCosts]) -> list[StageCosts]:
    """Each sample's held costs with its optimum: the optimum solved, or a held plan's cost
    where that is lower (``evaluate.lowest_known``: a held plan is a plan of the same model);
    a sample failed in either is failed."""
    joined = []
    for costs, own in zip(held, optima, strict=True):
        assert costs.index == own.index
        error = costs.error or own.error
        optimal = lowest_known(own.optimal_usd, costs.held_usd)
        joined.append(replace(costs, optimal_usd=optimal, error=error))
    return joined


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(np.mean(known)) if known and len(known) == len(values) else None


def _cvar(values: list[float | None], alpha: float | None) -> float | None:
    """The mean of the costliest (1 - alpha) share of the samples (interpolated at the cut)."""
    if alpha is None or any(v is None for v in values) or not values:
        return None
    ordered = np.sort(np.array(values, dtype=float))[::-1]
    tail = (1 - alpha) * len(ordered)
    whole = math.floor(tail)
    total = ordered[:whole].sum() + (tail - whole) * (ordered[whole] if whole < len(ordered) else 0)
    return float(total / tail) if tail > 0 else float(ordered[0])


def _objective(values: list[float | None], alpha: float | None, weight: float) -> float | None:
    """(1 - w) E + w CVaR of a stage's held costs; None where it cannot run in some sample."""
    mean = _mean(values)
    if mean is None:
        return None
    if weight == 0 or alpha is None:
        return mean
    tail = _cvar(values, alpha)
    assert tail is not None
    return (1 - weight) * mean + weight * tail


def _report(
    priced: list[StageCosts],
    count: int,
    chosen: int,
    seed: int,
    alpha: float | None,
    weight: float,
    program_objective: float | None,
    checked: list[StageCosts],
) -> RobustReport:
    robust = [p.held_usd[chosen] for p in priced]
    point = [p.held_usd[1] for p in priced]
    expected, point_expected = _mean(robust), _mean(point)
    perfect = _mean([p.optimal_usd for p in priced])
    tail, point_tail = _cvar(robust, alpha), _cvar(point, alpha)
    objective, point_objective = _objective(robust, alpha, weight), _objective(point, alpha, weight)
    premium = None
    if tail is not None and point_tail is not None and expected is not None:
        removed = point_tail - tail
        if removed > 0 and point_expected is not None:
            premium = round((expected - point_expected) / removed, 4)
    return RobustReport(
        samples=count,
        seed=seed,
        failed_samples=count - len(priced),
        cvar_alpha=alpha,
        cvar_weight=weight,
        chosen="stochastic program" if chosen == 0 else "point plan",
        expected_cost_usd=cents(expected),
        point_plan_expected_cost_usd=cents(point_expected),
        objective_usd=cents(objective),
        point_plan_objective_usd=cents(point_objective),
        value_of_stochastic_solution_usd=cents(
            None if objective is None or point_objective is None else point_objective - objective
        ),
        perfect_information_cost_usd=cents(perfect),
        expected_value_of_perfect_information_usd=cents(
            None if expected is None or perfect is None else expected - perfect
        ),
        cvar_usd=cents(tail),
        point_plan_cvar_usd=cents(point_tail),
        tail_premium=premium,
        program_objective_usd=cents(program_objective),
        held_infeasible_samples=sum(v is None for v in robust),
        out_of_sample=_out_of_sample(checked) if checked else None,
    )


def _out_of_sample(checked: list[StageCosts]) -> OutOfSample:
    """The gap between the robust and the point plan on fresh samples, with its interval."""
    pairs = [
        (c.held_usd[0], c.held_usd[1])
        for c in checked
        if c.error is None and c.held_usd[0] is not None and c.held_usd[1] is not None
    ]
    if not pairs:
        return OutOfSample(
            samples=0,
            robust_mean_usd=None,
            point_plan_mean_usd=None,
            gap_mean_usd=None,
            gap_ci_low_usd=None,
            gap_ci_high_usd=None,
            confidence=CONFIDENCE,
        )
    robust, point = (np.array(x, dtype=float) for x in zip(*pairs, strict=True))
    gaps = robust - point
    mean = float(gaps.mean())
    half = (
        NormalDist().inv_cdf(0.5 + CONFIDENCE / 2) * float(gaps.std(ddof=1)) / math.sqrt(len(gaps))
        if len(gaps) > 1
        else math.inf
    )
    return OutOfSample(
        samples=len(pairs),
        robust_mean_usd=cents(float(robust.mean())),
        point_plan_mean_usd=cents(float(point.mean())),
        gap_mean_usd=cents(mean),
        gap_ci_low_usd=cents(mean - half) if math.isfinite(half) else None,
        gap_ci_high_usd=cents(mean + half) if math.isfinite(half) else None,
        confidence=CONFIDENCE,
    )


def _held_plan(
    point: PlanResult, stage: FirstStage, report: RobustReport, solver: SolverOptions
) -> PlanResult:
    """The point figures' plan with ``stage`` held, carrying the report (the point plan itself
    where the stage cannot run at the points)."""
    estimates, catalog = point.estimates, point.catalog
    try:
        model, result = solve_held(estimates, catalog, stage, solver)
    except FirstStageInfeasible:
        return replace(point, plan=point.plan.model_copy(update={"robust": report}))
    if not result.has_solution:
        return replace(point, plan=point.plan.model_copy(update={"robust": report}))
    solution = extract_solution(model, catalog)
    baselines = compute_baselines(estimates, catalog, solver, result.objective)
    assembled = assemble_plan(
        estimates, catalog, point.inventory.extra_columns, result, solution, baselines
    )
    assembled = assembled.model_copy(update={"run": point.plan.run, "robust": report})
    return replace(point, plan=assembled, solve=result, solution=solution)

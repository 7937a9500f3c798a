"""The planning pipeline: read -> estimate -> build -> solve -> extract -> baselines -> plan.

Each stage is a function with typed inputs and outputs; none modifies its input. ``plan()`` runs
them in order and is what the CLI and notebooks call.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from placement.analysing.assembly import assemble_plan, plan_status
from placement.analysing.baselines import compute_baselines
from placement.analysing.extract import (
    Decisions,
    Solution,
    extract_decisions,
    extract_solution,
)
from placement.analysing.frames import plan_frames, summary_html
from placement.analysing.moves import with_lead
from placement.analysing.provenance import now_utc, run_info
from placement.analysing.showback import scaled_shares
from placement.catalog import CatalogSource, read_catalog
from placement.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_UNPLACED, PlacementInputError
from placement.estimating import Estimates, estimate
from placement.estimating.plausibility import check_plausible_total
from placement.formulating.build import build_model
from placement.formulating.model import FormulationSettings, PlacementModel
from placement.models.catalog import Catalog
from placement.models.plan import CostBreakdown, Plan, SolverInfo
from placement.reading import Inventory, read_inventory
from placement.reading.limits import SizeLimit
from placement.scenarios import Scenario, apply_scenario
from placement.solving.conflicts import conflicts
from placement.solving.model_file import model_file_text
from placement.solving.proof import Bound, proven_within_gap, relaxation_bound
from placement.solving.solver import SolveResult, SolverOptions, SolveStatus
from placement.solving.start import GreedyPlan, price_greedy, start_values
from placement.solving.whole_chips import solve_plan_model
from placement.writing.files import write_output

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_UNPLACED", "PlanResult", "SolverOptions", "plan"]


@dataclass(frozen=True)
class PlanResult:
    """Everything a plan run produced: the plan and the stages behind it."""

    plan: Plan
    inventory: Inventory
    catalog: Catalog
    estimates: Estimates
    solve: SolveResult
    solution: Solution | None

    def frames(self) -> dict[str, pd.DataFrame]:
        """The plan as flat DataFrames: assignments, options, commitments, moves, slices,
        roadmap (months) and showback (``analysing.frames``)."""
        return plan_frames(self.plan)

    def _repr_html_(self) -> str:
        return summary_html(self.plan)

    def __repr__(self) -> str:
        return f"PlanResult({self.plan.summary()})"

    @property
    def exit_code(self) -> int:
        """0 when every workload is planned; 3 when some are unplaced or no plan was found."""
        if self.plan.unplaced or self.plan.status in ("infeasible", "no_solution"):
            return EXIT_UNPLACED
        return EXIT_OK


CENT_USD = 0.01
"""A plan costing more than its start by more than this (a cent a month, below rounding) is
replaced by the start's placement (``solve_placement``)."""


def solve_placement(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    settings: FormulationSettings | None = None,
    model_path: str | os.PathLike[str] | None = None,
    start: GreedyPlan | None = None,
    bound: Bound | None = None,
) -> tuple[SolveResult, PlacementModel | None]:
    """Build and solve the MILP over the estimates' options; the solved model whose values are
    the plan (None where there is none), for the caller to read.

    ``start`` (a priced placement, e.g. the greedy one) is handed to the solver as the plan to
    search from; where a relaxation's bound already proves it within the gap
    (``solving.proof``), it is the plan and no MILP is built (unless ``model_path`` asks for the
    model's file). ``bound``: that relaxation's bound where the caller has it already (for
    these estimates and ``settings``)."""
    solved = start.solved if start is not None else None
    if solved is not None and model_path is None:
        bound = bound or relaxation_bound(estimates, catalog, solver, settings)
        proven = proven_within_gap(solved.result, bound, solver.gap)
        if proven is not None:
            return proven, solved.model
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog, settings)
    if model_path is not None:
        write_output(model_path, model_file_text(model, model_path))
    result = solve_plan_model(model, catalog, solver, start=start_values(model, start))
    if (
        solved is not None
        and solved.result.objective is not None
        and result.objective is not None
        and result.objective > solved.result.objective + CENT_USD
    ):
        # Counting cover in whole chips keeps the placement the first solve found; where that
        # placement costs more in whole chips than the start's does, the start's placement is
        # the plan. The first solve's bound still bounds the optimum, so the gap stated holds.
        result = replace(
            solved.result,
            status=result.status,
            time_s=result.time_s + solved.result.time_s,
            gap=result.gap,
            relaxed_objective=result.relaxed_objective,
            termination=f"{result.termination}; the start's placement costs less in whole "
            f"chips (${solved.result.objective:,.2f} a month) and is the plan",
        )
        model = solved.model
    return result, model if result.has_solution else None


def _plan_horizon(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    months: int,
    extra_columns: tuple[str, ...],
    progress: Progress,
) -> tuple[Plan, SolveResult, Solution | None]:
    """The roadmap over ``months``, and the steady-state plan of the end state it leads to,
    with the objective, cost breakdown and showback of the horizon (monthly averages)."""
    # Imported here: a steady-state plan (and its command's start-up) needs none of it.
    from placement.horizon.model import COMPONENTS
    from placement.horizon.releases import catalog_in
    from placement.horizon.solve import solve_horizon

    progress(f"building and solving the {months}-month roadmap ({solver.solver})")
    horizon = solve_horizon(
        estimates, catalog, months, solver.solver, solver.time_limit_s, solver.gap
    )
    roadmap = horizon.roadmap
    if roadmap is None:
        empty = compute_baselines(estimates, catalog, solver, None)
        plan_ = assemble_plan(estimates, catalog, extra_columns, horizon.result, None, empty)
        return plan_, horizon.result, None
    progress("pricing the end state")
    # The end state runs on the SDK of the horizon's last month (its dated features in force).
    end_catalog = catalog_in(catalog, months)
    if end_catalog is not catalog:
        catalog = end_catalog
        estimates = estimate(estimates.workloads, catalog)
    result, model = solve_placement(
        estimates,
        catalog,
        solver,
        FormulationSettings(fixed_accelerators=horizon.end_placement),
    )
    solution = None if model is None else extract_solution(model, catalog)
    progress("computing the baselines")
    baselines = compute_baselines(estimates, catalog, solver, result.objective)
    progress("assembling the plan and its explanations")
    plan_ = assemble_plan(estimates, catalog, extra_columns, result, solution, baselines)
    totals = {c: sum(getattr(m, c) for m in roadmap.months) for c in COMPONENTS}
    breakdown = CostBreakdown(
        on_demand_usd=round(totals["on_demand_usd"] / months, 2),
        reserved_usd=round(
            (totals["commitments_usd"] + roadmap.after_horizon_charged_usd) / months, 2
        ),
        porting_amortized_usd=round(totals["porting_usd"] / months, 2),
        migration_amortized_usd=round(totals["migration_usd"] / months, 2),
        switching_amortized_usd=round(totals["switching_usd"] / months, 2),
    )
    objective = round(breakdown.total_usd, 2)
    shares = scaled_shares(
        {i: a.showback_monthly_usd or 0.0 for i, a in enumerate(plan_.assignments)}, objective
    )
    assignments = [
        a.model_copy(update={"showback_monthly_usd": shares.get(i, 0.0)})
        for i, a in enumerate(plan_.assignments)
    ]
    # A move's saving starts when the roadmap moves the workload, not when a lone port would
    # be ready: the roadmap queues ports and may wait out commitments.
    ready = {w.workload_id: w.ready_month for w in roadmap.workloads if w.ready_month}
    moves = [
        with_lead(m, ready[m.workload_id] - 1) if m.workload_id in ready else m for m in plan_.moves
    ]
    plan_ = plan_.model_copy(
        update={
            "status": plan_status(horizon.result),
            "moves": moves,
            "objective_monthly_usd": objective,
            "cost_breakdown": breakdown,
            "assignments": assignments,
            "roadmap": roadmap.model_copy(
                update={
                    "objective_monthly_usd": objective,
                    "end_state_monthly_usd": None
                    if result.objective is None
                    else round(result.objective, 2),
                }
            ),
            "solver": SolverInfo(
                name=horizon.result.solver,
                time_s=round(horizon.result.time_s, 3),
                gap=horizon.result.gap,
                termination=horizon.result.termination,
            ),
        }
    )
    return plan_, horizon.result, solution


Progress = Callable[[str], None]
"""Told the name of each stage as it starts (the CLI shows it on a terminal's stderr)."""


def _silent(stage: str) -> None:
    """The default progress: say nothing."""


GC_ALLOCATIONS_PER_COLLECTION = 100_000
"""Python's youngest-generation threshold while a plan is made (700 by default). A plan
allocates millions of small objects (model coefficients, option records, the plan's models)
that live until it is done; at the default every 700 allocations start a collection that walks
them, which took 5 s of 36 at 100,000 workloads (docs/performance.md). Restored afterwards."""


@contextlib.contextmanager
def collecting_rarely() -> Iterator[None]:
    """Run the block (or, as a decorator, each call) with the cyclic garbage collector
    started less often: for a plan, and for a batch whose results (plans of thousands of
    models each) arrive in this process while earlier ones are held (``comparing.batch.
    Runner``)."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], GC_ALLOCATIONS_PER_COLLECTION), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


INFER_STRING_OPTION = "future.infer_string"
"""pandas 3's switch that makes every new column of text its Arrow-backed ``str`` dtype."""


class _TextInference:
    """pandas' ``future.infer_string`` option turned off while any caller needs it off, by
    the first to enter and restored by the last to leave: threads of one process (a Dask
    worker's) may plan at once, and one must not restore it under another."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._before = False

    def enter(self) -> None:
        with self._lock:
            if self._inside == 0:
                try:
                    self._before = bool(_quietly(pd.get_option, INFER_STRING_OPTION))
                except (pd.errors.OptionError, KeyError):
                    self._before = False  # pandas 4, or before 2.1: nothing to turn off
                if self._before:
                    _quietly(pd.set_option, INFER_STRING_OPTION, False)
            self._inside += 1

    def leave(self) -> None:
        with self._lock:
            self._inside -= 1
            if self._inside == 0 and self._before:
                _quietly(pd.set_option, INFER_STRING_OPTION, True)


_TEXT_INFERENCE = _TextInference()


@contextlib.contextmanager
def strings_as_objects() -> Iterator[None]:
    """Run the block (or, as a decorator, each call) with pandas making columns of text as
    Python objects, not pandas 3's Arrow-backed ``str``. A plan makes hundreds of small
    frames and series of text (reasons, sizing sentences, accelerator and pricing names) of a
    few thousand rows, where each Arrow operation's fixed cost outweighs its work: a
    1,000-workload plan took 15-20% less time so (docs/performance.md). The option is
    deprecated and will leave pandas 4; where it is gone this does nothing. Restored
    afterwards."""
    _TEXT_INFERENCE.enter()
    try:
        yield
    finally:
        _TEXT_INFERENCE.leave()


def _quietly(call: Callable[..., Any], *args: Any) -> Any:
    """``call(*args)`` without the deprecation warning that reading or setting the option gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return call(*args)


@collecting_rarely()
def plan(
    inventory: str | os.PathLike[str] | pd.DataFrame | Inventory,
    catalog: Catalog | CatalogSource | None = None,
    solver: SolverOptions | None = None,
    model_path: str | os.PathLike[str] | None = None,
    progress: Progress = _silent,
    input_format: str | None = None,
    sheet: str | None = None,
    limit: SizeLimit | None = None,
    scenario: Scenario | None = None,
    horizon: int | None = None,
) -> PlanResult:
    """Plan an inventory (a path, ``-`` for stdin, a DataFrame or a read ``Inventory``)
    against a catalog (a :class:`CatalogSource` from ``read_catalog`` also records where the
    catalog came from in the plan's ``run`` block).

    ``model_path``, if given, receives the MILP as an LP or MPS file (by its extension);
    ``input_format`` overrides the inventory file's extension (and is needed for stdin);
    ``sheet`` names the workbook sheet to read. ``limit`` caps the inventory's size (by
    default, what this machine's available memory can plan); a larger one is refused before
    any work starts. ``scenario`` (from ``read_scenario``) changes the catalog, then the
    inventory, before planning. ``horizon`` (months) plans the roadmap month by month
    (``placement.horizon``): the plan's objective and cost breakdown are then the horizon's
    monthly averages, its assignments the end state the roadmap leads to.
    """
    started_at = now_utc()
    solver = solver or SolverOptions()
    # A roadmap holds every month's model: its memory, and so the size it can plan, with them.
    limit = replace(limit or SizeLimit(), months=horizon)
    source, catalog, inventory, estimates = _estimated(
        inventory, catalog, scenario, progress, input_format, sheet, limit
    )
    with strings_as_objects():
        if horizon is not None:
            from placement.horizon.timeline import growth_problems

            if problems := growth_problems(inventory.workloads, horizon, inventory.source):
                raise PlacementInputError(problems, title="invalid inventory")
            plan_, result, solution = _plan_horizon(
                estimates, catalog, solver, horizon, inventory.extra_columns, progress
            )
        else:
            plan_, result, solution = _plan_steady_state(
                estimates, catalog, solver, inventory.extra_columns, progress, model_path
            )
    run = run_info(
        inventory,
        catalog,
        source.origin if source else None,
        solver.solver,
        solver.time_limit_s,
        solver.gap,
        started_at,
        scenario,
    ).model_copy(update={"horizon_months": horizon})
    plan_ = plan_.model_copy(update={"run": run})
    return PlanResult(plan_, inventory, catalog, estimates, result, solution)


def _estimated(
    inventory: str | os.PathLike[str] | pd.DataFrame | Inventory,
    catalog: Catalog | CatalogSource | None,
    scenario: Scenario | None,
    progress: Progress = _silent,
    input_format: str | None = None,
    sheet: str | None = None,
    limit: SizeLimit | None = None,
) -> tuple[CatalogSource | None, Catalog, Inventory, Estimates]:
    """The catalog (its source, if read from one) and inventory with the scenario applied, and
    the options estimated: what every plan starts from."""
    given = read_catalog() if catalog is None else catalog
    limit = limit or SizeLimit()

    def read(model: Catalog) -> Inventory:
        if isinstance(inventory, Inventory):
            limit.check(len(inventory.workloads), inventory.source)
            return inventory
        progress("reading the inventory")
        return read_inventory(
            inventory,
            accelerator_names=list(model.accelerators),
            input_format=input_format,
            sheet=sheet,
            limit=limit,
            load_profiles=model.profile_kinds(),
        )

    if scenario is None:
        read_in = read(given.catalog if isinstance(given, CatalogSource) else given)
    else:
        given, read_in = apply_scenario(given, scenario, read)
        limit.check(len(read_in.workloads), read_in.source)
    inventory = read_in
    source = given if isinstance(given, CatalogSource) else None
    catalog = given.catalog if isinstance(given, CatalogSource) else given
    progress(f"estimating the options of {len(inventory.workloads):,} workloads")
    with strings_as_objects():
        estimates = estimate(inventory.workloads, catalog)
        check_plausible_total(estimates, catalog, inventory.source)
    return source, catalog, inventory, estimates


@collecting_rarely()
def steady_state_decisions(
    inventory: Inventory,
    catalog: Catalog | CatalogSource | None = None,
    solver: SolverOptions | None = None,
    scenario: Scenario | None = None,
) -> tuple[Estimates, SolveResult, Decisions | None]:
    """The steady state's solve alone, as :func:`plan` makes it, without the baselines or the
    plan's assembly, and its decisions (where work runs, what is ported, which migration is
    adopted) read from the solved model without the costs and coverage a ``Solution`` adds:
    for a batch that compares decisions only (a sweep's bisection, a flip point's probe)."""
    solver = solver or SolverOptions()
    _, catalog, _, estimates = _estimated(inventory, catalog, scenario)
    with strings_as_objects():
        _, result, model = _solved_from_greedy(estimates, catalog, solver)
        decided = None if model is None else extract_decisions(model)
    return estimates, result, decided


def solve_from_greedy(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    model_path: str | os.PathLike[str] | None = None,
    bound: Bound | None = None,
) -> tuple[GreedyPlan, SolveResult, Solution | None]:
    """The steady state solved from the greedy plan, priced (where it runs and what it commits
    to): the search's starting point (it can take HiGHS from seconds of searching to a
    fraction of one), the plan where the bound proves it, and a baseline (returned without
    its solved model, whose memory is not needed past the solve). ``bound``: the relaxation's
    bound (``solving.proof``) where the caller has it already."""
    greedy, result, model = _solved_from_greedy(estimates, catalog, solver, model_path, bound)
    return greedy, result, None if model is None else extract_solution(model, catalog)


def _solved_from_greedy(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    model_path: str | os.PathLike[str] | None = None,
    bound: Bound | None = None,
) -> tuple[GreedyPlan, SolveResult, PlacementModel | None]:
    """``solve_from_greedy`` with the solved model rather than the solution read from it."""
    greedy = price_greedy(estimates, catalog, solver)
    result, model = solve_placement(
        estimates, catalog, solver, model_path=model_path, start=greedy, bound=bound
    )
    return greedy.without_model(), result, model


def _plan_steady_state(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    extra_columns: tuple[str, ...],
    progress: Progress,
    model_path: str | os.PathLike[str] | None,
) -> tuple[Plan, SolveResult, Solution | None]:
    """The steady-state plan: one month once every port and migration is done."""
    progress(f"building and solving the model ({solver.solver})")
    greedy, result, solution = solve_from_greedy(estimates, catalog, solver, model_path)
    progress("computing the baselines")
    baselines = compute_baselines(estimates, catalog, solver, result.objective, greedy)
    progress("assembling the plan and its explanations")
    plan_ = assemble_plan(estimates, catalog, extra_columns, result, solution, baselines)
    if result.status is SolveStatus.INFEASIBLE:
        progress("finding the constraints that conflict")
        plan_ = with_conflicts(plan_, estimates, catalog)
    return plan_, result, solution


def with_conflicts(plan_: Plan, estimates: Estimates, catalog: Catalog) -> Plan:
    """An infeasible plan with what conflicts (``solving.conflicts``: HiGHS's IIS of the
    model's LP relaxation), in its ``conflicts`` and its message."""
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog)
    found = conflicts(model)
    message = f"{plan_.message}; the constraints that conflict are listed (JSON: conflicts)"
    return plan_.model_copy(update={"conflicts": found, "message": message})

"""The planning pipeline: read -> estimate -> build -> solve -> extract -> baselines -> plan.

Each stage is a function with typed inputs and outputs; none modifies its input. ``plan()`` runs
them in order and is what the CLI and notebooks call.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pulp
from pydantic import TypeAdapter

from placement.analysing.commitments import commitments, reserved_purchases, slice_uses
from placement.analysing.explain import PlanContext, excluded_reasons, why_for
from placement.analysing.extract import Solution, extract_solution
from placement.analysing.moves import recommended_moves
from placement.analysing.provenance import now_utc, run_info
from placement.analysing.showback import finops, pricing_coverage, scaled_shares, showback_usd
from placement.catalog import CatalogSource, read_catalog
from placement.errors import PlacementInputError, Problem
from placement.estimating import Estimates, estimate, least_busy_chips
from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.formulating.build import build_model
from placement.formulating.model import FormulationSettings, PlacementModel
from placement.horizon.formulation import COMPONENTS
from placement.horizon.releases import catalog_in
from placement.horizon.solve import solve_horizon
from placement.models.catalog import Catalog
from placement.models.plan import (
    Assignment,
    Baselines,
    Commitment,
    CostBreakdown,
    FinOps,
    Migration,
    OptionEvaluation,
    Plan,
    PlanStatus,
    PortedFamily,
    RecommendedMove,
    ReservedPurchase,
    SliceUse,
    SolverInfo,
    Unplaced,
)
from placement.reading import Inventory, read_inventory
from placement.reading.limits import SizeLimit
from placement.scenarios import Scenario, scenario_catalog, scenario_inventory
from placement.solving.greedy import greedy_placement
from placement.solving.model_file import model_file_text
from placement.solving.solver import DEFAULT_GAP, SolveResult, SolveStatus, solve_model
from placement.writing.files import write_output

_EVALUATIONS = TypeAdapter(list[OptionEvaluation])
# The option columns the explanations read (placement.analysing.explain).
_EXPLAINED = (
    "workload",
    "workload_id",
    "accelerator",
    "pricing",
    "pricing_kind",
    "platform",
    "family",
    "feasible",
    "reason",
    "monthly_cost_usd",
    "needs_port",
    "needs_migration",
)

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_UNPLACED = 3


@dataclass(frozen=True)
class SolverOptions:
    """How to solve: solver name, time limit (s) and relative MIP gap."""

    solver: str = "highs"
    time_limit_s: float | None = None
    gap: float = DEFAULT_GAP


@dataclass(frozen=True)
class PlanResult:
    """Everything a plan run produced: the plan and the stages behind it."""

    plan: Plan
    inventory: Inventory
    catalog: Catalog
    estimates: Estimates
    solve: SolveResult
    solution: Solution | None

    @property
    def exit_code(self) -> int:
        """0 when every workload is planned; 3 when some are unplaced or no plan was found."""
        if self.plan.unplaced or self.plan.status in ("infeasible", "no_solution"):
            return EXIT_UNPLACED
        return EXIT_OK


def solve_placement(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    settings: FormulationSettings | None = None,
    model_path: str | os.PathLike[str] | None = None,
    start: GreedyPlan | None = None,
) -> tuple[SolveResult, Solution | None]:
    """Build and solve the MILP over the estimates' options; extract a solution if there is one.

    ``start`` (a priced placement, e.g. the greedy one) is handed to the solver as the plan to
    search from."""
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog, settings)
    if model_path is not None:
        write_output(model_path, model_file_text(model, model_path))
    result = solve_model(
        model, solver.solver, solver.time_limit_s, solver.gap, start=_start_values(model, start)
    )
    return result, extract_solution(model, catalog) if result.has_solution else None


def _start_values(
    model: PlacementModel, start: GreedyPlan | None
) -> dict[pulp.LpVariable, float] | None:
    """The integer variables' values of a priced placement: where each workload runs and the
    reservation units it buys (HiGHS completes the rest)."""
    if start is None or not start.placement:
        return None
    opts = model.options
    values = {
        model.assign[oid]: float(start.placement.get(int(w)) == a)
        for oid, w, a in zip(opts.index, opts["workload"], opts["accelerator"], strict=True)
        if oid in model.assign
    }
    values.update(
        {
            var: start.commitments[key]
            for key, var in model.units.items()
            if key in start.commitments
        }
    )
    # Savings plans (continuous) are left for HiGHS to complete: fixing a continuous value
    # from another model can leave it a rounding error short of feasible at large scales.
    return values


@dataclass(frozen=True)
class GreedyPlan:
    """The greedy placement, priced by the pool model: its optimum and the reservation units
    it buys (by product key). ``usd`` is None where it places not every
    placeable workload or has no solution."""

    placement: dict[int, str]
    usd: float | None = None
    commitments: dict[str, float] = field(default_factory=dict)


def price_greedy(estimates: Estimates, catalog: Catalog, solver: SolverOptions) -> GreedyPlan:
    """Place greedily (pins and the porting cap respected), then choose what to commit to."""
    options = estimates.options
    placement = greedy_placement(options, catalog)
    placeable = set(options.loc[options["feasible"], "workload"])
    if not placeable or set(placement) != placeable:
        return GreedyPlan(placement)
    model = build_model(
        options,
        estimates.workloads["id"].tolist(),
        catalog,
        FormulationSettings(fixed_accelerators=placement),
    )
    result = solve_model(model, solver.solver, solver.time_limit_s, solver.gap)
    if not result.has_solution:
        return GreedyPlan(placement)
    commitments = {key: float(round(var.varValue or 0.0)) for key, var in model.units.items()}
    return GreedyPlan(placement, result.objective, commitments)


def _baseline_usd(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    settings: FormulationSettings,
    start: GreedyPlan | None = None,
) -> float | None:
    """A baseline's optimum under ``settings`` (only the total is needed: nothing extracted)."""
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog, settings)
    result = solve_model(
        model, solver.solver, solver.time_limit_s, solver.gap, start=_start_values(model, start)
    )
    return result.objective if result.has_solution else None


def compute_baselines(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    objective: float | None,
    greedy: GreedyPlan | None = None,
) -> Baselines:
    """All work on the baseline option; the optimum without migrating; greedy cheapest options.

    A baseline is None where it is undefined (a placeable workload cannot use the baseline option,
    or the restricted model is infeasible).
    """
    options = estimates.options
    placeable = options.loc[options["feasible"], "workload"].unique()
    base_accelerator, base_pricing = catalog.baseline.accelerator, catalog.baseline.pricing
    base = options[
        options["workload"].isin(placeable)
        & options["accelerator"].eq(base_accelerator)
        & options["pricing"].eq(base_pricing)
    ]
    all_base: float | None = None
    if base["feasible"].all() and len(base) == len(placeable) and len(placeable):
        if (
            catalog.pricing_options[base_pricing].kind == "on_demand"
            and not catalog.owned_commitments
        ):
            # On demand is linear: the pool model's price is the options' sum.
            all_base = float(base["monthly_cost_usd"].sum())
        else:
            # Owned commitments still cost and cover; only the baseline option may be bought.
            fixed = {int(w): base_accelerator for w in placeable}
            all_base = _baseline_usd(
                estimates,
                catalog,
                solver,
                FormulationSettings(
                    fixed_accelerators=fixed, purchasable=frozenset({base_pricing})
                ),
            )
    adopted = frozenset(
        name
        for name, acc in catalog.accelerators.items()
        if catalog.platforms[acc.platform].adopted
    )
    on_adopted = options["feasible"] & options["accelerator"].isin(adopted)
    all_incumbent: float | None = None
    if set(options.loc[on_adopted, "workload"]) == set(placeable):
        # Unplaceable workloads have no feasible option, so the model leaves them out already.
        # Started from the greedy placement over the adopted accelerators only.
        incumbent_start = GreedyPlan(
            greedy_placement(options[options["accelerator"].isin(adopted)], catalog)
        )
        all_incumbent = _baseline_usd(
            estimates,
            catalog,
            solver,
            FormulationSettings(allowed_accelerators=adopted),
            incumbent_start,
        )
    # Priced by the same pool model as the plan: only what to commit to is left to choose.
    greedy_usd = (greedy or price_greedy(estimates, catalog, solver)).usd

    def saving(value: float | None) -> float | None:
        return None if value is None or objective is None else round(value - objective, 2)

    def cents(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    return Baselines(
        all_h100_on_demand_usd=cents(all_base),
        all_h100_optimal_usd=cents(all_incumbent),
        greedy_usd=cents(greedy_usd),
        savings_vs_all_h100_on_demand_usd=saving(all_base),
        savings_vs_all_h100_optimal_usd=saving(all_incumbent),
        savings_vs_greedy_usd=saving(greedy_usd),
    )


def assemble_plan(
    estimates: Estimates,
    catalog: Catalog,
    extra_columns: tuple[str, ...],
    result: SolveResult,
    solution: Solution | None,
    baselines: Baselines,
) -> Plan:
    """The plan JSON from the stages' outputs (reads solution data only, never the model)."""
    workloads = estimates.workloads
    records = _records(estimates.options[list(_EXPLAINED)])
    by_workload: dict[int, list[dict[str, Any]]] = {}
    for option in records:
        by_workload.setdefault(int(option["workload"]), []).append(option)
    # The evaluations (several per workload) are validated in one call, which pydantic's core
    # does faster than constructing them one by one unvalidated. Rounding is per column.
    shown = _EVALUATIONS.validate_python(_evaluation_records(estimates.options))
    evaluations: dict[int, list[OptionEvaluation]] = {}
    for w, evaluation in zip(estimates.options["workload"].tolist(), shown, strict=True):
        evaluations.setdefault(int(w), []).append(evaluation)
    unplaced = [
        Unplaced(workload_id=str(group[0]["workload_id"]), reasons=excluded_reasons(group))
        for group in by_workload.values()
        if not any(o["feasible"] for o in group)
    ]

    assignments: list[Assignment] = []
    purchases: list[ReservedPurchase] = []
    held: list[Commitment] = []
    ported: list[PortedFamily] = []
    migrations: list[Migration] = []
    slices: list[SliceUse] = []
    moves: list[RecommendedMove] = []
    finops_: FinOps | None = None
    costs = {
        "on_demand_usd": 0.0,
        "reserved_usd": 0.0,
        "porting_amortized_usd": 0.0,
        "migration_amortized_usd": 0.0,
        "switching_amortized_usd": 0.0,
    }
    # Components are rounded to cents and the total is their sum, so the plan's total equals
    # its breakdown exactly (and the solver's objective to within a cent per component).
    breakdown = {k: round(v, 2) for k, v in costs.items()}
    if solution is not None:
        breakdown = {k: round(v, 2) for k, v in solution.costs.items()}
        months = catalog.economics.amortization_months.value
        context = PlanContext.of(solution, catalog)
        extras = _records(workloads[list(extra_columns)]) if extra_columns else None
        coverage: dict[int, dict[str, float]] = {}
        for c in pricing_coverage(solution, catalog).itertuples():
            if round(c.chip_hours, 3) > 0:
                coverage.setdefault(int(c.workload), {})[str(c.pricing)] = round(c.chip_hours, 3)
        showback = showback_usd(solution, catalog, sum(breakdown.values()))
        current_of = {
            int(w): str(a)
            for w, a in workloads.get("current_accelerator", pd.Series(dtype=object)).items()
            if a is not None and not pd.isna(a)
        }
        moves = recommended_moves(estimates.options, solution.chosen, workloads, catalog)
        for row in _records(solution.chosen):
            w = int(row["workload"])
            paid = coverage.get(w, {})
            pricing = max(sorted(paid), key=lambda k: paid[k]) if paid else str(row["pricing"])
            assignments.append(
                Assignment.model_construct(
                    workload_id=str(row["workload_id"]),
                    accelerator=str(row["accelerator"]),
                    pricing=pricing,
                    chips=int(row["chips"]),
                    chip_hours=round(float(row["chip_hours"]), 3),
                    monthly_cost_usd=round(float(row["compute_usd"]), 2),
                    why=why_for(row, by_workload[w], paid, context),
                    options=evaluations[w],
                    extra={c: _plain(v) for c, v in extras[w].items()} if extras else {},
                    replica_chips=int(row["replica_chips"]),
                    replicas=int(row["replicas"]),
                    coverage=paid,
                    showback_monthly_usd=showback.get(w, 0.0),
                    load_profile=str(row["load_profile"]),
                    run_hours=_rounded(row["run_hours"], 3),
                    current_accelerator=current_of.get(w),
                    switching_one_off_usd=round(float(row["switching_usd"]), 2),
                )
            )
        purchases = reserved_purchases(solution, catalog)
        held = commitments(solution, catalog)
        slices = slice_uses(solution)
        finops_ = finops(solution, catalog)
        for p in solution.ported.itertuples():
            one_off = porting_one_off_usd(catalog, str(p.platform))
            users = solution.chosen[
                solution.chosen["family"].eq(p.family)
                & solution.chosen["platform"].eq(p.platform)
                & solution.chosen["needs_port"]
            ]
            ported.append(
                PortedFamily(
                    family=str(p.family),
                    platform=str(p.platform),
                    porting_weeks=catalog.platforms[str(p.platform)].porting_weeks_per_family.value,
                    one_off_usd=round(one_off, 2),
                    amortized_monthly_usd=round(one_off / months, 2),
                    workloads=users["workload_id"].astype(str).tolist(),
                )
            )
        for platform in solution.adopted:
            migration = migration_one_off_usd(catalog, platform)
            migrations.append(
                Migration(
                    platform=platform,
                    one_off_usd=migration,
                    amortized_monthly_usd=round(migration / months, 2),
                    lead_weeks=catalog.platforms[platform].migration_lead_weeks.value,
                )
            )

    status = _status(result)
    return Plan(
        status=status,
        objective_monthly_usd=None if solution is None else round(sum(breakdown.values()), 2),
        cost_breakdown=CostBreakdown(**breakdown),
        assignments=assignments,
        unplaced=unplaced,
        reserved_purchases=purchases,
        ported_families=ported,
        migrations=migrations,
        commitments=held,
        finops=finops_,
        slices=slices,
        moves=moves,
        baselines=baselines,
        solver=SolverInfo(
            name=result.solver,
            time_s=round(result.time_s, 3),
            gap=result.gap,
            termination=result.termination,
        ),
        message=_message(result),
    )


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
    result, solution = solve_placement(
        estimates,
        catalog,
        solver,
        FormulationSettings(fixed_accelerators=horizon.end_placement),
    )
    progress("computing the baselines")
    baselines = compute_baselines(estimates, catalog, solver, result.objective)
    progress("assembling the plan and its explanations")
    plan_ = assemble_plan(estimates, catalog, extra_columns, result, solution, baselines)
    totals = {c: sum(getattr(m, c) for m in roadmap.months) for c in COMPONENTS}
    breakdown = CostBreakdown(
        on_demand_usd=round(totals["on_demand_usd"] / months, 2),
        reserved_usd=round((totals["commitments_usd"] + roadmap.after_horizon_usd) / months, 2),
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
    plan_ = plan_.model_copy(
        update={
            "status": _status(horizon.result),
            "objective_monthly_usd": objective,
            "cost_breakdown": breakdown,
            "assignments": assignments,
            "roadmap": roadmap.model_copy(update={"objective_monthly_usd": objective}),
            "solver": SolverInfo(
                name=horizon.result.solver,
                time_s=round(horizon.result.time_s, 3),
                gap=horizon.result.gap,
                termination=horizon.result.termination,
            ),
        }
    )
    return plan_, horizon.result, solution


def _status(result: SolveResult) -> PlanStatus:
    """The plan status of a solve: "infeasible" only when the solver proved it; a run that
    stopped (time limit) or failed before any plan is "no_solution", and the plan's
    ``message`` says which it was."""
    statuses: dict[SolveStatus, PlanStatus] = {
        SolveStatus.OPTIMAL: "optimal",
        SolveStatus.FEASIBLE: "feasible",
        SolveStatus.INFEASIBLE: "infeasible",
        SolveStatus.NO_SOLUTION: "no_solution",
        SolveStatus.ERROR: "no_solution",
    }
    return statuses[result.status]


def _message(result: SolveResult) -> str:
    if result.status is SolveStatus.INFEASIBLE:
        return "no plan satisfies every constraint (check pins and the porting capacity cap)"
    if result.status is SolveStatus.NO_SOLUTION:
        return "the solver stopped (time limit) before finding any plan; raise --time-limit"
    if result.status is SolveStatus.ERROR:
        return f"the solver failed: {result.termination}"
    return ""


def _evaluation_records(options: pd.DataFrame) -> list[dict[str, Any]]:
    """The fields of each option's ``OptionEvaluation``, rounded, NaN as None."""

    def rounded(column: str, digits: int) -> pd.Series:
        values = options[column].astype(float).round(digits)
        return values.astype(object).where(values.notna(), None)

    frame = pd.DataFrame(
        {
            "accelerator": options["accelerator"].astype(str),
            "pricing": options["pricing"].astype(str),
            "feasible": options["feasible"].astype(bool),
            "reason": options["reason"].astype(object).where(options["reason"].notna(), None),
            "chips": options["chips"].astype(int),
            "chip_hours": options["chip_hours"].astype(float).round(3),
            "monthly_cost_usd": options["monthly_cost_usd"].astype(float).round(2),
            "ttft_ms": rounded("ttft_ms", 2),
            "sizing": options["sizing"],
            "replica_chips": options["replica_chips"].astype(int),
            "replicas": options["replicas"].astype(int),
            "utilization": rounded("utilization", 4),
            "ttft_unloaded_ms": rounded("ttft_unloaded_ms", 2),
        }
    )
    return _records(frame)


def _rounded(value: Any, digits: int = 2) -> float | None:
    """A float for the plan JSON, None where the estimate has none (NaN)."""
    return None if pd.isna(value) else round(float(value), digits)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts of Python values; column-wise ``tolist`` is far faster than ``to_dict``."""
    columns = [frame[c].tolist() for c in frame.columns]
    names = list(frame.columns)
    return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]


def _plain(value: object) -> object:
    """Extra inventory values as JSON-friendly Python scalars.

    A blank cell is None whatever the file format (CSV reads it as "", YAML omits it).
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, list | tuple | dict) and pd.isna(value):  # NaN, NA, NaT
        return None
    if hasattr(value, "item"):
        return value.item()  # numpy scalar
    return value


def _check_plausible_total(estimates: Estimates, catalog: Catalog, source: str) -> None:
    """Refuse an inventory that keeps more chips busy than any fleet holds: a unit mistake,
    and numbers beyond what the solver handles reliably."""
    economics = catalog.economics
    if economics.max_busy_chips_in_total is None:
        return
    busy = least_busy_chips(estimates.options, economics.hours_per_month.value)
    cap = economics.max_busy_chips_in_total.value
    if busy > cap:
        expected = (
            f"an inventory that keeps at most {cap:,} chips busy "
            "(economics.max_busy_chips_in_total); this one needs at least "
            f"{busy:,.0f} all month: check the volumes (monthly_tokens_b is in billions) "
            "and sizes (params_b is in billions)"
        )
        raise PlacementInputError(
            [Problem(f"{source}: expected {expected}", source, expected=expected)],
            title="implausible inventory",
        )


Progress = Callable[[str], None]
"""Told the name of each stage as it starts (the CLI shows it on a terminal's stderr)."""


def _silent(stage: str) -> None:
    """The default progress: say nothing."""


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
    if scenario is not None:
        catalog = scenario_catalog(catalog, scenario)
    given = read_catalog() if catalog is None else catalog
    source = given if isinstance(given, CatalogSource) else None
    catalog = given.catalog if isinstance(given, CatalogSource) else given
    solver = solver or SolverOptions()
    limit = limit or SizeLimit()
    if isinstance(inventory, Inventory):
        limit.check(len(inventory.workloads), inventory.source)
    else:
        progress("reading the inventory")
        inventory = read_inventory(
            inventory,
            accelerator_names=list(catalog.accelerators),
            input_format=input_format,
            sheet=sheet,
            limit=limit,
            load_profiles=catalog.profile_kinds(),
        )
    if scenario is not None:
        inventory = scenario_inventory(
            inventory, scenario, list(catalog.accelerators), catalog.profile_kinds()
        )
        limit.check(len(inventory.workloads), inventory.source)
    progress(f"estimating the options of {len(inventory.workloads):,} workloads")
    estimates = estimate(inventory.workloads, catalog)
    _check_plausible_total(estimates, catalog, inventory.source)
    if horizon is not None:
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
    # The greedy plan, priced (where it runs and what it commits to), is the search's
    # starting point (it can take HiGHS from seconds of searching to a fraction of one) and a
    # baseline.
    greedy = price_greedy(estimates, catalog, solver)
    result, solution = solve_placement(
        estimates, catalog, solver, model_path=model_path, start=greedy
    )
    progress("computing the baselines")
    baselines = compute_baselines(estimates, catalog, solver, result.objective, greedy)
    progress("assembling the plan and its explanations")
    plan_ = assemble_plan(estimates, catalog, extra_columns, result, solution, baselines)
    return plan_, result, solution

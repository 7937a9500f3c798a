"""Assembling the plan: the plan JSON from the stages' outputs (the estimates, the solve, the
solution read back, the baselines), with a reason for every assignment."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pandas as pd

from placement.analysing.commitments import commitments, reserved_purchases, slice_uses
from placement.analysing.evaluations import constructed, option_chunks
from placement.analysing.explain import PlanContext, excluded_reasons, why_for
from placement.analysing.extract import Solution
from placement.analysing.moves import recommended_moves
from placement.analysing.showback import finops, pricing_coverage, showback_usd
from placement.estimating import Estimates
from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.estimating.economics.rates import on_demand_rate
from placement.estimating.instances import instance_menu, instance_mix
from placement.models.catalog import Catalog
from placement.models.plan import (
    AcceleratorRate,
    Assignment,
    Baselines,
    Commitment,
    CostBreakdown,
    FinOps,
    InstanceRate,
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
from placement.solving.solver import SolveResult, SolveStatus


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
    chosen: dict[int, dict[str, Any]] = {}
    paid_by: dict[int, dict[str, float]] = {}
    coverage: dict[int, dict[str, float]] = {}
    context: PlanContext | None = None
    if solution is not None:
        breakdown = {k: round(v, 2) for k, v in solution.costs.items()}
        context = PlanContext.of(solution, catalog, estimates.options)
        chosen = {int(row["workload"]): row for row in _records(solution.chosen)}
        for c in pricing_coverage(solution, catalog).itertuples():
            paid_by.setdefault(int(c.workload), {})[str(c.pricing)] = float(c.chip_hours)
            if round(c.chip_hours, 3) > 0:
                coverage.setdefault(int(c.workload), {})[str(c.pricing)] = round(c.chip_hours, 3)

    # Each workload's options: every one evaluated for the plan, the placed one explained
    # against the others, and a workload with none feasible listed as unplaced with why.
    evaluations: dict[int, list[OptionEvaluation]] = {}
    why: dict[int, str] = {}
    unplaced: list[Unplaced] = []
    for chunk in option_chunks(estimates.options):
        evaluations.update(chunk.evaluations)
        for w, group in chunk.records.items():
            if not any(o["feasible"] for o in group):
                workload_id = str(group[0]["workload_id"])
                unplaced.append(Unplaced(workload_id=workload_id, reasons=excluded_reasons(group)))
            if w in chosen and context is not None:
                why[w] = why_for(chosen[w], group, coverage.get(w, {}), context)

    if solution is not None:
        months = catalog.economics.amortization_months.value
        extras = _records(workloads[list(extra_columns)]) if extra_columns else None
        showback = showback_usd(solution, catalog, sum(breakdown.values()))
        current_of = {
            int(w): str(a)
            for w, a in workloads.get("current_accelerator", pd.Series(dtype=object)).items()
            if a is not None and not pd.isna(a)
        }
        moves = recommended_moves(estimates.options, solution, workloads, catalog, paid_by)
        bought = _instances_bought(catalog)
        placed: list[dict[str, Any]] = []
        for w, row in chosen.items():
            paid = coverage.get(w, {})
            pricing = max(sorted(paid), key=lambda k: paid[k]) if paid else str(row["pricing"])
            placed.append(
                dict(
                    workload_id=str(row["workload_id"]),
                    accelerator=str(row["accelerator"]),
                    pricing=pricing,
                    chips=int(row["chips"]),
                    chip_hours=round(float(row["chip_hours"]), 3),
                    monthly_cost_usd=round(float(row["compute_usd"]), 2),
                    why=why[w],
                    options=evaluations[w],
                    extra={c: _plain(v) for c, v in extras[w].items()} if extras else {},
                    replica_chips=int(row["replica_chips"]),
                    replicas=int(row["replicas"]),
                    instances=bought(
                        str(row["accelerator"]), int(row["replicas"]), int(row["replica_chips"])
                    ),
                    coverage=paid,
                    showback_monthly_usd=showback.get(w, 0.0),
                    load_profile=str(row["load_profile"]),
                    run_hours=_rounded(row["run_hours"], 3),
                    current_accelerator=current_of.get(w),
                    switching_one_off_usd=round(float(row["switching_usd"]), 2),
                )
            )
        assignments = constructed(Assignment, placed)
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

    status = plan_status(result)
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
        rates=accelerator_rates(catalog),
        baselines=baselines,
        solver=SolverInfo(
            name=result.solver,
            time_s=round(result.time_s, 3),
            gap=result.gap,
            termination=result.termination,
            relaxed_objective_usd=(
                None if result.relaxed_objective is None else round(result.relaxed_objective, 2)
            ),
        ),
        message=_message(result),
    )


def plan_status(result: SolveResult) -> PlanStatus:
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


def _instances_bought(catalog: Catalog) -> Callable[[str, int, int], dict[str, int]]:
    """The whole instances ``replicas`` replicas of ``replica_chips`` chips are billed in, on
    an accelerator (one dynamic programme per distinct deployment)."""
    menus = {name: instance_menu(acc) for name, acc in catalog.accelerators.items()}

    @functools.cache
    def mix(accelerator: str, replicas: int, replica_chips: int) -> tuple[tuple[str, int], ...]:
        return tuple(instance_mix(replicas, replica_chips, menus[accelerator]).items())

    def bought(accelerator: str, replicas: int, replica_chips: int) -> dict[str, int]:
        return dict(mix(accelerator, replicas, replica_chips))

    return bought


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


def accelerator_rates(catalog: Catalog) -> list[AcceleratorRate]:
    """What a chip of each accelerator is, and its on-demand price per chip-hour and per
    instance-hour (chips x the chip's rate) of every instance type the catalog lists."""
    rates = []
    for name, acc in catalog.accelerators.items():
        per_chip = on_demand_rate(catalog, name)
        rates.append(
            AcceleratorRate(
                accelerator=name,
                chip=acc.chip,
                on_demand_usd_per_chip_hour=round(per_chip, 6),
                instance_types=[
                    InstanceRate(
                        name=t.name,
                        chips=t.chips,
                        on_demand_usd_per_hour=round(t.chips * per_chip, 4),
                    )
                    for t in acc.instance_types
                ],
            )
        )
    return rates

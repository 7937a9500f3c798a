"""Re-check a roadmap from its own content, the inventory and the catalog alone.

Nothing here reads the model: durations, readiness, the porting capacity, terms and the money
are recomputed month by month, so a bug in the formulation or the extraction shows up as a
violation.
"""

from __future__ import annotations

import math

import pandas as pd

from placement.analysing.checks import in_use_today
from placement.analysing.durations import port_months_of, programme_months
from placement.estimating import estimate
from placement.estimating.economics.one_offs import switching_one_off_usd
from placement.horizon.releases import catalog_in
from placement.horizon.timeline import month_factors, month_of_week
from placement.models.catalog import Catalog
from placement.models.plan import Plan, Roadmap

TOLERANCE_USD = 0.05


def check_roadmap(plan: Plan, workloads: pd.DataFrame, catalog: Catalog) -> list[str]:
    """Every violated rule of the roadmap, as sentences (empty when all hold)."""
    roadmap = plan.roadmap
    if roadmap is None:
        return ["roadmap: missing"]
    problems: list[str] = []
    problems += _money_problems(plan, roadmap)
    problems += _step_problems(roadmap, catalog)
    problems += _workload_problems(roadmap, workloads, catalog)
    problems += _purchase_problems(roadmap, catalog)
    problems += _sdk_problems(roadmap, workloads, catalog)
    return problems


def _sdk_problems(roadmap: Roadmap, workloads: pd.DataFrame, catalog: Catalog) -> list[str]:
    """Every workload's target is feasible with the SDK in force when it gets there (the
    catalog's dated features applied: ``placement.horizon.releases``)."""
    problems = []
    by_month: dict[int, list[str]] = {}
    for w in roadmap.workloads:
        if w.ready_month is not None:
            by_month.setdefault(w.ready_month, []).append(w.workload_id)
    for month, ids in sorted(by_month.items()):
        options = estimate(workloads, catalog_in(catalog, month)).options
        feasible = set(
            zip(
                options.loc[options["feasible"], "workload_id"].astype(str),
                options.loc[options["feasible"], "accelerator"].astype(str),
                strict=True,
            )
        )
        targets = {w.workload_id: w.target_accelerator for w in roadmap.workloads}
        for workload_id in ids:
            if (workload_id, targets[workload_id]) not in feasible:
                problems.append(
                    f"{workload_id}: on {targets[workload_id]} from month {month}, where the "
                    "SDK in force cannot run it"
                )
    return problems


def _close(a: float, b: float, tol: float = TOLERANCE_USD) -> bool:
    return abs(a - b) <= max(tol, 1e-6 * max(abs(a), abs(b)))


def _money_problems(plan: Plan, roadmap: Roadmap) -> list[str]:
    problems = []
    n = roadmap.horizon_months
    if len(roadmap.months) != n or [m.month for m in roadmap.months] != list(range(1, n + 1)):
        problems.append("months: not one entry per month of the horizon")
    running = 0.0
    for m in roadmap.months:
        parts = (
            m.on_demand_usd + m.commitments_usd + m.porting_usd + m.migration_usd + m.switching_usd
        )
        if not _close(parts, m.cost_usd):
            problems.append(f"month {m.month}: components add to {parts:.2f}, not {m.cost_usd}")
        if m.stay_cost_usd is not None and m.saving_usd is not None:
            if not _close(m.stay_cost_usd - m.cost_usd, m.saving_usd):
                problems.append(f"month {m.month}: saving is not stay - plan")
            running += m.saving_usd
            if m.cumulative_saving_usd is None or not _close(running, m.cumulative_saving_usd, 1):
                problems.append(f"month {m.month}: running saving is not the sum of savings")
    total = sum(m.cost_usd for m in roadmap.months) + roadmap.after_horizon_charged_usd
    if not _close(total, roadmap.total_usd, 0.01 * n + TOLERANCE_USD):
        problems.append(f"total: months add to {total:.2f}, not {roadmap.total_usd}")
    after = sum(p.after_horizon_usd for p in roadmap.purchases)
    if not _close(after, roadmap.after_horizon_usd, 0.01 * len(roadmap.purchases) + 0.05):
        problems.append(f"after the horizon: purchases add to {after:.2f}")
    if plan.objective_monthly_usd is not None and not _close(
        plan.objective_monthly_usd, roadmap.total_usd / n, 0.01 * n
    ):
        problems.append(
            f"objective: {plan.objective_monthly_usd} is not the horizon's monthly average "
            f"{roadmap.total_usd / n:.2f}"
        )
    if plan.objective_monthly_usd is not None and not _close(
        plan.objective_monthly_usd, plan.cost_breakdown.total_usd, 0.05
    ):
        problems.append("objective: not the cost breakdown's total")
    return problems + _average_problems(roadmap)


def _average_problems(roadmap: Roadmap) -> list[str]:
    """The headline's comparisons are monthly averages of the same horizon: each ``*_monthly``
    figure is its total over N (absent with its total, as in a JSON from before 1.8)."""
    n = roadmap.horizon_months
    problems = []
    for name, total, monthly in (
        ("stay", roadmap.stay_total_usd, roadmap.stay_monthly_usd),
        (
            "all H100 on demand",
            roadmap.all_h100_on_demand_total_usd,
            roadmap.all_h100_on_demand_monthly_usd,
        ),
    ):
        if total is not None and monthly is not None and not _close(monthly, total / n):
            problems.append(f"{name}: {monthly} a month is not its total over {n} months")
    return problems


def _step_problems(roadmap: Roadmap, catalog: Catalog) -> list[str]:
    problems = []
    ready_platform = {s.platform: s.ready_month for s in roadmap.steps if s.item == "migration"}
    for s in roadmap.steps:
        if s.item == "migration":
            lead = programme_months(catalog, s.platform)
            if s.ready_month - s.start_month != lead or s.start_month < 1:
                problems.append(f"migration {s.platform}: {s.start_month}->{s.ready_month}")
            continue
        assert s.family is not None
        d = port_months_of(catalog, s.family, s.platform)
        if s.ready_month - s.start_month != d or s.start_month < 1:
            problems.append(f"port {s.family}/{s.platform}: takes {d} months, not as planned")
        programme = ready_platform.get(s.platform)
        if programme is not None and s.start_month < programme:
            problems.append(f"port {s.family}/{s.platform}: starts before the migration is done")
    engineers = catalog.economics.porting_engineers
    if engineers is not None:
        for m in range(1, roadmap.horizon_months + 1):
            busy = sum(
                1 for s in roadmap.steps if s.item == "port" and s.start_month <= m < s.ready_month
            )
            if busy > engineers:
                problems.append(f"month {m}: {busy} ports at once > {engineers} engineers")
    return problems


def _workload_problems(roadmap: Roadmap, workloads: pd.DataFrame, catalog: Catalog) -> list[str]:
    problems = []
    by_id = workloads.set_index("id", drop=False)
    ports = {(s.family, s.platform): s.ready_month for s in roadmap.steps if s.item == "port"}
    programmes = {s.platform: s.ready_month for s in roadmap.steps if s.item == "migration"}
    factors = month_factors(workloads, roadmap.horizon_months)
    position = {str(i): k for k, i in enumerate(workloads["id"].astype(str))}
    in_use, used_by = in_use_today(workloads, catalog)
    moves = 0
    paid_moves: dict[int, int] = {}  # month -> workloads moved off where they run today
    counts: dict[int, dict[str, int]] = {}
    for w in roadmap.workloads:
        row = by_id.loc[w.workload_id]
        if not factors[position[w.workload_id]].any():
            continue  # it does not run within the horizon
        if w.ready_month is None:
            problems.append(f"{w.workload_id}: no month on its target")
            continue
        if w.current_accelerator and w.current_accelerator != w.target_accelerator:
            moves += 1
            paid_moves[w.ready_month] = paid_moves.get(w.ready_month, 0) + 1
        platform_name = catalog.accelerators[w.target_accelerator].platform
        platform = catalog.platforms[platform_name]
        adopted = platform.adopted or platform_name in in_use
        needs_port = (
            platform.porting_required
            and not bool(row["neuron_ready"])
            and (str(row["model_family"]), platform_name) not in used_by
        )
        if needs_port:
            done = ports.get((str(row["model_family"]), platform_name))
            if done is None or w.ready_month < done:
                problems.append(f"{w.workload_id}: on {w.target_accelerator} before its port")
        elif not adopted:
            done = programmes.get(platform_name)
            if done is None or w.ready_month < done:
                problems.append(f"{w.workload_id}: on {w.target_accelerator} before migrating")
        needed = row["needed_in_weeks"]
        if not pd.isna(needed) and w.interim_accelerator is not None:
            deadline = month_of_week(float(needed), catalog)
            if deadline <= roadmap.horizon_months and w.ready_month > deadline:
                problems.append(f"{w.workload_id}: ready in month {w.ready_month} > {deadline}")
        for m in range(1, roadmap.horizon_months + 1):
            if factors[position[w.workload_id], m - 1] <= 0:
                continue
            where = w.target_accelerator if m >= w.ready_month else w.interim_accelerator
            if where is not None:
                counts.setdefault(m, {})
                counts[m][where] = counts[m].get(where, 0) + 1
    for month in roadmap.months:
        if month.workloads_by_accelerator != dict(sorted(counts.get(month.month, {}).items())):
            problems.append(f"month {month.month}: workloads by accelerator do not add up")
    switching = sum(m.switching_usd for m in roadmap.months)
    expected = moves * switching_one_off_usd(catalog)
    if not _close(switching, expected, 0.01 * roadmap.horizon_months + TOLERANCE_USD):
        problems.append(f"switching: {switching:.2f} paid for {moves} moves ({expected:.2f})")
    # Moves are whole: each month pays the one-off of exactly the workloads it moves off where
    # they run today (a new workload's move from where it waits costs nothing).
    for month in roadmap.months:
        moved = paid_moves.get(month.month, 0)
        paid = moved * switching_one_off_usd(catalog)
        if not _close(month.switching_usd, paid):
            problems.append(
                f"month {month.month}: switching {month.switching_usd:.2f} is not "
                f"{moved} whole moves ({paid:.2f})"
            )
    return problems


def _purchase_problems(roadmap: Roadmap, catalog: Catalog) -> list[str]:
    problems = []
    for p in roadmap.purchases:
        term = catalog.pricing_options[p.pricing].term_months
        if term != p.term_months:
            problems.append(f"purchase {p.product} month {p.month}: term {p.term_months}")
        beyond = max(0, p.month + p.term_months - 1 - roadmap.horizon_months)
        if not math.isclose(p.after_horizon_usd, round(p.monthly_usd * beyond, 2), abs_tol=0.05):
            problems.append(f"purchase {p.product} month {p.month}: payments after the horizon")
    return problems

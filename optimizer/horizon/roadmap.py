"""The roadmap a solved horizon model describes, month by month, and what staying would cost.

Money over time compares the plan with **staying where the team is**: the same horizon model
with every workload kept on its interim place (today's, or for a new workload its cheapest
place needing no port or migration) and commitments chosen as well as they can be. Per month:
``saving = stay - plan`` and its running total; the **payback month** is the first month from
which the running total stays positive; the **first-year net** is the running total after
month 12 (or the horizon's last month). The payments commitments bind after the horizon count
in each side's total, not in any month.
"""

from __future__ import annotations

import pandas as pd
import pulp

from placement.estimating.economics.commitments import CommitmentBook
from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.horizon.formulation import (
    is_target,
    iter_purchases,
    month_values,
    owned_in_month,
    ready_month,
)
from placement.horizon.model import COMPONENTS, HorizonModel
from placement.models.catalog import Catalog
from placement.models.plan import (
    Roadmap,
    RoadmapMonth,
    RoadmapPurchase,
    RoadmapStep,
    RoadmapWorkload,
)

FIRST_YEAR_MONTHS = 12
"""The months the first-year net adds up."""


def roadmap_workloads(model: HorizonModel, workloads: pd.DataFrame) -> list[RoadmapWorkload]:
    """Each placed workload's interim place, target and the month it reaches it."""
    rows = model.rows
    current = workloads.get("current_accelerator", pd.Series(None, index=workloads.index))
    today = [None if v is None or pd.isna(v) else str(v) for v in current.tolist()]
    ids = workloads["id"].astype(str).tolist()
    out = []
    for oid, w, readiness, target, available in zip(
        rows.index.tolist(),
        rows["workload"].astype(int).tolist(),
        rows["readiness"].tolist(),
        rows["accelerator"].astype(str).tolist(),
        rows["available"].astype(int).tolist(),
        strict=True,
    ):
        if not is_target(model, oid):
            continue
        here = today[w]
        waits = readiness is not None or available > 1
        ready = moved_month(model, oid) if waits else 1
        # A target that needs nothing is reached in month 1: a move if it runs elsewhere today.
        interim = model.interim.get(w) if waits else here
        if waits and ready is None and interim is not None:
            # Never ready within the horizon: it stays where it waits, whatever x says.
            target, interim, ready = interim, (here if here != interim else None), 1
        interim = None if interim == target else interim
        out.append(
            RoadmapWorkload(
                workload_id=ids[w],
                interim_accelerator=interim,
                target_accelerator=target,
                ready_month=ready,
                current_accelerator=here,
            )
        )
    return out


def moved_month(model: HorizonModel, oid: int) -> int | None:
    """The first month a waiting row runs on its target at the solution (None: not within
    the horizon)."""
    for month, y in sorted(model.on_target.get(oid, {}).items()):
        if (y.varValue or 0.0) > 0.5:
            return month
    return None


def roadmap_steps(model: HorizonModel, catalog: Catalog) -> list[RoadmapStep]:
    """The migration programmes and ports the solution starts, with their months."""
    items: list[tuple[tuple[str, ...], str | None, str, int, float]] = [
        (("adopt", s), None, s, lead, migration_one_off_usd(catalog, s))
        for s, lead in sorted(model.lead_months.items())
    ] + [
        (("port", f, s), f, s, d, porting_one_off_usd(catalog, s))
        for (f, s), d in sorted(model.port_months.items())
    ]
    steps = []
    for readiness, family, platform, months, one_off in items:
        # Month N+1: usable only after the horizon, but started (and paid) in it.
        ready = ready_month(model, readiness, after_horizon=True)
        if ready is not None:
            steps.append(
                RoadmapStep(
                    item="port" if family is not None else "migration",
                    platform=platform,
                    family=family,
                    start_month=ready - months,
                    ready_month=ready,
                    one_off_usd=one_off,
                )
            )
    return steps


def roadmap_purchases(model: HorizonModel, catalog: Catalog) -> list[RoadmapPurchase]:
    """Every commitment bought, with its term and the payments after the horizon."""
    hours = catalog.economics.hours_per_month.value
    reservations = {q.key: q for q in model.book.reservations}
    plans = {p.key: p for p in model.book.savings_plans}
    out = []
    for key, month, amount in iter_purchases(model):
        if key in reservations:
            q = reservations[key]
            term = int(catalog.pricing_options[q.pricing].term_months or 1)
            monthly = amount * q.unit_monthly_usd
            accelerator, units, usd_per_hour, pricing = q.accelerator, int(amount), None, q.pricing
        else:
            plan = plans[key]
            term = int(catalog.pricing_options[plan.pricing].term_months or 1)
            monthly = amount * hours
            accelerator, units, usd_per_hour, pricing = None, None, round(amount, 4), plan.pricing
        beyond = max(0, month + term - 1 - model.months)
        out.append(
            RoadmapPurchase(
                month=month,
                product=key,
                pricing=pricing,
                accelerator=accelerator,
                units=units,
                usd_per_hour=usd_per_hour,
                term_months=term,
                monthly_usd=round(monthly, 2),
                after_horizon_usd=round(monthly * beyond, 2),
            )
        )
    return out


def _expiring(book: CommitmentBook, purchases: list[RoadmapPurchase], month: int) -> list[str]:
    """Commitments whose last month is ``month``."""
    owned = [
        f"owned {e.product}"
        for e in book.owned
        if e.months_left == month and owned_in_month(book, e.product, month)[0] > 0
    ]
    bought = [
        f"{p.product} bought in month {p.month}"
        for p in purchases
        if p.month + p.term_months - 1 == month
    ]
    return owned + bought


def build_roadmap(
    model: HorizonModel,
    stay: HorizonModel | None,
    workloads: pd.DataFrame,
    catalog: Catalog,
) -> Roadmap:
    """The roadmap of a solved horizon model, compared month by month with staying put."""
    N = model.months
    values = month_values(model)
    plan_after = float(pulp_value(model.after_horizon))
    charged_after = float(pulp_value(model.after_horizon_charged))
    stay_values = month_values(stay) if stay is not None else None
    placed = roadmap_workloads(model, workloads)
    steps = roadmap_steps(model, catalog)
    purchases = roadmap_purchases(model, catalog)
    active = model.factors > 0
    # Nothing ported, migrated or moved: the roadmap is itself a way of staying put, so it is
    # its own comparison (any difference from the stay-put model's figures is solver gap).
    changes_nothing = not steps and all(
        w.ready_month is None or w.interim_accelerator is None for w in placed
    )
    if changes_nothing:
        stay_values = values
        stay = model
    index_of = {str(i): k for k, i in enumerate(workloads["id"].astype(str))}
    months: list[RoadmapMonth] = []
    running = 0.0
    for m in range(1, N + 1):
        costs = {c: round(values[m - 1][c], 2) + 0.0 for c in COMPONENTS}  # no -0.0
        cost = round(sum(costs.values()), 2)
        stay_cost = None
        saving = cumulative = None
        if stay_values is not None:
            stay_cost = round(sum(stay_values[m - 1].values()), 2)
            saving = round(stay_cost - cost, 2)
            running += saving
            cumulative = round(running, 2)
        by_accelerator: dict[str, int] = {}
        moves = []
        for w in placed:
            if not active[index_of[w.workload_id], m - 1]:
                continue
            on_target = w.ready_month is not None and m >= w.ready_month
            where = w.target_accelerator if on_target else w.interim_accelerator
            if where is not None:
                by_accelerator[where] = by_accelerator.get(where, 0) + 1
            if w.ready_month == m and w.interim_accelerator is not None:
                moves.append(w.workload_id)
        months.append(
            RoadmapMonth(
                month=m,
                cost_usd=cost,
                **costs,
                stay_cost_usd=stay_cost,
                saving_usd=saving,
                cumulative_saving_usd=cumulative,
                workloads_by_accelerator=dict(sorted(by_accelerator.items())),
                moves=moves,
                ports_in_progress=[
                    f"{s.family}/{s.platform}"
                    for s in steps
                    if s.item == "port" and s.start_month <= m < s.ready_month
                ],
                ports_ready=[
                    f"{s.family}/{s.platform}"
                    for s in steps
                    if s.item == "port" and s.ready_month == m
                ],
                migrations_in_progress=[
                    s.platform
                    for s in steps
                    if s.item == "migration" and s.start_month <= m < s.ready_month
                ],
                migrations_ready=[
                    s.platform for s in steps if s.item == "migration" and s.ready_month == m
                ],
                commitments_bought=[
                    f"{p.product} x {p.units if p.units is not None else p.usd_per_hour}"
                    for p in purchases
                    if p.month == m
                ],
                commitments_expiring=_expiring(model.book, purchases, m),
            )
        )
    total = round(sum(month.cost_usd for month in months) + charged_after, 2)
    stay_total = (
        None
        if stay is None or stay_values is None
        else round(
            sum(sum(v.values()) for v in stay_values)
            + float(pulp_value(stay.after_horizon_charged)),
            2,
        )
    )
    return Roadmap(
        horizon_months=N,
        total_usd=total,
        objective_monthly_usd=round(total / N, 2),
        after_horizon_usd=round(plan_after, 2),
        after_horizon_charged_usd=round(charged_after, 2),
        stay_total_usd=stay_total,
        stay_monthly_usd=None if stay_total is None else round(stay_total / N, 2),
        changes_nothing=changes_nothing,
        payback_month=_payback(months),
        first_year_net_usd=_first_year(months),
        steady_state_month=_steady_from(placed),
        months=months,
        workloads=placed,
        steps=steps,
        purchases=purchases,
    )


def horizon_total_usd(model: HorizonModel) -> float:
    """A solved horizon model's total: every month's cost plus the commitment payments after
    the horizon that are charged (as ``Roadmap.total_usd``)."""
    months = sum(sum(v.values()) for v in month_values(model))
    return round(months + pulp_value(model.after_horizon_charged), 2)


def pulp_value(expr: object) -> float:
    """An expression's value at the solution (0 for an empty one)."""
    value = pulp.value(expr)
    return float(value) if value is not None else 0.0


def _payback(months: list[RoadmapMonth]) -> int | None:
    """The first month from which the running saving stays positive."""
    if not months or months[-1].cumulative_saving_usd is None:
        return None
    payback = None
    for month in months:
        positive = (month.cumulative_saving_usd or 0.0) > 0
        if positive and payback is None:
            payback = month.month
        elif not positive:
            payback = None
    return payback


def _first_year(months: list[RoadmapMonth]) -> float | None:
    """The running saving after month 12 (or the last month, if the horizon is shorter)."""
    if not months:
        return None
    return months[min(FIRST_YEAR_MONTHS, len(months)) - 1].cumulative_saving_usd


def _steady_from(placed: list[RoadmapWorkload]) -> int | None:
    """The first month every workload runs on its target."""
    months = [1 if w.interim_accelerator is None else w.ready_month for w in placed]
    if any(m is None for m in months):
        return None
    return max((m for m in months if m is not None), default=1)

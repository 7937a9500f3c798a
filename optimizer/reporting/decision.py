"""A plan in one sentence: what it runs for how much, what to buy, port and migrate, and when
the one-offs pay back (the headline of the terminal's plan and of the report)."""

from __future__ import annotations

from placement.models.numbers import usd
from placement.models.plan import Plan


def payback_months(plan: Plan) -> float | None:
    """The one-off ports and migrations over what migrating saves a month before their
    amortization (against the best plan without migrating); None where nothing is paid once
    or nothing is saved. A roadmap states its own (``payback_month``)."""
    one_offs = sum(p.one_off_usd for p in plan.ported_families) + sum(
        m.one_off_usd for m in plan.migrations
    )
    best_without = plan.baselines.all_h100_optimal_usd
    if not one_offs or best_without is None or plan.objective_monthly_usd is None:
        return None
    costs = plan.cost_breakdown
    running = plan.objective_monthly_usd - costs.porting_amortized_usd
    running -= costs.migration_amortized_usd
    saving = best_without - running
    return one_offs / saving if saving > 0 else None


def _bought(plan: Plan) -> list[str]:
    return [
        f"{c.units} x {c.unit_chips}-chip {c.accelerator} {c.pricing}"
        if c.kind == "reserved"
        else f"${c.usd_per_hour:,.2f}/h of {c.pricing}"
        for c in plan.commitments
        if not c.owned
    ]


def decision_sentence(plan: Plan) -> str:
    """The plan in one sentence: what it runs for how much, what to buy, port and migrate,
    what it saves and when the one-offs are paid back."""
    if plan.objective_monthly_usd is None:
        return f"No plan: the solve ended {plan.status}. {plan.message}".strip()
    parts = [
        f"Run {len(plan.assignments):,} workloads for {usd(plan.objective_monthly_usd)} a month"
    ]
    saving = plan.baselines.savings_vs_all_h100_on_demand_usd
    on_demand = plan.baselines.all_h100_on_demand_usd
    if saving is not None and on_demand:
        parts[0] += (
            f", {usd(saving)} ({100 * saving / on_demand:.0f}%) less than all H100 on demand"
        )
    bought = _bought(plan)
    if bought:
        parts.append("buy " + ", ".join(bought))
    if plan.ported_families:
        parts.append(
            "port " + ", ".join(f"{p.family} to {p.platform}" for p in plan.ported_families)
        )
    for m in plan.migrations:
        parts.append(f"adopt {m.platform} ({usd(m.one_off_usd)} one-off)")
    sentence = "; ".join(parts)
    payback = payback_months(plan)
    roadmap = plan.roadmap
    if roadmap is not None and roadmap.payback_month is not None:
        sentence += f"; the roadmap pays back in month {roadmap.payback_month}"
    elif payback is not None:
        sentence += f"; the one-offs pay back in {payback:.1f} months"
    if plan.unplaced:
        sentence += f". {len(plan.unplaced):,} workloads cannot be placed (listed below)"
    return sentence + "."

"""The plan as a terminal table, Markdown, CSV or JSON. Reads plan data only, never the model.

Table and Markdown put the summary first: status, the monthly total and its parts, how it
compares with the baselines. The buying decisions follow (reserved purchases, ports,
migrations), then the workloads. What is listed of the workloads is a :class:`PlanView`: every
workload with the reason for its placement for a small inventory, the costliest few for a large
one, so that a 20,000-workload plan prints a screenful, not 70,000 lines.

Nothing that changes between identical runs (the solver's run time) is shown unless asked, so
two runs' outputs diff clean.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
from rich.console import Console, RenderableType
from rich.text import Text

from placement.models.numbers import usd
from placement.models.plan import (
    Assignment,
    Commitment,
    Plan,
    ReservedPurchase,
    Roadmap,
    RobustReport,
)
from placement.reporting.decision import decision_sentence
from placement.reporting.records import csv_text, markdown_table
from placement.reporting.roadmap import (
    MONTH_HEADERS,
    month_rows,
    roadmap_frame,
    roadmap_summary,
)
from placement.reporting.terminal import file_console, new_table, render_text

LIST_EVERY_WORKLOAD_UP_TO = 40
"""An inventory this small is listed whole by default (the 30-workload sample is)."""
DEFAULT_TOP = 10
"""Above that, the default table lists this many of the costliest workloads."""
UNPLACED_IN_SHORT_VIEW = 5
"""The default view of a large plan lists this many unplaced workloads (the rest: --all)."""
ID_ROOM = 52
"""Columns the assignments table keeps for everything but the workload id (accelerator,
pricing, chips and cost, with their spacing)."""
NARROW_TABLE_COLUMNS = 72
"""Below this terminal width the assignments table puts accelerator and pricing together."""
WIDE_TABLE_COLUMNS = 100
"""From this terminal width the assignments table also shows chip-hours."""


@dataclass(frozen=True)
class PlanView:
    """How much of the workloads the table and Markdown show.

    ``rows``: how many workloads to list, costliest first (None: every one; 0: summary only).
    ``why``: whether each listed workload's reason is shown. ``timings``: the solver's time.
    """

    rows: int | None = None
    why: bool = True
    timings: bool = False

    @classmethod
    def default(cls, workloads: int, timings: bool = False, fmt: str = "table") -> PlanView:
        """Markdown is a document: every workload with its reason. A table keeps to what fits
        a screen or two: every workload when there are few, else the costliest few, without
        reasons (--all or --top N shows them; ``placement explain`` one in full)."""
        if fmt == "md":
            return cls(None, True, timings)
        if workloads <= LIST_EVERY_WORKLOAD_UP_TO:
            return cls(None, False, timings)
        return cls(DEFAULT_TOP, False, timings)


def _against(baseline: float | None, saving: float | None, subject: str = "the plan") -> str:
    """A baseline and what ``subject`` saves against it, in words that read right either way."""
    if baseline is None:
        return "n/a"
    if saving is None:
        return usd(baseline)
    rounded = round(saving)
    if rounded > 0:
        return f"{usd(baseline)} ({subject} saves ${rounded:,})"
    if rounded < 0:
        return f"{usd(baseline)} ({subject} costs ${-rounded:,} more)"
    return f"{usd(baseline)} (the same)"


def _saving(baseline: float | None, cost: float | None) -> float | None:
    """``baseline - cost``, None where either is unknown."""
    return None if baseline is None or cost is None else baseline - cost


def _finops_lines(plan: Plan) -> list[tuple[str, str]]:
    f = plan.finops
    if f is None:
        return []
    return [
        (
            "commitments",
            f"cover {f.commitment_coverage:.0%} of chip-hours, {f.commitment_utilization:.0%} "
            f"used ({usd(f.unused_commitment_usd)} idle)",
        ),
        ("effective savings", f"{f.effective_savings_rate:.1%} vs on-demand rates"),
    ]


def _baseline_lines(plan: Plan) -> list[tuple[str, str]]:
    """The plan against the baselines. A roadmap's monthly cost is the horizon's average, so
    it is compared with staying and all H100 on demand over the same months and growth; the
    steady-state baselines are compared with the end state, and labelled so."""
    b = plan.baselines
    r = plan.roadmap
    subject = "the plan" if r is None else "the end state"
    steady = [
        (
            "all H100 on-demand",
            _against(b.all_h100_on_demand_usd, b.savings_vs_all_h100_on_demand_usd, subject),
        ),
        (
            "best without migrating",
            _against(b.all_h100_optimal_usd, b.savings_vs_all_h100_optimal_usd, subject),
        ),
        ("greedy cheapest options", _against(b.greedy_usd, b.savings_vs_greedy_usd, subject)),
    ]
    if r is None:
        return steady
    cost = plan.objective_monthly_usd
    return [
        (
            f"staying put ({r.horizon_months}-month avg)",
            _against(r.stay_monthly_usd, _saving(r.stay_monthly_usd, cost), "the roadmap"),
        ),
        (
            "all H100 on-demand (same)",
            _against(
                r.all_h100_on_demand_monthly_usd,
                _saving(r.all_h100_on_demand_monthly_usd, cost),
                "the roadmap",
            ),
        ),
        (f"end state (month {r.horizon_months} on)", f"{usd(r.end_state_monthly_usd)} a month"),
        *_month_model_note(plan),
        *[(f"  {label}", value) for label, value in _finops_lines(plan)],
        *[(f"  {label}", value) for label, value in steady],
    ]


def _month_model_note(plan: Plan) -> list[tuple[str, str]]:
    """Where a roadmap that changes nothing costs, in its last month, more than the gap away
    from its end state (the same placement planned as a steady state), say so: both are priced
    in the same month model, so they differ only where the roadmap's commitments, chosen for
    the whole horizon, are not the end state's (docs/roadmap.md)."""
    r = plan.roadmap
    if r is None or not r.changes_nothing or not r.months or r.end_state_monthly_usd is None:
        return []
    last = r.months[-1].cost_usd
    gap = plan.gap_asked(default=0.0)
    difference = r.end_state_monthly_usd - last
    if abs(difference) <= gap * abs(r.end_state_monthly_usd) + MONTH_MODEL_NOTE_USD:
        return []
    side = "less" if difference > 0 else "more"
    return [
        (
            f"  roadmap month {r.horizon_months}",
            f"{usd(last)}, {usd(abs(difference))} {side} with the same placement: the "
            "roadmap's commitments are chosen for the whole horizon (docs/roadmap.md)",
        )
    ]


MONTH_MODEL_NOTE_USD = 1.0
"""Dollars a month a roadmap's last month may differ from its end state before the summary
says why (cents of rounding)."""


def summary_lines(plan: Plan, timings: bool = False) -> list[tuple[str, str]]:
    """The headline figures: status, total, breakdown, workloads, baselines, solver."""
    cb = plan.cost_breakdown
    solver = f"{plan.solver.name}, gap " + (
        "n/a" if plan.solver.gap is None else f"{plan.solver.gap:.2%}"
    )
    if timings:
        solver += f", {plan.solver.time_s:.2f} s"
    monthly = usd(plan.objective_monthly_usd)
    # A roadmap pays its one-offs in the months they happen; its breakdown spreads them over
    # the horizon's months, not over the amortization period.
    spread = "amortized"
    if plan.roadmap is not None:
        monthly += f" (average of {plan.roadmap.horizon_months} months)"
        spread = f"over {plan.roadmap.horizon_months} months"
    return [
        ("status", plan.status + (f" ({plan.message})" if plan.message else "")),
        ("monthly cost", monthly),
        ("  on-demand", usd(cb.on_demand_usd)),
        ("  commitments", usd(cb.reserved_usd)),
        (f"  porting ({spread})", usd(cb.porting_amortized_usd)),
        (f"  migration ({spread})", usd(cb.migration_amortized_usd)),
        *(
            [(f"  switching ({spread})", usd(cb.switching_amortized_usd))]
            if cb.switching_amortized_usd
            else []
        ),
        ("workloads", f"{len(plan.assignments):,} planned, {len(plan.unplaced):,} unplaced"),
        # A roadmap's commitment measures are its end state's, listed under it.
        *(_finops_lines(plan) if plan.roadmap is None else []),
        *_baseline_lines(plan),
        ("solver", solver),
    ]


def listed_assignments(plan: Plan, view: PlanView) -> list[Assignment]:
    """The assignments the view lists: costliest first when limited, inventory order when not."""
    if view.rows is None:
        return list(plan.assignments)
    ranked = sorted(plan.assignments, key=lambda a: (-a.monthly_cost_usd, a.workload_id))
    return ranked[: view.rows]


def _unplaced_rows(view: PlanView) -> int | None:
    """How many unplaced workloads a view lists: all, as many as workloads, or a few."""
    if view.rows is None:
        return None
    return view.rows if view.why else min(view.rows, UNPLACED_IN_SHORT_VIEW)


def _listing_note(plan: Plan, view: PlanView, shown: int) -> str | None:
    total = len(plan.assignments)
    if shown == total:
        if view.why or not total:
            return None
        return (
            "Why each workload runs where it does: --all; one workload in full, with what "
            "would move it: placement explain INVENTORY ID."
        )
    return (
        f"Listed: the {shown:,} costliest of {total:,} planned workloads. --top N or --all "
        "lists more, each with the reason for its placement; --format csv or json has every "
        "workload."
    )


# --- table -------------------------------------------------------------------------------


def _summary_table(console: Console, plan: Plan, view: PlanView) -> RenderableType:
    table = new_table(console, "Placement plan", framed=False)
    table.add_column("figure")
    table.add_column("value")
    for key, value in summary_lines(plan, view.timings):
        style = ""
        if key == "status":
            style = "bold green" if plan.status == "optimal" else "bold yellow"
        elif key == "monthly cost":
            style = "bold"
        text = Text(value, style=style)
        # Gains green, losses red (a terminal only: plain consoles drop the styles).
        text.highlight_regex(r"\(the (plan|roadmap) saves [^)]*\)", "green")
        text.highlight_regex(r"\(the (plan|roadmap) costs [^)]* more\)", "red")
        table.add_row(key, text)
    return table


@dataclass(frozen=True)
class _Section:
    """A titled table of text cells, drawn by the terminal and by Markdown alike."""

    title: str
    headers: tuple[str, ...]
    rows: Sequence[Sequence[str]]
    text_columns: int = 1  # the leading columns that are text (left-aligned); the rest numbers
    header: bool = True  # False: label/value rows, drawn without a header row


def _commitment_label(c: Commitment) -> str:
    return f"{c.pricing} {c.accelerator}" if c.accelerator else c.pricing


def _commitment_size(c: Commitment) -> str:
    if c.kind == "reserved":
        return f"{c.units} x {c.unit_chips} chips"
    return f"${c.usd_per_hour or 0:,.2f}/h"


def _decision_sections(plan: Plan) -> list[_Section]:
    """The buying decisions: commitments bought and owned, then ports and migrations."""
    sections = []
    if plan.commitments:
        held = [
            (
                _commitment_label(c),
                _commitment_size(c),
                f"owned, {c.months_left} mo left" if c.owned else f"buy, {c.term_months} mo",
                f"{c.monthly_cost_usd:,.0f}",
                f"{c.utilization:.1%}",
            )
            for c in plan.commitments
        ]
        columns = ("commitment", "size", "term", "$/month", "utilization")
        title = "Commitments"
        if plan.roadmap is not None:
            sections.extend(_roadmap_purchase_sections(plan.roadmap))
            months = plan.roadmap.horizon_months
            title = f"End-state commitments (month {months} on; not the roadmap's purchases)"
        sections.append(_Section(title, columns, held, text_columns=3))
    if plan.ported_families or plan.migrations:
        one_offs = [
            (
                f"port {p.family} to {p.platform} ({p.porting_weeks:g} weeks)",
                f"{p.one_off_usd:,.0f}",
                f"{p.amortized_monthly_usd:,.0f}",
                str(len(p.workloads)),
            )
            for p in plan.ported_families
        ] + [
            (
                f"migrate to {m.platform} ({m.lead_weeks:g} weeks lead)",
                f"{m.one_off_usd:,.0f}",
                f"{m.amortized_monthly_usd:,.0f}",
                "",
            )
            for m in plan.migrations
        ]
        headers = ("item", "one-off $", "$/month", "workloads")
        sections.append(_Section("Porting and migration", headers, one_offs))
    if plan.moves:
        sections.append(_moves_section(plan))
    if plan.robust is not None:
        sections.append(_robust_section(plan.robust))
    if plan.alternatives is not None:
        sections.append(_alternatives_section(plan))
    if plan.roadmap is not None:
        summary = roadmap_summary(plan.roadmap)
        sections.append(_Section("Roadmap", ("", ""), summary, text_columns=2, header=False))
        title = "Roadmap by month (cost against staying where the team is)"
        sections.append(_Section(title, MONTH_HEADERS, month_rows(plan.roadmap), 2))
    return sections


def _robust_section(robust: RobustReport) -> _Section:
    """The robust plan against the point plan over the sampled futures."""
    rows = [
        ("first stage chosen", robust.chosen),
        ("expected cost, this plan held", usd(robust.expected_cost_usd)),
        ("expected cost, the point plan held", usd(robust.point_plan_expected_cost_usd)),
        ("value of planning for uncertainty", usd(robust.value_of_stochastic_solution_usd)),
        ("expected cost knowing each future", usd(robust.perfect_information_cost_usd)),
        ("value of knowing", usd(robust.expected_value_of_perfect_information_usd)),
    ]
    if robust.cvar_alpha is not None:
        level = f"CVaR {robust.cvar_alpha:g} (weight {robust.cvar_weight:g})"
        rows.append(
            (
                f"{level}, this plan / point plan",
                f"{usd(robust.cvar_usd)} / {usd(robust.point_plan_cvar_usd)}",
            )
        )
        if robust.tail_premium is not None:
            rows.append(("expected $ paid per $ of tail removed", f"{robust.tail_premium:.2f}"))
    check = robust.out_of_sample
    if check is not None and check.gap_mean_usd is not None:
        interval = (
            f" ({check.confidence:.0%}: {usd(check.gap_ci_low_usd)} to "
            f"{usd(check.gap_ci_high_usd)})"
            if check.gap_ci_low_usd is not None
            else ""
        )
        rows.append(
            (
                f"on {check.samples} fresh futures, vs the point plan",
                f"{usd(check.gap_mean_usd)}{interval}",
            )
        )
    if robust.held_infeasible_samples:
        rows.append(("futures it cannot run in", str(robust.held_infeasible_samples)))
    title = f"Robust plan ({robust.samples} sampled futures, seed {robust.seed})"
    return _Section(title, ("", ""), rows, text_columns=1, header=False)


def _alternatives_section(plan: Plan) -> _Section:
    """The near-optimal alternatives: what each gives up in cost for what it saves."""
    found = plan.alternatives or []

    def measure(value: float, unit: str) -> str:
        return f"{value:,.0f} {unit}" if value >= 10 else f"{value:g} {unit}"

    rows = [
        (
            a.description,
            f"{a.monthly_cost_usd:,.0f}",
            f"+{a.within:.2%}",
            f"{measure(a.plan_measure, a.measure_unit)} -> {measure(a.measure, a.measure_unit)}",
        )
        for a in found
    ]
    if not rows:
        rows = [("none within the slack asked", "", "", "")]
    headers = ("plan with", "$/month", "vs plan", "plan -> alternative")
    return _Section("Near-optimal alternatives", headers, rows, text_columns=1)


def _roadmap_purchase_sections(roadmap: Roadmap) -> list[_Section]:
    """What the roadmap buys, month by month (its commitments; the end state's are another
    plan's, listed after it)."""
    if not roadmap.purchases:
        return []
    rows = [
        (
            str(p.month),
            p.product,
            f"{p.units} units" if p.units is not None else f"${p.usd_per_hour or 0:,.2f}/h",
            f"{p.term_months} mo",
            f"{p.monthly_usd:,.0f}",
            f"{p.after_horizon_usd:,.0f}",
        )
        for p in roadmap.purchases
    ]
    headers = ("month", "product", "amount", "term", "$/month", "after it $")
    return [_Section("Commitments the roadmap buys", headers, rows, text_columns=4)]


MOVES_SHOWN = 10
"""Moves listed in the table and Markdown (those saving the most); the JSON lists all."""


def _moves_section(plan: Plan) -> _Section:
    """The workloads moved off their current accelerators, those saving the most first."""
    ranked = sorted(
        plan.moves,
        key=lambda m: (m.monthly_saving_usd is not None, m.monthly_saving_usd or 0.0),
        reverse=True,
    )
    rows = [
        (
            m.workload_id,
            f"{m.from_accelerator} -> {m.to_accelerator}",
            f"{m.one_offs_usd:,.0f}",
            "cannot stay" if m.monthly_saving_usd is None else f"{m.monthly_saving_usd:,.0f}",
            str(m.lead_months),
            "" if m.payback_months is None else f"{m.payback_months:.1f}",
        )
        for m in ranked[:MOVES_SHOWN]
    ]
    if len(ranked) > MOVES_SHOWN:
        rows.append(
            (f"and {len(ranked) - MOVES_SHOWN:,} more (the JSON lists all)", "", "", "", "", "")
        )
    title = f"Moves ({len(ranked):,} workloads leave where they run today; at the plan's prices)"
    headers = ("workload", "move", "one-offs $", "saves $/mo", "lead mo", "payback mo")
    return _Section(title, headers, rows, text_columns=2)


def _decision_tables(console: Console, plan: Plan) -> list[RenderableType]:
    out: list[RenderableType] = []
    for section in _decision_sections(plan):
        table = new_table(console, section.title, framed=section.header)
        for index, header in enumerate(section.headers):
            table.add_column(header, justify="left" if index < section.text_columns else "right")
        for row in section.rows:
            table.add_row(*row)
        out.append(table)
    return out


def _workload_tables(console: Console, plan: Plan, view: PlanView) -> list[RenderableType]:
    listed = listed_assignments(plan, view)
    out: list[RenderableType] = []
    if listed:
        title = "Assignments" if view.rows is None else "Costliest workloads"
        table = new_table(console, title)
        # Ids and figures are not broken where the width allows (the other columns need
        # about ID_ROOM); on a narrow console accelerator and pricing share a column, folding
        # between the two words.
        narrow = console.width < NARROW_TABLE_COLUMNS
        longest = max(len(a.workload_id) for a in listed)
        numbers = ["chips", "$/month"]
        if console.width >= WIDE_TABLE_COLUMNS:
            numbers.insert(1, "chip-hours")
        cells = [
            {
                "chips": f"{a.chips:,}",
                "chip-hours": f"{a.chip_hours:,.0f}",
                "$/month": f"{a.monthly_cost_usd:,.0f}",
            }
            for a in listed
        ]
        widths = {c: max(len(c), *(len(figures[c]) for figures in cells)) for c in numbers}
        if narrow:
            # Exact widths, so that nothing is cropped: the placement column as wide as its
            # longest word, the figures as their widest cell, the id what is left.
            words = max(len(w) for a in listed for w in (a.accelerator, a.pricing))
            room = console.width - 2 - 3 * (2 + len(numbers)) - words - sum(widths.values())
            table.add_column("workload", width=max(8, min(longest, room)))
            table.add_column("runs on", width=words)
        else:
            room = console.width - ID_ROOM
            table.add_column("workload", min_width=min(longest, max(12, room)))
            table.add_column("accelerator")
            table.add_column("pricing")
        for col in numbers:
            table.add_column(col, justify="right", min_width=widths[col])
        for a, figures in zip(listed, cells, strict=True):
            where = [f"{a.accelerator} {a.pricing}"] if narrow else [a.accelerator, a.pricing]
            table.add_row(a.workload_id, *where, *(figures[c] for c in numbers))
        out.append(table)
        if view.why:
            why = new_table(console, "Why", framed=False)
            why.add_column("workload")
            why.add_column("reason")
            for a in listed:
                why.add_row(a.workload_id, a.why)
            out.append(why)
    note = _listing_note(plan, view, len(listed))
    if note and view.rows != 0:
        out.append(Text(note, style="dim"))
    unplaced = plan.unplaced[: _unplaced_rows(view)]
    if unplaced:
        un = new_table(console, "Unplaced workloads")
        un.add_column("workload")
        un.add_column("reasons")
        for u in unplaced:
            un.add_row(u.workload_id, "\n".join(u.reasons))
        out.append(un)
        if len(unplaced) < len(plan.unplaced):
            more = len(plan.unplaced) - len(unplaced)
            out.append(Text(f"and {more:,} more unplaced workloads (--all lists them)"))
    return out


CONFLICTS_TITLE = "These cannot all hold (relax or remove any one and the rest can):"


def _conflict_lines(plan: Plan) -> list[RenderableType]:
    if not plan.conflicts:
        return []
    return [Text(CONFLICTS_TITLE, style="bold"), *(Text(f"- {c}") for c in plan.conflicts)]


def plan_table(plan: Plan, view: PlanView, console: Console | None = None) -> str:
    """The plan drawn as tables on ``console`` (plain, ``COLUMNS`` or 80 wide, if None)."""
    console = console or file_console()
    parts = [
        _summary_table(console, plan, view),
        Text(decision_sentence(plan), style="bold"),
        *_conflict_lines(plan),
        *_decision_tables(console, plan),
        *_workload_tables(console, plan, view),
    ]
    return render_text(console, parts)


# --- Markdown ----------------------------------------------------------------------------


def plan_markdown(plan: Plan, view: PlanView) -> str:
    """The plan as a Markdown document, in the same order as the table."""
    parts = ["# Placement plan\n\n", markdown_table(["", ""], summary_lines(plan, view.timings))]
    if plan.conflicts:
        parts.append(f"\n{CONFLICTS_TITLE}\n\n" + "".join(f"- `{c}`\n" for c in plan.conflicts))
    for section in _decision_sections(plan):
        parts.append(f"\n## {section.title}\n\n")
        parts.append(markdown_table(section.headers, section.rows))
    listed = listed_assignments(plan, view)
    if listed:
        headers = ["workload", "accelerator", "pricing", "chips", "chip-hours", "$/month"]
        title = "Assignments" if view.rows is None else "Costliest workloads"
        parts.append(f"\n## {title}\n\n")
        parts.append(
            markdown_table(
                headers + (["why"] if view.why else []),
                [
                    (
                        a.workload_id,
                        a.accelerator,
                        a.pricing,
                        a.chips,
                        f"{a.chip_hours:,.0f}",
                        f"{a.monthly_cost_usd:,.0f}",
                        *([a.why] if view.why else []),
                    )
                    for a in listed
                ],
            )
        )
    note = _listing_note(plan, view, len(listed))
    if note and view.rows != 0:
        parts.append(f"\n{note}\n")
    if plan.unplaced:
        parts.append("\n## Unplaced\n\n")
        parts.append(
            markdown_table(
                ["workload", "reasons"],
                [(u.workload_id, "; ".join(u.reasons)) for u in plan.unplaced],
            )
        )
    return "".join(parts)


# --- CSV ---------------------------------------------------------------------------------

CSV_TABLES = ("assignments", "purchases", "porting", "totals")
"""The plan's CSV tables, in order. Beside a file ``plan.csv`` the others are
``plan.purchases.csv``, ``plan.porting.csv`` and ``plan.totals.csv``; on a stream they follow
the assignments as sections."""


def plan_rows(plan: Plan) -> pd.DataFrame:
    """One row per workload (placed or not), extra inventory columns carried through."""
    rows: list[dict[str, Any]] = []
    today = any(a.current_accelerator for a in plan.assignments)
    for a in plan.assignments:
        rows.append(
            {
                "workload_id": a.workload_id,
                "placed": True,
                "accelerator": a.accelerator,
                "pricing": a.pricing,
                "chips": a.chips,
                "chip_hours": a.chip_hours,
                "monthly_cost_usd": a.monthly_cost_usd,
                "why": a.why,
                "replica_chips": a.replica_chips,
                "replicas": a.replicas,
                **(
                    {
                        "current_accelerator": a.current_accelerator,
                        "switching_one_off_usd": a.switching_one_off_usd,
                    }
                    if today
                    else {}
                ),
                **a.extra,
            }
        )
    for u in plan.unplaced:
        rows.append(
            {
                "workload_id": u.workload_id,
                "placed": False,
                "why": "unplaced: " + " | ".join(u.reasons),
            }
        )
    columns = [
        "workload_id",
        "placed",
        "accelerator",
        "pricing",
        "chips",
        "chip_hours",
        "monthly_cost_usd",
        "why",
        # Added after the first columns, so that positions scripts rely on do not move.
        "replica_chips",
        "replicas",
    ]
    if today:
        # Only where the inventory says where workloads run today, for the same reason.
        columns += ["current_accelerator", "switching_one_off_usd"]
    frame = pd.DataFrame(rows)
    extras = [c for c in frame.columns if c not in columns]
    return frame.reindex(columns=columns + extras)


def plan_csv_tables(plan: Plan) -> dict[str, pd.DataFrame]:
    """Every table of :data:`CSV_TABLES`: the workloads, the purchases, the one-off items and
    the totals (one row: status, total, breakdown, baselines, solver; no run time)."""
    purchases = pd.DataFrame(
        [r.model_dump() for r in plan.reserved_purchases],
        columns=list(ReservedPurchase.model_fields),
    )
    porting = pd.DataFrame(
        [
            {
                "item": "port",
                "platform": p.platform,
                "family": p.family,
                "weeks": p.porting_weeks,
                "one_off_usd": p.one_off_usd,
                "amortized_monthly_usd": p.amortized_monthly_usd,
                "workloads": p.workloads,
            }
            for p in plan.ported_families
        ]
        + [
            {
                "item": "migration",
                "platform": m.platform,
                "family": None,
                "weeks": m.lead_weeks,
                "one_off_usd": m.one_off_usd,
                "amortized_monthly_usd": m.amortized_monthly_usd,
                "workloads": [],
            }
            for m in plan.migrations
        ],
        columns=[
            "item",
            "platform",
            "family",
            "weeks",
            "one_off_usd",
            "amortized_monthly_usd",
            "workloads",
        ],
    )
    totals = pd.DataFrame(
        [
            {
                "status": plan.status,
                "objective_monthly_usd": plan.objective_monthly_usd,
                **plan.cost_breakdown.model_dump(),
                "workloads_planned": len(plan.assignments),
                "workloads_unplaced": len(plan.unplaced),
                **plan.baselines.model_dump(),
                "solver": plan.solver.name,
                "gap": plan.solver.gap,
                "message": plan.message,
            }
        ]
    )
    roadmap = plan.roadmap
    extra = {ROADMAP_TABLE: roadmap_frame(roadmap)} if roadmap is not None else {}
    return {
        **extra,
        "assignments": plan_rows(plan),
        "purchases": purchases,
        "porting": porting,
        "totals": totals,
    }


ROADMAP_TABLE = "roadmap"
"""The CSV table a horizon plan adds after :data:`CSV_TABLES` (one row per month)."""


def csv_table_names(roadmap: bool) -> tuple[str, ...]:
    """The CSV tables of a plan, with the roadmap's when it has one."""
    return (*CSV_TABLES, ROADMAP_TABLE) if roadmap else CSV_TABLES


def plan_csv_sections(plan: Plan) -> str:
    """Every CSV table in one stream: the assignments as plain CSV first, then each other
    table after a blank line and a ``# <name>`` line."""
    tables = plan_csv_tables(plan)
    parts = [csv_text(tables["assignments"])]
    for name in csv_table_names(plan.roadmap is not None)[1:]:
        parts.append(f"\n# {name}\n{csv_text(tables[name])}")
    return "".join(parts)


def plan_csv_files(plan: Plan, path: str) -> dict[str, str]:
    """The CSV tables as files: ``path`` holds the assignments, the others sit beside it."""
    tables = plan_csv_tables(plan)
    roadmap = plan.roadmap is not None
    paths = [path, *sidecar_paths(path, roadmap)]
    names = csv_table_names(roadmap)
    return {p: csv_text(tables[name]) for p, name in zip(paths, names, strict=True)}


def sidecar_paths(path: str | os.PathLike[str], roadmap: bool = False) -> list[str]:
    """The files a CSV plan written to ``path`` puts beside it: ``<stem>.<table>.csv``
    (``<stem>.roadmap.csv`` too for a horizon plan)."""
    text = os.fspath(path)
    stem = text[: -len(".csv")] if text.lower().endswith(".csv") else text
    return [f"{stem}.{name}.csv" for name in csv_table_names(roadmap)[1:]]


# --- dispatch ----------------------------------------------------------------------------


ASSIGNMENTS_PER_PART = 1_000
"""Assignments serialised at a time by :func:`plan_json_parts`."""


def plan_json_parts(plan: Plan) -> Iterator[str]:
    """``render_plan(plan, "json")`` a part at a time, so that a large plan is written without
    its whole text in memory (at 100,000 workloads the text is over 400 MB, held twice while
    encoded): the plan without its assignments, with the assignments spliced in where their
    empty list stands, a thousand at a time, indented as the whole document indents them."""
    shell = plan.model_copy(update={"assignments": []}).model_dump_json(indent=2)
    head, found, tail = shell.partition(_EMPTY_ASSIGNMENTS)
    if not found or not plan.assignments:
        yield render_plan(plan, "json")
        return
    yield head + '\n  "assignments": [\n'
    for start in range(0, len(plan.assignments), ASSIGNMENTS_PER_PART):
        part = plan.assignments[start : start + ASSIGNMENTS_PER_PART]
        texts = (_ASSIGNMENT_INDENT + _indented(a.model_dump_json(indent=2)) for a in part)
        yield ("" if start == 0 else ",\n") + ",\n".join(texts)
    yield "\n  ],\n" + tail + "\n"


_EMPTY_ASSIGNMENTS = '\n  "assignments": [],\n'
_ASSIGNMENT_INDENT = "    "


def _indented(text: str) -> str:
    # JSON strings hold no raw newline (they are escaped), so every newline starts a line.
    return text.replace("\n", "\n" + _ASSIGNMENT_INDENT)


def render_plan(
    plan: Plan, fmt: str, view: PlanView | None = None, console: Console | None = None
) -> str:
    """The plan in one of the shared formats (CSV as one stream of sections)."""
    if fmt == "json":
        return plan.model_dump_json(indent=2) + "\n"
    if fmt == "csv":
        return plan_csv_sections(plan)
    view = view or PlanView.default(len(plan.assignments) + len(plan.unplaced), fmt=fmt)
    if fmt == "md":
        return plan_markdown(plan, view)
    return plan_table(plan, view, console)


__all__ = [
    "CSV_TABLES",
    "DEFAULT_TOP",
    "LIST_EVERY_WORKLOAD_UP_TO",
    "PlanView",
    "plan_csv_files",
    "plan_csv_sections",
    "plan_csv_tables",
    "plan_json_parts",
    "plan_markdown",
    "plan_rows",
    "plan_table",
    "render_plan",
    "sidecar_paths",
    "summary_lines",
    "usd",
]

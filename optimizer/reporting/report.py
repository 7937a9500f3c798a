"""The decision brief: one self-contained HTML file (or Markdown) a planner sends for approval.

Shaped as infracost's pull-request comment is: one sentence with the money, one summary table,
then the details, folded where long. In order: what to buy now, what to port and when (the
roadmap's timeline with ``--horizon``), the payback, the risk (a ``placement risk`` result, when
given), the charts, the what-if comparison (when scenarios are given), every workload with its
explanation, and where the plan came from.

The HTML loads nothing from anywhere: styles and the table-sorting script are inline, charts
are inline SVG with their text drawn as paths (``charts.svg_text``). Markdown carries the same
tables for wikis and pull requests, without the charts.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from placement.comparing.whatif import WhatIfResult
from placement.models.numbers import usd
from placement.models.plan import Plan
from placement.models.risk import RiskHorizon, RiskResult
from placement.models.sweep import SweepSummary
from placement.reporting import charts
from placement.reporting.decision import decision_sentence
from placement.reporting.records import markdown_table
from placement.reporting.risk import FAN_HEADERS, fan_row, horizon_sentence
from placement.reporting.risk import headline as risk_headline
from placement.reporting.sweep import break_even_lines, sweep_cells, sweep_markdown

WHY_SHOWN = 240
"""Characters of a workload's explanation shown before the rest is folded."""


@dataclass(frozen=True)
class ReportInput:
    """What a report draws on: the plan, where it came from, and the optional results."""

    plan: Plan
    title: str
    whatif: WhatIfResult | None = None
    risk: RiskResult | None = None
    sweep: SweepSummary | None = None


@dataclass(frozen=True)
class Table:
    """A table as the report shows it: headers, rows of text, and per cell a sort key."""

    headers: list[str]
    rows: list[list[str]]
    numeric: frozenset[int] = frozenset()  # columns sorted as numbers

    def markdown(self) -> str:
        return markdown_table(self.headers, self.rows)


def summary_table(plan: Plan) -> Table:
    costs = plan.cost_breakdown
    b = plan.baselines
    rows = [
        ["monthly cost", usd(plan.objective_monthly_usd)],
        ["on demand", usd(costs.on_demand_usd)],
        ["commitments", usd(costs.reserved_usd)],
        ["porting (amortized)", usd(costs.porting_amortized_usd)],
        ["migration (amortized)", usd(costs.migration_amortized_usd)],
        ["all H100 on demand", usd(b.all_h100_on_demand_usd)],
        ["best without migrating", usd(b.all_h100_optimal_usd)],
        ["cheapest option each (greedy)", usd(b.greedy_usd)],
        ["workloads planned / unplaced", f"{len(plan.assignments):,} / {len(plan.unplaced):,}"],
        ["status (solver gap)", f"{plan.status} ({plan.solver.name}, {_gap(plan)})"],
    ]
    if plan.finops is not None:
        rows.insert(
            5,
            [
                "commitment coverage / utilisation",
                f"{100 * plan.finops.commitment_coverage:.0f}% / "
                f"{100 * plan.finops.commitment_utilization:.0f}%",
            ],
        )
    return Table(["", ""], rows)


def _gap(plan: Plan) -> str:
    gap = plan.solver.gap
    return "gap n/a" if gap is None else f"gap {100 * gap:.2g}%"


def purchases_table(plan: Plan) -> Table:
    rows = [
        [
            c.pricing,
            c.accelerator or "any listed",
            f"{c.units} x {c.unit_chips} chips" if c.kind == "reserved" else
            f"${c.usd_per_hour:,.2f}/h",
            f"{c.term_months} months" if c.term_months else "",
            usd(c.monthly_cost_usd),
            f"{100 * c.utilization:.0f}%",
        ]
        for c in plan.commitments
        if not c.owned
    ]  # fmt: skip
    return Table(["product", "accelerator", "amount", "term", "monthly", "used"], rows)


def porting_table(plan: Plan) -> Table:
    rows = [
        [
            f"port {p.family} to {p.platform}",
            f"{p.porting_weeks:g} weeks",
            usd(p.one_off_usd),
            usd(p.amortized_monthly_usd),
            ", ".join(p.workloads),
        ]
        for p in plan.ported_families
    ]
    rows += [
        [f"migrate to {m.platform}", f"{m.lead_weeks:g} weeks lead", usd(m.one_off_usd),
         usd(m.amortized_monthly_usd), ""]
        for m in plan.migrations
    ]  # fmt: skip
    return Table(["what", "time", "one-off", "amortized a month", "workloads"], rows)


def roadmap_table(plan: Plan) -> Table | None:
    roadmap = plan.roadmap
    if roadmap is None:
        return None
    rows = [
        [
            str(m.month),
            usd(m.cost_usd),
            usd(m.stay_cost_usd),
            usd(m.cumulative_saving_usd),
            "; ".join([*m.ports_ready, *m.migrations_ready]),
            f"{len(m.moves):,}" if m.moves else "",
            "; ".join(m.commitments_bought),
        ]
        for m in roadmap.months
    ]
    return Table(
        ["month", "cost", "staying", "saved so far", "ready", "moves", "bought"],
        rows,
        frozenset({0}),
    )


def workloads_table(plan: Plan) -> Table:
    rows = [
        [
            a.workload_id,
            a.accelerator,
            a.pricing,
            f"{a.chips:,}",
            f"{a.chip_hours:,.0f}",
            usd(a.monthly_cost_usd),
            a.why,
        ]
        for a in sorted(plan.assignments, key=lambda a: -a.monthly_cost_usd)
    ]
    rows += [
        [u.workload_id, "unplaced", "", "", "", "", "; ".join(u.reasons)] for u in plan.unplaced
    ]
    return Table(
        ["workload", "accelerator", "pricing", "chips", "chip-hours", "monthly", "why"],
        rows,
        frozenset({3, 4, 5}),
    )


def whatif_table(result: WhatIfResult) -> Table:
    rows = []
    for o in result.outcomes:
        p = o.plan
        rows.append(
            [
                o.name,
                p.status,
                usd(p.objective_monthly_usd),
                usd(p.baselines.savings_vs_all_h100_on_demand_usd),
                ", ".join(f"{f.family} to {f.platform}" for f in p.ported_families) or "none",
                f"{len(o.diff.moves):,}" if o.diff is not None else "",
            ]
        )
    return Table(["scenario", "status", "monthly", "saves vs all H100", "ports", "moved"], rows,
                 frozenset({2, 3, 5}))  # fmt: skip


def sweep_table(summary: SweepSummary) -> Table:
    headers, rows = sweep_cells(summary)
    money = {headers.index("monthly cost")}
    return Table(headers, rows, frozenset(money | set(range(len(summary.parameters)))))


def risk_table(result: RiskResult) -> Table:
    spreads = [
        ("each future's optimum", result.optimal_cost_usd),
        ("the point plan held fixed", result.base_plan_cost_usd),
        ("best without migrating", result.all_h100_cost_usd),
    ]
    rows = [[label, usd(s.p10), usd(s.p50), usd(s.p90)] for label, s in spreads]
    rows.append(["regret of the point plan (mean, P90)", usd(result.regret_usd.mean),
                 usd(result.regret_usd.p90), ""])  # fmt: skip
    return Table(["monthly cost", "P10", "P50", "P90"], rows)


def fan_table(horizon: RiskHorizon) -> Table:
    """Every month of the held roadmap over the futures."""
    rows = [fan_row(m) for m in horizon.months]
    return Table(FAN_HEADERS, rows, frozenset(range(len(FAN_HEADERS))))


# ----------------------------------------------------------------------------------- Markdown


def report_markdown(given: ReportInput) -> str:
    plan = given.plan
    out = [f"# {given.title}\n\n", decision_sentence(plan), "\n\n", summary_table(plan).markdown()]
    sections: list[tuple[str, Table | None]] = [
        ("What to buy now", purchases_table(plan)),
        ("What to port and when", porting_table(plan)),
        ("The roadmap, month by month", roadmap_table(plan)),
    ]
    for title, table in sections:
        if table is not None and table.rows:
            out.append(f"\n## {title}\n\n{table.markdown()}")
    if given.risk is not None:
        out.append(f"\n## The risk\n\n{risk_headline(given.risk)}\n\n")
        out.append(risk_table(given.risk).markdown())
        if given.risk.horizon is not None:
            out.append(f"\n{horizon_sentence(given.risk.horizon)}\n\n")
            out.append(fan_table(given.risk.horizon).markdown())
    if given.whatif is not None:
        out.append(f"\n## What if\n\n{whatif_table(given.whatif).markdown()}")
    if given.sweep is not None:
        out.append(f"\n## Sweep of {given.sweep.first}\n\n{sweep_markdown(given.sweep, '###')}")
    out.append(f"\n## Every workload\n\n{workloads_table(plan).markdown()}")
    out.append(f"\n{_provenance(plan)}\n")
    return "".join(out)


def _provenance(plan: Plan) -> str:
    run = plan.run
    if run is None:
        return ""
    source = run.input.path or "an inventory in memory"
    parts = [
        f"Planned by placement {run.tool_version} on {run.started_at} from {source}",
        f"catalog {run.catalog.name}",
    ]
    if run.scenario:
        parts.append(f"scenario {run.scenario}")
    if run.overrides:
        parts.append("settings " + ", ".join(run.overrides))
    return "; ".join(parts) + "."


# --------------------------------------------------------------------------------------- HTML

STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:70rem;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}
.meta{color:#666;font-size:.85rem}.headline{font-size:1.1rem;font-weight:600;
background:#f3f8f3;border-left:4px solid #2ca02c;padding:.6rem .9rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}
th,td{padding:.25rem .6rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
th.sort{cursor:pointer;user-select:none}th.sort:after{content:" \\2195";color:#aaa}
details{margin:.3rem 0}summary{cursor:pointer;color:#1f4e9a}
figure{margin:1rem 0}figcaption{color:#555;font-size:.85rem}svg{max-width:100%;height:auto}
"""

SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.classList.add("sort");
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.getAttribute("data-up") !== "1";
      th.setAttribute("data-up", up ? "1" : "0");
      var numeric = th.classList.contains("n");
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-v"), y = b.cells[column].getAttribute("data-v");
        var c = numeric ? (parseFloat(x) || 0) - (parseFloat(y) || 0) : x.localeCompare(y);
        return up ? c : -c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def _number(text: str) -> str:
    """A cell's sort key as a number: '$1,234' -> 1234, '-$5' -> -5, 'n/a' -> ''."""
    cleaned = text.replace("$", "").replace(",", "").replace("%", "").strip()
    try:
        return repr(float(cleaned))
    except ValueError:
        return ""


def _cell(text: str, numeric: bool, fold: bool) -> str:
    key = _number(text) if numeric else text
    shown = html.escape(text)
    if fold and len(text) > WHY_SHOWN:
        cut = text.rfind(" ", 0, WHY_SHOWN) + 1 or WHY_SHOWN  # at a word's end
        shown = (
            f"{html.escape(text[:cut])}<details><summary>more</summary>"
            f"{html.escape(text[cut:])}</details>"
        )
    css = ' class="n"' if numeric else ""
    return f'<td{css} data-v="{html.escape(key, quote=True)}">{shown}</td>'


def table_html(table: Table, sortable: bool = False, fold_last: bool = False) -> str:
    head = "".join(
        f"<th{' class=n' if i in table.numeric else ''}>{html.escape(h)}</th>"
        for i, h in enumerate(table.headers)
    )
    body = "".join(
        "<tr>"
        + "".join(
            _cell(text, i in table.numeric, fold_last and i == len(row) - 1)
            for i, text in enumerate(row)
        )
        + "</tr>"
        for row in table.rows
    )
    css = ' class="sortable"' if sortable else ""
    return f"<table{css}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _chart(name: str, caption: str, draw: Callable[[], object | None]) -> str:
    figure = draw()
    if figure is None:
        return ""
    svg = charts.svg_text(figure, name)  # type: ignore[arg-type]
    return (
        f'<figure id="chart-{name}">{svg}<figcaption>{html.escape(caption)}</figcaption></figure>'
    )


def report_html(given: ReportInput) -> str:
    plan = given.plan
    title = html.escape(given.title)
    parts = [
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><style>{STYLE}</style></head><body>",
        f"<h1>{title}</h1><p class=meta>{html.escape(_provenance(plan))}</p>",
        f'<p class="headline">{html.escape(decision_sentence(plan))}</p>',
        table_html(summary_table(plan)),
    ]
    purchases, porting = purchases_table(plan), porting_table(plan)
    if purchases.rows:
        parts += ["<h2>What to buy now</h2>", table_html(purchases)]
    if porting.rows:
        parts += ["<h2>What to port and when</h2>", table_html(porting)]
    roadmap = roadmap_table(plan)
    if roadmap is not None:
        parts += [
            "<h2>The roadmap</h2>",
            _chart("roadmap", "Each month's cost by component; staying where the team is "
                   "dashed; what becomes ready and who moves, above the bars.",
                   lambda: charts.roadmap_chart(plan)),
            "<details><summary>Month by month</summary>", table_html(roadmap), "</details>",
        ]  # fmt: skip
    if given.risk is not None:
        risk = given.risk
        parts += [
            "<h2>The risk</h2>",
            f"<p>{html.escape(risk_headline(risk))}</p>",
            table_html(risk_table(risk)),
            _chart("risk", "Monthly cost over the sampled futures.",
                   lambda: charts.risk_chart(risk)),
            _chart("tornado", "What moves the optimum most.", lambda: charts.tornado_chart(risk)),
        ]  # fmt: skip
        if risk.horizon is not None:
            parts += [
                f"<p>{html.escape(horizon_sentence(risk.horizon))}</p>",
                _chart("fan", "The roadmap held fixed: each month's cost over the sampled "
                       "futures (P10 to P90 shaded, the median drawn, as planned dashed).",
                       lambda: charts.fan_chart(risk)),
                "<details><summary>Month by month over the futures</summary>",
                table_html(fan_table(risk.horizon)), "</details>",
            ]  # fmt: skip
    parts += [
        "<h2>Where the money goes</h2>",
        _chart("cost", "The plan's monthly cost beside its baselines.",
               lambda: charts.cost_chart(plan)),
        _chart("chip-hours", "Chip-hours a month by accelerator and how they are paid for.",
               lambda: charts.chip_hours_chart(plan)),
        _chart("week", "Chips in use over the hours of a week: committed below, on demand above.",
               lambda: charts.week_chart(plan)),
    ]  # fmt: skip
    if given.whatif is not None:
        whatif = given.whatif
        names = [o.name for o in whatif.outcomes]
        costs = [o.plan.objective_monthly_usd for o in whatif.outcomes]
        parts += [
            "<h2>What if</h2>",
            table_html(whatif_table(whatif), sortable=True),
            _chart("whatif", "Each scenario's monthly cost.",
                   lambda: charts.labelled_bars(names, costs, "monthly cost")),
        ]  # fmt: skip
    if given.sweep is not None:
        swept = given.sweep
        lines = "".join(f"<li>{html.escape(line)}</li>" for line in break_even_lines(swept))
        parts += [
            f"<h2>Sweep of {html.escape(swept.first)}</h2>",
            _chart("sweep", "The monthly cost along the sweep; each break-even (where the "
                   "plan changes) dashed and labelled.", lambda: charts.sweep_chart(swept)),
            f"<h3>Break-evens</h3><ul>{lines}</ul>",
            "<details><summary>Every point</summary>", table_html(sweep_table(swept)),
            "</details>",
        ]  # fmt: skip
    parts += [
        f"<h2>Every workload ({len(plan.assignments) + len(plan.unplaced):,})</h2>",
        "<p class=meta>Click a column to sort.</p>",
        table_html(workloads_table(plan), sortable=True, fold_last=True),
        f"<script>{SORT_SCRIPT}</script></body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"

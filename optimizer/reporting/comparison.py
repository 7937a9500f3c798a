"""A what-if comparison as table, JSON, CSV or Markdown.

The table puts the plans side by side (one column each, the figures down the side), then each
scenario's changes against the base: the workloads that moved, from where to where, what their
share of the bill did, and why. JSON carries the summary, the diffs and every plan; CSV the
summary, then the moves as a ``# moves`` section.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pandas as pd
from rich.console import Console, RenderableType
from rich.text import Text

from placement.comparing.diff import commitment_change_text
from placement.comparing.whatif import WhatIfResult
from placement.models.numbers import missing, usd
from placement.reporting.plan import plan_json_parts
from placement.reporting.records import csv_text, markdown_table
from placement.reporting.terminal import file_console, new_table, render_text

MOVES_SHOWN = 15
"""Moves listed per scenario in a table or Markdown (JSON and CSV list them all)."""


def _percent(value: float | None) -> str:
    return "" if value is None or missing(value) else f"{100 * value:.1f}%"


def _saving(value: float | None) -> str:
    return "n/a" if value is None or missing(value) else usd(value)


def _reason(why: str) -> str:
    """The deciding clause of an assignment's reason (the rest is in the plan's JSON)."""
    return why.split("; ")[0]


def _lines(row: dict[str, Any]) -> list[tuple[str, str]]:
    """The figures of one summary row, as the table's labels and cells."""
    shares = ", ".join(f"{acc} {100 * s:.0f}%" for acc, s in row["chip_hours_share"].items())
    return [
        ("status", str(row["status"])),
        ("monthly cost", usd(row["objective_monthly_usd"])),
        ("  on demand", usd(row["on_demand_usd"])),
        ("  commitments", usd(row["commitments_usd"])),
        ("  porting (amortized)", usd(row["porting_amortized_usd"])),
        ("  migration (amortized)", usd(row["migration_amortized_usd"])),
        ("  switching (amortized)", usd(row["switching_amortized_usd"])),
        ("chip-hours by accelerator", shares),
        ("commitments bought", usd(row["commitments_bought_monthly_usd"]) + "/month"),
        ("commitment coverage", _percent(row["commitment_coverage"])),
        ("commitment utilization", _percent(row["commitment_utilization"])),
        ("families ported", str(len(row["families_ported"]))),
        ("migration", ", ".join(row["migrations"]) or "no"),
        ("saves vs all-H100 on demand", _saving(row["savings_vs_all_h100_on_demand_usd"])),
        ("saves vs best without migrating", _saving(row["savings_vs_all_h100_optimal_usd"])),
        ("saves vs greedy", _saving(row["savings_vs_greedy_usd"])),
        ("placed / unplaced", f"{row['placed']} / {row['unplaced']}"),
        *_risk_lines(row),
    ]


def _risk_lines(row: dict[str, Any]) -> list[tuple[str, str]]:
    """With --samples: the plan over the sampled futures."""
    if "risk_samples" not in row or missing(row["risk_samples"]):
        return []
    pays = row["risk_pays_probability"]
    return [
        (f"over {row['risk_samples']:,} futures:", ""),
        ("  migrating pays", "n/a" if pays is None or missing(pays) else f"{100 * pays:.0f}%"),
        ("  held fixed P10", usd(row["risk_held_p10_usd"])),
        ("  held fixed P50", usd(row["risk_held_p50_usd"])),
        ("  held fixed P90", usd(row["risk_held_p90_usd"])),
        ("  regret (mean)", usd(row["risk_regret_mean_usd"])),
    ]


def _change_lines(result: WhatIfResult) -> dict[str, list[str]]:
    """Per scenario, its changes against the base in words."""
    out: dict[str, list[str]] = {}
    for o in result.outcomes[1:]:
        d = o.diff
        assert d is not None
        if o.plan.status not in ("optimal", "feasible"):
            # No plan: nothing moved or was dropped; say why instead.
            out[o.name] = [f"no plan ({o.plan.status}): {o.plan.message}"]
            continue
        lines = []
        if d.objective_change_usd is not None:
            lines.append(f"monthly cost {usd(d.objective_change_usd)} against the base")
        if d.unchanged:
            lines.append("the plan is the base plan")
        for label, items in (
            ("added", d.added),
            ("dropped", d.dropped),
            ("ports added", d.ports_added),
            ("ports given up", d.ports_removed),
            ("migration added", d.migrations_added),
            ("migration given up", d.migrations_removed),
        ):
            if items:
                lines.append(f"{label}: {', '.join(items)}")
        for c in d.commitments:
            lines.append(f"commitment {c['product']}: {commitment_change_text(c)}")
        if d.repriced:
            n = len(d.repriced)
            lines.append(
                f"{n} workload{'s' if n != 1 else ''} paid differently on the same accelerator"
            )
        out[o.name] = lines
    return out


COLUMN_PADDING = 3
"""A table column's spacing and rule, beyond its text (rich's padding and separator)."""


def column_pages(label_width: int, widths: list[int], width: int) -> list[list[int]]:
    """The scenario columns (by index; 0 is the base) in pages that fit ``width`` beside the
    labels, each page repeating the base: cells are never split, a wide comparison is read
    page by page. A column wider than the page on its own gets a page to itself."""
    pages: list[list[int]] = []
    page: list[int] = [0]
    used = label_width + widths[0] + 2 * COLUMN_PADDING
    for i in range(1, len(widths)):
        need = widths[i] + COLUMN_PADDING
        if used + need > width and len(page) > 1:
            pages.append(page)
            page, used = [0], label_width + widths[0] + 2 * COLUMN_PADDING
        page.append(i)
        used += need
    pages.append(page)
    return pages


def _glance(result: WhatIfResult, console: Console) -> RenderableType:
    """Every plan on one line each, for comparisons too wide to read side by side at once."""
    table = new_table(console, "What if, at a glance (every figure side by side below)")
    longest = max(len(o.name) for o in result.outcomes)
    table.add_column("scenario", min_width=min(longest, console.width // 3))
    for header in ("status", "monthly", "vs base", "migration", "placed"):
        table.add_column(header, justify="left" if header == "migration" else "right")
    base = result.base.plan.objective_monthly_usd
    for o in result.outcomes:
        cost = o.plan.objective_monthly_usd
        change = "" if o.diff is None or cost is None or base is None else usd(cost - base)
        migrations = ", ".join(m.platform for m in o.plan.migrations) or "no"
        placed = f"{len(o.plan.assignments)} / {len(o.plan.unplaced)}"
        table.add_row(Text(o.name), o.plan.status, usd(cost), change, migrations, placed)
    return table


def comparison_table(result: WhatIfResult, console: Console | None = None) -> str:
    console = console or file_console()
    rows = [o for o in result.summary().to_dict("records")]
    per_plan = [_lines(row) for row in rows]
    names = [str(row["scenario"]) for row in rows]
    labels = [label for label, _ in per_plan[0]]
    # A list cell ("h100 23%, trn2 77%") may wrap after its commas, never inside an item.
    widths = [
        max(len(name), *(len(item) for _, cell in lines for item in cell.split(", ")))
        for name, lines in zip(names, per_plan, strict=True)
    ]
    label_width = max(len(label) for label in labels)
    pages = column_pages(label_width, widths, console.width)
    tables: list[RenderableType] = [] if len(pages) == 1 else [_glance(result, console)]
    for number, page in enumerate(pages, start=1):
        title = "What if" if len(pages) == 1 else f"What if ({number} of {len(pages)})"
        table = new_table(console, title)
        cells = sum(widths[i] + COLUMN_PADDING for i in page)
        # Labels wrap between words where a page's cells leave them less than their width.
        table.add_column("", width=max(12, min(label_width, console.width - cells - 4)))
        for i in page:
            table.add_column(Text(names[i]), justify="right", width=widths[i])
        for r, label in enumerate(labels):
            table.add_row(label, *(per_plan[i][r][1] for i in page))
        tables.append(table)
    parts: list[RenderableType] = tables
    changes = _change_lines(result)
    for o in result.outcomes[1:]:
        assert o.diff is not None
        parts.append(Text(""))
        parts.append(Text(f"{o.name}: {'; '.join(changes[o.name])}", style="bold"))
        if o.diff.moves and o.plan.status in ("optimal", "feasible"):
            moves = new_table(console)
            for column in ("workload", "from", "to", "share change", "why"):
                moves.add_column(column)
            for m in o.diff.moves[:MOVES_SHOWN]:
                moves.add_row(
                    m.workload_id,
                    m.from_accelerator or "(none)",
                    m.to_accelerator or "(none)",
                    usd(m.cost_change_usd),
                    _reason(m.why),
                )
            parts.append(moves)
            if len(o.diff.moves) > MOVES_SHOWN:
                rest = len(o.diff.moves) - MOVES_SHOWN
                parts.append(Text(f"... and {rest} more moves (--format json or csv lists all)"))
    return render_text(console, parts)


def comparison_markdown(result: WhatIfResult) -> str:
    rows = result.summary().to_dict("records")
    per_plan = [_lines(row) for row in rows]
    body = [
        [label, *(lines[i][1] for lines in per_plan)] for i, (label, _) in enumerate(per_plan[0])
    ]
    out = ["# What if\n", markdown_table(["", *(str(r["scenario"]) for r in rows)], body)]
    changes = _change_lines(result)
    for o in result.outcomes[1:]:
        assert o.diff is not None
        out.append(f"\n## {o.name}\n\n" + "".join(f"- {line}\n" for line in changes[o.name]))
        if o.diff.moves and o.plan.status in ("optimal", "feasible"):
            shown = [
                [
                    m.workload_id,
                    m.from_accelerator,
                    m.to_accelerator,
                    usd(m.cost_change_usd),
                    _reason(m.why),
                ]
                for m in o.diff.moves[:MOVES_SHOWN]
            ]
            out.append(
                "\n" + markdown_table(["workload", "from", "to", "share change", "why"], shown)
            )
    return "".join(out)


def summary_frame(result: WhatIfResult) -> pd.DataFrame:
    """The summary with the accelerator shares spread into ``share_<accelerator>`` columns."""
    frame = result.summary()
    shares = pd.DataFrame(list(frame.pop("chip_hours_share"))).fillna(0.0)
    shares.columns = [f"share_{c}" for c in shares.columns]
    return pd.concat([frame, shares], axis=1)


def render_comparison(result: WhatIfResult, fmt: str, console: Console | None = None) -> str:
    """The comparison in one of the shared formats."""
    if fmt == "json":
        return "".join(comparison_json_parts(result))
    if fmt == "csv":
        return csv_text(summary_frame(result)) + "\n# moves\n" + csv_text(result.moves())
    if fmt == "md":
        return comparison_markdown(result)
    return comparison_table(result, console)


def comparison_json_parts(result: WhatIfResult) -> Iterator[str]:
    """``WhatIfResult.record()`` as JSON a part at a time: the summary, the diffs and the
    risk whole, each plan as ``plan_json_parts`` gives it, so that the comparison is written
    without every plan's text at once in memory (eleven plans of 100,000 workloads are over
    4 GB of text, and their records as Python objects several times that)."""
    outcomes = result.outcomes
    summary = result.record(plans=False)
    yield '{\n  "summary": ' + _nested(summary["summary"]) + ",\n"
    yield '  "diffs": ' + _nested(summary["diffs"]) + ",\n"
    yield '  "plans": {'
    for i, outcome in enumerate(outcomes):
        yield ("" if i == 0 else ",") + "\n    " + json.dumps(outcome.name) + ": "
        for part in plan_json_parts(outcome.plan):
            # A JSON text holds no raw newline inside a string: each one starts a line.
            yield part.rstrip("\n").replace("\n", "\n    ")
    yield "\n  }"
    if "risk" in summary:
        yield ',\n  "risk": ' + _nested(summary["risk"])
    yield "\n}\n"


def _nested(value: Any) -> str:
    """``value`` as indented JSON, one level into the document."""
    return json.dumps(value, indent=2, default=str).replace("\n", "\n  ")

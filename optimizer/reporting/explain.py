"""One workload's explanation as table, JSON, CSV or Markdown.

The table and Markdown open with one sentence (where it runs, for how much, the runner-up and
what it would cost the plan), then every option with the chosen one marked, the reasons, and
the flip points nearest first. JSON is the whole explanation; CSV the options (a ``chosen``
column marks the plan's) then the flip points as a ``# flip_points`` section.
"""

from __future__ import annotations

import json

import pandas as pd
from rich.console import Console, RenderableType
from rich.text import Text

from placement.models.explanation import Explanation
from placement.models.numbers import figure_text, signed_percent, usd
from placement.models.plan import OptionEvaluation
from placement.reporting.records import csv_text, markdown_table
from placement.reporting.terminal import file_console, new_table, render_text

OPTION_HEADERS = ["", "option", "chips", "shape", "TTFT ms", "util.", "monthly", "feasible"]
"""The TTFT column gives the loaded figure, then the unloaded one where it differs."""
FLIP_HEADERS = ["figure", "now", "flips at", "change", "to", "holds at"]


def headline(explanation: Explanation) -> str:
    """The explanation in one sentence."""
    e = explanation
    if e.chosen is None:
        return f"{e.workload_id} is not placed ({e.status} plan)."
    sentence = (
        f"{e.workload_id} runs on {e.chosen} ({e.pricing}) at {usd(e.monthly_cost_usd)} a month"
    )
    if e.runner_up is None:
        return sentence + "; no other accelerator can run it."
    return (
        sentence + f"; the runner-up is {e.runner_up}, where the whole plan would cost "
        f"{usd(e.gap_usd)} a month more."
    )


def _is_chosen(explanation: Explanation, option: OptionEvaluation) -> bool:
    return option.accelerator == explanation.chosen and option.pricing == explanation.pricing


def _why_not_lines(explanation: Explanation) -> list[str]:
    """The options that cannot run the workload, by reason (the table says "no"): an
    accelerator by its name where none of its options can."""
    pricings: dict[str, int] = {}
    by_reason: dict[str, list[OptionEvaluation]] = {}
    for o in explanation.options:
        pricings[o.accelerator] = pricings.get(o.accelerator, 0) + 1
        if not o.feasible:
            by_reason.setdefault(o.reason or "not feasible", []).append(o)
    lines = []
    for reason, options in by_reason.items():
        names: list[str] = []
        for o in options:
            every = sum(p.accelerator == o.accelerator for p in options) == pricings[o.accelerator]
            name = o.accelerator if every else f"{o.accelerator} {o.pricing}"
            if name not in names:
                names.append(name)
        lines.append(f"{', '.join(names)}: no, {reason}")
    return lines


def _option_row(explanation: Explanation, o: OptionEvaluation, brief: bool = False) -> list[str]:
    shape = f"{o.replicas}x{o.replica_chips}" if o.replicas and o.replica_chips else ""
    ttft = ""
    if o.ttft_ms is not None:
        ttft = f"{o.ttft_ms:.0f}"
        if o.ttft_unloaded_ms is not None and round(o.ttft_unloaded_ms) != round(o.ttft_ms):
            ttft += f" / {o.ttft_unloaded_ms:.0f}"
    return [
        "*" if _is_chosen(explanation, o) else "",
        f"{o.accelerator} {o.pricing}",
        "" if o.chips is None else f"{o.chips:,}",
        shape,
        ttft,
        "" if o.utilization is None else f"{100 * o.utilization:.0f}%",
        usd(o.monthly_cost_usd),
        "yes" if o.feasible else ("no" if brief else f"no: {o.reason}"),
    ]


def _flip_rows(explanation: Explanation) -> list[list[str]]:
    return [
        [
            f.path,
            figure_text(f.value),
            figure_text(f.flips_at),
            signed_percent(f.change),
            f.to or "nowhere",
            figure_text(f.last_unchanged),
        ]
        for f in explanation.flip_points
    ]


def _steady_lines(explanation: Explanation) -> list[str]:
    return [
        f"{s.path}: still {explanation.chosen} from {figure_text(s.value)} to "
        f"{figure_text(s.searched_to)}"
        for s in explanation.steady_figures
    ]


def explain_table(explanation: Explanation, console: Console | None = None) -> str:
    console = console or file_console()
    parts: list[RenderableType] = [Text(headline(explanation), style="bold")]
    options = new_table(
        console, "Every option (* the plan's; monthly: at its rate, before fixed costs)"
    )
    for i, header in enumerate(OPTION_HEADERS):
        options.add_column(header, justify="right" if 2 <= i <= 6 else "left")
    for o in explanation.options:
        cells = [Text(cell) for cell in _option_row(explanation, o, brief=True)]
        options.add_row(*cells, style="bold" if _is_chosen(explanation, o) else None)
    parts.append(options)
    parts += [Text(f"  {line}") for line in _why_not_lines(explanation)]
    parts.append(Text("Why", style="bold"))
    parts += [Text(f"- {reason}") for reason in explanation.reasons]
    if explanation.flip_points:
        flips = new_table(console, "What would move it (the whole plan re-solved), nearest first")
        # The dotted path is what --set takes: give it half the width before folding it.
        flips.add_column(FLIP_HEADERS[0], min_width=min(44, console.width // 2 - 4))
        for i, header in enumerate(FLIP_HEADERS[1:], start=1):
            flips.add_column(header, justify="left" if i == 4 else "right")
        for row in _flip_rows(explanation):
            flips.add_row(*(Text(cell) for cell in row))
        parts.append(flips)
    steady = _steady_lines(explanation)
    if steady:
        parts.append(Text("Held as far as searched", style="bold"))
        parts += [Text(f"- {line}") for line in steady]
    return render_text(console, parts)


def explain_markdown(explanation: Explanation) -> str:
    out = [f"# {explanation.workload_id}\n\n", headline(explanation), "\n\n"]
    out.append(
        markdown_table(OPTION_HEADERS, [_option_row(explanation, o) for o in explanation.options])
    )
    out.append("\n## Why\n\n" + "".join(f"- {r}\n" for r in explanation.reasons))
    if explanation.flip_points:
        out.append("\n## What would move it\n\n")
        out.append(markdown_table(FLIP_HEADERS, _flip_rows(explanation)))
    steady = _steady_lines(explanation)
    if steady:
        out.append("\n## Held as far as searched\n\n" + "".join(f"- {s}\n" for s in steady))
    return "".join(out)


def explain_csv(explanation: Explanation) -> str:
    options = pd.DataFrame(
        [{"chosen": _is_chosen(explanation, o), **o.model_dump()} for o in explanation.options]
    )
    flips = pd.DataFrame([f.model_dump() for f in explanation.flip_points])
    return csv_text(options) + "\n# flip_points\n" + csv_text(flips)


def render_explanation(explanation: Explanation, fmt: str, console: Console | None = None) -> str:
    """The explanation in ``fmt`` (table, json, csv or md)."""
    if fmt == "json":
        return json.dumps(explanation.model_dump(mode="json"), indent=2) + "\n"
    if fmt == "csv":
        return explain_csv(explanation)
    if fmt == "md":
        return explain_markdown(explanation)
    return explain_table(explanation, console)

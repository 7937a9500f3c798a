"""The planning-cycle commands: ``history``, ``show`` and ``diff`` over saved runs
(``placement plan --save --cycle LABEL`` saves them). Registered by ``placement.cli.main``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from placement.cli.shared import (
    db_option,
    emit,
    guard,
    output_options,
)
from placement.writing.files import check_output_path

if TYPE_CHECKING:
    from placement.storing.history import CycleDiff

# The database, pandas and the renderers are imported when a command runs, not for --help.


@click.command("history")
@db_option
@output_options
@guard
def history_command(db: str | None, fmt: str, output: str | None, quiet: bool) -> None:
    """The saved planning runs, oldest first.

    \b
    Examples:
        placement history
        placement history --format json
        placement history --db postgresql+psycopg://planner@db/placement
    """
    from placement.reporting import render_records
    from placement.storing import History

    if output is not None:
        check_output_path(output)
    frame = History(db, create=False).list()
    records = json.loads(frame.to_json(orient="records"))
    emit(
        lambda console: render_records(
            records if fmt in ("json", "csv") else _readable(records),
            fmt,
            _title(records),
            console,
        ),
        output,
        quiet,
    )


def _title(records: list[dict[str, Any]]) -> str:
    """The table's title, naming the input and the tool's version where every run shares it."""
    title = "Saved runs"
    inputs = {r.get("input_path") for r in records}
    if len(inputs) == 1 and (path := inputs.pop()):
        title += f" of {path}"
    versions = {r.get("tool_version") for r in records}
    if len(versions) == 1 and (version := versions.pop()):
        title += f" (placement {version})"
    if any(r.get("risk_samples") for r in records):
        title += "; pays: how likely migrating pays, from 'risk --save'"
    return title


SHORT_HASH = 8
"""Characters of a hash the table and Markdown show (JSON and CSV keep it whole)."""


def _readable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs as people read them, narrow enough to read across at 80 columns: money in
    dollars, the time to the minute, hashes short (as git shows commits); the scenario left
    out where no run has one, the input and the tool's version where every run has the same
    (the title names them); of a saved risk, only how likely migrating pays ("pays"), where
    some run has one."""
    from placement.models.numbers import usd

    any_risk = any(r.get("risk_samples") for r in records)
    same_version = len({r.get("tool_version") for r in records}) <= 1
    same_input = len({r.get("input_path") for r in records}) <= 1
    any_scenario = any(r.get("scenario") for r in records)
    out = []
    for record in records:
        row: dict[str, Any] = {}
        for key, value in record.items():
            if key == "objective_monthly_usd":
                row["monthly"] = usd(value)
            elif key.startswith("risk_"):
                # One narrow column: how likely migrating pays (risk --save); the rest in JSON.
                if key == "risk_pays_probability" and any_risk:
                    row["pays"] = "" if value is None else f"{100 * value:.0f}%"
            elif key == "saved_at" and isinstance(value, str):
                row["saved"] = value.replace("T", " ")[:16]
            elif key.endswith("sha256"):
                row[key.removesuffix("_sha256")] = (value or "")[:SHORT_HASH]
            elif (
                (key == "tool_version" and same_version)
                or (key == "input_path" and same_input)
                or (key == "scenario" and not any_scenario)
            ):
                continue  # said once, in the title
            elif key == "input_path":
                row["input"] = value
            else:
                row[key] = value
        out.append(row)
    return out


@click.command("show")
@click.argument("run")
@db_option
@output_options
@guard
def show_command(run: str, db: str | None, fmt: str, output: str | None, quiet: bool) -> None:
    """One saved run's plan (RUN: its id, or a cycle label for that cycle's latest run), and
    the risk saved with it (risk --save) in a sentence; 'placement report --run RUN' shows it
    whole."""
    from placement.reporting import render_plan
    from placement.storing import History

    if output is not None:
        check_output_path(output)
    saved = History(db, create=False).get(run)
    risk = saved.risk

    def render(console: Console) -> str:
        text = render_plan(saved.plan, fmt, None, console)
        if risk is None or fmt not in ("table", "md"):
            return text
        # The run's risk (risk --save), in a sentence after its plan; whole in 'report'.
        from rich.text import Text

        from placement.reporting.risk import headline
        from placement.reporting.terminal import render_text

        if fmt == "md":
            return f"{text}\n## The risk\n\n{headline(risk)}\n"
        return text + "\n" + render_text(console, [Text(headline(risk))]).rstrip("\n") + "\n"

    emit(render, output, quiet)


def _diff_records(d: CycleDiff) -> list[dict[str, Any]]:
    from placement.comparing.diff import commitment_change_text
    from placement.models.numbers import usd

    rows: list[dict[str, Any]] = [
        {
            "what": "monthly cost",
            "change": f"{usd(d.a.objective)} -> {usd(d.b.objective)} "
            f"({usd(d.plans.objective_change_usd)})",
        },
        *(
            {"what": f"  {key}", "change": usd(value)}
            for key, value in d.plans.cost_change_usd.items()
        ),
        {
            "what": "effect of the inventory",
            "change": usd(d.inventory_effect_usd) + ("" if d.inventory_changed else " (unchanged)"),
        },
        {
            "what": "effect of the catalog",
            "change": usd(d.catalog_effect_usd) + ("" if d.catalog_changed else " (unchanged)"),
        },
    ]
    for f in d.figures:
        change = f"{f.old} -> {f.new}"
        if f.effect_usd is not None and not f.bounds_only:
            change += f": {usd(f.effect_usd)} on its own"
            if d.catalog_effect_usd:
                change += f" ({100 * f.effect_usd / d.catalog_effect_usd:.0f}% of the catalog's)"
        rows.append({"what": f"  {f.path}", "change": change})
    for label, items in (
        ("workloads added", d.plans.added),
        ("workloads dropped", d.plans.dropped),
        ("ports added", d.plans.ports_added),
        ("ports given up", d.plans.ports_removed),
        ("migration added", d.plans.migrations_added),
        ("migration given up", d.plans.migrations_removed),
    ):
        if items:
            rows.append({"what": label, "change": ", ".join(items)})
    for c in d.plans.commitments:
        rows.append({"what": f"commitment {c['product']}", "change": commitment_change_text(c)})
    for w in d.workloads:
        rows.append(
            {
                "what": f"cost of {w.workload_id}",
                "change": f"{usd(w.before_usd)} -> {usd(w.after_usd)} ({usd(w.change_usd)})",
            }
        )
    for m in d.plans.moves:
        rows.append(
            {
                "what": f"moved {m.workload_id}",
                "change": f"{m.from_accelerator or '-'} -> {m.to_accelerator or '-'}: "
                f"{m.why.split('; ')[0]}",
            }
        )
    return rows


@click.command("diff")
@click.argument("run_a")
@click.argument("run_b")
@db_option
@output_options
@guard
def diff_command(
    run_a: str, run_b: str, db: str | None, fmt: str, output: str | None, quiet: bool
) -> None:
    """What changed from RUN_A to RUN_B: cost, moves, commitments, ports, and the change split
    into the effect of the inventory and of the catalog (by re-solving RUN_B's inventory with
    RUN_A's catalog when both changed).

    \b
    Examples:
        placement diff 2026-Q4 2027-Q1
        placement diff 3 7 --format json
    """
    from placement.reporting import render_records
    from placement.storing import History

    if output is not None:
        check_output_path(output)
    d = History(db, create=False).diff(run_a, run_b)

    def render(console: Console) -> str:
        if fmt == "json":
            return json.dumps(d.record(), indent=2, default=str) + "\n"
        title = f"Run {d.a.id} ({d.a.cycle}) -> run {d.b.id} ({d.b.cycle})"
        return render_records(_diff_records(d), fmt, title, console)

    emit(render, output, quiet)

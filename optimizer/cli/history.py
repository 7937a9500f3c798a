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
    frame = History(db).list()
    records = json.loads(frame.to_json(orient="records"))
    emit(lambda console: render_records(records, fmt, "Saved runs", console), output, quiet)


@click.command("show")
@click.argument("run")
@db_option
@output_options
@guard
def show_command(run: str, db: str | None, fmt: str, output: str | None, quiet: bool) -> None:
    """One saved run's plan (RUN: its id, or a cycle label for that cycle's latest run)."""
    from placement.reporting import render_plan
    from placement.storing import History

    if output is not None:
        check_output_path(output)
    saved = History(db).get(run)
    emit(lambda console: render_plan(saved.plan, fmt, None, console), output, quiet)


def _diff_records(d: CycleDiff) -> list[dict[str, Any]]:
    from placement.models.numbers import usd

    rows: list[dict[str, Any]] = [
        {
            "what": "monthly cost",
            "change": f"{usd(d.a.objective)} -> {usd(d.b.objective)} "
            f"({usd(d.plans.objective_change_usd)})",
        },
        {
            "what": "effect of the inventory",
            "change": usd(d.inventory_effect_usd) + ("" if d.inventory_changed else " (unchanged)"),
        },
        {
            "what": "effect of the catalog",
            "change": usd(d.catalog_effect_usd) + ("" if d.catalog_changed else " (unchanged)"),
        },
    ]
    for key, value in d.plans.cost_change_usd.items():
        rows.append({"what": f"  {key}", "change": usd(value)})
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
        rows.append(
            {"what": f"commitment {c['product']}", "change": f"{c['before']:g} -> {c['after']:g}"}
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
    d = History(db).diff(run_a, run_b)

    def render(console: Console) -> str:
        if fmt == "json":
            return json.dumps(d.record(), indent=2, default=str) + "\n"
        title = f"Run {d.a.id} ({d.a.cycle}) -> run {d.b.id} ({d.b.cycle})"
        return render_records(_diff_records(d), fmt, title, console)

    emit(render, output, quiet)

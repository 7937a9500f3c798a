"""The ``report`` command: the decision brief as one self-contained HTML file or Markdown."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from placement.cli.shared import (
    batch_options,
    catalog_options,
    catalog_source,
    db_option,
    guard,
    horizon_option,
    inventory_options,
    progress_bar,
    quiet_option,
    scenario_at,
    scenario_option,
)
from placement.errors import EXIT_OK, EXIT_UNPLACED, PlacementInputError
from placement.writing.files import check_output_path, write_files

if TYPE_CHECKING:
    from pydantic import BaseModel

    from placement.models.plan import Plan

ResultT = TypeVar("ResultT", bound="BaseModel")


def _json_document(path: str) -> Any:
    """A JSON file's content, or None where the file is not JSON (an inventory in another
    format)."""
    if Path(path).suffix.lower() != ".json" or not Path(path).is_file():
        return None
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def _is_plan(document: Any) -> bool:
    return isinstance(document, dict) and {"schema_version", "assignments"} <= set(document)


def _plan_from(path: str, document: Any) -> Plan:
    from pydantic import ValidationError

    from placement.models.plan import Plan

    try:
        return Plan.model_validate(document)
    except ValidationError as err:
        problems = [
            f"{path}: {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors()[:20]
        ]
        raise PlacementInputError(problems, title="not a plan JSON") from None


def _result_from(option: str, path: str, model: type[ResultT], command: str) -> ResultT:
    """A result file written by another command (``risk``, ``sweep``) with ``--format json``,
    or a clear refusal naming the option and the file. It is read with a bound
    (:data:`MAX_RESULT_BYTES`, and a pipe's silence): ``/dev/zero`` is refused, not read until
    memory runs out."""
    from pydantic import ValidationError

    from placement.reading.bounded import MAX_RESULT_BYTES, Silent, TooLarge, read_bounded

    expected = f"{option} {path}: expected the JSON of '{command} --format json'"
    try:
        return model.model_validate_json(read_bounded(path, MAX_RESULT_BYTES))
    except TooLarge as err:
        reason = f"it is {err.reason}, more than any such result"
    except Silent as err:
        reason = err.reason
    except (OSError, ValidationError, ValueError) as err:
        reason = str(err).splitlines()[0]
    raise PlacementInputError([f"{expected} ({reason})"], title="invalid option")


@click.command("report")
@click.argument("inventory", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--html", "html_path", type=click.Path(dir_okay=False), help="Write the HTML report here."
)
@click.option(
    "--md", "md_path", type=click.Path(dir_okay=False), help="Write the Markdown report here."
)
@scenario_option("Plan under a what-if scenario file (catalog settings and inventory changes).")
@horizon_option
@click.option(
    "--whatif",
    "whatif_paths",
    multiple=True,
    type=click.Path(dir_okay=False),
    metavar="SCENARIO",
    help="Also compare these scenario files with the plan (repeat the option); the report "
    "adds a what-if section.",
)
@click.option(
    "--risk",
    "risk_path",
    type=click.Path(dir_okay=False, exists=True),
    help="Add the risk section from this file ('placement risk ... --format json -o FILE').",
)
@click.option(
    "--sweep",
    "sweep_path",
    type=click.Path(dir_okay=False, exists=True),
    help="Add the sweep section from this file ('placement sweep ... --format json -o FILE').",
)
@click.option(
    "--run",
    "run_id",
    metavar="RUN",
    help="Report a saved planning cycle (its id or cycle label, --db) instead of planning; "
    "INVENTORY is then ignored and may be '-'.",
)
@db_option
@inventory_options
@catalog_options
@batch_options
@quiet_option
@guard
def report_command(
    inventory: str,
    html_path: str | None,
    md_path: str | None,
    scenario_path: str | None,
    horizon: int | None,
    whatif_paths: tuple[str, ...],
    risk_path: str | None,
    sweep_path: str | None,
    run_id: str | None,
    db: str | None,
    input_format: str | None,
    sheet: str | None,
    catalog_path: str | None,
    overrides: tuple[str, ...],
    solver: str,
    time_limit: float | None,
    gap: float,
    workers: int | None,
    scheduler: str | None,
    quiet: bool,
) -> None:
    """Write the decision brief of a plan: one HTML file that opens offline, or Markdown.

    INVENTORY is an inventory to plan (with --scenario, --horizon, --catalog and --set as
    'placement plan' takes them) or a plan saved by 'placement plan --format json -o FILE'.
    The report opens with one sentence with the money and a summary table, then what to buy
    now, what to port and when, the roadmap (--horizon), the risk (--risk), charts of the cost
    against its baselines, of chip-hours by accelerator and pricing and of commitment cover
    over a week, the what-if comparison (--whatif), the sweep (--sweep), and every workload
    with its explanation (sortable). See docs/report.md.

    \b
    Examples:
        placement report inputs/sample_inventory.csv --html report.html
        placement report inv.csv --horizon 24 --md report.md
        placement report plan.json --html report.html --risk risk.json
        placement report plan.json --html report.html --sweep sweep.json
        placement report inv.csv --html r.html --whatif inputs/scenarios/h100_price_cut.yaml

    Exit code 0: the plan places every workload; 2: bad input; 3: it leaves workloads unplaced
    or has no solution (the report is written all the same).
    """
    from placement.reporting.report import ReportInput, report_html, report_markdown

    if html_path is None and md_path is None:
        raise click.UsageError("give --html FILE, --md FILE or both")
    for path in (html_path, md_path):
        if path is not None:
            check_output_path(path)
    from placement.models.risk import RiskResult
    from placement.models.sweep import SweepSummary

    risk = _result_from("--risk", risk_path, RiskResult, "placement risk") if risk_path else None
    swept = (
        _result_from("--sweep", sweep_path, SweepSummary, "placement sweep") if sweep_path else None
    )
    source = catalog_source(catalog_path, overrides)
    made: Plan
    whatif = None
    if run_id is not None:
        from placement.storing.history import History

        saved = History(db, create=False).get(run_id)
        made, title = saved.plan, f"Placement plan: cycle {saved.cycle} (run {saved.id})"
        risk = risk or saved.risk  # the run's own risk (risk --save), unless --risk gives one
    elif _is_plan(document := _json_document(inventory)):
        made, title = _plan_from(inventory, document), f"Placement plan: {Path(inventory).name}"
    else:
        from placement.comparing.batch import planned_inventory
        from placement.pipeline import SolverOptions, plan
        from placement.scenarios import read_scenarios

        options = SolverOptions(solver, time_limit, gap)
        inv = planned_inventory(inventory, source, input_format, sheet)
        scenario = scenario_at(scenario_path)
        scenarios = read_scenarios(whatif_paths)
        made = plan(inv, source, options, scenario=scenario, horizon=horizon).plan
        title = f"Placement plan: {Path(inv.source).name}"
        if scenarios:
            from placement.comparing.whatif import whatif as compare

            with progress_bar(quiet, "what-if") as advance:
                whatif = compare(inv, scenarios, source, options, workers, scheduler, advance,
                                 horizon)  # fmt: skip
    given = ReportInput(made, title, whatif, risk, swept)
    files: dict[str, str] = {}
    if html_path is not None:
        files[html_path] = report_html(given)
    if md_path is not None:
        files[md_path] = report_markdown(given)
    write_files(files)
    if not quiet:
        click.echo("wrote " + ", ".join(files), err=True)
    complete = not made.unplaced and made.status in ("optimal", "feasible")
    sys.exit(EXIT_OK if complete else EXIT_UNPLACED)

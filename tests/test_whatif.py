"""whatif: the base and scenarios side by side; identical results however they are run."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from benchmarks.generate import synthetic_inventory
from placement.catalog import read_catalog
from placement.comparing import whatif
from placement.models.plan import Plan
from placement.pipeline import SolverOptions
from placement.reading import read_inventory
from placement.reporting.comparison import comparison_json_parts, render_comparison
from placement.scenarios import Scenario, read_scenario
from tests.conftest import free_port
from tests.test_cli import assert_clean_failure, invoke

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"
SCENARIOS = ROOT / "inputs" / "scenarios"
EXACT = SolverOptions(gap=0.0)


def comparable(plan: Plan) -> dict[str, Any]:
    """A plan's JSON without what differs between two runs of the same question."""
    document = plan.model_dump(mode="json")
    assert document["run"] is not None
    for key in ("started_at", "scenario", "scenario_file"):
        document["run"].pop(key, None)
    document["solver"].pop("time_s")
    return document


def _scenario(tmp_path: Path, name: str, text: str) -> Scenario:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\n{text}", encoding="utf-8")
    return read_scenario(path)


@pytest.fixture(scope="module")
def unseen_inventory() -> Any:
    """An inventory nobody here wrote: 40 synthetic workloads, a seed the benchmarks never use."""
    catalog = read_catalog().catalog
    return read_inventory(
        synthetic_inventory(40, seed=20261203),
        list(catalog.accelerators),
        load_profiles=catalog.profile_kinds(),
    )


def _trn2_chip_hours(plan: Plan) -> float:
    return sum(a.chip_hours for a in plan.assignments if a.accelerator == "trn2")


def test_a_scenario_that_changes_nothing_reproduces_the_base(
    tmp_path: Path, unseen_inventory: Any
) -> None:
    result = whatif(unseen_inventory, [_scenario(tmp_path, "same", "")], workers=1)
    base, same = result.outcomes
    assert same.diff is not None and same.diff.unchanged
    assert comparable(same.plan) == comparable(base.plan)


def test_doubling_every_money_figure_doubles_the_optimum_and_keeps_the_plan(
    tmp_path: Path, unseen_inventory: Any
) -> None:
    source = read_catalog()
    doc = source.document
    lines = []
    for name, acc in doc["accelerators"].items():
        rate = acc["on_demand_usd_per_chip_hour"]
        for part in ("low", "high", "point"):
            if part in rate:
                lines.append(
                    f"  accelerators.{name}.on_demand_usd_per_chip_hour.{part}: {2 * rate[part]}"
                )
    for name, platform in doc["platforms"].items():
        cost = platform["migration_one_off_usd"]
        for part in ("low", "high", "point"):
            if part in cost:
                lines.append(f"  platforms.{name}.migration_one_off_usd.{part}: {2 * cost[part]}")
    engineer = doc["economics"]["porting_engineer_usd_per_week"]
    for part in ("low", "high", "point"):
        if part in engineer:
            lines.append(f"  economics.porting_engineer_usd_per_week.{part}: {2 * engineer[part]}")
    doubled = _scenario(tmp_path, "doubled", "catalog:\n" + "\n".join(lines) + "\n")
    result = whatif(unseen_inventory, [doubled], solver=EXACT, workers=1)
    base, twice = result.outcomes
    assert base.plan.objective_monthly_usd is not None
    assert twice.plan.objective_monthly_usd is not None
    # Every cost doubles, so the optimum does: exactly the fractional-chip optimum (solved to a
    # gap of 0), which bounds each plan from below. Cover counted in whole chips afterwards
    # starts from whichever of tied optima HiGHS returns (it differs between CPUs), so a plan
    # may stand a few dollars above it; neither may stand below the other's bound.
    bound = base.plan.solver.relaxed_objective_usd or base.plan.objective_monthly_usd
    bound_twice = twice.plan.solver.relaxed_objective_usd or twice.plan.objective_monthly_usd
    assert bound_twice == pytest.approx(2 * bound, rel=1e-6)
    assert twice.plan.objective_monthly_usd >= bound_twice * (1 - 1e-9)
    assert 2 * base.plan.objective_monthly_usd >= bound_twice * (1 - 1e-9)
    assert twice.diff is not None and not twice.diff.moves
    assert [(a.workload_id, a.accelerator) for a in twice.plan.assignments] == [
        (a.workload_id, a.accelerator) for a in base.plan.assignments
    ]


@pytest.mark.parametrize(
    ("path", "values", "direction"),
    [
        ("platforms.neuron.migration_one_off_usd", [0, 400_000, 2_000_000], -1),
        ("accelerators.h100.on_demand_usd_per_chip_hour", [2.0, 4.0, 6.0], +1),
    ],
)
def test_trainium_use_moves_the_right_way(
    tmp_path: Path, unseen_inventory: Any, path: str, values: list[float], direction: int
) -> None:
    """A higher migration cost never increases Trainium2 use; a higher H100 price never
    decreases it."""
    scenarios = [
        _scenario(tmp_path, f"v{i}", f"catalog:\n  {path}: {v}\n") for i, v in enumerate(values)
    ]
    result = whatif(unseen_inventory, scenarios, solver=EXACT, workers=2)
    used = [_trn2_chip_hours(o.plan) for o in result.outcomes[1:]]
    for before, after in itertools.pairwise(used):
        assert direction * (after - before) >= -1e-6, used
    assert used[0] != used[-1]  # the range is wide enough to matter


def test_results_are_identical_with_one_or_two_workers(tmp_path: Path) -> None:
    scenarios = [read_scenario(SCENARIOS / f) for f in ("h100_price_cut.yaml", "load_drop_20.yaml")]
    one = whatif(str(SAMPLE), scenarios, workers=1)
    two = whatif(str(SAMPLE), scenarios, workers=2)
    assert [comparable(o.plan) for o in one.outcomes] == [comparable(o.plan) for o in two.outcomes]


def test_a_real_dask_cluster_gives_the_local_results(dask_cluster: str) -> None:
    scenarios = [read_scenario(SCENARIOS / f) for f in ("h100_price_cut.yaml", "load_drop_20.yaml")]
    local = whatif(str(SAMPLE), scenarios, workers=1)
    remote = whatif(str(SAMPLE), scenarios, scheduler=dask_cluster)
    assert [comparable(o.plan) for o in remote.outcomes] == [
        comparable(o.plan) for o in local.outcomes
    ]


def test_the_cli_on_a_dask_cluster(dask_cluster: str) -> None:
    result = invoke(
        "whatif",
        SAMPLE,
        SCENARIOS / "nothing.yaml",
        "--scheduler",
        dask_cluster,
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["scenario"] for row in data["summary"]] == ["base", "nothing"]


def test_an_unreachable_scheduler_is_a_clear_error() -> None:
    port = free_port()
    result = invoke(
        "whatif", SAMPLE, SCENARIOS / "nothing.yaml", "--scheduler", f"tcp://127.0.0.1:{port}"
    )
    assert_clean_failure(result)
    assert "no Dask scheduler answers" in result.stderr


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "md"])
def test_whatif_cli_formats(fmt: str) -> None:
    result = invoke(
        "whatif",
        SAMPLE,
        SCENARIOS / "h100_price_cut.yaml",
        SCENARIOS / "nothing.yaml",
        "--format",
        fmt,
        "--workers",
        "2",
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    if fmt == "json":
        data = json.loads(out)
        names = [row["scenario"] for row in data["summary"]]
        assert names == ["base", "h100-price-cut", "nothing"]
        moves = data["diffs"]["h100-price-cut"]["moves"]
        assert moves and all(m["to_accelerator"] == "h100" for m in moves)
        assert data["diffs"]["nothing"]["moves"] == []
        assert set(data["plans"]) == set(names)
    elif fmt == "csv":
        summary, moves = out.split("# moves\n")
        assert summary.startswith("scenario,status,objective_monthly_usd")
        assert "share_h100" in summary.splitlines()[0]
        assert "h100-price-cut,moved," in moves
    else:
        assert "h100-price-cut" in out and "monthly cost" in out
        assert "the plan is the base plan" in out


def test_a_bad_scenario_fails_before_any_solve(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ninventory:\n  - drop: true\n    where: {kind: nosuch}\n")
    result = invoke("whatif", SAMPLE, SCENARIOS / "nothing.yaml", bad, "--format", "json")
    problems = assert_clean_failure(result, json_errors=True)
    assert "where matches no workload" in problems[0]["message"]


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
def test_a_scenario_without_baselines_renders_in_every_format(tmp_path: Path, fmt: str) -> None:
    # Pinned to Trainium2 where it cannot run, a workload leaves the all-H100 baselines n/a.
    scenario = tmp_path / "pinned.yaml"
    scenario.write_text(
        "name: pinned\ninventory:\n  - set: {column: pinned_accelerator, value: trn2}\n"
        "    where: {id: llama-8b-sft}\n",
        encoding="utf-8",
    )
    result = invoke("whatif", str(SAMPLE), str(scenario), "--format", fmt)
    assert result.exit_code in (0, 3), result.stderr
    assert "internal error" not in result.stderr
    assert "pinned" in result.stdout


@pytest.fixture(scope="module")
def every_sample_scenario() -> Any:
    """The README's own whatif: the sample against every packaged scenario, solved once."""
    scenarios = [read_scenario(path) for path in sorted(SCENARIOS.glob("*.yaml"))]
    return whatif(str(SAMPLE), scenarios, workers=2)


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
def test_every_sample_scenario_renders_in_every_format(
    every_sample_scenario: Any, fmt: str
) -> None:
    result = every_sample_scenario
    names = [o.name for o in result.outcomes]
    assert len(names) == 1 + len(list(SCENARIOS.glob("*.yaml")))
    out = render_comparison(result, fmt, Console(width=80, force_terminal=False))
    if fmt == "json":
        rows = json.loads(out)["summary"]
        assert [row["scenario"] for row in rows] == names
    else:
        for name in names:
            assert name in out, (fmt, name)


def test_the_json_written_a_part_at_a_time_is_the_record(every_sample_scenario: Any) -> None:
    """The comparison's JSON is written a plan at a time (eleven plans of 100,000 workloads
    would not fit in memory whole): parsed, it is ``record()``, every plan included, in order."""
    result = every_sample_scenario
    parts = list(comparison_json_parts(result))
    assert len(parts) > 2 * len(result.outcomes)
    written = json.loads("".join(parts))
    assert written == json.loads(json.dumps(result.record(), default=str))
    assert list(written) == ["summary", "diffs", "plans"]
    assert list(written["plans"]) == [o.name for o in result.outcomes]


def test_a_wide_comparison_pages_instead_of_splitting_cells(
    tmp_path: Path, unseen_inventory: Any
) -> None:
    """Six scenarios with long names at 80 columns: a line per plan at a glance, then the
    figures side by side in pages that repeat the base; no cell, name or figure is split."""
    price = "accelerators.h100.on_demand_usd_per_chip_hour"
    scenarios = [
        _scenario(tmp_path, f"h100-down-{cut}-percent-in-{year}",
                  f"catalog:\n  {price}: {4 * (1 - cut / 100)}\n")
        for cut, year in zip((5, 10, 15, 20, 25, 30), range(2027, 2033), strict=True)
    ]  # fmt: skip
    result = whatif(unseen_inventory, scenarios, workers=2)
    text = render_comparison(result, "table", Console(width=80, color_system=None))
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "at a glance" in lines[0]
    for outcome in result.outcomes:
        assert outcome.name in text  # whole, on one line
        cost = f"${round(outcome.plan.objective_monthly_usd or 0):,}"
        assert text.count(cost) >= 2  # at a glance and side by side
    pages = [line for line in lines if line.startswith("What if (")]
    assert len(pages) >= 2
    wide = render_comparison(result, "table", Console(width=400, color_system=None))
    assert "at a glance" not in wide and "What if (" not in wide


def test_a_scenario_with_no_plan_says_why_not_that_everything_was_dropped(
    tmp_path: Path,
) -> None:
    from tests.test_conflicts import pinned_families

    inventory = tmp_path / "pinned.csv"
    pinned_families().to_csv(inventory, index=False)
    cap = tmp_path / "cap.yaml"
    cap.write_text("name: cap\ncatalog:\n  economics.porting_capacity_weeks_per_cycle: 5\n")
    for fmt in ("table", "md"):
        result = invoke("whatif", inventory, cap, "--format", fmt, "--workers", "1")
        assert result.exit_code == 3, result.output
        assert "no plan (infeasible)" in result.stdout
        assert "dropped" not in result.stdout


def test_a_scheduler_with_no_worker_or_a_server_that_is_not_dask_is_a_clear_error() -> None:
    """Neither hangs: a Dask scheduler with no worker, and an HTTP server on the port."""
    import http.server
    import subprocess
    import sys
    import threading
    import time

    pytest.importorskip("distributed")
    port = free_port()
    lonely = subprocess.Popen(
        [str(Path(sys.executable).parent / "dask"), "scheduler", "--host", "127.0.0.1",
         "--port", str(port), "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        time.sleep(3)  # the scheduler's start-up
        result = invoke("whatif", SAMPLE, SCENARIOS / "nothing.yaml",
                        "--scheduler", f"tcp://127.0.0.1:{port}")  # fmt: skip
        assert_clean_failure(result)
        assert "has no worker" in result.stderr
    finally:
        lonely.terminate()
        lonely.wait(10)

    class Quiet(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:  # Dask's handshake is no HTTP: say nothing
            pass

    web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    try:
        result = invoke("whatif", SAMPLE, SCENARIOS / "nothing.yaml",
                        "--scheduler", f"tcp://127.0.0.1:{web.server_port}")  # fmt: skip
        assert_clean_failure(result)
        assert "--scheduler" in result.stderr
    finally:
        web.shutdown()


def test_each_plan_of_a_comparison_has_its_risk_over_the_same_draws(tmp_path: Path) -> None:
    from placement.comparing.batch import planned_inventory
    from placement.uncertainty.risk import risk

    source = read_catalog()
    five = tmp_path / "five.csv"
    five.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:6]))
    inventory = planned_inventory(str(five), source)
    cut = read_scenario(SCENARIOS / "h100_price_cut.yaml")
    from placement.uncertainty.compared import with_risk

    compared = whatif(inventory, [cut], source, workers=1)
    result = with_risk(compared, inventory, source, 3, 5, workers=1)
    base, scenario = result.outcomes
    assert base.risk == risk(inventory, source, 3, 5, workers=1)
    assert scenario.risk == risk(inventory, source, 3, 5, workers=1, scenario=cut)
    row = result.summary().set_index("scenario").loc["h100-price-cut"]
    assert scenario.risk is not None
    assert row["risk_held_p90_usd"] == scenario.risk.base_plan_cost_usd.p90
    assert row["risk_pays_probability"] == scenario.risk.probability_beats_all_h100
    args = ("whatif", five, SCENARIOS / "h100_price_cut.yaml", "--samples", "3", "--seed", "5",
            "--workers", "1")  # fmt: skip
    document = json.loads(invoke(*args, "--format", "json").stdout)
    assert set(document["risk"]) == {"base", "h100-price-cut"}
    assert document["summary"][0]["risk_samples"] == 3
    table = invoke(*args, env={"COLUMNS": "100"}).stdout
    assert "over 3 futures:" in table and "migrating pays" in table
    assert "risk_held_p50_usd" in invoke(*args, "--format", "csv").stdout
    plain = invoke("whatif", five, SCENARIOS / "h100_price_cut.yaml", "--workers", "1")
    assert "futures" not in plain.stdout


def test_a_commitment_change_reads_as_money_and_units() -> None:
    from placement.comparing.diff import commitment_change_text

    plan = {"product": "savings_plan_1yr", "before": 11.23431, "after": 8.43889}
    assert commitment_change_text(plan) == "$11.23/h -> $8.44/h"
    units = {"product": "reserved_1yr h100 x8", "before": 1.0, "after": 12.0}
    assert commitment_change_text(units) == "1 unit -> 12 units"

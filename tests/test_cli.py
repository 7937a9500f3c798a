"""The ``placement`` command line: formats, output files, exit codes, overrides, catalogs, help.

Runs ``placement.cli.main.cli`` in-process with click's CliRunner (stdout and stderr apart), plus
one real process of the ``placement`` console script for the exit code as a shell sees it.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pandas as pd
import pytest
import yaml
from click.testing import CliRunner, Result

from placement.catalog import load_catalog
from placement.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"

PLAN_KEYS = {
    "status",
    "objective_monthly_usd",
    "cost_breakdown",
    "assignments",
    "unplaced",
    "reserved_purchases",
    "ported_families",
    "baselines",
    "solver",
}
BREAKDOWN_KEYS = {
    "on_demand_usd",
    "reserved_usd",
    "porting_amortized_usd",
    "migration_amortized_usd",
}
BASELINE_KEYS = {"all_h100_on_demand_usd", "all_h100_optimal_usd", "greedy_usd"}
SOLVER_KEYS = {"name", "time_s", "gap"}
ASSIGNMENT_KEYS = {
    "workload_id",
    "accelerator",
    "pricing",
    "chips",
    "chip_hours",
    "monthly_cost_usd",
    "why",
    "options",
}
OPTION_KEYS = {
    "accelerator",
    "pricing",
    "feasible",
    "reason",
    "chips",
    "chip_hours",
    "monthly_cost_usd",
}

# One workload that fits nowhere (speculative decoding is unsupported on Neuron, and the policy
# pins it to trn2) beside one that plans normally.
UNPLACEABLE_CSV = """\
id,kind,model_family,params_b,monthly_tokens_b,serving,ttft_slo_ms,features,pinned_accelerator,team
spec-on-trn2,inference,llama,8,3,online,200,speculative_decoding,trn2,serving
ok-train,training,llama,8,3,,,,,research
"""

# Three problems in three rows: a bad number, a bad choice and a missing volume.
BAD_CSV = """\
id,kind,model_family,params_b,monthly_tokens_b,team
good,training,llama,8,3,a
bad-size,training,llama,-3,3,b
bad-kind,serving,llama,8,3,c
no-volume,training,llama,8,,d
"""


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    """Run the CLI in-process; an uncaught exception (a traceback) fails the test right away."""
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, env=env)


def assert_clean_failure(result: Result, json_errors: bool = False) -> list[dict[str, Any]]:
    """Exit 2, a message on stderr, no traceback; stdout empty, or under ``--format json`` the
    error document (returned as its list of problems)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.stderr.strip()
    if not json_errors:
        assert result.stdout == ""
        return []
    document = json.loads(result.stdout)
    assert document["status"] == "error"
    assert document["problems"]
    for problem in document["problems"]:
        assert set(problem) == {
            "file",
            "sheet",
            "row",
            "line",
            "column",
            "value",
            "expected",
            "message",
        }
    return list(document["problems"])


def csv_sections(text: str) -> dict[str, pd.DataFrame]:
    """Split ``--format csv`` stdout into its tables: assignments first, then '# name' ones."""
    first, *rest = text.split("\n# ")
    tables = {"assignments": first}
    for block in rest:
        name, _, body = block.partition("\n")
        tables[name] = body
    return {
        name: pd.read_csv(io.StringIO(body), dtype=str, keep_default_na=False)
        for name, body in tables.items()
    }


def placements(data: dict[str, Any]) -> dict[str, tuple[str, str, int]]:
    return {
        a["workload_id"]: (a["accelerator"], a["pricing"], a["chips"]) for a in data["assignments"]
    }


@pytest.fixture(scope="module")
def sample_plan_json() -> dict[str, Any]:
    result = invoke("plan", SAMPLE, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def sample_rows() -> pd.DataFrame:
    return pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)


@pytest.fixture
def unplaceable(tmp_path: Path) -> Path:
    path = tmp_path / "unplaceable.csv"
    path.write_text(UNPLACEABLE_CSV, encoding="utf-8")
    return path


@pytest.fixture
def bad_inventory(tmp_path: Path) -> Path:
    path = tmp_path / "bad.csv"
    path.write_text(BAD_CSV, encoding="utf-8")
    return path


# --- plan: every format ---


def test_plan_json_has_every_interface_key(
    sample_plan_json: dict[str, Any], sample_rows: pd.DataFrame
) -> None:
    data = sample_plan_json
    assert data.keys() >= PLAN_KEYS
    assert data["status"] == "optimal"
    assert data["cost_breakdown"].keys() >= BREAKDOWN_KEYS
    assert data["baselines"].keys() >= BASELINE_KEYS
    assert data["solver"].keys() >= SOLVER_KEYS
    assert data["solver"]["name"] == "highs"
    assert data["unplaced"] == []
    assert data["objective_monthly_usd"] == pytest.approx(
        sum(data["cost_breakdown"][k] for k in BREAKDOWN_KEYS), abs=0.01
    )
    kinds = dict(zip(sample_rows["id"], sample_rows["kind"], strict=True))
    assert sorted(a["workload_id"] for a in data["assignments"]) == sorted(kinds)
    for a in data["assignments"]:
        assert a.keys() >= ASSIGNMENT_KEYS, a["workload_id"]
        assert a["why"]
        assert a["options"]
        for option in a["options"]:
            assert option.keys() >= OPTION_KEYS, (a["workload_id"], option)
            if not option["feasible"]:
                assert option["reason"], (a["workload_id"], option)
            if kinds[a["workload_id"]] == "inference":
                assert "ttft_ms" in option
                if option["feasible"]:
                    assert option["ttft_ms"] > 0, (a["workload_id"], option)
        chosen = [
            o
            for o in a["options"]
            if (o["accelerator"], o["pricing"]) == (a["accelerator"], a["pricing"])
        ]
        assert len(chosen) == 1 and chosen[0]["feasible"], a["workload_id"]
        # Its cost is its chip-hours at the rates of what covered them: the option's cost
        # when one option covers them all.
        assert sum(a["coverage"].values()) == pytest.approx(a["chip_hours"], abs=0.01)
        if len(a["coverage"]) == 1:
            assert chosen[0]["monthly_cost_usd"] == pytest.approx(a["monthly_cost_usd"], abs=0.01)


def test_plan_table(sample_rows: pd.DataFrame) -> None:
    result = invoke("plan", SAMPLE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Placement plan" in out and "Assignments" in out
    for workload_id in sample_rows["id"]:
        assert workload_id in out
    assert "Traceback" not in result.output


def test_plan_csv_one_row_per_workload_with_extra_columns(sample_rows: pd.DataFrame) -> None:
    result = invoke("plan", SAMPLE, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = csv_sections(result.stdout)["assignments"]
    assert len(rows) == len(sample_rows)
    assert sorted(rows["workload_id"]) == sorted(sample_rows["id"])
    assert {"accelerator", "pricing", "chips", "monthly_cost_usd", "why"} <= set(rows.columns)
    extras = ["team", "owner", "notes"]
    assert set(extras) <= set(rows.columns)
    carried = rows.set_index("workload_id")[extras].sort_index()
    written = sample_rows.set_index("id")[extras].sort_index()
    carried.index.name = written.index.name
    pd.testing.assert_frame_equal(carried, written)


def test_plan_markdown_has_a_table() -> None:
    result = invoke("plan", SAMPLE, "--format", "md")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "| workload | accelerator | pricing |" in out
    assert "|---|" in out
    assert "| llama-405b-pretrain |" in out


# --- output files and bad input ---


def test_output_writes_the_file_and_prints_nothing(tmp_path: Path) -> None:
    target = tmp_path / "plan.json"
    result = invoke("plan", SAMPLE, "--format", "json", "--output", target)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["status"] == "optimal"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]  # no temp file left


def test_bad_input_exits_2_naming_file_row_column_value(
    bad_inventory: Path, tmp_path: Path
) -> None:
    new = tmp_path / "new.json"
    result = invoke("plan", bad_inventory, "--format", "json", "-o", new)
    problems = assert_clean_failure(result, json_errors=True)
    assert not new.exists()
    found = {(p["file"], p["row"], p["line"], p["column"], p["value"]) for p in problems}
    assert found == {
        (str(bad_inventory), 2, 3, "params_b", "-3"),
        (str(bad_inventory), 3, 4, "kind", "serving"),
        (str(bad_inventory), 4, 5, "monthly_tokens_b", None),
    }
    message = result.stderr
    assert str(bad_inventory) in message
    assert "row 2" in message and "'params_b'" in message and "'-3'" in message
    assert "row 3" in message and "'kind'" in message and "'serving'" in message
    assert "row 4" in message and "monthly_tokens_b" in message
    assert "3 problems" in message


def test_bad_input_leaves_an_existing_output_untouched(bad_inventory: Path, tmp_path: Path) -> None:
    existing = tmp_path / "plan.json"
    existing.write_text("previous plan\n", encoding="utf-8")
    result = invoke("plan", bad_inventory, "--format", "json", "--output", existing)
    assert_clean_failure(result, json_errors=True)
    assert existing.read_text(encoding="utf-8") == "previous plan\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "plan.json"]


@pytest.mark.parametrize("option", ["--output", "--write-model"])
def test_unwritable_output_path_exits_2(unplaceable: Path, tmp_path: Path, option: str) -> None:
    target = tmp_path / "no-such-dir" / ("plan.json" if option == "--output" else "model.lp")
    result = invoke("plan", unplaceable, option, target)
    assert_clean_failure(result)
    assert str(target) in result.stderr


def test_missing_inventory_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "missing.csv"
    result = invoke("plan", missing)
    assert_clean_failure(result)
    assert str(missing) in result.stderr


# --- exit code 3 ---


def test_unplaceable_workload_exits_3_and_the_rest_is_planned(unplaceable: Path) -> None:
    result = invoke("plan", unplaceable, "--format", "json")
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert [a["workload_id"] for a in data["assignments"]] == ["ok-train"]
    assert [u["workload_id"] for u in data["unplaced"]] == ["spec-on-trn2"]
    reasons = data["unplaced"][0]["reasons"]
    assert sorted(r.split(":")[0] for r in reasons) == sorted(load_catalog().accelerators)
    assert any("speculative_decoding" in r for r in reasons)
    assert any("pinned" in r for r in reasons)

    table = invoke("plan", unplaceable)
    assert table.exit_code == 3
    assert "spec-on-trn2" in table.stdout and "ok-train" in table.stdout


# --- catalog overrides and files ---


def test_set_override_prohibitive_migration_keeps_everything_off_trn2(
    sample_plan_json: dict[str, Any],
) -> None:
    result = invoke(
        "plan", SAMPLE, "--format", "json", "--set", "platforms.neuron.migration_one_off_usd=1e12"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {a["accelerator"] for a in data["assignments"]} == {"h100"}
    assert data["migrations"] == [] and data["ported_families"] == []
    # The same model restricted to H100: equal within the gap both are solved to (0.1%).
    assert data["objective_monthly_usd"] == pytest.approx(
        data["baselines"]["all_h100_optimal_usd"], rel=1e-3
    )
    # The default plan uses trn2: the override is what changed it.
    assert "trn2" in {a["accelerator"] for a in sample_plan_json["assignments"]}


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ("platforms.neuron.no_such_figure=1", "platforms.neuron.no_such_figure"),
        ("no_such_section.x=2", "no_such_section"),
        ("accelerators.h100.on_demand_usd_per_chip_hour=abc", "on_demand_usd_per_chip_hour"),
        ("not-a-path-value", "not-a-path-value"),
    ],
)
def test_bad_set_exits_2_naming_the_path(unplaceable: Path, override: str, named: str) -> None:
    result = invoke("plan", unplaceable, "--set", override)
    assert_clean_failure(result)
    assert named in result.stderr


def test_exported_catalog_file_gives_the_default_plan(
    sample_plan_json: dict[str, Any], tmp_path: Path
) -> None:
    exported = tmp_path / "catalog.yaml"
    assert invoke("catalog", "export", "-o", exported).exit_code == 0
    result = invoke("plan", SAMPLE, "--format", "json", "--catalog", exported)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert placements(data) == placements(sample_plan_json)
    assert data["objective_monthly_usd"] == pytest.approx(
        sample_plan_json["objective_monthly_usd"], abs=0.01
    )


@pytest.mark.parametrize(
    "text",
    [
        "accelerators: [h100, \n",  # not YAML
        "- just\n- a list\n",  # not a mapping
        "name: half-a-catalog\n",  # required sections missing
    ],
)
def test_malformed_catalog_exits_2(unplaceable: Path, tmp_path: Path, text: str) -> None:
    bad = tmp_path / "bad_catalog.yaml"
    bad.write_text(text, encoding="utf-8")
    result = invoke("plan", unplaceable, "--catalog", bad)
    assert_clean_failure(result)
    assert str(bad) in result.stderr


def test_catalog_with_an_invalid_value_exits_2(unplaceable: Path, tmp_path: Path) -> None:
    data = yaml.safe_load(invoke("catalog", "export").stdout)
    data["accelerators"]["h100"]["reservation_unit_chips"] = -1
    bad = tmp_path / "bad_value.yaml"
    bad.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = invoke("plan", unplaceable, "--catalog", bad)
    assert_clean_failure(result)
    assert "accelerators.h100.reservation_unit_chips" in result.stderr


# --- solver options ---


def test_cbc_solver(sample_plan_json: dict[str, Any]) -> None:
    result = invoke("plan", SAMPLE, "--format", "json", "--solver", "cbc")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["solver"]["name"] == "cbc"
    assert data["status"] == "optimal"
    assert data["objective_monthly_usd"] == pytest.approx(
        sample_plan_json["objective_monthly_usd"], rel=1e-3
    )


def test_time_limit_and_write_model(unplaceable: Path, tmp_path: Path) -> None:
    model = tmp_path / "x.lp"
    result = invoke(
        "plan", unplaceable, "--format", "json", "--time-limit", "30", "--write-model", model
    )
    assert result.exit_code == 3, result.output
    assert json.loads(result.stdout)["status"] == "optimal"
    text = model.read_text(encoding="utf-8")
    assert "assign(" in text


def test_bad_solver_options_exit_2(unplaceable: Path) -> None:
    for args in (["--solver", "gurobi"], ["--time-limit", "0"], ["--format", "xml"]):
        result = CliRunner().invoke(cli, ["plan", str(unplaceable), *args])
        assert result.exit_code == 2, args
        assert "Traceback" not in result.output
        assert result.stdout == ""


# --- validate ---


def test_validate_sample() -> None:
    result = invoke("validate", SAMPLE, "--format", "json")
    assert result.exit_code == 0, result.output
    [record] = json.loads(result.stdout)
    assert record["workloads"] == 30
    assert record["status"] == "valid"
    assert invoke("validate", SAMPLE).exit_code == 0


def test_validate_bad_file_lists_every_problem(bad_inventory: Path) -> None:
    result = invoke("validate", bad_inventory)
    assert_clean_failure(result)
    message = result.stderr
    assert "3 problems" in message
    for fragment in ("row 2", "'params_b'", "row 3", "'kind'", "row 4", "monthly_tokens_b"):
        assert fragment in message


# --- catalog show / export ---


def test_catalog_show_json_lists_figures_with_sources() -> None:
    result = invoke("catalog", "show", "--format", "json")
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    by_path = {r["path"]: r for r in records}
    for record in records:
        assert {"path", "low", "point", "high", "source"} <= record.keys()
    price = by_path["accelerators.h100.on_demand_usd_per_chip_hour"]
    assert price["source"]
    assert price["low"] <= price["point"] <= price["high"]
    assert sum(1 for r in records if r["source"]) >= 10


def test_catalog_show_table() -> None:
    result = invoke("catalog", "show", env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    for header in ("path", "low", "point", "high", "source"):
        assert header in out
    assert "on_demand_usd_per" in out
    assert " nan " not in out  # missing low/high are empty cells


def test_catalog_show_filters_by_words_and_section() -> None:
    every = json.loads(invoke("catalog", "show", "--format", "json").stdout)
    found = json.loads(invoke("catalog", "show", "TRN2", "usd", "--format", "json").stdout)
    expected = [r for r in every if "trn2" in r["path"] and "usd" in r["path"]]
    assert found == expected and 0 < len(found) < len(every)
    section = json.loads(
        invoke("catalog", "show", "--section", "platforms", "--format", "json").stdout
    )
    assert section and all(r["path"].startswith("platforms.") for r in section)
    assert len(section) == sum(r["path"].startswith("platforms.") for r in every)
    nothing = invoke("catalog", "show", "no-such-word")
    assert_clean_failure(nothing)
    assert "'no-such-word'" in nothing.stderr and "accelerators" in nothing.stderr
    assert_clean_failure(invoke("catalog", "show", "--section", "prices"))


def test_catalog_export_round_trips(tmp_path: Path) -> None:
    result = invoke("catalog", "export")
    assert result.exit_code == 0, result.output
    path = tmp_path / "exported.yaml"
    path.write_text(result.stdout, encoding="utf-8")
    assert load_catalog(path) == load_catalog()
    # With an override the export carries it, and loads back to the overridden catalog.
    override = "accelerators.h100.on_demand_usd_per_chip_hour=3.2"
    target = tmp_path / "overridden.yaml"
    assert invoke("catalog", "export", "--set", override, "-o", target).exit_code == 0
    assert load_catalog(target) == load_catalog(overrides=[override])
    assert load_catalog(target) != load_catalog()


# --- help ---


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            paths += _command_paths(command, (*prefix, name))
        else:
            paths.append((*prefix, name))
    return paths


@pytest.mark.parametrize("path", _command_paths(cli), ids=lambda p: " ".join(p) or "placement")
def test_help(path: tuple[str, ...]) -> None:
    result = invoke(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.stdout


def test_every_fixed_command_exists() -> None:
    paths = {" ".join(p) for p in _command_paths(cli)}
    assert {"plan", "validate", "catalog show", "catalog export"} <= paths


# --- the installed console script, as a shell runs it ---


def test_console_script_exit_code_and_json(unplaceable: Path, tmp_path: Path) -> None:
    script = shutil.which("placement", path=str(Path(sys.executable).parent)) or shutil.which(
        "placement"
    )
    if script is None:
        pytest.skip("the placement console script is not installed")
    run = subprocess.run(
        [script, "plan", str(unplaceable), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert run.returncode == 3, run.stderr
    assert "Traceback" not in run.stderr
    data = json.loads(run.stdout)
    assert [u["workload_id"] for u in data["unplaced"]] == ["spec-on-trn2"]


# What start-up must not load: each takes a tenth of a second or more to import.
HEAVY_MODULES = ("pandas", "pulp", "highspy", "sqlalchemy", "alembic", "placement.pipeline")


@pytest.mark.parametrize("args", [["--help"], ["plan", "--help"], ["whatif", "--help"]])
def test_help_starts_without_loading_the_stages(args: list[str]) -> None:
    """``--help`` and usage errors import the command line only (docs/performance.md)."""
    script = (
        "import sys\n"
        "from placement.cli.main import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "Usage: placement" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_the_api_names_load_on_first_use() -> None:
    script = (
        "import sys, placement\n"
        "before = 'placement.pipeline' in sys.modules\n"
        "plan = placement.plan\n"
        "from placement import read_inventory\n"
        "print(before, plan.__module__, read_inventory.__module__, placement.__version__ != '')"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == [
        "False",
        "placement.pipeline",
        "placement.reading.inventory",
        "True",
    ]


# --- numbers of the command line are finite; results and inventories are read with a bound ----

FLOAT_OPTIONS = [
    ("plan", "--gap"),
    ("plan", "--time-limit"),
    ("sweep", "--gap"),
    ("sweep", "--time-limit"),
    ("risk", "--gap"),
    ("explain", "--time-limit"),
    ("whatif", "--gap"),
    ("report", "--time-limit"),
]
"""Every option read as a number range, by a command that declares it (``plan``'s own, and
``batch_options``' shared by the others)."""


def _number_option_args(command: str) -> list[str]:
    return {
        "plan": [str(SAMPLE)],
        "sweep": [str(SAMPLE), "--param", "economics.amortization_months", "--range", "6:24:3"],
        "risk": [str(SAMPLE)],
        "explain": [str(SAMPLE), "llama-70b-sft"],
        "whatif": [str(SAMPLE), str(ROOT / "inputs" / "scenarios" / "h100_price_cut.yaml")],
        "report": [str(SAMPLE), "--md", "never-written.md"],
    }[command]


@pytest.mark.parametrize(("command", "option"), FLOAT_OPTIONS)
@pytest.mark.parametrize("value", ["nan", "NaN", "inf"])
def test_a_number_option_refuses_nan_and_infinity(command: str, option: str, value: str) -> None:
    """click's FloatRange let NaN through (--gap nan solved at 10% and said 'optimal';
    --time-limit nan was dropped) and an infinity where no maximum is set."""
    result = invoke(command, *_number_option_args(command), option, value)
    assert_clean_failure(result)
    assert f"Invalid value for '{option}'" in result.stderr
    assert "finite number" in result.stderr or "not in the range" in result.stderr
    assert not Path("never-written.md").exists()


def test_the_gap_option_says_it_expects_a_finite_number() -> None:
    result = invoke("plan", SAMPLE, "--gap", "nan")
    assert_clean_failure(result)
    assert "'--gap': 'nan' is not a finite number: expected a finite number in the range " in (
        result.stderr
    )


def test_every_number_option_is_finite() -> None:
    """No command declares a plain FloatRange (which lets NaN through)."""
    from placement.cli.shared import FiniteFloatRange

    def walk(command: click.Command) -> list[click.Parameter]:
        found = list(command.params)
        for child in getattr(command, "commands", {}).values():
            found += walk(child)
        return found

    ranges = [p for p in walk(cli) if isinstance(p.type, click.FloatRange)]
    assert ranges
    assert all(isinstance(p.type, FiniteFloatRange) for p in ranges), [p.name for p in ranges]


def test_an_endless_inventory_from_a_device_is_refused() -> None:
    result = invoke("plan", "/dev/zero", "--input-format", "csv", "--max-workloads", "10")
    assert_clean_failure(result)
    assert "/dev/zero: expected an inventory of at most 67,108,864 bytes" in result.stderr


@pytest.mark.parametrize("option", ["--sweep", "--risk"])
def test_an_endless_result_file_is_refused_by_report(tmp_path: Path, option: str) -> None:
    out = tmp_path / "r.html"
    result = invoke("report", SAMPLE, "--html", out, option, "/dev/zero")
    assert_clean_failure(result)
    assert f"{option} /dev/zero: expected the JSON of" in result.stderr
    assert "larger than 200,000,000 bytes" in result.stderr
    assert not out.exists()

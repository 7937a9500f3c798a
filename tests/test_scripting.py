"""What scripts hold on to: JSON errors, provenance, CSV tables and booleans, stdin,
PLACEMENT_CATALOG, a commented catalog export, shell completion and pandas left as found."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from click.testing import CliRunner, Result

import placement
from placement.catalog import default_catalog_text, load_catalog
from placement.cli.main import cli, main
from placement.cli.shared import CATALOG_ENV
from placement.models.plan import Plan

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"
PROBLEM_KEYS = {"file", "sheet", "row", "line", "column", "value", "expected", "message"}


def invoke(
    *args: str | Path, env: dict[str, str] | None = None, stdin: bytes | None = None
) -> Result:
    return CliRunner().invoke(
        cli, [str(a) for a in args], catch_exceptions=False, env=env, input=stdin
    )


def error_problems(result: Result) -> list[dict[str, Any]]:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.stderr.startswith("Error:")
    document = json.loads(result.stdout)
    assert document["status"] == "error"
    for problem in document["problems"]:
        assert set(problem) == PROBLEM_KEYS
    return list(document["problems"])


# --- JSON on failure --------------------------------------------------------------------


def test_validate_json_failure_is_json_with_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "id,kind,model_family,params_b,monthly_tokens_b\n"
        "a,training,llama,-1,3\n"
        "b,inference,llama,8,3\n"
        "a,trainin,llama,8,3\n",
        encoding="utf-8",
    )
    problems = error_problems(invoke("validate", bad, "--format", "json"))
    found = {(p["row"], p["line"], p["column"], p["value"]) for p in problems}
    assert found == {(1, 2, "params_b", "-1"), (3, 4, "id", "a"), (3, 4, "kind", "trainin")}
    assert all(p["file"] == str(bad) and p["expected"] for p in problems)


def test_validate_json_success_keeps_lists() -> None:
    result = invoke("validate", SAMPLE, "--format", "json")
    assert result.exit_code == 0
    [summary] = json.loads(result.stdout)
    assert isinstance(summary["families"], list) and "llama" in summary["families"]
    assert summary["extra_columns"] == ["team", "owner", "notes"]
    assert summary["unknown_families"] == ["acme_lm"]
    assert summary["sha256"] == hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    table = invoke("validate", SAMPLE, env={"COLUMNS": "200"}).stdout
    assert "team, owner, notes" in table  # joined only for people


def test_catalog_errors_are_json_objects_naming_the_path() -> None:
    problems = error_problems(
        invoke("catalog", "show", "--set", "accelerators.h200.memory_gb=141", "--format", "json")
    )
    [problem] = problems
    assert problem["file"] == "--set"
    assert problem["column"] == "accelerators.h200.memory_gb"
    assert problem["value"] == "141"
    assert "no catalog entry" in problem["expected"]


def test_invalid_catalog_value_is_a_json_object(tmp_path: Path) -> None:
    data = yaml.safe_load(default_catalog_text())
    data["economics"]["amortization_months"]["value"] = "soon"
    bad = tmp_path / "catalog.yaml"
    bad.write_text(yaml.safe_dump(data), encoding="utf-8")
    [problem] = error_problems(invoke("plan", SAMPLE, "--catalog", bad, "--format", "json"))
    assert problem["file"] == str(bad)
    assert problem["column"] == "economics.amortization_months.value"
    assert problem["value"] == "soon"


def test_output_errors_are_json_objects(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "plan.json"
    [problem] = error_problems(invoke("plan", SAMPLE, "--format", "json", "-o", target))
    assert problem["file"] == str(target)


def test_usage_errors_are_json_under_format_json(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", str(SAMPLE), "--format", "json", "--no-such-option"])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert document["status"] == "error"
    assert "--no-such-option" in document["problems"][0]["message"]
    assert "No such option" in captured.err
    with pytest.raises(SystemExit) as plain:
        main(["plan", str(SAMPLE), "--no-such-option"])
    assert plain.value.code == 2
    assert capsys.readouterr().out == ""


# --- provenance ------------------------------------------------------------------------


def test_run_block_records_where_the_plan_came_from() -> None:
    overrides = ["economics.amortization_months=24"]
    result = invoke("plan", SAMPLE, "--set", overrides[0], "--format", "json", "--gap", "0.002")
    plan = Plan.model_validate_json(result.stdout)
    assert plan.schema_version == "1.12"
    run = plan.run
    assert run is not None
    assert run.tool_version == placement.__version__
    assert run.input.path == str(SAMPLE)
    assert run.input.format == "csv"
    assert run.input.sha256 == hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    assert run.input.workloads == 30
    assert run.catalog.via == "default" and run.catalog.path is None
    assert run.catalog.sha256 == hashlib.sha256(default_catalog_text().encode()).hexdigest()
    assert run.overrides == overrides
    assert run.solver_options.gap == 0.002 and run.solver_options.solver == "highs"
    assert run.started_at.endswith("Z")
    assert {"python", "pulp", "highspy"} <= set(run.libraries)
    default = Plan.model_validate_json(invoke("plan", SAMPLE, "--format", "json").stdout)
    assert default.run is not None
    assert default.run.catalog.effective_sha256 != run.catalog.effective_sha256
    assert default.run.catalog.sha256 == run.catalog.sha256  # same file, other figures


def test_plans_from_the_python_api_have_a_run_block_too() -> None:
    result = placement.plan(pd.read_csv(SAMPLE))
    run = result.plan.run
    assert run is not None
    assert run.input.path == "<DataFrame>" and run.input.sha256 is None
    assert run.catalog.via == "default"


# --- CSV -------------------------------------------------------------------------------


def test_csv_file_has_its_tables_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "plan.csv"
    assert invoke("plan", SAMPLE, "--format", "csv", "-o", target).exit_code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["plan.csv", "plan.porting.csv", "plan.purchases.csv", "plan.totals.csv"]
    plan = Plan.model_validate_json(invoke("plan", SAMPLE, "--format", "json").stdout)
    assignments = pd.read_csv(target, dtype=str, keep_default_na=False)
    assert len(assignments) == 30
    assert set(assignments["placed"]) == {"true"}
    purchases = pd.read_csv(tmp_path / "plan.purchases.csv")
    assert purchases["units"].tolist() == [r.units for r in plan.reserved_purchases]
    totals = pd.read_csv(tmp_path / "plan.totals.csv").iloc[0]
    assert totals["objective_monthly_usd"] == pytest.approx(plan.objective_monthly_usd)
    assert totals["status"] == "optimal"
    parts = [totals[k] for k in ("on_demand_usd", "reserved_usd")] + [
        totals["porting_amortized_usd"],
        totals["migration_amortized_usd"],
    ]
    assert sum(parts) == pytest.approx(plan.objective_monthly_usd)
    porting = pd.read_csv(tmp_path / "plan.porting.csv", keep_default_na=False)
    assert sorted(porting["item"]) == ["migration", "port", "port"]
    assert "time_s" not in " ".join(totals.index)  # no run time: re-runs diff clean


def test_csv_on_stdout_is_sections_with_the_same_tables(tmp_path: Path) -> None:
    target = tmp_path / "plan.csv"
    invoke("plan", SAMPLE, "--format", "csv", "-o", target)
    stream = invoke("plan", SAMPLE, "--format", "csv").stdout
    first, *rest = stream.split("\n# ")
    assert first == target.read_text()
    for block in rest:
        name, _, body = block.partition("\n")
        assert body == (tmp_path / f"plan.{name}.csv").read_text(), name


def test_csv_booleans_are_lowercase(tmp_path: Path) -> None:
    inventory = tmp_path / "inv.yaml"
    inventory.write_text(
        yaml.safe_dump(
            [
                {
                    "id": "a",
                    "kind": "training",
                    "model_family": "llama",
                    "params_b": 8,
                    "monthly_tokens_b": 3,
                    "critical": True,
                },
                {
                    "id": "b",
                    "kind": "training",
                    "model_family": "llama",
                    "params_b": 8,
                    "monthly_tokens_b": 1,
                    "critical": False,
                },
            ]
        ),
        encoding="utf-8",
    )
    text = invoke("plan", inventory, "--format", "csv").stdout.split("\n# ")[0]
    rows = pd.read_csv(io.StringIO(text), dtype=str)
    assert rows["placed"].tolist() == ["true", "true"]
    assert rows["critical"].tolist() == ["true", "false"]
    assert "True" not in text and "False" not in text


# --- stdin and the team's catalog -----------------------------------------------------------


def test_inventory_from_stdin() -> None:
    data = SAMPLE.read_bytes()
    from_file = Plan.model_validate_json(invoke("plan", SAMPLE, "--format", "json").stdout)
    piped = invoke("plan", "-", "--input-format", "csv", "--format", "json", stdin=data)
    assert piped.exit_code == 0, piped.output
    from_stdin = Plan.model_validate_json(piped.stdout)
    assert from_stdin.objective_monthly_usd == from_file.objective_monthly_usd
    assert from_stdin.run is not None
    assert from_stdin.run.input.path == "<stdin>"
    assert from_stdin.run.input.sha256 == hashlib.sha256(data).hexdigest()
    yaml_in = invoke(
        "validate",
        "-",
        "--input-format",
        "yaml",
        stdin=(ROOT / "inputs/sample_inventory.yaml").read_bytes(),
    )
    assert yaml_in.exit_code == 0, yaml_in.output


def test_stdin_needs_an_input_format_and_says_so() -> None:
    result = invoke("validate", "-", stdin=SAMPLE.read_bytes())
    assert result.exit_code == 2
    assert "--input-format" in result.stderr and "<stdin>" in result.stderr


def test_stdin_problems_name_lines(tmp_path: Path) -> None:
    text = b"id,kind,model_family,params_b,monthly_tokens_b\na,training,llama,-1,3\n"
    result = invoke("validate", "-", "--input-format", "csv", "--format", "json", stdin=text)
    [problem] = error_problems(result)
    assert (problem["file"], problem["row"], problem["line"]) == ("<stdin>", 1, 2)


def test_placement_catalog_names_the_teams_catalog(tmp_path: Path) -> None:
    data = yaml.safe_load(default_catalog_text())
    data["name"] = "team-catalog"
    data["accelerators"]["h100"]["on_demand_usd_per_chip_hour"] = {
        "low": 2.0,
        "high": 2.0,
        "source": "team contract price",
    }
    team = tmp_path / "team.yaml"
    team.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    env = {CATALOG_ENV: str(team)}
    via_env = Plan.model_validate_json(invoke("plan", SAMPLE, "--format", "json", env=env).stdout)
    assert via_env.run is not None
    assert via_env.run.catalog.name == "team-catalog"
    assert via_env.run.catalog.via == CATALOG_ENV
    assert via_env.run.catalog.path == str(team)
    default = Plan.model_validate_json(invoke("plan", SAMPLE, "--format", "json").stdout)
    assert via_env.baselines.all_h100_on_demand_usd != default.baselines.all_h100_on_demand_usd
    other = tmp_path / "other.yaml"
    data["name"] = "explicit"
    other.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    explicit = Plan.model_validate_json(
        invoke("plan", SAMPLE, "--catalog", other, "--format", "json", env=env).stdout
    )
    assert explicit.run is not None
    assert (explicit.run.catalog.name, explicit.run.catalog.via) == ("explicit", "--catalog")
    shown = invoke("catalog", "show", "--format", "json", env=env)
    assert any(r["source"] == "team contract price" for r in json.loads(shown.stdout))
    missing = invoke("catalog", "show", env={CATALOG_ENV: str(tmp_path / "nope.yaml")})
    assert missing.exit_code == 2 and "nope.yaml" in missing.stderr


# --- catalog export -----------------------------------------------------------------------


def test_catalog_export_keeps_comments_and_applies_overrides(tmp_path: Path) -> None:
    default = default_catalog_text()
    exported = invoke("catalog", "export").stdout
    assert exported == default  # the file as written, comments and layout included
    changed = invoke("catalog", "export", "--set", "economics.amortization_months=24").stdout
    comments = [line for line in default.splitlines() if line.lstrip().startswith("#")]
    assert comments and all(line in changed.splitlines() for line in comments)
    target = tmp_path / "mine.yaml"
    target.write_text(changed, encoding="utf-8")
    assert load_catalog(target).economics.amortization_months.value == 24
    assert load_catalog(target) == load_catalog(overrides=["economics.amortization_months=24"])


def test_catalog_export_of_a_users_file_keeps_their_comments(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("# our negotiated prices, 2026-11\n" + default_catalog_text(), encoding="utf-8")
    exported = invoke("catalog", "export", "--catalog", mine).stdout
    assert exported.startswith("# our negotiated prices, 2026-11\n")


# --- shell completion -----------------------------------------------------------------------


def completion(**env: str) -> subprocess.CompletedProcess[str]:
    """The command run as a shell's completion hook runs it."""
    run = subprocess.run(
        [sys.executable, "-m", "placement"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )
    assert run.returncode == 0, run.stderr
    return run


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion_script(shell: str) -> None:
    assert "_PLACEMENT_COMPLETE" in completion(_PLACEMENT_COMPLETE=f"{shell}_source").stdout


def test_shell_completion_completes_commands_and_options() -> None:
    run = completion(
        _PLACEMENT_COMPLETE="bash_complete",
        COMP_WORDS="placement plan inv.csv --for",
        COMP_CWORD="3",
    )
    assert "--format" in run.stdout
    commands = completion(
        _PLACEMENT_COMPLETE="bash_complete", COMP_WORDS="placement val", COMP_CWORD="1"
    )
    assert "validate" in commands.stdout


def test_an_internal_error_is_one_plain_line_unless_debugging(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("placement.pipeline.plan", broken)  # as the command imports it
    monkeypatch.delenv("PLACEMENT_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        main(["plan", str(SAMPLE)])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "ZeroDivisionError: a bug" in err
    assert "Traceback" not in err and "PLACEMENT_DEBUG=1" in err
    monkeypatch.setenv("PLACEMENT_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        main(["plan", str(SAMPLE)])


def _infers_str() -> bool:
    """Whether pandas makes new columns of text its ``str`` dtype (its option read quietly:
    it is deprecated in pandas 3)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return bool(pd.get_option("future.infer_string"))
        except (pd.errors.OptionError, KeyError):
            return False


def test_a_plan_makes_text_as_objects_inside_and_leaves_pandas_as_it_found_it() -> None:
    from placement.pipeline import plan, strings_as_objects

    before = _infers_str()
    with strings_as_objects():
        assert pd.Series(["h100", "trn2"]).dtype == object
        assert not _infers_str()
    assert _infers_str() == before
    result = plan(SAMPLE)
    assert _infers_str() == before
    frames = {
        "inventory": result.inventory.workloads[["id", "kind", "model_family"]],
        "options": result.estimates.options[["accelerator", "pricing", "reason"]],
    }
    for frame in frames.values():
        assert all(pd.api.types.is_object_dtype(dtype) for dtype in frame.dtypes), frame.dtypes


def test_text_as_objects_holds_until_the_last_of_overlapping_callers_leaves() -> None:
    """Threads of one process (a Dask worker's) plan at once: one leaving must not turn
    pandas' inference back on under another still inside."""
    from placement.pipeline import strings_as_objects

    before = _infers_str()
    first, second = strings_as_objects(), strings_as_objects()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first to enter leaves first
    assert not _infers_str()
    assert pd.Series(["h100"]).dtype == object
    second.__exit__(None, None, None)
    assert _infers_str() == before

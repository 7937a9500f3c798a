"""Size: an inventory too large for this machine's memory is refused before any work starts,
with what to do instead; long runs say what they are doing."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import placement.reading.limits as limits
from benchmarks.generate import synthetic_inventory
from placement.cli.main import cli
from placement.pipeline import plan
from placement.reading import InputError, read_inventory
from placement.reading.limits import (
    BASE_MEMORY_BYTES,
    DEFAULT_MAX_WORKLOADS,
    MEMORY_PER_WORKLOAD_BYTES,
    MEMORY_PER_WORKLOAD_MONTH_BYTES,
    USABLE_MEMORY_FRACTION,
    SizeLimit,
    estimated_memory_bytes,
)

HEADER = "id,kind,model_family,params_b,monthly_tokens_b\n"


def rows(n: int) -> str:
    return HEADER + "".join(f"w{i},training,llama,8,1\n" for i in range(n))


def test_the_estimate_is_linear_in_workloads() -> None:
    assert estimated_memory_bytes(0) == BASE_MEMORY_BYTES
    step = estimated_memory_bytes(200_000) - estimated_memory_bytes(100_000)
    assert step == 100_000 * MEMORY_PER_WORKLOAD_BYTES


def test_a_roadmap_needs_memory_for_its_months(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    months = 24
    per_workload = MEMORY_PER_WORKLOAD_BYTES + months * MEMORY_PER_WORKLOAD_MONTH_BYTES
    step = estimated_memory_bytes(2_000, months) - estimated_memory_bytes(1_000, months)
    assert step == 1_000 * per_workload
    available = 600 * 2**20
    monkeypatch.setattr(limits, "available_memory_bytes", lambda: available)
    usable = available * USABLE_MEMORY_FRACTION - BASE_MEMORY_BYTES
    steady, roadmap = SizeLimit().allowed()[0], SizeLimit(months=months).allowed()[0]
    assert steady == int(usable // MEMORY_PER_WORKLOAD_BYTES)
    assert roadmap == int(usable // per_workload) < steady
    frame = pd.read_csv(io.StringIO(rows(roadmap + 1)))
    # Planned in steady state, refused as a roadmap before any month is built.
    with pytest.raises(InputError, match=f"at most {roadmap:,} workloads"):
        plan(frame, horizon=months)
    SizeLimit().check(roadmap + 1, "inv.csv")  # no refusal


def test_the_default_limit_is_a_fixed_cap_when_memory_allows_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "available_memory_bytes", lambda: 512 * 2**30)
    assert SizeLimit().allowed() == (
        DEFAULT_MAX_WORKLOADS,
        "the default limit, for a plan within minutes",
    )
    monkeypatch.setattr(limits, "available_memory_bytes", lambda: None)
    assert SizeLimit().allowed()[0] == DEFAULT_MAX_WORKLOADS
    assert SizeLimit(10**7).allowed()[0] == 10**7


def test_a_million_rows_are_refused_at_once(tmp_path: Path) -> None:
    """The CSV's lines are counted before anything is parsed."""
    path = tmp_path / "million.csv"
    path.write_bytes((HEADER + "w,training,llama,8,1\n" * 1_000_000).encode())
    result = CliRunner().invoke(cli, ["plan", str(path), "-o", str(tmp_path / "p.json")])
    assert result.exit_code == 2
    assert "this inventory has about 1,000,000" in result.stderr
    assert not (tmp_path / "p.json").exists()


def test_the_default_limit_follows_the_available_memory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    available = 400 * 2**20
    monkeypatch.setattr(limits, "available_memory_bytes", lambda: available)
    limit, basis = SizeLimit().allowed()
    expected = int(
        (available * USABLE_MEMORY_FRACTION - BASE_MEMORY_BYTES) // MEMORY_PER_WORKLOAD_BYTES
    )
    assert limit == expected and "0.4 GB of memory available" in basis
    small = tmp_path / "small.csv"
    small.write_text(rows(expected))
    large = tmp_path / "large.csv"
    large.write_text(rows(expected + 1))
    assert len(read_inventory(small, limit=SizeLimit()).workloads) == expected
    with pytest.raises(InputError) as info:
        read_inventory(large, limit=SizeLimit())
    message = str(info.value)
    assert f"at most {expected:,} workloads" in message
    assert f"has about {expected + 1:,}" in message  # counted before parsing
    assert "Aggregate" in message and "split the inventory" in message
    assert f"--max-workloads {expected + 1}" in message


def test_an_explicit_limit_replaces_the_estimate(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text(rows(30))
    refused = CliRunner().invoke(
        cli, ["plan", str(path), "--max-workloads", "29", "-o", str(tmp_path / "p.json")]
    )
    assert refused.exit_code == 2
    assert "at most 29 workloads (--max-workloads 29)" in refused.stderr
    assert not (tmp_path / "p.json").exists()
    allowed = CliRunner().invoke(
        cli, ["plan", str(path), "--max-workloads", "30", "--format", "json"]
    )
    assert allowed.exit_code == 0, allowed.output


@pytest.mark.parametrize("fmt", ["json", "parquet", "xlsx"])
def test_every_format_and_the_api_are_limited(tmp_path: Path, fmt: str) -> None:
    frame = pd.read_csv(pd.io.common.StringIO(rows(12)))
    path = tmp_path / f"inv.{fmt}"
    if fmt == "json":
        frame.to_json(path, orient="records")
    elif fmt == "parquet":
        frame.to_parquet(path)
    else:
        frame.to_excel(path, index=False)
    with pytest.raises(InputError, match="at most 11 workloads"):
        read_inventory(path, limit=SizeLimit(11))
    with pytest.raises(InputError, match="at most 11 workloads"):
        read_inventory(frame, limit=SizeLimit(11))
    from placement import plan

    with pytest.raises(InputError, match="at most 11 workloads"):
        plan(frame, limit=SizeLimit(11))


def test_a_long_run_says_what_it_is_doing_on_a_plain_stderr(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    synthetic_inventory(1500, seed=3).to_csv(path, index=False)

    def run(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "placement",
                "plan",
                str(path),
                "-o",
                str(tmp_path / "p.json"),
                *options,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**os.environ, "PLACEMENT_STATUS_INTERVAL": "0.2"},
        )

    talkative = run("--format", "json")
    assert talkative.returncode in (0, 3), talkative.stderr
    lines = [line for line in talkative.stderr.splitlines() if line.startswith("placement: ")]
    assert lines, talkative.stderr
    assert all(line.endswith("s so far)") for line in lines)
    assert any("solving" in line or "estimating" in line or "baselines" in line for line in lines)
    assert run("-q").stderr == ""


def test_an_inventory_busier_than_any_fleet_is_refused(tmp_path: Path) -> None:
    """Each workload is plausible alone (890,000 H100s busy); twelve of them are not."""
    path = tmp_path / "inv.csv"
    path.write_text(
        "id,kind,model_family,params_b,h100_gpu_hours\n"
        + "".join(f"w{i},training,llama,70,650000000\n" for i in range(12))
    )
    result = CliRunner().invoke(cli, ["plan", str(path), "--format", "json"])
    assert result.exit_code == 2
    assert "max_busy_chips_in_total" in result.stderr
    assert "needs at least 10,684,932" in result.stderr
    eleven = tmp_path / "eleven.csv"
    eleven.write_text("\n".join(path.read_text().splitlines()[:12]) + "\n")
    assert CliRunner().invoke(cli, ["plan", str(eleven), "--format", "json"]).exit_code == 0


def test_every_count_a_user_controls_is_bounded_as_the_docs_say(tmp_path: Path) -> None:
    """The table of docs/inputs.md "Counts you control" states the bounds the code enforces;
    one past each of the newer ones is refused with exit 2, before any work."""
    from placement.comparing.sweep import MAX_SWEEP_STEPS
    from placement.horizon.limits import MAX_HORIZON_MONTHS
    from placement.models.labels import MAX_LABEL_CHARS
    from placement.scenarios.files import MAX_SCENARIOS
    from placement.solving.choices import MAX_WORKERS
    from placement.uncertainty.limits import MAX_ROBUST_SAMPLES, MAX_SAMPLES

    docs = (Path(__file__).parent.parent / "docs" / "inputs.md").read_text(encoding="utf-8")
    table = docs.split("### Counts you control", 1)[1].split("###", 1)[0]
    for stated in (
        f"1 to {MAX_HORIZON_MONTHS}",
        f"2 to {MAX_SWEEP_STEPS} per",
        f"1 to {MAX_SCENARIOS:,}",
        f"1 to {MAX_SAMPLES:,}",
        f"2 to {MAX_ROBUST_SAMPLES}",
        f"1 to {MAX_WORKERS}",
        f"1 to {MAX_LABEL_CHARS} characters",
    ):
        assert stated in table, stated
    inv = Path(__file__).parent.parent / "inputs" / "sample_inventory.csv"
    runner = CliRunner()
    workers = runner.invoke(cli, ["whatif", str(inv), "x.yaml", "--workers", str(MAX_WORKERS + 1)])
    assert workers.exit_code == 2 and "--workers" in workers.stderr
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\n", encoding="utf-8")
    many = runner.invoke(cli, ["whatif", str(inv), *[str(scenario)] * (MAX_SCENARIOS + 1)])
    assert many.exit_code == 2 and f"expected at most {MAX_SCENARIOS:,}" in many.stderr
    assert "Traceback" not in many.output


def test_sampled_work_is_bounded_by_what_it_plans() -> None:
    """Samples x workloads (at least 1,000) x plans x roadmap years: within the bound, nothing
    to say; past it, the figures and the most samples that fit."""
    from placement.uncertainty.limits import (
        MAX_ROBUST_SAMPLED_WORKLOADS,
        MAX_SAMPLED_WORKLOADS,
        robust_work_problem,
        sampled_work_problem,
    )

    assert sampled_work_problem(1_000, 1_000) is None  # the risk target's run
    assert sampled_work_problem(1_000, 3) is None  # counted as 1,000
    small = sampled_work_problem(1_001, 3)
    assert small is not None and "3 workloads (counted as 1,000)" in small
    too_much = sampled_work_problem(1_001, 1_000)
    assert too_much is not None and "1,001,000 workload-samples" in too_much
    assert "at most 1,000 samples" in too_much
    # A roadmap held in each sample: every six months of it a sample's work.
    roadmap = sampled_work_problem(300, 1_000, plans=1, months=24)
    assert roadmap is not None and "4 (24 months of roadmap held" in roadmap
    assert "1,200,000 workload-samples" in roadmap and "at most 250 samples" in roadmap
    assert "a shorter --horizon" in roadmap
    assert sampled_work_problem(250, 1_000, months=24) is None
    assert sampled_work_problem(50, 30, months=120) is None
    assert sampled_work_problem(51, 30, months=120) is not None
    assert sampled_work_problem(1_000, 1_000, months=6) is None  # half a year: one sample
    compared = sampled_work_problem(400, 1_000, plans=3)
    assert compared is not None and "3 plans" in compared and "at most 333 samples" in compared
    assert sampled_work_problem(MAX_SAMPLED_WORKLOADS // 1_000, 100) is None
    assert robust_work_problem(200, 1_000) is None
    robust = robust_work_problem(20, 100_000)
    assert robust is not None and "at most 2 samples" in robust
    assert robust_work_problem(MAX_ROBUST_SAMPLED_WORKLOADS // 1_000 + 1, 1_000) is not None


def test_a_robust_plan_past_its_work_bound_is_refused_before_the_program(
    tmp_path: Path,
) -> None:
    inv = tmp_path / "inv.csv"
    synthetic_inventory(1_200, seed=1).to_csv(inv, index=False)
    result = CliRunner().invoke(
        cli, ["plan", str(inv), "--robust", "--samples", "200", "-o", str(tmp_path / "p.json")]
    )
    assert result.exit_code == 2, result.output
    assert "240,000 workload-samples" in result.stderr and "at most 166 samples" in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "p.json").exists()


def test_batch_work_is_bounded_by_what_it_plans() -> None:
    """A whatif's scenarios and a sweep's grid points x workloads (at least 1,000) x roadmap
    months: within the bound, nothing to say; past it, the figures and the most that fit."""
    from placement.comparing.limits import (
        MAX_COMPARED_WORKLOAD_PLANS,
        MAX_SWEPT_WORKLOAD_PLANS,
        bisected_solves_at_most,
        compared_work_problem,
        swept_work_problem,
    )
    from placement.comparing.sweep import MAX_SWEEP_POINTS
    from placement.scenarios.files import MAX_SCENARIOS

    # The count bounds are the work bounds at 1,000 workloads and fewer.
    assert compared_work_problem(MAX_SCENARIOS, 1_000, None) is None
    assert compared_work_problem(MAX_SCENARIOS, 3, None) is None
    assert swept_work_problem(MAX_SWEEP_POINTS, 1_000, None) is None
    large = compared_work_problem(11, 100_000, None)
    assert large is not None and "1,100,000 workload-plans" in large
    assert "at most 5 scenarios" in large
    roadmaps = compared_work_problem(9, 3, 120)
    assert roadmaps is not None and "3 workloads (counted as 1,000) x 120 months" in roadmaps
    assert "at most 4 scenarios" in roadmaps
    assert compared_work_problem(MAX_COMPARED_WORKLOAD_PLANS // 24_000, 10, 24) is None
    swept = swept_work_problem(6, 100_000, None)
    assert swept is not None and "at most 2 grid points" in swept
    assert swept_work_problem(MAX_SWEPT_WORKLOAD_PLANS // 120_000, 500, 120) is None
    none_fits = swept_work_problem(2, 3_000, 120)
    assert none_fits is not None and "no sweep of this size" in none_fits
    # The bisection of roadmaps: a few solves of the longest at the grid's bound, more of
    # shorter ones; a steady state's has only its budget a change.
    assert bisected_solves_at_most(100_000, None) is None
    longest = bisected_solves_at_most(MAX_SWEPT_WORKLOAD_PLANS // 240, 120)
    assert longest is not None and 1 <= longest <= 4
    shorter = bisected_solves_at_most(10, 24)
    assert shorter is not None and shorter > longest


def test_a_sweep_past_its_work_bound_is_refused_before_any_plan(tmp_path: Path) -> None:
    """Through the library as through the command: a 10,000-workload sweep of 60 points is
    refused at once, nothing planned."""
    from placement.comparing.sweep import Parameter, sweep
    from placement.errors import PlacementInputError

    inventory = tmp_path / "inv.csv"
    synthetic_inventory(10_000, seed=2).to_csv(inventory, index=False)
    price = Parameter.parse_range("accelerators.h100.on_demand_usd_per_chip_hour", "2:6:60")
    with pytest.raises(PlacementInputError) as refused:
        sweep(str(inventory), [price], workers=1)
    assert "60 grid points x 10,000 workloads is 600,000 workload-plans" in str(
        refused.value.problems
    )
    assert "at most 25 grid points" in str(refused.value.problems)

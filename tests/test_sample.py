"""The sample inventory: same plan from every format, a sound hybrid plan, and a golden file.

Regenerate the golden file after an intended model or catalog change with
``PLACEMENT_UPDATE_GOLDEN=1 pytest tests/test_sample.py`` and review its diff.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from placement.analysing.checks import check_plan
from placement.models.workload import is_blank
from placement.pipeline import EXIT_OK, PlanResult, plan
from placement.reading import read_inventory
from tests.conftest import EXACT

ROOT = Path(__file__).resolve().parents[1]
INPUTS = ROOT / "inputs"
SAMPLES = {fmt: INPUTS / f"sample_inventory.{fmt}" for fmt in ("csv", "yaml", "json")}
GOLDEN = Path(__file__).parent / "golden" / "sample_plan.json"
UPDATE_GOLDEN = os.environ.get("PLACEMENT_UPDATE_GOLDEN") == "1"
OBJECTIVE_RTOL = 1e-3  # 0.1%


@pytest.fixture(scope="module")
def sample() -> PlanResult:
    return plan(SAMPLES["csv"])


def _blank_extras_as_none(frame: pd.DataFrame, extras: tuple[str, ...]) -> pd.DataFrame:
    """An empty CSV cell reads as '' and an omitted JSON/YAML key as None: both mean not given."""
    frame = frame.copy()
    for column in extras:
        frame[column] = [None if is_blank(v) else v for v in frame[column]]
    return frame


def _comparable(result: PlanResult) -> dict[str, Any]:
    """The plan without run-dependent figures (solve time, provenance of the input file),
    extra blanks as None."""
    data = result.plan.model_dump(mode="json")
    data["solver"].pop("time_s")
    data.pop("run")
    for assignment in data["assignments"]:
        assignment["extra"] = {
            k: (None if is_blank(v) else v) for k, v in assignment["extra"].items()
        }
    return data


def test_sample_formats_read_to_the_same_workloads() -> None:
    inventories = {fmt: read_inventory(path) for fmt, path in SAMPLES.items()}
    base = inventories["csv"]
    assert len(base.workloads) == 30
    assert base.extra_columns == ("team", "owner", "notes")
    for fmt in ("yaml", "json"):
        other = inventories[fmt]
        assert other.extra_columns == base.extra_columns, fmt
        pd.testing.assert_frame_equal(
            _blank_extras_as_none(other.workloads, other.extra_columns),
            _blank_extras_as_none(base.workloads, base.extra_columns),
            check_dtype=False,
        )


def test_sample_formats_plan_the_same(sample: PlanResult) -> None:
    expected = _comparable(sample)
    for fmt in ("yaml", "json"):
        assert _comparable(plan(SAMPLES[fmt])) == expected, fmt


def test_sample_plan_is_optimal_hybrid_and_consistent(sample: PlanResult) -> None:
    p = sample.plan
    assert p.status == "optimal"
    assert sample.exit_code == EXIT_OK
    assert p.unplaced == []
    assert len(p.assignments) == 30
    accelerators = {a.accelerator for a in p.assignments}
    assert accelerators == {"trn2", "h100"}, "the sample is meant to give a hybrid plan"
    assert check_plan(p, sample.inventory.workloads, sample.catalog) == []
    assert p.objective_monthly_usd is not None
    assert p.objective_monthly_usd == pytest.approx(p.cost_breakdown.total_usd, abs=0.01)
    assert sample.solve.objective == pytest.approx(p.objective_monthly_usd, abs=0.05)
    # The optimum is no worse than any baseline it is compared with.
    for baseline in (
        p.baselines.all_h100_on_demand_usd,
        p.baselines.all_h100_optimal_usd,
        p.baselines.greedy_usd,
    ):
        assert baseline is not None
        assert p.objective_monthly_usd <= baseline + 0.05


def golden_summary(result: PlanResult) -> dict[str, Any]:
    """The compact, reviewable essence of a plan: where each workload runs and what is bought."""
    p = result.plan
    return {
        "objective_monthly_usd": p.objective_monthly_usd,
        "placements": {
            a.workload_id: {"accelerator": a.accelerator, "pricing": a.pricing, "chips": a.chips}
            for a in sorted(p.assignments, key=lambda a: a.workload_id)
        },
        "unplaced": sorted(u.workload_id for u in p.unplaced),
        "reserved_units": {
            f"{r.accelerator}/{r.pricing}/{r.chips_per_unit}": r.units
            for r in sorted(
                p.reserved_purchases, key=lambda r: (r.accelerator, r.pricing, r.chips_per_unit)
            )
        },
        "savings_plans_usd_per_hour": {
            c.pricing: c.usd_per_hour for c in p.commitments if c.kind == "savings_plan"
        },
        "ported_families": sorted(f"{f.family}/{f.platform}" for f in p.ported_families),
        "migrations": sorted(m.platform for m in p.migrations),
    }


def dump_golden(summary: dict[str, Any]) -> str:
    """JSON with one line per workload and per list, so a changed decision is a one-line diff."""
    lines = ["{"]
    for i, (key, value) in enumerate(summary.items()):
        comma = "," if i < len(summary) - 1 else ""
        if isinstance(value, dict) and value:
            lines.append(f"  {json.dumps(key)}: {{")
            items = list(value.items())
            for j, (name, item) in enumerate(items):
                inner = "," if j < len(items) - 1 else ""
                lines.append(f"    {json.dumps(name)}: {json.dumps(item)}{inner}")
            lines.append(f"  }}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_sample_plan_matches_golden() -> None:
    """The golden file is the sample's optimum (gap 0): at the default gap the solver may stop
    at any plan within 0.1% of it, and which one can differ from one machine to another."""
    actual = golden_summary(plan(SAMPLES["csv"], solver=EXACT))
    if UPDATE_GOLDEN:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(dump_golden(actual), encoding="utf-8")
    assert GOLDEN.exists(), "no golden file: run PLACEMENT_UPDATE_GOLDEN=1 pytest " + __file__
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    hint = "if the change is intended, run PLACEMENT_UPDATE_GOLDEN=1 pytest tests/test_sample.py"
    assert actual["objective_monthly_usd"] == pytest.approx(
        expected["objective_monthly_usd"], rel=OBJECTIVE_RTOL
    ), hint
    for key in (
        "placements",
        "unplaced",
        "reserved_units",
        "savings_plans_usd_per_hour",
        "ported_families",
        "migrations",
    ):
        assert actual[key] == expected[key], f"{key} changed; {hint}"


def test_python_m_placement_json_stdout_is_pure_json(tmp_path: Path) -> None:
    """Solvers print banners on the C-level stdout; none of it may reach the JSON."""
    run = subprocess.run(
        [sys.executable, "-m", "placement", "plan", str(SAMPLES["csv"]), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    data = json.loads(run.stdout)  # fails on any text before or after the document
    assert run.stdout.lstrip().startswith("{")
    assert run.stdout.rstrip().endswith("}")
    for banner in ("HiGHS", "Running", "Welcome to the CBC", "Coin"):
        assert banner not in run.stdout
    assert data["status"] == "optimal"
    assert len(data["assignments"]) == 30
    assert list(tmp_path.iterdir()) == []  # nothing written beside the output

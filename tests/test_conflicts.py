"""An infeasible plan names what conflicts: HiGHS's IIS of the model's LP relaxation, in the
model's words, each row and bound one whose removal lets the rest hold."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from placement.catalog import read_catalog
from placement.comparing.flip_points import explain_workload
from placement.pipeline import plan
from placement.reading import read_inventory
from tests.test_cli import invoke

CAP = "economics.porting_capacity_weeks_per_cycle"


def pinned_families() -> pd.DataFrame:
    """Two families pinned to Trainium2 (each needs its 4-week port) and a third free."""
    return pd.DataFrame(
        [
            {"id": "a", "kind": "training", "model_family": "llama", "params_b": 8,
             "h100_gpu_hours": 800, "pinned_accelerator": "trn2"},
            {"id": "b", "kind": "training", "model_family": "mistral", "params_b": 7,
             "h100_gpu_hours": 800, "pinned_accelerator": "trn2"},
            {"id": "c", "kind": "training", "model_family": "qwen2", "params_b": 7,
             "h100_gpu_hours": 500, "pinned_accelerator": None},
        ]
    )  # fmt: skip


def test_the_porting_cap_and_the_pins_that_break_it_are_named() -> None:
    made = plan(pinned_families(), read_catalog(None, [f"{CAP}=5"])).plan
    assert made.status == "infeasible" and made.conflicts
    text = "\n".join(made.conflicts)
    assert text.startswith("porting_capacity: ") and "<= 5" in text
    assert "port(llama,neuron) = 1 (every option of a needs it)" in made.conflicts
    assert "port(mistral,neuron) = 1 (every option of b needs it)" in made.conflicts
    assert "conflicts" in made.message


@pytest.mark.parametrize(
    "relaxed",
    [
        ["economics.porting_capacity_weeks_per_cycle=8"],  # the capacity row, relaxed
        ["platforms.neuron.porting_weeks_per_family=2"],  # its coefficients
    ],
)
def test_relaxing_what_is_named_makes_a_plan(relaxed: list[str]) -> None:
    assert plan(pinned_families(), read_catalog(None, [f"{CAP}=5", *relaxed])).plan.status == (
        "optimal"
    )


def test_unpinning_a_named_workload_makes_a_plan() -> None:
    rows = pinned_families()
    rows.loc[rows["id"].eq("b"), "pinned_accelerator"] = None
    made = plan(rows, read_catalog(None, [f"{CAP}=5"])).plan
    assert made.status == "optimal" and made.conflicts is None


def test_the_cli_and_explain_show_the_conflict(tmp_path: Path) -> None:
    path = tmp_path / "pinned.csv"
    pinned_families().to_csv(path, index=False)
    table = invoke("plan", path, "--set", f"{CAP}=5")
    assert table.exit_code == 3
    assert "These cannot all hold" in table.stdout and "porting_capacity" in table.stdout
    out = tmp_path / "plan.json"
    assert invoke("plan", path, "--set", f"{CAP}=5", "--format", "json", "-o", out).exit_code == 3
    assert json.loads(out.read_text())["conflicts"][0].startswith("porting_capacity")
    catalog = read_catalog(None, [f"{CAP}=5"])
    inventory = read_inventory(pinned_families(), list(catalog.catalog.accelerators))
    explained = explain_workload(inventory, "a", catalog, workers=1, flip_points=False)
    assert explained.chosen is None
    assert any("porting_capacity" in r for r in explained.reasons)

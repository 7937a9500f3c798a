"""The synthetic inventory generator behind benchmarks/run.py.

It must be deterministic for a seed, produce inventories the reader accepts, look like the
inventory of a large organisation (mix of kinds, families and sizes from the catalog), and plan
end to end.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not an installed package; run from the checkout
    sys.path.insert(0, str(ROOT))

from benchmarks.generate import (  # noqa: E402
    COLUMNS,
    FAMILY_PROFILES,
    IN_HOUSE_FAMILIES,
    main,
    synthetic_inventory,
)
from placement.catalog import load_catalog  # noqa: E402
from placement.models.workload import FEATURES  # noqa: E402
from placement.pipeline import plan  # noqa: E402
from placement.reading import read_inventory  # noqa: E402

ACCELERATORS = ["trn2", "h100"]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return synthetic_inventory(2000, seed=7)


def test_same_seed_gives_identical_frame() -> None:
    pd.testing.assert_frame_equal(synthetic_inventory(500, 3), synthetic_inventory(500, 3))


def test_different_seeds_differ() -> None:
    a, b = synthetic_inventory(300, 1), synthetic_inventory(300, 2)
    assert not a.equals(b)


def test_columns_and_size(frame: pd.DataFrame) -> None:
    assert tuple(frame.columns) == COLUMNS
    assert len(frame) == 2000
    assert frame["id"].is_unique
    assert synthetic_inventory(0, 0).empty


def test_reader_accepts_generated_inventories(frame: pd.DataFrame) -> None:
    inventory = read_inventory(frame, accelerator_names=ACCELERATORS)
    assert len(inventory.workloads) == len(frame)
    assert inventory.extra_columns == ("team",)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_cli_writes_a_readable_file(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"inventory{suffix}"
    assert main(["150", "--seed", "4", "-o", str(target)]) == 0
    inventory = read_inventory(target, accelerator_names=ACCELERATORS)
    assert len(inventory.workloads) == 150
    expected = synthetic_inventory(150, 4)
    assert inventory.workloads["id"].tolist() == expected["id"].tolist()
    assert inventory.workloads["params_b"].tolist() == expected["params_b"].tolist()


def test_families_match_the_default_catalog() -> None:
    profiled = {profile.name for profile in FAMILY_PROFILES}
    assert profiled == set(load_catalog().families)
    assert not profiled & set(IN_HOUSE_FAMILIES)


def test_realistic_mix(frame: pd.DataFrame) -> None:
    training = frame["kind"].eq("training")
    assert 0.30 < training.mean() < 0.40
    assert set(frame["model_family"]) >= {"llama", "bert", "t5", "deepseek_v3"}
    assert 0.01 < frame["model_family"].isin(IN_HOUSE_FAMILIES).mean() < 0.08
    # Sizes belong to the family.
    assert frame.loc[frame["model_family"].eq("bert"), "params_b"].between(0.1, 0.34).all()
    assert frame.loc[frame["model_family"].eq("t5"), "params_b"].between(0.2, 11).all()
    assert frame.loc[frame["model_family"].eq("llama"), "params_b"].between(1, 405).all()
    assert frame.loc[frame["model_family"].eq("deepseek_v3"), "params_b"].eq(671).all()
    # Exactly one volume column per row; training has no serving mode or SLO.
    volumes = frame[["monthly_tokens_b", "h100_gpu_hours"]].notna().sum(axis=1)
    assert volumes.eq(1).all()
    assert frame.loc[training, ["serving", "ttft_slo_ms"]].isna().all().all()
    online = frame["serving"].eq("online")
    slo = frame.loc[online, "ttft_slo_ms"]
    assert slo.notna().mean() > 0.7
    assert slo.dropna().between(50, 1000).all()
    assert frame.loc[~online, "ttft_slo_ms"].isna().all()
    # Features are rare and known; deadlines, pins and Neuron-ready workloads are a few.
    listed = frame["features"].str.split(";").explode()
    assert set(listed[listed.ne("")]) <= set(FEATURES)
    assert frame["features"].eq("").mean() > 0.5
    for column in ("needed_in_weeks", "pinned_accelerator"):
        assert 0 < frame[column].notna().mean() < 0.15
    assert 0 < frame["neuron_ready"].mean() < 0.1


def test_small_generated_inventory_plans_optimally() -> None:
    frame = synthetic_inventory(200, seed=11)
    result = plan(frame)
    assert result.plan.status == "optimal"
    placed = {a.workload_id for a in result.plan.assignments}
    unplaced = {u.workload_id for u in result.plan.unplaced}
    assert not placed & unplaced
    assert placed | unplaced == set(frame["id"])
    assert result.plan.objective_monthly_usd is not None

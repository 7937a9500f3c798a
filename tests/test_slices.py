"""Merging alike slices of the week: the grid keeps every hour and level, and a roadmap model
over the merged grid has the optimum it has over the 48 slices."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from placement.catalog import read_catalog
from placement.estimating import estimate
from placement.estimating.profiles import SliceGrid, merged_slices, slice_grid
from placement.horizon import formulation
from placement.horizon.formulation import build_horizon_model, epoch_options
from placement.models.catalog import Catalog
from placement.reading import read_inventory
from placement.solving.solver import SolveStatus, solve_model

SAMPLE = Path(__file__).resolve().parents[1] / "inputs" / "sample_inventory.csv"
MONTHS = 6
TIGHT_GAP = 1e-7


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return read_catalog().catalog


@pytest.fixture(scope="module")
def grid(catalog: Catalog) -> SliceGrid:
    return slice_grid(catalog)


def _members(full: SliceGrid, merged: SliceGrid, profiles: list[str]) -> list[list[int]]:
    """Which full slices each merged slice stands for, found from the levels alone."""
    sets: list[list[int]] = []
    for s in range(len(merged.hours)):
        sets.append(
            [
                t
                for t in range(len(full.hours))
                if all(full.levels[k][t] == merged.levels[k][s] for k in profiles)
            ]
        )
    return sets


def test_flat_profiles_make_one_slice_of_the_whole_month(grid: SliceGrid) -> None:
    merged = merged_slices(grid, ["always_on", "flexible"])
    assert len(merged.hours) == 1
    assert merged.hours[0] == pytest.approx(grid.hours.sum())
    assert merged.levels["always_on"][0] == 1.0 and merged.levels["flexible"][0] == 1.0
    assert set(merged.levels) == {"always_on", "flexible"}


@pytest.mark.parametrize(
    "profiles",
    [["diurnal"], ["business_hours", "always_on"], ["nights_and_weekends", "business_hours"]],
)
def test_each_merged_slice_is_every_slice_with_its_levels(
    grid: SliceGrid, profiles: list[str]
) -> None:
    merged = merged_slices(grid, profiles)
    distinct = {tuple(grid.levels[k][t] for k in profiles) for t in range(len(grid.hours))}
    assert len(merged.hours) == len(distinct)
    sets = _members(grid, merged, profiles)
    assert sorted(t for ts in sets for t in ts) == list(range(len(grid.hours)))
    for s, ts in enumerate(sets):
        assert merged.hours[s] == pytest.approx(grid.hours[ts].sum())
    for k in profiles:  # every profile's hours-weighted level over the month is kept
        assert merged.hours @ merged.levels[k] == pytest.approx(grid.hours @ grid.levels[k])


def test_slices_a_profile_kept_apart_runs_in_are_not_merged(grid: SliceGrid) -> None:
    profiles = ["always_on", "nights_and_weekends"]
    merged = merged_slices(grid, profiles, apart=["nights_and_weekends"])
    runs = int((grid.levels["nights_and_weekends"] > 0).sum())
    # Its hours stay one slice each; the weekday hours it does not run in are one slice.
    assert len(merged.hours) == runs + 1
    assert merged.hours.sum() == pytest.approx(grid.hours.sum())
    everywhere = merged_slices(grid, ["always_on", "flexible"], apart=["flexible"])
    assert len(everywhere.hours) == len(grid.hours)
    assert np.allclose(everywhere.hours, grid.hours)


def _inventory(tmp_path: Path, catalog: Catalog) -> pd.DataFrame:
    """Training (flexible), always-on and business-hours services from the sample."""
    sample = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    training = sample[sample["kind"].eq("training")].head(2)
    online = sample[sample["serving"].eq("online")].head(3).copy()
    online["load_profile"] = ["always_on", "business_hours", "always_on"]
    frame = pd.concat([training, online]).fillna("")
    path = tmp_path / "inventory.csv"
    frame.to_csv(path, index=False)
    inventory = read_inventory(
        path, list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    return inventory.workloads


def _optima(workloads: pd.DataFrame, catalog: Catalog) -> tuple[float, float, int]:
    """The roadmap model's LP relaxation and MILP optima, and its slices a month."""
    estimates = estimate(workloads, catalog)
    epochs = epoch_options(estimates, catalog, MONTHS)
    model = build_horizon_model(estimates, catalog, MONTHS, epochs=epochs)
    relaxed = solve_model(model, relax=True)
    whole = solve_model(model, gap=TIGHT_GAP)
    assert relaxed.objective is not None and whole.objective is not None
    assert whole.status is SolveStatus.OPTIMAL
    return relaxed.objective, whole.objective, len(model.grid.hours)


def test_the_roadmap_model_has_the_same_optimum_on_merged_slices(
    tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    workloads = _inventory(tmp_path, catalog)
    relaxed, whole, slices = _optima(workloads, catalog)
    assert slices == 2  # business hours, and every other hour of the week
    monkeypatch.setattr(formulation, "merged_slices", lambda grid, profiles: grid)
    relaxed_48, whole_48, slices_48 = _optima(workloads, catalog)
    assert slices_48 == 48
    assert relaxed == pytest.approx(relaxed_48, rel=1e-9)
    assert whole == pytest.approx(whole_48, rel=2 * TIGHT_GAP)

"""The base plan held fixed, solved within the places the held relaxation gives each workload
(``placement.uncertainty.held_rounding``): the relaxation's bound bounds the held MILP's
optimum, the plan within its places is a held plan (never below that optimum), and where the
bound proves it, it is within the gap of it; elsewhere the whole MILP decides, and the cheaper
of the two is the held plan."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.generate import read_synthetic
from placement.catalog import read_catalog
from placement.estimating import Estimates, estimate
from placement.formulating.build import build_model
from placement.formulating.first_stage import FirstStage
from placement.formulating.model import PlacementModel
from placement.models.catalog import Catalog
from placement.pipeline import SolverOptions, plan
from placement.reading import Inventory
from placement.solving.choices import DEFAULT_GAP
from placement.solving.proof import pooled_relaxation
from placement.uncertainty import held_rounding
from placement.uncertainty.evaluate import first_stage_of, held_plans_usd
from placement.uncertainty.held_rounding import (
    SHARE_TOLERANCE,
    relaxed_places,
    rounded_held,
    solve_held,
)

SIZE, SEED = 150, 3
TIGHT = SolverOptions(gap=1e-7)
H100_PRICES = (2.5, 3.2, 5.0)
"""The H100's on-demand price ($ a GPU-hour) the point plan is held at: cheaper and dearer
than the catalog's, so that work wants to move and the held commitments bind."""


@pytest.fixture(scope="module")
def point() -> tuple[Catalog, FirstStage, Inventory]:
    source, inventory = read_synthetic(SIZE, SEED)
    result = plan(inventory, source.catalog)
    return source.catalog, first_stage_of(result.solution), inventory


def _at_price(price: float, inventory: Inventory) -> tuple[Catalog, Estimates]:
    catalog = read_catalog(overrides=[f"accelerators.h100.on_demand_usd_per_chip_hour={price}"])
    estimates = estimate(inventory.workloads, catalog.catalog)
    return catalog.catalog, estimates


def _held_milp(estimates: Estimates, catalog: Catalog, stage: FirstStage) -> tuple[float, float]:
    """The held MILP solved to a tight gap: its plan's cost in whole chips, and the optimum
    with cover in part chips (its first solve), which bounds every held plan's cost."""
    _, result = solve_held(estimates, catalog, stage, TIGHT)
    assert result.objective is not None
    return result.objective, result.relaxed_objective or result.objective


@pytest.mark.parametrize("price", H100_PRICES)
def test_the_rounded_plan_is_a_held_plan_and_its_bound_bounds_the_held_optimum(
    point: tuple[Catalog, FirstStage, Inventory], price: float
) -> None:
    _, stage, inventory = point
    catalog, estimates = _at_price(price, inventory)
    milp, below = _held_milp(estimates, catalog, stage)
    pooled, _ = pooled_relaxation(estimates, catalog, SolverOptions())
    rounded = rounded_held(pooled, estimates, catalog, stage, SolverOptions())
    assert rounded is not None and rounded.cost_usd is not None
    # The pooled relaxation is weaker than the MILP's part-chip optimum; both bound every
    # held plan, the rounded one (whole chips) among them.
    assert rounded.bound_usd <= below * (1 + 1e-9)
    assert rounded.cost_usd >= below * (1 - 1e-9)
    if rounded.proven(DEFAULT_GAP):
        assert rounded.cost_usd - below <= DEFAULT_GAP * rounded.cost_usd
    # The held plan: the rounded one where proven (within the gap of the held optimum, as
    # the tight MILP's plan is), else the MILP's where cheaper; a held plan either way.
    [held] = held_plans_usd(estimates, catalog, (stage,), SolverOptions(), pooled)
    assert held is not None and held >= below * (1 - 1e-9)
    if rounded.proven(DEFAULT_GAP):
        assert held == rounded.cost_usd
        assert held <= below / (1 - DEFAULT_GAP) <= milp / (1 - DEFAULT_GAP)
    else:
        assert held <= rounded.cost_usd


def test_the_rounding_is_proven_on_most_samples(
    point: tuple[Catalog, FirstStage, Inventory],
) -> None:
    """The point of it: the relaxation's placement, held, is nearly whole, so most held plans
    need no MILP (on this inventory, every price here)."""
    _, stage, inventory = point
    proven = []
    for price in H100_PRICES:
        catalog, estimates = _at_price(price, inventory)
        pooled, _ = pooled_relaxation(estimates, catalog, SolverOptions())
        rounded = rounded_held(pooled, estimates, catalog, stage, SolverOptions())
        proven.append(rounded is not None and rounded.proven(DEFAULT_GAP))
    assert sum(proven) >= 2


def test_the_relaxation_is_solved_held_and_its_bounds_given_back(
    point: tuple[Catalog, FirstStage, Inventory],
) -> None:
    catalog, stage, inventory = point
    _, estimates = _at_price(3.2, inventory)
    pooled, bound = pooled_relaxation(estimates, catalog, SolverOptions())
    before = {var.name: (var.lowBound, var.upBound) for var in pooled.problem.variables()}
    assert pooled.problem.objective is not None
    constant = pooled.problem.objective.constant
    held = held_rounding.held_relaxation_bound(pooled, stage, catalog, SolverOptions())
    assert held is not None and bound.usd is not None
    assert held >= bound.usd - 1e-6  # holding decisions never lowers the relaxation
    after = {var.name: (var.lowBound, var.upBound) for var in pooled.problem.variables()}
    assert after == before and pooled.problem.objective.constant == constant


def test_each_workload_keeps_the_places_the_relaxation_gives_a_share_of_it(
    point: tuple[Catalog, FirstStage, Inventory],
) -> None:
    catalog, _, inventory = point
    _, estimates = _at_price(3.2, inventory)
    pooled, _ = pooled_relaxation(estimates, catalog, SolverOptions())
    options = pooled.options
    places = relaxed_places(pooled)
    assert set(places) == set(pooled.placeable)
    for workload, group in options.groupby("workload"):
        shares = {
            str(options.at[oid, "accelerator"]): (
                1.0 if oid in pooled.fixed else (pooled.assign[oid].varValue or 0.0)
            )
            for oid in group.index
        }
        kept = places[int(workload)]
        assert kept == {acc for acc, share in shares.items() if share > SHARE_TOLERANCE}
        # A workload placed whole keeps its one place; the shares kept make up the workload.
        assert sum(shares[acc] for acc in kept) == pytest.approx(1.0, abs=1e-6)


def test_a_workload_the_relaxation_splits_is_left_its_choice(
    point: tuple[Catalog, FirstStage, Inventory], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At this price the held relaxation splits two workloads between H100 and Trainium2:
    the held model solved keeps both places open to them (a binary choice each) and fixes
    every other workload where the relaxation put it whole."""
    catalog, stage, inventory = point
    catalog, estimates = _at_price(3.2, inventory)
    pooled, _ = pooled_relaxation(estimates, catalog, SolverOptions())
    built: list[PlacementModel] = []

    def kept(*args: Any, **kwargs: Any) -> PlacementModel:
        built.append(build_model(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(held_rounding, "build_model", kept)
    rounded = rounded_held(pooled, estimates, catalog, stage, SolverOptions())
    assert rounded is not None and rounded.cost_usd is not None
    places = relaxed_places(pooled)
    split = {workload for workload, where in places.items() if len(where) > 1}
    assert split, "the relaxation splits some workload at this price"
    [model] = built
    chosen = model.options.loc[list(model.assign), "workload"]
    assert set(chosen) == split and len(chosen) == sum(len(places[w]) for w in split)
    whole = model.options.loc[sorted(model.fixed)]
    pairs = zip(whole["workload"], whole["accelerator"], strict=True)
    fixed = {int(workload): {str(accelerator)} for workload, accelerator in pairs}
    assert fixed == {w: set(where) for w, where in places.items() if w not in split}


def test_where_the_bound_proves_nothing_the_milp_decides_and_the_cheaper_stands(
    point: tuple[Catalog, FirstStage, Inventory], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, stage, inventory = point
    catalog, estimates = _at_price(5.0, inventory)
    pooled, _ = pooled_relaxation(estimates, catalog, SolverOptions())
    rounded = rounded_held(pooled, estimates, catalog, stage, SolverOptions())
    assert rounded is not None and rounded.cost_usd is not None
    monkeypatch.setattr(held_rounding.RoundedHeld, "proven", lambda self, gap: False)
    [held] = held_plans_usd(estimates, catalog, (stage,), SolverOptions(), pooled)
    milp = solve_held(estimates, catalog, stage, SolverOptions())[1].objective
    assert milp is not None and held is not None
    assert held == pytest.approx(min(milp, rounded.cost_usd), rel=1e-9)

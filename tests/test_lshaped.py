"""The stochastic program by decomposition (``solving.lshaped``) against its extensive form:
the same optimum within the gap, on futures sampled from the catalog's ranges."""

from __future__ import annotations

from pathlib import Path

import pytest

from placement.catalog import read_catalog
from placement.estimating import estimate
from placement.formulating.build import build_model
from placement.formulating.first_stage import FirstStage
from placement.formulating.model import PlacementModel
from placement.formulating.stochastic import extensive_form
from placement.models.catalog import Catalog
from placement.reading import read_inventory
from placement.solving.lshaped import solve_by_decomposition
from placement.solving.solver import SolveStatus, solve_model
from placement.uncertainty.sampling import (
    catalog_document,
    draw_values,
    sampled,
    uncertain_figures,
)

ROOT = Path(__file__).resolve().parents[1]
GAP = 1e-3


def _futures(rows: int, samples: int, seed: int) -> tuple[list[Catalog], list]:
    """``samples`` futures of the sample inventory's first ``rows`` workloads, drawn from the
    default catalog's ranges."""
    catalog = read_catalog().catalog
    inventory = read_inventory(
        ROOT / "inputs" / "sample_inventory.csv",
        list(catalog.accelerators),
        load_profiles=catalog.profile_kinds(),
    )
    inventory = type(inventory)(
        **{**inventory.__dict__, "workloads": inventory.workloads.head(rows).copy()}
    )
    figures = uncertain_figures(catalog)
    values = draw_values(catalog, figures, seed, samples)
    document = catalog_document(catalog)
    futures = [sampled(document, inventory, figures, row) for row in values]
    return [c for c, _ in futures], futures


def _models(futures: list) -> list[PlacementModel]:
    return [
        build_model(estimate(inv.workloads, c).options, list(inv.workloads["id"]), c)
        for c, inv in futures
    ]


EXTENSIVE_GAP = 1e-5


def _extensive_optimum(futures: list, alpha: float, weight: float) -> tuple[float, float]:
    """The extensive form's optimum: its best plan's cost and HiGHS's bound, within
    ``EXTENSIVE_GAP`` of each other."""
    form = extensive_form(_models(futures), [c for c, _ in futures], alpha, weight)
    result = solve_model(form, "highs", None, EXTENSIVE_GAP)
    assert result.status is SolveStatus.OPTIMAL and result.objective is not None
    assert result.bound is not None
    return result.objective, result.bound


@pytest.mark.parametrize(
    ("rows", "samples", "seed", "weight", "at_once"),
    [(10, 4, 1, 0.0, 1), (14, 4, 2, 0.0, 2), (10, 4, 3, 0.5, 3)],
)
def test_decomposition_finds_the_extensive_forms_optimum(
    rows: int, samples: int, seed: int, weight: float, at_once: int
) -> None:
    catalogs, futures = _futures(rows, samples, seed)
    models = _models(futures)
    bounds = {v.name: (v.lowBound, v.upBound) for m in models for v in m.units.values()}
    found = solve_by_decomposition(
        models, catalogs, FirstStage.nothing(), 0.9, weight, "highs", None, GAP, at_once
    )
    assert found is not None
    cost, bound = _extensive_optimum(futures, 0.9, weight)
    # Its objective is a first stage's true cost over the samples: never below the optimum
    # (at least the extensive form's bound), and within the gap of it; its bound never above
    # the extensive form's plan.
    assert found.objective >= bound - 1e-9 * abs(bound)
    assert found.objective - bound <= (GAP + EXTENSIVE_GAP) * abs(found.objective)
    assert found.bound is not None and found.bound <= cost + 1e-9 * abs(cost)
    assert found.rounds >= 1
    # The sample models' first-stage bounds are given back.
    assert {v.name: (v.lowBound, v.upBound) for m in models for v in m.units.values()} == bounds


def test_the_stage_found_costs_what_it_says_in_every_sample() -> None:
    catalogs, futures = _futures(12, 4, 5)
    models = _models(futures)
    found = solve_by_decomposition(
        models, catalogs, FirstStage.nothing(), 0.9, 0.0, "highs", None, GAP
    )
    assert found is not None
    # Held in the extensive form, the stage costs the objective reported.
    form = extensive_form(_models(futures), catalogs, 0.9, 0.0)
    for key, var in form.units.items():
        var.lowBound = var.upBound = found.stage.units.get(key, 0)
    for key, var in form.plan_usd.items():
        var.lowBound = var.upBound = found.stage.plan_usd.get(key, 0.0)
    for pair, var in form.port.items():
        var.lowBound = var.upBound = int(pair in found.stage.ported)
    for platform, var in form.adopt.items():
        var.lowBound = var.upBound = int(platform in found.stage.adopted)
    held = solve_model(form, "highs", None, 1e-9)
    assert held.objective == pytest.approx(found.objective, rel=1e-6)


def test_samples_priced_together_give_what_one_at_a_time_gives() -> None:
    """The sample LPs run two at a time in threads: the same cuts, so the same rounds, first
    stage and objective as one at a time."""
    found = []
    for at_once in (1, 2):
        catalogs, futures = _futures(12, 5, 7)
        found.append(
            solve_by_decomposition(
                _models(futures),
                catalogs,
                FirstStage.nothing(),
                0.9,
                0.0,
                "highs",
                None,
                GAP,
                at_once,
            )
        )
    alone, together = found
    assert alone is not None and together is not None
    assert together.stage == alone.stage
    assert together.rounds == alone.rounds
    assert together.objective == pytest.approx(alone.objective, rel=1e-9)


def test_another_solver_is_left_to_the_extensive_form() -> None:
    catalogs, futures = _futures(5, 2, 1)
    found = solve_by_decomposition(
        _models(futures), catalogs, FirstStage.nothing(), 0.9, 0.0, "cbc", None, GAP
    )
    assert found is None


def test_a_time_limit_ends_the_rounds_without_an_error() -> None:
    catalogs, futures = _futures(10, 3, 1)
    models = _models(futures)
    bounds = [(v.lowBound, v.upBound) for m in models for v in m.units.values()]
    found = solve_by_decomposition(
        models, catalogs, FirstStage.nothing(), 0.9, 0.0, "highs", 1e-9, GAP
    )
    # Nothing priced in time: the caller solves the extensive form instead, its first-stage
    # columns as they were.
    assert found is None
    assert [(v.lowBound, v.upBound) for m in models for v in m.units.values()] == bounds

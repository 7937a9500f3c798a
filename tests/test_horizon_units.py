"""Whole reservation units from a relaxation, largest first (``placement.horizon.units``), and
a roadmap whose pricing stopped at its time limit reported as such (``placement.horizon.solve``),
and the budgets of a roadmap's solves (``placement.horizon.budget``).

The instance: 18 chips run every hour at $1 a chip-hour on demand; a unit of 8 chips costs
$4.80 an hour ($0.60 a chip), a unit of 1 chip $0.70. The relaxation buys 2.25 large units
($10.80). Rounded to the nearest, 2 large units and no small one leave 2 chips on demand
($11.60); the large units fixed first (2), the relaxation buys the remainder as 2 small units:
$11.00, the integer optimum (3 large units: $14.40).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from types import SimpleNamespace

import pandas as pd
import pulp
import pytest

from benchmarks.horizon import SAMPLE
from placement.catalog import read_catalog
from placement.estimating import estimate
from placement.horizon.budget import (
    PRICING_SOLVE_BUDGET_S,
    PRICING_SOLVE_FLOOR_S,
    ROADMAP_BUDGET_S,
    SEARCH_BUDGET_S,
    SEARCH_ROOT_TO_RELAXATION,
    SEARCH_SOLVE_FLOOR_S,
    SearchClock,
    pricing_limit,
    roadmap_deadline,
    until,
)
from placement.horizon.formulation import build_horizon_model, epoch_options
from placement.horizon.pricing import price_roadmap
from placement.horizon.roadmap import horizon_total_usd
from placement.horizon.solve import _with_pricing_gap
from placement.horizon.units import units_largest_first
from placement.reading import read_inventory
from placement.solving.choices import DEFAULT_GAP
from placement.solving.solver import SolveResult, SolveStatus, solve_model

CHIPS = 18
ON_DEMAND_USD = 1.0
LARGE = (8, 4.8)  # chips a unit, USD an hour a unit
SMALL = (1, 0.7)


@dataclass
class _Model:
    problem: pulp.LpProblem


def _instance() -> tuple[_Model, dict[tuple[str, int], pulp.LpVariable], SimpleNamespace]:
    problem = pulp.LpProblem("units", pulp.LpMinimize)
    large = problem.add_variable("large", 0, 10, cat=pulp.LpInteger)
    small = problem.add_variable("small", 0, 30, cat=pulp.LpInteger)
    cover = problem.add_variable("cover", 0, CHIPS)
    problem += LARGE[1] * large + SMALL[1] * small + ON_DEMAND_USD * (CHIPS - cover)
    problem += cover <= LARGE[0] * large + SMALL[0] * small
    book = SimpleNamespace(
        reservations=[
            SimpleNamespace(key="large", accelerator="h100", unit_chips=LARGE[0]),
            SimpleNamespace(key="small", accelerator="h100", unit_chips=SMALL[0]),
        ]
    )
    return _Model(problem), {("large", 1): large, ("small", 1): small}, book


def test_the_largest_units_are_fixed_first_and_the_remainder_bought_small() -> None:
    model, units, book = _instance()
    relaxed = solve_model(model, relax=True)
    assert relaxed.objective == pytest.approx(CHIPS / LARGE[0] * LARGE[1])
    whole = units_largest_first(model, units, book, "highs", None, 1e-6)  # type: ignore[arg-type]
    assert whole is not None
    assert whole.bound == pytest.approx(relaxed.objective)  # the first relaxation's optimum
    start = whole.values
    assert start == {units[("large", 1)]: 2.0, units[("small", 1)]: 2.0}
    # The bounds are given back: the MILP is free to choose.
    assert (units[("large", 1)].lowBound, units[("large", 1)].upBound) == (0, 10)
    assert (units[("small", 1)].lowBound, units[("small", 1)].upBound) == (0, 30)
    solved = solve_model(model, gap=1e-9, start=start)
    assert solved.objective == pytest.approx(2 * LARGE[1] + 2 * SMALL[1])
    nearest = 2 * LARGE[1] + (CHIPS - 2 * LARGE[0]) * ON_DEMAND_USD
    assert solved.objective < nearest


def test_a_large_unit_only_it_can_hold_is_rounded_to_the_nearest_not_down() -> None:
    # 7.9 chips of replicas that only the 8-chip unit holds: the relaxation buys 0.9875 of
    # it. Down, the work runs on demand ($7.90); to the nearest, one unit holds it ($4.80).
    problem = pulp.LpProblem("eligible", pulp.LpMinimize)
    large = problem.add_variable("large", 0, 10, cat=pulp.LpInteger)
    small = problem.add_variable("small", 0, 30, cat=pulp.LpInteger)
    big_replicas = 7.9
    cover = problem.add_variable("cover", 0, big_replicas)
    problem += LARGE[1] * large + SMALL[1] * small + ON_DEMAND_USD * (big_replicas - cover)
    problem += cover <= LARGE[0] * large  # a small unit cannot hold these replicas
    _, units, book = _instance()
    units = {("large", 1): large, ("small", 1): small}
    whole = units_largest_first(_Model(problem), units, book, "highs", None, 1e-6)  # type: ignore[arg-type]
    assert whole is not None
    assert whole.bound == pytest.approx(big_replicas / LARGE[0] * LARGE[1])
    assert whole.values == {large: 1.0, small: 0.0}
    assert (large.lowBound, large.upBound) == (0, 10)  # given back


def test_an_accelerators_only_unit_is_rounded_to_the_nearest_beside_anothers_larger_units() -> None:
    # A catalog where Trainium2 is sold only in 16-chip units and H100 in 8 and 1 (AWS's):
    # the first stage holds both the 8-GPU node and the 16-chip unit. 20 H100 chips take 2.5
    # nodes, best rounded down (2 nodes and 4 single GPUs, $12.40, not 3 nodes, $14.40); 15.5
    # Trainium2 chips take 0.97 of a unit, best rounded up ($8 against $15.50 on demand). Each
    # accelerator's only unit is its smallest and goes to the nearest in either choice: $20.40,
    # the optimum, where rounding the whole stage one way costs $22.40 or $27.90.
    problem = pulp.LpProblem("mixed", pulp.LpMinimize)
    node = problem.add_variable("node", 0, 10, cat=pulp.LpInteger)
    gpu = problem.add_variable("gpu", 0, 30, cat=pulp.LpInteger)
    trn = problem.add_variable("trn", 0, 10, cat=pulp.LpInteger)
    h100_chips, trn2_chips, trn2_unit = 20.0, 15.5, (16, 8.0)
    h100_cover = problem.add_variable("h100_cover", 0, h100_chips)
    trn2_cover = problem.add_variable("trn2_cover", 0, trn2_chips)
    problem += (
        LARGE[1] * node
        + SMALL[1] * gpu
        + trn2_unit[1] * trn
        + ON_DEMAND_USD * (h100_chips - h100_cover + trn2_chips - trn2_cover)
    )
    problem += h100_cover <= LARGE[0] * node + SMALL[0] * gpu
    problem += trn2_cover <= trn2_unit[0] * trn
    book = SimpleNamespace(
        reservations=[
            SimpleNamespace(key="node", accelerator="h100", unit_chips=LARGE[0]),
            SimpleNamespace(key="gpu", accelerator="h100", unit_chips=SMALL[0]),
            SimpleNamespace(key="trn", accelerator="trn2", unit_chips=trn2_unit[0]),
        ]
    )
    units = {("node", 1): node, ("gpu", 1): gpu, ("trn", 1): trn}
    whole = units_largest_first(_Model(problem), units, book, "highs", None, 1e-6)  # type: ignore[arg-type]
    assert whole is not None
    assert whole.values == {node: 2.0, gpu: 4.0, trn: 1.0}
    with_units = 2 * LARGE[1] + 4 * SMALL[1] + trn2_unit[1]
    assert with_units == pytest.approx(20.4)
    solved = solve_model(_Model(problem), gap=1e-9)
    assert solved.objective == pytest.approx(with_units)  # the integer optimum


def test_a_pricing_stopped_at_its_time_limit_makes_the_roadmap_feasible_with_its_gap() -> None:
    roadmap = SolveResult(SolveStatus.OPTIMAL, "highs", 1.0, 100.0, 0.0005, "Optimal")
    proven = SolveResult(SolveStatus.OPTIMAL, "highs", 1.0, 90.0, 0.0002, "Optimal")
    assert _with_pricing_gap(roadmap, proven, "the months") == roadmap
    stopped = SolveResult(SolveStatus.FEASIBLE, "highs", 120.0, 90.0, 0.004, "Time limit")
    reported = _with_pricing_gap(roadmap, stopped, "the months")
    assert reported.status is SolveStatus.FEASIBLE
    assert reported.gap == 0.004
    assert "the months priced within 0.400% of the bound" in reported.termination
    unknown = SolveResult(SolveStatus.FEASIBLE, "highs", 120.0, 90.0, None, "Time limit")
    assert _with_pricing_gap(roadmap, unknown, "staying put").gap is None


def test_the_search_shares_its_budget_and_each_solve_keeps_a_floor() -> None:
    now = time.monotonic()
    assert SearchClock(30.0, now - 1e4).left() == 30.0  # the run's own limit, per solve
    fresh = SearchClock(None, now).left()
    assert SEARCH_BUDGET_S - 5 < fresh <= SEARCH_BUDGET_S
    assert SearchClock(None, now - SEARCH_BUDGET_S / 2).left() <= SEARCH_BUDGET_S / 2
    assert SearchClock(None, now - 1e4).left() == SEARCH_SOLVE_FLOOR_S
    assert not SearchClock(None, now).spent()
    assert SearchClock(None, now - SEARCH_BUDGET_S - 1.0).spent()
    assert not SearchClock(30.0, now - 1e4).spent()  # under the run's own limit, never
    # A large model's solves get past their root: at least three relaxations' time each.
    slow = SearchClock(None, now - 1e4, relaxation_s=10.8)
    assert slow.left() == SEARCH_ROOT_TO_RELAXATION * 10.8
    assert SearchClock(None, now - 1e4, relaxation_s=0.5).left() == SEARCH_SOLVE_FLOOR_S
    assert SearchClock(7.0, now, relaxation_s=10.8).left() == 7.0  # the run's limit stands
    assert pricing_limit(None) == PRICING_SOLVE_BUDGET_S
    assert pricing_limit(7.0) == 7.0


def test_a_pricing_milp_stops_by_the_roadmaps_deadline_with_a_floor() -> None:
    assert roadmap_deadline(30.0) is None  # the run's own limit: every solve has it
    now = time.monotonic()
    deadline = roadmap_deadline(None)
    assert deadline is not None
    assert now + ROADMAP_BUDGET_S <= deadline <= time.monotonic() + ROADMAP_BUDGET_S
    by_search = roadmap_deadline(None, SEARCH_BUDGET_S)
    assert by_search is not None and by_search < deadline
    assert until(None, 7.0) == 7.0
    # Far from the deadline the pricing's own budget stands; near it, what is left; past
    # it, the floor.
    assert until(time.monotonic() + 1e4, PRICING_SOLVE_BUDGET_S) == PRICING_SOLVE_BUDGET_S
    near = until(time.monotonic() + PRICING_SOLVE_FLOOR_S + 10.0, PRICING_SOLVE_BUDGET_S)
    assert near is not None
    assert PRICING_SOLVE_FLOOR_S + 9.0 < near <= PRICING_SOLVE_FLOOR_S + 10.0
    assert until(time.monotonic() - 1.0, PRICING_SOLVE_BUDGET_S) == PRICING_SOLVE_FLOOR_S
    left = until(time.monotonic() + 100.0, None)
    assert left is not None and 99.0 < left <= 100.0


def test_both_starts_of_a_pricing_reach_the_same_optimum() -> None:
    # A small roadmap's months priced from the roadmap MILP's purchases and from the
    # relaxation's units made whole (the start of a small inventory): both optimal within the
    # gap, so within twice the gap of each other.
    catalog = read_catalog().catalog
    frame = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False).head(4)
    inventory = read_inventory(
        frame, list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    estimates = estimate(inventory.workloads, catalog)
    months = 12
    model = build_horizon_model(
        estimates, catalog, months, epochs=epoch_options(estimates, catalog, months)
    )
    assert solve_model(model, gap=DEFAULT_GAP).status is SolveStatus.OPTIMAL
    totals = []
    for purchases_first in (True, False):
        priced = price_roadmap(
            model,
            estimates.workloads,
            catalog,
            "highs",
            None,
            DEFAULT_GAP,
            purchases_first=purchases_first,
        )
        assert priced.result.status is SolveStatus.OPTIMAL, purchases_first
        assert priced.result.gap is not None and priced.result.gap <= DEFAULT_GAP
        totals.append(horizon_total_usd(priced.model))
    assert totals[0] == pytest.approx(totals[1], rel=2 * DEFAULT_GAP)


def test_whole_units_keep_what_may_be_held_at_once() -> None:
    """Each month's part unit rounded to the nearest on its own can hold more than may be held
    at once: 0.75 of a unit bought in each of four months, at most 3 held, rounds to 4. The
    units of such a row are rounded down instead, and the whole units cost as a plan (at 1,000
    workloads over 120 months the pricing's rounding otherwise came back infeasible, and
    staying put was reported at a 40% gap)."""
    from placement.solving.fixing import fixed_values

    problem = pulp.LpProblem("held", pulp.LpMinimize)
    bought = [problem.add_variable(f"z{m}", 0, 3, cat=pulp.LpInteger) for m in range(1, 5)]
    cover = problem.add_variable("cover", 0, 4)
    problem += SMALL[1] * pulp.lpSum(bought) + ON_DEMAND_USD * (4 - cover)
    problem += cover <= pulp.lpSum(bought)
    problem += pulp.lpSum(bought) <= 3  # held at once
    for before, after in itertools.pairwise(bought):
        problem += before - after == 0  # bought evenly
    book = SimpleNamespace(
        reservations=[SimpleNamespace(key="small", accelerator="h100", unit_chips=1)]
    )
    units = {("small", m): var for m, var in enumerate(bought, start=1)}
    model = _Model(problem)
    assert solve_model(model, relax=True).objective == pytest.approx(3 * SMALL[1] + 1)
    assert [var.varValue for var in bought] == pytest.approx([0.75] * 4)
    whole = units_largest_first(model, units, book, "highs", None, 1e-6)  # type: ignore[arg-type]
    assert whole is not None
    assert [whole.values[var] for var in bought] == [0.0] * 4
    with fixed_values(whole.values):
        costed = solve_model(model, relax=True)
    assert costed.status is SolveStatus.OPTIMAL
    assert costed.objective == pytest.approx(4 * ON_DEMAND_USD)

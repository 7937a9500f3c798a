"""The LP relaxation solved by blocks (``placement.solving.block_relaxation``) against the
whole LP: a hand-solved case, seeded random block-angular LPs, and a roadmap's pricing."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pulp
import pytest

import placement.horizon.pricing as pricing
from benchmarks.horizon import roadmap_inventory
from placement.catalog import read_catalog
from placement.pipeline import plan
from placement.reading import read_inventory
from placement.solving.block_relaxation import (
    DECOMPOSITION_GAP_SHARE,
    BlockRelaxation,
    block_relaxation,
)
from placement.solving.solver import SolveStatus, solve_model

GAP = 1e-3


@dataclass
class _Model:
    problem: pulp.LpProblem


def _whole_lp(problem: pulp.LpProblem) -> float:
    result = solve_model(_Model(problem), "highs", None, GAP, relax=True)
    assert result.status is SolveStatus.OPTIMAL and result.objective is not None
    return result.objective


def _capacity_case(cap: float | None) -> tuple[pulp.LpProblem, pulp.LpVariable, list[list]]:
    """Capacity ``c`` at $3 a unit shared by two months of demand 4 and 10, what it leaves
    bought on demand at $5 a unit: ``3c + 5 (4 - c)^+ + 5 (10 - c)^+``, least at ``c = 10``
    ($30); with ``c <= 8`` (a master row), at 8 ($34)."""
    problem = pulp.LpProblem("capacity", pulp.LpMinimize)
    c = problem.add_variable("c", lowBound=0)
    bought = [problem.add_variable(f"u{k}", lowBound=0) for k in range(2)]
    blocks = []
    for k, demand in enumerate((4.0, 10.0)):
        row = bought[k] + c >= demand
        problem.addConstraint(row, f"cover_{k}")
        blocks.append([problem._constraints[f"cover_{k}"]])
    if cap is not None:
        problem.addConstraint(c <= cap, "cap")
    problem.setObjective(3 * c + 5 * bought[0] + 5 * bought[1])
    return problem, c, blocks


def test_a_hand_solved_case_has_its_optimum_and_its_shared_value() -> None:
    problem, c, blocks = _capacity_case(None)
    relaxation = block_relaxation(problem, blocks)
    assert relaxation is not None
    result = relaxation.solve(None, GAP)
    assert result is not None and result.objective == pytest.approx(30.0)
    assert result.bound == pytest.approx(30.0)
    assert c.varValue == pytest.approx(10.0)


def test_a_master_row_binds_the_shared_column() -> None:
    problem, c, blocks = _capacity_case(8.0)
    relaxation = block_relaxation(problem, blocks)
    assert relaxation is not None
    result = relaxation.solve(None, GAP)
    assert result is not None and result.objective == pytest.approx(34.0)
    assert c.varValue == pytest.approx(8.0)


def test_a_shared_column_fixed_later_is_solved_again_with_the_cuts_kept() -> None:
    problem, c, blocks = _capacity_case(None)
    relaxation = block_relaxation(problem, blocks)
    assert relaxation is not None
    assert relaxation.solve(None, GAP) is not None
    c.lowBound = c.upBound = 5.0  # 15 + 5 * 0 + 5 * 5
    again = relaxation.solve(None, GAP)
    assert again is not None and again.objective == pytest.approx(40.0)
    assert again.objective == pytest.approx(_whole_lp(problem))


def test_fewer_than_two_blocks_or_a_block_without_a_solution_is_no_decomposition() -> None:
    problem, _, blocks = _capacity_case(None)
    assert block_relaxation(problem, blocks[:1]) is None
    broken = problem.add_variable("broken", lowBound=0)
    problem.addConstraint(broken <= -1, "never")
    assert block_relaxation(problem, [blocks[0], [problem._constraints["never"]]]) is None


def _random_block_lp(rng: np.random.Generator) -> tuple[pulp.LpProblem, list[list]]:
    """Months of demand by slice, bought on demand (own columns) or covered by shared
    commitments, each bought in one month and held for a term (as a roadmap's)."""
    months = int(rng.integers(2, 7))
    products = int(rng.integers(1, 4))
    problem = pulp.LpProblem("random", pulp.LpMinimize)
    bought = {
        (q, m): problem.add_variable(f"z_{q}_{m}", 0, float(rng.integers(2, 20)))
        for q in range(products)
        for m in range(months)
    }
    terms = [int(rng.integers(1, months + 1)) for _ in range(products)]
    objective = pulp.LpAffineExpression()
    blocks = []
    for q in range(products):
        for m in range(months):
            objective.addInPlace(bought[(q, m)], float(rng.uniform(1, 4)) * terms[q])
    for m in range(months):
        rows = []
        for t in range(int(rng.integers(1, 5))):
            demand = float(rng.uniform(0, 30))
            own = problem.add_variable(f"u_{m}_{t}", lowBound=0)
            objective.addInPlace(own, float(rng.uniform(4, 8)))
            held = pulp.lpSum(
                float(rng.uniform(0.5, 2)) * bought[(q, b)]
                for q in range(products)
                for b in range(max(0, m - terms[q] + 1), m + 1)
            )
            name = f"cover_{m}_{t}"
            problem.addConstraint(own + held >= demand, name)
            rows.append(problem._constraints[name])
        blocks.append(rows)
    problem.setObjective(objective)
    return problem, blocks


@pytest.mark.parametrize("seed", range(12))
def test_random_block_lps_end_at_the_whole_lps_optimum(seed: int) -> None:
    problem, blocks = _random_block_lp(np.random.default_rng(seed))
    relaxation = block_relaxation(problem, blocks)
    assert relaxation is not None
    result = relaxation.solve(None, GAP)
    assert result is not None and result.objective is not None and result.bound is not None
    whole = _whole_lp(problem)
    tolerance = DECOMPOSITION_GAP_SHARE * GAP * max(abs(whole), 1.0)
    assert result.bound <= whole + 1e-6 * max(abs(whole), 1.0)
    assert result.objective == pytest.approx(whole, abs=tolerance + 1e-6)


def test_a_roadmaps_pricing_by_months_ends_at_its_whole_relaxations_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every pricing of a generated roadmap, solved by months: the decomposition's optimum is
    the whole LP's."""
    seen: list[tuple[float, float]] = []

    def checked(problem: pulp.LpProblem, blocks: Any, shared: Any) -> BlockRelaxation | None:
        relaxation = block_relaxation(problem, blocks, shared)
        assert relaxation is not None
        result = relaxation.solve(None, GAP)
        assert result is not None and result.objective is not None
        seen.append((result.objective, _whole_lp(problem)))
        return relaxation

    monkeypatch.setattr(pricing, "block_relaxation", checked)
    # No time for the whole LP first: every pricing's relaxation is solved by months.
    monkeypatch.setattr(pricing, "ROOT_TO_RELAXATION", math.inf)
    catalog = read_catalog().catalog
    frame = roadmap_inventory(8, 24, 3)
    inventory = read_inventory(
        frame, list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    plan(inventory, catalog, horizon=24)
    assert seen
    for by_months, whole in seen:
        assert by_months == pytest.approx(whole, rel=DECOMPOSITION_GAP_SHARE * GAP)

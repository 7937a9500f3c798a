"""Every solver outcome maps to a typed status; the plan never pretends a solution exists."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pulp
import pytest

from benchmarks.generate import synthetic_inventory
from placement.errors import PlacementInputError
from placement.formulating.build import build_model
from placement.pipeline import PlanResult, SolverOptions, plan
from placement.reading import read_inventory
from placement.solving.solver import SolveStatus, make_solver, solve_model
from tests.conftest import frame, make_catalog, simple_catalog_dict, workload


def _model() -> Any:
    catalog = make_catalog(simple_catalog_dict())
    inv = read_inventory(frame([workload("a")]), list(catalog.accelerators))
    from placement.estimating import estimate

    est = estimate(inv.workloads, catalog)
    return build_model(est.options, inv.workloads["id"].tolist(), catalog)


@pytest.mark.parametrize(
    ("sol_status", "expected"),
    [
        (pulp.LpSolutionOptimal, SolveStatus.OPTIMAL),
        (pulp.LpSolutionIntegerFeasible, SolveStatus.FEASIBLE),
        (pulp.LpSolutionInfeasible, SolveStatus.INFEASIBLE),
        (pulp.LpSolutionNoSolutionFound, SolveStatus.NO_SOLUTION),
        (pulp.LpSolutionUnbounded, SolveStatus.ERROR),
    ],
)
def test_solver_outcomes_map_to_typed_statuses(
    monkeypatch: pytest.MonkeyPatch, sol_status: int, expected: SolveStatus
) -> None:
    model = _model()

    def fake_solve(self: pulp.LpProblem, solver: Any = None) -> int:
        self.sol_status = sol_status
        self.status = pulp.LpStatusNotSolved
        return self.status

    monkeypatch.setattr(pulp.LpProblem, "solve", fake_solve)
    result = solve_model(model, "cbc")
    assert result.status is expected
    assert result.has_solution == (expected in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE))
    if not result.has_solution:
        assert result.objective is None
        assert result.gap is None


def test_a_relaxation_stopped_before_its_optimum_is_no_solution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # PuLP reports an LP stopped at its time limit as feasible; its values are the simplex's
    # last basis, not a plan, and its objective no bound.
    model = _model()

    def stopped(self: pulp.LpProblem, solver: Any = None) -> int:
        self.sol_status = pulp.LpSolutionIntegerFeasible
        self.status = pulp.LpStatusNotSolved
        return self.status

    monkeypatch.setattr(pulp.LpProblem, "solve", stopped)
    assert solve_model(model, "cbc").status is SolveStatus.FEASIBLE  # a MILP keeps its plan
    relaxed = solve_model(model, "cbc", relax=True)
    assert relaxed.status is SolveStatus.NO_SOLUTION
    assert relaxed.objective is None and not relaxed.has_solution


def test_time_limited_run_without_solution_is_reported_not_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_solution(self: pulp.LpProblem, solver: Any = None) -> int:
        self.sol_status = pulp.LpSolutionNoSolutionFound
        self.status = pulp.LpStatusNotSolved
        return self.status

    monkeypatch.setattr(pulp.LpProblem, "solve", no_solution)
    catalog = make_catalog(simple_catalog_dict())
    result: PlanResult = plan(frame([workload("a")]), catalog, SolverOptions(time_limit_s=1))
    assert result.plan.status == "no_solution"
    assert result.plan.objective_monthly_usd is None
    assert result.plan.assignments == []
    assert "time limit" in result.plan.message
    assert result.exit_code == 3


def test_unknown_solver_is_a_usage_error() -> None:
    with pytest.raises(PlacementInputError, match="expected one of highs, cbc"):
        make_solver("gurobi", None, 0.0)


def test_highs_reports_its_gap_and_time() -> None:
    result = solve_model(_model(), "highs", time_limit=30, gap=0.0)
    assert result.status is SolveStatus.OPTIMAL
    assert result.gap == pytest.approx(0.0, abs=1e-9)
    assert result.time_s > 0


def test_a_real_time_limit_before_any_plan_is_no_solution_not_infeasible() -> None:
    """HiGHS stopped by the clock long before its first incumbent: nothing is proven."""
    inventory = synthetic_inventory(2000, seed=1)
    result = plan(inventory, solver=SolverOptions(time_limit_s=1e-4))
    assert result.solve.status is SolveStatus.NO_SOLUTION
    assert result.plan.status == "no_solution"
    assert "time limit" in result.plan.message
    assert result.plan.assignments == [] and result.plan.objective_monthly_usd is None
    assert result.exit_code == 3


def test_a_solver_failure_is_no_solution(monkeypatch: pytest.MonkeyPatch) -> None:
    def unbounded(self: pulp.LpProblem, solver: Any = None) -> int:
        self.sol_status = pulp.LpSolutionUnbounded
        self.status = pulp.LpStatusUnbounded
        return self.status

    monkeypatch.setattr(pulp.LpProblem, "solve", unbounded)
    catalog = make_catalog(simple_catalog_dict())
    result = plan(frame([workload("a")]), catalog)
    assert result.plan.status == "no_solution"
    assert result.plan.message.startswith("the solver failed")
    assert result.exit_code == 3


def test_the_batched_copy_into_highs_is_the_model_pulp_would_copy() -> None:
    """The solver's batched model copy gives HiGHS the same columns, rows and matrix as PuLP's
    own column-by-column copy (sample inventory, default catalog)."""
    import highspy
    import numpy as np

    from placement.catalog import load_catalog
    from placement.estimating import estimate

    catalog = load_catalog()
    inv = read_inventory("inputs/sample_inventory.csv", list(catalog.accelerators))
    est = estimate(inv.workloads, catalog)

    def copied(batched: bool) -> Any:
        model = build_model(est.options, inv.workloads["id"].tolist(), catalog)
        engine = make_solver("highs", None, 1e-3)
        model.problem.solverModel = highspy.Highs()
        model.problem.solverModel.setOptionValue("output_flag", False)
        if batched:
            engine.buildSolverModel(model.problem)
        else:
            pulp.HiGHS.buildSolverModel(engine, model.problem)
        lp = model.problem.solverModel.getLp()
        matrix = lp.a_matrix_
        return {
            "cost": np.asarray(lp.col_cost_),
            "col_lower": np.asarray(lp.col_lower_),
            "col_upper": np.asarray(lp.col_upper_),
            "row_lower": np.asarray(lp.row_lower_),
            "row_upper": np.asarray(lp.row_upper_),
            "integrality": [int(v) for v in lp.integrality_],
            "start": np.asarray(matrix.start_),
            "index": np.asarray(matrix.index_),
            "value": np.asarray(matrix.value_),
        }

    ours, pulps = copied(True), copied(False)
    assert len(ours["cost"]) > 100 and len(ours["row_lower"]) > 100
    assert any(ours["integrality"])
    for key, value in pulps.items():
        assert np.array_equal(np.asarray(ours[key]), np.asarray(value)), key


def test_a_start_never_comes_back_in_place_of_the_solution(tmp_path: Path) -> None:
    """Staying put with the sample's three training workloads over 24 months is priced from
    the relaxation's purchases rounded down, two 1-GPU reserved units among them that cover
    nothing. HiGHS drops them in presolve and reports $1,683,072.43 (its optimum, with or
    without the start, on the written model), but handed back the start's values for them:
    the plan said $1,767,168.43. The values returned must cost what HiGHS reports."""
    sample = Path(__file__).resolve().parents[1] / "inputs" / "sample_inventory.csv"
    path = tmp_path / "three.csv"
    path.write_text("".join(sample.read_text().splitlines(keepends=True)[:4]))
    result = plan(path, horizon=24)
    roadmap = result.plan.roadmap
    assert roadmap is not None and roadmap.stay_total_usd is not None
    assert roadmap.stay_total_usd == pytest.approx(1_683_072.43, abs=0.01)


class _Event:
    """A HiGHS MIP interrupt callback's event: what the search reports, and the interrupt."""

    def __init__(self, time_s: float, nodes: int, best_usd: float):
        from types import SimpleNamespace

        self.data_out = SimpleNamespace(
            running_time=time_s, mip_node_count=nodes, mip_primal_bound=best_usd
        )
        self.interrupted = False

    def interrupt(self) -> None:
        self.interrupted = True


def test_a_search_is_stopped_once_it_branches_for_the_stall_without_a_better_plan() -> None:
    from placement.solving.solver import Stall, StallWatch

    watch = StallWatch(Stall(seconds=5.0, share_of_gap=1.0), gap=0.01)
    trace = [
        (0.1, 0, math.inf, False),  # no plan yet
        (1.0, 0, 1000.0, False),  # the first plan
        (9.0, 0, 1000.0, False),  # the root: never cut short, however long
        (10.0, 3, 999.0, False),  # branching from 10 s; 0.1% better: less than the 1% gap
        (14.9, 40, 999.0, False),
        (15.0, 41, 985.0, False),  # 1.5% better: counts, the stall starts again
        (19.9, 90, 984.0, False),
        (20.0, 91, 984.0, True),  # 5 s of branching since the last better plan
    ]
    for time_s, nodes, best_usd, stopped in trace:
        event = _Event(time_s, nodes, best_usd)
        watch(event)  # type: ignore[arg-type]
        assert event.interrupted is stopped, time_s
    assert watch.stopped


def test_a_search_with_no_plan_is_never_stopped_as_stalled() -> None:
    from placement.solving.solver import Stall, StallWatch

    watch = StallWatch(Stall(seconds=5.0, share_of_gap=1.0), gap=0.01)
    for time_s in (1.0, 10.0, 100.0):
        event = _Event(time_s, 50, math.inf)
        watch(event)  # type: ignore[arg-type]
        assert not event.interrupted


def test_highs_stops_a_stalled_search_in_the_block_and_keeps_its_plan() -> None:
    # A knapsack HiGHS branches over two thousand nodes to prove: with no stall allowed it is
    # stopped at its first branching with a plan, feasible, and says why; outside the block
    # it is proven.
    import random

    from placement.solving.solver import Stall, stopped_when_stalled

    draw = random.Random(3)
    problem = pulp.LpProblem("knapsack", pulp.LpMaximize)
    items = [problem.add_variable(f"x{i}", 0, 1, cat=pulp.LpInteger) for i in range(40)]
    weights = [draw.randint(1000, 9999) for _ in items]
    values = [w + draw.randint(-50, 50) for w in weights]
    problem += pulp.lpSum(v * x for v, x in zip(values, items, strict=True))
    problem += pulp.lpSum(w * x for w, x in zip(weights, items, strict=True)) <= sum(weights) // 2

    class Model:
        def __init__(self) -> None:
            self.problem = problem

    with stopped_when_stalled(Stall(seconds=0.0, share_of_gap=1.0)):
        stopped = solve_model(Model(), gap=0.0)
    assert stopped.status is SolveStatus.FEASIBLE and stopped.objective is not None
    assert "stopped: no better plan in 0 s of search" in stopped.termination
    proven = solve_model(Model(), gap=0.0)
    assert proven.status is SolveStatus.OPTIMAL and proven.objective is not None
    assert stopped.objective <= proven.objective
    assert "stopped" not in proven.termination

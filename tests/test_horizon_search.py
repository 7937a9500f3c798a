"""The roadmap's search (``placement.horizon.solve``): the roadmap rounded from the LP
relaxation is only called optimal when the relaxation's bound proves it, and it is then
within the gap of the whole MILP's optimum; where it is not proven, HiGHS solves the whole
MILP from it. Moves are whole: a roadmap found with a workload moving in parts is solved again
with that workload's moves binary, and is optimal only where the bound proves that one."""

from __future__ import annotations

import re
from typing import Any

import pytest

from benchmarks.horizon import roadmap_inventory
from placement.catalog import read_catalog
from placement.estimating import estimate
from placement.horizon import solve as horizon_solve
from placement.horizon.budget import SearchClock, search_clock
from placement.horizon.checks import check_roadmap
from placement.horizon.formulation import build_horizon_model, epoch_options
from placement.horizon.start import priced, rounded_readiness
from placement.models.catalog import Catalog
from placement.pipeline import PlanResult, plan
from placement.reading import Inventory, read_inventory
from placement.solving.background import InBackground
from placement.solving.choices import DEFAULT_GAP
from placement.solving.proof import proving_cost
from placement.solving.solver import SolveStatus, solve_model

MONTHS = 12
SIZE = 120
LARGER_SIZE = 1000
SEED = 23  # not the benchmark's: a case kept apart from the figures in docs/performance.md
TIGHT_GAP = 1e-6
WHOLE_MOVES_COST = 5e-3
"""What making the moves whole may add above the whole MILP, where moves in parts are allowed
(on this case 0.07-0.10%): a sanity bound, not a proof; the plan's own gap is the proof."""


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return read_catalog().catalog


@pytest.fixture(scope="module")
def inventory(catalog: Catalog) -> Inventory:
    return read_inventory(
        roadmap_inventory(SIZE, MONTHS, SEED),
        list(catalog.accelerators),
        load_profiles=catalog.profile_kinds(),
    )


@pytest.fixture(scope="module")
def whole_milp(inventory: Inventory, catalog: Catalog) -> tuple[float, float]:
    """The whole roadmap MILP solved to a tight gap, and its LP relaxation's optimum."""
    estimates = estimate(inventory.workloads, catalog)
    model = build_horizon_model(
        estimates, catalog, MONTHS, epochs=epoch_options(estimates, catalog, MONTHS)
    )
    relaxed = solve_model(model, relax=True)
    assert relaxed.objective is not None
    whole = solve_model(model, gap=TIGHT_GAP)
    assert whole.status is SolveStatus.OPTIMAL and whole.objective is not None
    return whole.objective, relaxed.objective


def _roadmap(inventory: Inventory, catalog: Catalog) -> PlanResult:
    result = plan(inventory, catalog, horizon=MONTHS)
    assert check_roadmap(result.plan, result.inventory.workloads, catalog) == []
    return result


def test_the_relaxation_bounds_the_whole_milp(whole_milp: tuple[float, float]) -> None:
    optimum, bound = whole_milp
    assert bound <= optimum * (1 + TIGHT_GAP)


def test_the_roadmap_is_within_the_gap_of_the_whole_milps_optimum(
    inventory: Inventory, catalog: Catalog, whole_milp: tuple[float, float]
) -> None:
    optimum, bound = whole_milp
    result = _roadmap(inventory, catalog)
    found = result.solve.objective
    assert found is not None
    # The whole MILP (moves in parts allowed) bounds the whole-move roadmap from below; this
    # one moves a workload in parts at its optimum, so making it whole costs a little more.
    assert optimum * (1 - TIGHT_GAP) <= found <= optimum * (1 + WHOLE_MOVES_COST)
    # The gap reported is the distance from the relaxation's bound, and the roadmap is called
    # optimal exactly when that is within the gap asked; where a pricing of its months (or of
    # staying put) stopped at its time limit before proving its own gap, the larger of the two
    # (``_with_pricing_gap``). Which happens depends on the machine: staying put's pricing of
    # this case takes 28 s of its 30 s on one 2-core VM.
    termination = result.solve.termination
    assert "relaxation" in termination
    from_bound = (found - bound) / found
    pricing_gaps = re.findall(r"priced within ([\d.]+)% of the bound", termination)
    if pricing_gaps:
        assert result.solve.status is SolveStatus.FEASIBLE
        stated = max(float(percent) / 100 for percent in pricing_gaps)
        assert result.solve.gap is not None and result.solve.gap >= from_bound - 1e-9
        # The message rounds each pricing's gap to 0.001 of a percent.
        assert result.solve.gap == pytest.approx(max(from_bound, stated), abs=5e-6)
    else:
        assert "an unknown gap" not in termination
        assert result.solve.gap == pytest.approx(from_bound, abs=1e-9)
        proven = result.solve.gap <= DEFAULT_GAP
        assert (result.solve.status is SolveStatus.OPTIMAL) == proven
    # The plan's figures are the roadmap's months priced in the steady state's month model
    # (``placement.horizon.pricing``), whose total the solver's message gives beside the
    # MILP's; the monthly average is that total over the months (each of its parts rounded).
    road = result.plan.roadmap
    assert road is not None
    [priced] = re.findall(
        r"\$([\d,.]+) over the horizon \(the roadmap MILP's", result.solve.termination
    )
    assert road.total_usd == pytest.approx(float(priced.replace(",", "")), abs=0.005 * MONTHS)
    assert result.plan.objective_monthly_usd == pytest.approx(road.total_usd / MONTHS, abs=0.03)


def test_without_the_proof_the_whole_milp_is_solved_from_the_rounded_roadmap(
    inventory: Inventory,
    catalog: Catalog,
    whole_milp: tuple[float, float],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    optimum, _ = whole_milp
    monkeypatch.setattr(horizon_solve, "proven_by", lambda cost, bound, gap: False)
    result = _roadmap(inventory, catalog)
    found = result.solve.objective
    assert found is not None
    assert "optimal within the gap of the LP relaxation" not in result.solve.termination
    assert optimum * (1 - TIGHT_GAP) <= found <= optimum * (1 + WHOLE_MOVES_COST)


def test_the_rounded_roadmaps_months_priced_ahead_are_those_priced_after(
    inventory: Inventory, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the search goes on from the rounded roadmap, its months are priced in the
    background meanwhile (``_price_ahead``); where the search ends on the same months, that
    pricing is the roadmap's: the same figures as pricing them once the search is done."""
    monkeypatch.setattr(horizon_solve, "proven_by", lambda cost, bound, gap: False)
    started: list[object] = []
    asked: list[object] = []
    price_ahead, result_of = horizon_solve._price_ahead, InBackground.result

    def spied_ahead(*args: Any) -> object:
        ahead = price_ahead(*args)
        started.append(ahead.pricing)
        return ahead

    def spied_result(self: InBackground[Any]) -> Any:
        asked.append(self)
        return result_of(self)

    monkeypatch.setattr(horizon_solve, "_price_ahead", spied_ahead)
    monkeypatch.setattr(InBackground, "result", spied_result)
    ahead = _roadmap(inventory, catalog).plan
    assert len(started) == 1 and started[0] in asked  # priced ahead, and taken
    monkeypatch.setattr(horizon_solve, "_price_ahead", lambda *args: None)
    after = _roadmap(inventory, catalog).plan
    assert ahead.roadmap is not None and after.roadmap is not None
    assert ahead.roadmap.total_usd == pytest.approx(after.roadmap.total_usd, abs=0.01)
    assert [m.cost_usd for m in ahead.roadmap.months] == pytest.approx(
        [m.cost_usd for m in after.roadmap.months], abs=0.01
    )
    assert ahead.objective_monthly_usd == pytest.approx(after.objective_monthly_usd, abs=0.01)


def test_with_the_search_budget_spent_its_start_stands_with_its_integers_held(
    inventory: Inventory,
    catalog: Catalog,
    whole_milp: tuple[float, float],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the search's budget is spent once its roadmap is rounded, the whole MILP is not
    solved from the start: the start stands, costed with its integers held, its moves made
    whole after; a roadmap every check passes, never below the optimum, its gap from the
    relaxation's bound."""
    optimum, bound = whole_milp
    monkeypatch.setattr(horizon_solve, "proven_by", lambda cost, bound, gap: False)
    monkeypatch.setattr(SearchClock, "spent", lambda self: True)
    from_a_start: list[object] = []
    solve = horizon_solve.solve_model

    def spied_solve(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("start") is not None:
            from_a_start.append(args[0])
        return solve(*args, **kwargs)

    monkeypatch.setattr(horizon_solve, "solve_model", spied_solve)
    result = _roadmap(inventory, catalog)  # check_roadmap passes
    assert from_a_start == []
    found, gap = result.solve.objective, result.solve.gap
    assert found is not None and gap is not None
    assert found >= optimum * (1 - TIGHT_GAP)
    assert gap >= (found - bound) / found - 1e-9
    assert result.solve.status is SolveStatus.FEASIBLE


def test_under_one_engineer_the_rounded_ports_are_queued(
    inventory: Inventory, catalog: Catalog
) -> None:
    # The relaxation shares the engineer between ports; rounded at one half it can start two
    # at once. Queued by their start, the rounded roadmap stays feasible under the cap, and the
    # roadmap found re-checks (at most one port under way in any month).
    free = _roadmap(inventory, catalog).plan.roadmap
    assert free is not None
    at_once = [(s.start_month, s.ready_month) for s in free.steps if s.item == "port"]
    assert sum(start <= 1 < ready for start, ready in at_once) >= 2  # the cap will bind
    economics = catalog.economics.model_copy(update={"porting_engineers": 1})
    capped = catalog.model_copy(update={"economics": economics})
    result = _roadmap(inventory, capped)
    assert result.solve.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
    assert result.solve.gap is not None
    assert (result.solve.status is SolveStatus.OPTIMAL) == (result.solve.gap <= DEFAULT_GAP)
    road = result.plan.roadmap
    assert road is not None
    ports = [(s.start_month, s.ready_month) for s in road.steps if s.item == "port"]
    for month in range(1, MONTHS + 1):
        assert sum(start <= month < ready for start, ready in ports) <= 1


@pytest.mark.parametrize(("size", "proven"), [(SIZE, False), (LARGER_SIZE, True)])
def test_units_rounded_from_the_relaxed_units_roadmap_are_whole_and_priced_exactly(
    catalog: Catalog, size: int, proven: bool
) -> None:
    """The quick way to a proven roadmap: the timeline with the units continuous, then whole
    units rounded from it. What it returns is a roadmap of whole units that costs what it says
    (re-solved with every integer fixed) and within the gap of the relaxation's bound, else
    nothing: at 120 workloads a month's few units do not round within 0.1%, at 1,000 they do."""
    inventory = read_inventory(
        roadmap_inventory(size, MONTHS, SEED),
        list(catalog.accelerators),
        load_profiles=catalog.profile_kinds(),
    )
    estimates = estimate(inventory.workloads, catalog)
    model = build_horizon_model(
        estimates, catalog, MONTHS, epochs=epoch_options(estimates, catalog, MONTHS)
    )
    relaxed = solve_model(model, relax=True)
    assert relaxed.objective is not None
    [ready, *_] = rounded_readiness(model, catalog.economics.porting_engineers)
    target = proving_cost(relaxed.objective, DEFAULT_GAP)
    clock = search_clock(None)
    attempt = horizon_solve._units_rounded(model, ready, "highs", clock, DEFAULT_GAP, target)
    assert (attempt.cost is not None) == proven
    if attempt.cost is None:
        return
    assert relaxed.objective <= attempt.cost <= target
    units = [attempt.start[var] for var in model.units.values()]
    assert all(value == int(value) for value in units)
    again = priced(model, attempt.start, "highs", None, DEFAULT_GAP)
    assert again is not None and again.cost == pytest.approx(attempt.cost, rel=1e-9)

"""A roadmap's months re-checked one by one as steady states (``placement.horizon.pricing``).

Each month of a generated roadmap (ports, a migration and moves; no growth, starts or ends, so
every workload runs its full figures each month) is planned again through the steady-state
pipeline: every workload fixed where the roadmap has it that month, the commitments the roadmap
holds then (owned and bought, within their terms) given as owned, nothing more to buy. Its
commitment costs must be the roadmap month's, and its on-demand cost too, within what counting
cover in whole chips leaves open: both keep the placement of flexible work their first solve
found and restrict the slices where part chips overstate cover (``placement.solving.
whole_chips``), and the first solves of one month and of twelve at once need not place it
alike (here the roadmap's month 1 is $212 dearer, 0.2%). A roadmap month is never cheaper
than the steady state makes it: what it states, whole chips achieve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulp
import pytest

from benchmarks.horizon import roadmap_inventory
from placement.catalog import read_catalog
from placement.formulating.build import build_model
from placement.formulating.model import FormulationSettings
from placement.horizon.pricing import _cheapest_costed
from placement.models.catalog import Catalog
from placement.models.plan import Roadmap
from placement.pipeline import PlanResult, SolverOptions, plan
from placement.reading import read_inventory
from placement.solving.solver import SolveStatus
from placement.solving.whole_chips import solve_plan_model

MONTHS = 12
SIZE = 40
SEED = 5
GAP = 1e-3  # the default gap: each side is solved to it
WHOLE_CHIP_PATHS = 5e-3
"""How much dearer a month may come out where its whole-chip cover starts from another first
solve's placement of flexible work (see the module)."""


@pytest.fixture(scope="module")
def planned() -> PlanResult:
    catalog = read_catalog().catalog
    frame = roadmap_inventory(SIZE, MONTHS, SEED).drop(
        columns=["monthly_growth", "start_month", "end_month"]
    )
    inventory = read_inventory(
        frame, list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    return plan(inventory, catalog, horizon=MONTHS)


def _placement(road: Roadmap, ids: list[str], month: int) -> dict[int, str]:
    where: dict[int, str] = {}
    position = {i: k for k, i in enumerate(ids)}
    for w in road.workloads:
        moved = w.ready_month is not None and month >= w.ready_month
        place = w.target_accelerator if moved else w.interim_accelerator
        if place is not None:
            where[position[w.workload_id]] = place
    return where


def _held_as_owned(road: Roadmap, catalog: Catalog, month: int) -> list[dict[str, Any]]:
    """What the roadmap holds in ``month``: the catalog's owned commitments still running and
    its purchases within their terms, as owned commitments of one more month."""
    held = [
        {**c.model_dump(exclude_none=True), "months_left": 1}
        for c in catalog.owned_commitments
        if c.months_left >= month
    ]
    for p in road.purchases:
        if not p.month <= month < p.month + p.term_months:
            continue
        entry: dict[str, Any] = {"pricing": p.pricing, "months_left": 1, "source": "roadmap"}
        if p.units is not None:
            chips = int(p.product.rsplit("/", 1)[1])
            entry.update(accelerator=p.accelerator, units=p.units, unit_chips=chips)
        else:
            entry["usd_per_hour"] = p.usd_per_hour
        held.append(entry)
    return held


def test_every_month_costs_what_the_steady_state_makes_of_its_placement_and_holdings(
    planned: PlanResult,
) -> None:
    road = planned.plan.roadmap
    assert road is not None
    assert road.steps and any(w.interim_accelerator for w in road.workloads)  # it moves
    catalog = planned.catalog
    ids = planned.inventory.workloads["id"].astype(str).tolist()
    checked = set()
    for month in road.months:
        placement = _placement(road, ids, month.month)
        held = _held_as_owned(road, catalog, month.month)
        key = (tuple(sorted(placement.items())), repr(held))
        if key in checked:
            continue  # the same month again: the same steady state
        checked.add(key)
        month_catalog = catalog.model_copy(update={"owned_commitments": []})
        data = month_catalog.model_dump(mode="json", exclude_none=True)
        data["owned_commitments"] = held
        month_catalog = Catalog.model_validate(data)
        settings = FormulationSettings(fixed_accelerators=placement, purchasable=frozenset())
        model = build_model(planned.estimates.options, ids, month_catalog, settings)
        result = solve_plan_model(model, month_catalog, SolverOptions(gap=GAP))
        assert result.has_solution
        steady = sum(
            float(model.costs[c].value() or 0.0) for c in ("on_demand_usd", "reserved_usd")
        )
        committed = float(model.costs["reserved_usd"].value() or 0.0)
        assert month.commitments_usd == pytest.approx(committed, abs=0.05), month.month
        stated = month.on_demand_usd + month.commitments_usd
        assert steady * (1 - GAP) <= stated <= steady * (1 + WHOLE_CHIP_PATHS), month.month
    assert len(checked) >= 2


def test_of_the_starts_costed_the_cheapest_is_kept_with_its_values() -> None:
    """``3 z + 5 u`` with ``u + 4 z >= 10``: whole units z = 1 cost $33 (u = 6), z = 3 cost $9
    (u = 0); the cheaper is kept, its values on the variables, whichever is costed last."""
    problem = pulp.LpProblem("costed", pulp.LpMinimize)
    z = problem.add_variable("z", 0, 5, cat=pulp.LpInteger)
    u = problem.add_variable("u", lowBound=0)
    problem.addConstraint(u + 4 * z >= 10, "cover")
    problem.setObjective(3 * z + 5 * u)
    model = _Problem(problem)
    for starts in ([{z: 3.0}, {z: 1.0}], [{z: 1.0}, {z: 3.0}]):
        result = _cheapest_costed(model, starts, "highs", None, GAP)  # type: ignore[arg-type]
        assert result.status is SolveStatus.FEASIBLE and result.objective == pytest.approx(9.0)
        assert (z.varValue, u.varValue) == (pytest.approx(3.0), pytest.approx(0.0))
        assert (z.lowBound, z.upBound) == (0, 5)


@dataclass
class _Problem:
    problem: pulp.LpProblem

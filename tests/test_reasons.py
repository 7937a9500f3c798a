"""Every reason a plan gives is checked against a forced re-solve.

A sentence "X would cost at least $A ... vs $B here, but <reason>" and "cheapest accelerator at
$B (next: X, at least $A ...)" make claims about the whole plan: pinning the workload to X and
solving again must bear them out. Pinned, the plan can never be cheaper than the plan itself
(beyond the solver's gap); where a sentence says a port or programme "costs more than the $S
that the workloads able to use it could save at most", the pinned plan must pay for it and cost
at least its monthly share less S more; where it says the workload is cheapest where it is, the
pinned plan costs at least A - B more.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import pytest

from benchmarks.generate import synthetic_inventory
from benchmarks.horizon import roadmap_inventory
from placement import plan
from placement.models.catalog import Catalog
from placement.models.plan import Plan
from placement.solving.solver import SolverOptions
from tests.conftest import EXACT, default_catalog_dict, run_plan

GAP = 1e-4
SOLVER = SolverOptions(solver="highs", gap=GAP)

RIVAL = re.compile(
    r"^(?P<acc>\S+) would cost at least \$(?P<a>[\d,]+)/month \(\S+ paying every hour\) "
    r"vs \$(?P<b>[\d,]+) here, but (?P<reason>.*)$"
)
CHEAPEST = re.compile(
    r"^cheapest accelerator at \$(?P<b>[\d,]+)/month \(next: (?P<acc>\S+), at least "
    r"\$(?P<a>[\d,]+) with \S+ paying every hour\)$"
)
ONE_OFF = re.compile(
    r"^porting (?P<family>\S+) to (?P<platform>\S+) \(\$(?P<one_off>[\d,]+) one-off, "
    r"\$(?P<monthly>[\d,]+)/month amortized\) costs more than the \$(?P<most>[\d,]+)/month"
)
MIGRATION = re.compile(
    r"^the (?P<platform>\S+) migration programme \(\$(?P<one_off>[\d,]+) one-off, "
    r"\$(?P<monthly>[\d,]+)/month amortized\) costs more than the \$(?P<most>[\d,]+)/month"
)


def _usd(text: str) -> float:
    return float(text.replace(",", ""))


def _pinned_total(inventory: pd.DataFrame, workload_id: str, accelerator: str) -> Any:
    pinned = inventory.copy()
    pinned["pinned_accelerator"] = pinned.get("pinned_accelerator", None)
    pinned.loc[pinned["id"].eq(workload_id), "pinned_accelerator"] = accelerator
    return plan(pinned, solver=SOLVER).plan


def _check_reasons(inventory: pd.DataFrame, most: int) -> int:
    """Re-solve for up to ``most`` sentences of each kind; return how many were checked."""
    base = plan(inventory, solver=SOLVER).plan
    total = base.objective_monthly_usd
    # Both solves within the gap; cents rounded in sentences; a plan re-solved in whole chips
    # is within its objective less the first solve's of the whole-chip optimum.
    slack = 2 * GAP * total + 1.0 + _whole_chip_room(base)
    checked = {"rival": 0, "cheapest": 0}
    for assignment in base.assignments:
        head = assignment.why.split("; ")[0]
        rival, cheapest = RIVAL.match(head), CHEAPEST.match(head)
        kind = "rival" if rival else "cheapest" if cheapest else None
        if kind is None or checked[kind] >= most:
            continue
        found = rival or cheapest
        assert found is not None
        checked[kind] += 1
        pinned = _pinned_total(inventory, assignment.workload_id, found["acc"])
        assert pinned.status == "optimal", assignment.why
        delta = pinned.objective_monthly_usd - total
        # The plan was optimal: forcing a workload elsewhere never makes it cheaper.
        assert delta >= -slack, (assignment.workload_id, delta, assignment.why)
        if cheapest:
            assert delta >= _usd(found["a"]) - _usd(found["b"]) - slack, (
                assignment.workload_id,
                delta,
                assignment.why,
            )
            continue
        reason = found["reason"]
        port, programme = ONE_OFF.match(reason), MIGRATION.match(reason)
        if port:
            assert (port["family"], port["platform"]) in {
                (p.family, p.platform) for p in pinned.ported_families
            }, (assignment.workload_id, "the pinned plan ports the family")
        if programme:
            assert programme["platform"] in {m.platform for m in pinned.migrations}
        bound = port or programme
        if bound:
            floor = _usd(bound["monthly"]) - _usd(bound["most"])
            assert delta >= floor - slack, (assignment.workload_id, delta, floor, reason)
    return sum(checked.values())


def test_the_samples_reasons_hold_when_the_workload_is_pinned() -> None:
    inventory = pd.read_csv("inputs/sample_inventory.csv")
    assert _check_reasons(inventory, most=4) >= 6


@pytest.mark.parametrize("seed", [11])
def test_a_generated_inventorys_reasons_hold_when_the_workload_is_pinned(seed: int) -> None:
    inventory = synthetic_inventory(40, seed=seed)
    assert _check_reasons(inventory, most=3) >= 3


def test_owned_commitments_where_it_runs_are_named_as_a_reason() -> None:
    # Two owned 8-GPU H100 reservations with four months left pay for most of a 70B training
    # run's hours whether it moves or not: the sentence that sets Trainium2's lower price
    # against the migration programme names them.
    data = default_catalog_dict()
    data["owned_commitments"] = [
        {
            "pricing": "reserved_1yr",
            "accelerator": "h100",
            "unit_chips": 8,
            "units": 2,
            "months_left": 4,
            "source": "contract",
        }
    ]
    rows = [
        {
            "id": "train-70b",
            "kind": "training",
            "model_family": "llama",
            "params_b": 70,
            "h100_gpu_hours": 8000,
        }
    ]
    [assignment] = run_plan(rows, Catalog.model_validate(data), EXACT).plan.assignments
    assert assignment.accelerator == "h100"
    assert assignment.why.startswith("trn2 would cost at least $12,370/month")
    assert "the plan is cheaper without the neuron migration programme ($125,000 one-off" in (
        assignment.why
    )
    assert (
        "commitments already owned on h100 pay for its hours whether it moves or not "
        "(2 x 8 chips reserved_1yr, 4 months left)" in assignment.why
    )


def test_every_move_holds_when_the_workload_is_pinned_where_it_runs_today() -> None:
    """A move says the plan is cheaper with the workload where it goes (in so many words where
    it saves nothing at the plan's prices: "the plan moves it because its total is lower with
    it there"). Pinned where it runs today and solved again, the plan never costs less."""
    inventory = roadmap_inventory(40, 12, seed=5)
    inventory = inventory[inventory["start_month"].isna() & inventory["end_month"].isna()]
    inventory = inventory.drop(columns=["monthly_growth", "start_month", "end_month"])
    base = plan(inventory, solver=SOLVER).plan
    total = base.objective_monthly_usd
    slack = 2 * GAP * total + 1.0 + _whole_chip_room(base)
    moves = [m for m in base.moves if not m.reason.startswith("cannot stay")]
    assert len(moves) >= 3
    # The moves saving least at the plan's prices first: where a sentence is likeliest wrong.
    moves.sort(key=lambda m: m.monthly_saving_usd or 0.0)
    for move in moves[:4]:
        pinned = _pinned_total(inventory, move.workload_id, move.from_accelerator)
        assert pinned.status == "optimal", move.reason
        assert pinned.objective_monthly_usd >= total - slack, (
            move.workload_id,
            pinned.objective_monthly_usd - total,
            move.reason,
        )


@pytest.mark.parametrize("seed", [1, 5, 8])
def test_a_moves_saving_is_what_pinning_it_where_it_runs_today_costs(seed: int) -> None:
    """A move's monthly saving is priced at the plan's prices: staying costs its chip-hours at
    the same commitment shares on the accelerator it runs on today. Where the move's own saving
    is the whole story (no sentence on why it is made, no port or programme share: its
    one-offs are its switching alone), pinning it there and solving again costs exactly that
    saving less the switching one-off the plan no longer amortizes, ``s_j - K / A`` (hand
    check, seed 5: $1,033.68 - $5,500 / 12 = $575.35). A move whose saving does not repay its
    one-offs within A months says the plan makes it for its total (seed 1: $63.11 a month
    against $5,500; pinned, the plan costs $188 more, not $395 less), and those, like moves
    sharing a port, are checked for direction only above: pinned, the port may no longer pay
    for the others either, which the move's own saving does not claim."""
    catalog = Catalog.model_validate(default_catalog_dict())
    months = catalog.economics.amortization_months.value
    inventory = roadmap_inventory(40, 12, seed=seed)
    inventory = inventory[inventory["start_month"].isna() & inventory["end_month"].isna()]
    inventory = inventory.drop(columns=["monthly_growth", "start_month", "end_month"])
    base = plan(inventory, solver=SOLVER).plan
    total = base.objective_monthly_usd
    slack = 2 * GAP * total + 1.0 + _whole_chip_room(base)
    alone = {
        (m.from_accelerator, m.monthly_saving_usd): m
        for m in base.moves
        if m.monthly_saving_usd is not None
        and m.one_offs_usd == pytest.approx(m.switching_one_off_usd)
        and not m.reason
    }
    assert alone
    for move in base.moves:
        if move.monthly_saving_usd is not None and move.monthly_saving_usd * months < (
            move.one_offs_usd
        ):
            assert "its total is lower with it there" in move.reason, move
    for move in alone.values():
        assert move.monthly_saving_usd is not None
        expected = move.monthly_saving_usd - move.switching_one_off_usd / months
        pinned = _pinned_total(inventory, move.workload_id, move.from_accelerator)
        assert pinned.objective_monthly_usd - total == pytest.approx(expected, abs=slack), (
            move.workload_id,
            move.reason,
        )


def _whole_chip_room(plan: Plan) -> float:
    """How far the plan may be above the whole-chip optimum beyond the gap: its objective less
    the first solve's, where cover was re-solved in whole chips."""
    relaxed = plan.solver.relaxed_objective_usd
    return 0.0 if relaxed is None else max(0.0, (plan.objective_monthly_usd or 0.0) - relaxed)

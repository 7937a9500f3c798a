"""Where the team is today: current accelerators, adoption and ports by use, switching costs."""

from __future__ import annotations

from typing import Any

import pytest

from placement.models.catalog import Catalog
from tests.conftest import make_catalog, placement_of, run_plan, simple_catalog_dict, workload


def _catalog(switching_usd: float | None, adopted: bool = True) -> Catalog:
    """The simple catalog (one-month amortization) with a switching cost, and Neuron adopted
    unless told otherwise, so that only compute and switching decide."""

    def edit(data: dict[str, Any]) -> None:
        data["platforms"]["neuron"]["adopted"] = adopted
        econ = data["economics"]
        if switching_usd is None:
            econ.pop("switching_usd_per_workload", None)
        else:
            econ["switching_usd_per_workload"] = {
                "low": switching_usd,
                "high": switching_usd,
                "source": "test",
            }

    return make_catalog(simple_catalog_dict(), edit)


# A big training job that is cheaper on Trainium2 once its family runs there.
JOB = workload("job", h100_gpu_hours=400, neuron_ready=True)


def test_a_move_is_made_only_when_its_saving_beats_its_switching_cost() -> None:
    free = _catalog(0.0)
    moved = run_plan([{**JOB, "current_accelerator": "h100"}], free).plan
    stay = run_plan([{**JOB, "pinned_accelerator": "h100"}], free).plan
    assert placement_of_plan(moved) == "trn2"
    assert moved.objective_monthly_usd is not None and stay.objective_monthly_usd is not None
    saving = stay.objective_monthly_usd - moved.objective_monthly_usd
    assert saving > 1
    months = free.economics.amortization_months.value
    for factor, expected in ((0.9, "trn2"), (1.1, "h100")):
        switching = factor * saving * months
        result = run_plan([{**JOB, "current_accelerator": "h100"}], _catalog(switching))
        plan = result.plan
        assert placement_of_plan(plan) == expected
        if expected == "trn2":
            assert plan.objective_monthly_usd == pytest.approx(
                moved.objective_monthly_usd + switching / months, abs=0.02
            )
            assert plan.cost_breakdown.switching_amortized_usd == pytest.approx(
                switching / months, abs=0.01
            )
            [move] = plan.moves
            assert (move.workload_id, move.from_accelerator, move.to_accelerator) == (
                "job",
                "h100",
                "trn2",
            )
            assert move.switching_one_off_usd == pytest.approx(switching, abs=0.01)
            on_demand = {
                o.accelerator: o.monthly_cost_usd
                for o in plan.assignments[0].options
                if o.pricing == "on_demand"
            }
            # At list prices the move saves the on-demand difference; at the plan's prices
            # (reserved on Trainium2, so priced reserved on H100 staying) it saves what the
            # plan pinned to H100 costs more: half as much, at 50% off.
            assert move.list_monthly_saving_usd == pytest.approx(
                on_demand["h100"] - on_demand["trn2"], abs=0.01
            )
            assert move.monthly_saving_usd == pytest.approx(saving, abs=0.01)
            assert move.monthly_saving_usd == pytest.approx(
                (on_demand["h100"] - on_demand["trn2"]) / 2, abs=0.01
            )
            assert (move.port_share_usd, move.migration_share_usd, move.lead_months) == (0, 0, 0)
            assert move.payback_months == pytest.approx(switching / saving, abs=0.01)
        else:
            assert plan.objective_monthly_usd == pytest.approx(stay.objective_monthly_usd, abs=0.02)
            assert plan.moves == []
            assert plan.cost_breakdown.switching_amortized_usd == 0


def placement_of_plan(plan: Any) -> str:
    [assignment] = plan.assignments
    return str(assignment.accelerator)


def test_a_new_workload_pays_no_switching_cost() -> None:
    plan = run_plan([JOB], _catalog(1e6)).plan
    assert placement_of_plan(plan) == "trn2"
    assert plan.cost_breakdown.switching_amortized_usd == 0 and plan.moves == []


def test_a_workload_on_trainium2_today_stays_there_without_lead_time() -> None:
    catalog = _catalog(100.0, adopted=False)
    today = workload("today", h100_gpu_hours=400, needed_in_weeks=0, current_accelerator="trn2")
    # The same job, new: Neuron is not adopted in the catalog and the job is needed now, so
    # the migration lead time rules Trainium2 out...
    new = run_plan([{**today, "current_accelerator": None}], catalog)
    assert placement_of(new)["today"][0] == "h100"
    # ...but where it runs on Trainium2 today, nothing needs porting or migrating to stay.
    result = run_plan([today], catalog)
    assert placement_of(result)["today"][0] == "trn2"
    plan = result.plan
    assert plan.migrations == [] and plan.ported_families == []
    assert plan.cost_breakdown.migration_amortized_usd == 0
    assert plan.cost_breakdown.porting_amortized_usd == 0
    assert plan.assignments[0].current_accelerator == "trn2"
    assert plan.assignments[0].switching_one_off_usd == 0


def test_a_family_in_use_on_trainium2_needs_no_port_for_its_other_workloads() -> None:
    catalog = _catalog(0.0, adopted=False)
    rows = [
        workload("running", h100_gpu_hours=400, current_accelerator="trn2"),
        workload("another", h100_gpu_hours=400, needed_in_weeks=0),
    ]
    result = run_plan(rows, catalog)
    assert placement_of(result)["another"][0] == "trn2"
    assert result.plan.ported_families == [] and result.plan.migrations == []
    options = result.plan.assignments[1].options
    assert all(o.feasible for o in options if o.accelerator == "trn2")


def test_a_catalog_without_a_switching_cost_moves_for_free() -> None:
    plan = run_plan([{**JOB, "current_accelerator": "h100"}], _catalog(None)).plan
    assert placement_of_plan(plan) == "trn2"
    assert plan.moves[0].switching_one_off_usd == 0
    assert plan.cost_breakdown.switching_amortized_usd == 0


def test_a_moves_saving_and_payback_are_at_the_plans_prices_with_its_one_offs_and_lead() -> None:
    """Two llama jobs on H100 today, running all month (730 h) on 8 and 4 chips, move to
    Trainium2 (same speed, $1/chip-h on demand against H100's $2; reservations 50% off; 4-chip
    units). Neuron is not adopted: the plan starts its programme ($500, 10 weeks) and ports
    llama ($200, 2 weeks); each move costs $1,000. All figures by hand from the catalog."""

    def edit(data: dict[str, Any]) -> None:
        econ = data["economics"]
        econ["hours_per_month"]["value"] = 730  # 4.345 weeks a month
        econ["amortization_months"]["value"] = 24  # so that the one-offs pay
        econ["switching_usd_per_workload"] = {"low": 1000, "high": 1000, "source": "test"}

    catalog = make_catalog(simple_catalog_dict(), edit)
    rows = [
        workload(w, h100_gpu_hours=hours, current_accelerator="h100", load_profile="continuous")
        for w, hours in (("big", 8 * 730), ("small", 4 * 730))
    ]
    plan = run_plan(rows, catalog).plan
    assert [m.workload_id for m in plan.moves] == ["big", "small"]
    big, small = plan.moves
    # Both fully reserved on Trainium2 (3 units of 4 chips, used all month): $0.50/chip-h.
    assert big.plan_monthly_usd == pytest.approx(8 * 730 * 0.5)  # 2,920
    assert small.plan_monthly_usd == pytest.approx(4 * 730 * 0.5)  # 1,460
    # Staying, the same buying decision on H100: reserved at $1/chip-h.
    assert big.stay_monthly_usd == pytest.approx(8 * 730 * 1.0)  # 5,840
    assert small.stay_monthly_usd == pytest.approx(4 * 730 * 1.0)  # 2,920
    assert big.monthly_saving_usd == pytest.approx(2920.0)
    assert small.monthly_saving_usd == pytest.approx(1460.0)
    # At list prices (on demand: $2 against $1) the saving would be twice that.
    assert big.list_monthly_saving_usd == pytest.approx(8 * 730 * (2 - 1))  # 5,840
    assert small.list_monthly_saving_usd == pytest.approx(4 * 730 * (2 - 1))  # 2,920
    # The port ($200) and the programme ($500) shared 2:1 by chip-hours.
    assert big.port_share_usd == pytest.approx(133.33, abs=0.01)
    assert small.port_share_usd == pytest.approx(66.67, abs=0.01)
    assert big.migration_share_usd == pytest.approx(333.33, abs=0.01)
    assert small.migration_share_usd == pytest.approx(166.67, abs=0.01)
    assert big.one_offs_usd == pytest.approx(1000 + 133.33 + 333.33, abs=0.02)  # 1,466.67
    assert small.one_offs_usd == pytest.approx(1000 + 66.67 + 166.67, abs=0.02)  # 1,233.33
    # Lead: the programme's 10 weeks are 3 months of 4.345 weeks, then the 2-week port 1.
    assert big.lead_months == small.lead_months == 4
    assert big.payback_months == pytest.approx(4 + 1466.67 / 2920, abs=0.01)  # 4.50
    assert small.payback_months == pytest.approx(4 + 1233.33 / 1460, abs=0.01)  # 4.84
    # The shares are the whole one-offs: nothing is counted twice or left out.
    one_offs = sum(p.one_off_usd for p in plan.ported_families) + sum(
        m.one_off_usd for m in plan.migrations
    )
    shares = sum(m.port_share_usd + m.migration_share_usd for m in plan.moves)
    assert shares == pytest.approx(one_offs, abs=0.02) and one_offs == 700
    assert big.reason == small.reason == ""


def test_ports_behind_one_engineer_queue_in_the_order_of_what_they_save() -> None:
    """Three jobs on H100 today, of three families, each needing its own Neuron port, move to
    Trainium2 under one porting engineer (the catalog of the test above: the programme's 10
    weeks are 3 months; each 2-week port is a month). The ports queue, the one whose move saves
    most first: llama (8 chips, saving $2,920 a month) ready in month 4, then mistral and qwen2
    (4 chips each, $1,460: by name) in months 5 and 6. Without the cap all three are ready in
    month 4."""

    def edit(data: dict[str, Any]) -> None:
        econ = data["economics"]
        econ["hours_per_month"]["value"] = 730
        econ["amortization_months"]["value"] = 24
        econ["switching_usd_per_workload"] = {"low": 1000, "high": 1000, "source": "test"}

    def capped(data: dict[str, Any]) -> None:
        edit(data)
        data["economics"]["porting_engineers"] = 1

    rows = [
        workload(
            w,
            model_family=family,
            h100_gpu_hours=chips * 730,
            current_accelerator="h100",
            load_profile="continuous",
        )
        for w, family, chips in (("big", "llama", 8), ("mid", "mistral", 4), ("last", "qwen2", 4))
    ]
    free = run_plan(rows, make_catalog(simple_catalog_dict(), edit)).plan
    assert {m.workload_id: m.lead_months for m in free.moves} == {"big": 4, "mid": 4, "last": 4}
    plan = run_plan(rows, make_catalog(simple_catalog_dict(), capped)).plan
    moves = {m.workload_id: m for m in plan.moves}
    assert {w: m.monthly_saving_usd for w, m in moves.items()} == pytest.approx(
        {"big": 2920.0, "mid": 1460.0, "last": 1460.0}
    )
    assert {w: m.lead_months for w, m in moves.items()} == {"big": 4, "mid": 5, "last": 6}
    for move in moves.values():
        assert move.monthly_saving_usd is not None
        assert move.payback_months == pytest.approx(
            move.lead_months + move.one_offs_usd / move.monthly_saving_usd, abs=0.01
        )

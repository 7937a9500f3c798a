"""Commitments as they are sold: units and savings plans covering chips in use slice by slice,
jobs whose chips run together, quotas, commitments already owned, and showback.

Each case has an optimum worked out independently of the model (by hand, or by brute force
over the one decision left), and every plan is re-checked from the plan alone by run_plan.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from placement.analysing.checks import check_plan
from placement.estimating import estimate
from placement.estimating.economics.rates import on_demand_rate
from placement.formulating.build import build_model
from placement.models.catalog import Catalog
from placement.pipeline import plan
from placement.reading import read_inventory
from placement.solving.greedy import greedy_placement
from tests.conftest import EXACT, assert_consistent, default_catalog_dict, make_catalog, run_plan

SAMPLE = str(Path(__file__).resolve().parents[1] / "inputs" / "sample_inventory.csv")

HOURS = 730.0  # the default catalog's hours per month
H100_USD = 4.0  # the default catalog's H100 on-demand point
RESERVED = 0.4  # the default 1-year reservation's discount


def _catalog(*edits: Any) -> Catalog:
    def edit(data: dict[str, Any]) -> None:
        for e in edits:
            e(data)

    return make_catalog(default_catalog_dict(), edit)


def _no_savings_plan(data: dict[str, Any]) -> None:
    del data["pricing_options"]["savings_plan_1yr"]


def _service(id: str, tokens_b: float, params_b: float = 70, **fields: Any) -> dict[str, Any]:
    """Online Llama serving in fp8 on H100 (70B: replicas of 2 GPUs)."""
    return {
        "id": id,
        "kind": "inference",
        "model_family": "llama",
        "params_b": params_b,
        "precision": "fp8",
        "monthly_tokens_b": tokens_b,
        "serving": "online",
        "pinned_accelerator": "h100",
        **fields,
    }


def test_a_round_the_clock_service_on_exactly_8_h100_is_fully_reserved() -> None:
    result = run_plan([_service("chat", 8)], _catalog())
    [a] = result.plan.assignments
    assert (a.chips, a.replica_chips) == (8, 2)
    # 8 x 730 h x $4 x (1 - 0.4) = $14,016 on one 8-GPU unit, against $23,360 on demand.
    assert a.coverage == {"reserved_1yr": pytest.approx(8 * HOURS)}
    assert a.pricing == "reserved_1yr"
    assert result.plan.objective_monthly_usd == pytest.approx(8 * HOURS * H100_USD * 0.6)
    [bought] = result.plan.commitments
    assert (bought.unit_chips, bought.units, bought.owned) == (8, 1, False)
    assert bought.utilization == pytest.approx(1.0)
    assert result.plan.finops is not None
    assert result.plan.finops.commitment_coverage == pytest.approx(1.0)
    assert result.plan.finops.effective_savings_rate == pytest.approx(RESERVED)


def test_a_two_workload_startup_reserves_single_gpus() -> None:
    rows = [_service("chat", 0.5, params_b=8), _service("search", 0.5, params_b=8)]
    result = run_plan(rows, _catalog())
    assert {a.chips for a in result.plan.assignments} == {1}
    # Two p5.4xlarge-sized units: 2 x 730 x $2.40 = $3,504 (on demand: $5,840).
    [bought] = result.plan.commitments
    assert (bought.pricing, bought.unit_chips, bought.units) == ("reserved_1yr", 1, 2)
    assert result.plan.objective_monthly_usd == pytest.approx(2 * HOURS * H100_USD * 0.6)


def test_single_gpu_units_do_not_hold_multi_gpu_replicas() -> None:
    # 6 GPUs in replicas of 2: 1-GPU units cannot hold them and an 8-GPU unit would idle a
    # quarter, so the savings plan (30% off) covers them: 6 x 730 x $2.80.
    result = run_plan([_service("chat", 5)], _catalog())
    [a] = result.plan.assignments
    assert (a.chips, a.replica_chips) == (6, 2)
    assert a.coverage == {"savings_plan_1yr": pytest.approx(6 * HOURS)}
    assert result.plan.objective_monthly_usd == pytest.approx(6 * HOURS * 2.8)


def _measured_profile(data: dict[str, Any]) -> None:
    """A serving profile with an irregular hourly curve, and 1-GPU units for any replica."""
    rng = np.random.default_rng(7)
    levels = np.round(rng.uniform(0.05, 1.0, 48), 3)
    levels[13] = 1.0
    data["load_profiles"]["measured"] = {
        "kind": "serving",
        "weekday": levels[:24].tolist(),
        "weekend": levels[24:].tolist(),
        "source": "test: a measured hourly curve",
    }
    data["accelerators"]["h100"]["reservation_units"] = [{"chips": 1, "source": "test"}]


def test_the_commitment_bought_is_the_discount_quantile_of_hourly_demand() -> None:
    catalog = _catalog(_no_savings_plan, _measured_profile)
    result = run_plan([_service("chat", 40, load_profile="measured")], catalog)
    [a] = result.plan.assignments
    levels = np.array(catalog.profiles()["measured"].levels())
    weights = np.array([5.0] * 24 + [2.0] * 24) / 7 / 24 * HOURS
    demand = a.chips * levels  # no base: the profile does not follow a peak-to-mean
    [bought] = result.plan.commitments
    units = bought.units
    assert units is not None
    # The cheapest whole number of 1-GPU units, by brute force over every candidate.
    unit_usd = HOURS * H100_USD * (1 - RESERVED)

    def cost(u: int) -> float:
        return u * unit_usd + float(weights @ np.maximum(demand - u, 0)) * H100_USD

    best = min(range(a.chips + 1), key=cost)
    assert cost(units) == pytest.approx(cost(best), rel=1e-9)
    # The textbook result: commit up to the discount quantile of hourly demand (a unit pays
    # for itself when busy more than 1 - d of the hours).
    order = np.argsort(demand)
    cumulative = np.cumsum(weights[order]) / weights.sum()
    quantile = demand[order][np.searchsorted(cumulative, RESERVED)]
    assert abs(units - quantile) <= 1
    assert 0 < units < a.chips  # the curve makes it a real split: peaks go on demand
    assert 0 < a.coverage["on_demand"] < a.chip_hours


def test_a_big_job_counts_no_more_committed_chips_than_are_held_while_it_runs() -> None:
    rows = [
        _service("chat", 40),
        {
            "id": "pretrain",
            "kind": "training",
            "model_family": "llama",
            "params_b": 405,
            "h100_gpu_hours": 20000,
            "pinned_accelerator": "h100",
        },
    ]
    catalog = _catalog()
    result = run_plan(rows, catalog)
    job = next(a for a in result.plan.assignments if a.workload_id == "pretrain")
    assert job.run_hours is not None and job.run_hours < HOURS
    rates = {"savings_plan_1yr": H100_USD * 0.7}
    held = sum(
        (c.units or 0) * (c.unit_chips or 0)
        if c.kind == "reserved"
        else (c.usd_per_hour or 0) / rates[c.pricing]
        for c in result.plan.commitments
    )
    committed = job.chip_hours - job.coverage.get("on_demand", 0.0)
    assert held < job.chips  # what is held is smaller than the job...
    assert committed <= job.run_hours * held + 0.01  # ...so it covers only its share
    assert job.coverage["on_demand"] > 0


def test_no_plan_uses_more_chips_than_a_capacity_limit() -> None:
    def neuron_ready_team(data: dict[str, Any]) -> None:
        data["platforms"]["neuron"]["adopted"] = True

    rows = [
        {
            "id": f"sft-{i}",
            "kind": "training",
            "model_family": "llama",
            "params_b": 8,
            "h100_gpu_hours": 4000,
            "neuron_ready": True,
        }
        for i in range(4)
    ]

    def peak_trn2(catalog: Catalog) -> float:
        result = run_plan(rows, catalog)
        return max(
            s.serving_chips + s.work_chips for s in result.plan.slices if s.accelerator == "trn2"
        )

    free = peak_trn2(_catalog(neuron_ready_team))
    assert free > 64  # without a limit the plan wants more than the limit below

    def limited(data: dict[str, Any]) -> None:
        neuron_ready_team(data)
        data["accelerators"]["trn2"]["max_chips"] = 64

    catalog = _catalog(limited)
    result = run_plan(rows, catalog)
    for s in result.plan.slices:
        if s.accelerator == "trn2":
            assert s.serving_chips + s.work_chips <= 64 + 1e-6
            assert s.limit_chips == 64
    assert {a.accelerator for a in result.plan.assignments} == {"h100", "trn2"}


def _owning(units: int) -> Any:
    def edit(data: dict[str, Any]) -> None:
        data["owned_commitments"] = [
            {
                "pricing": "reserved_1yr",
                "accelerator": "h100",
                "unit_chips": 8,
                "units": units,
                "months_left": 5,
                "source": "test: bought last year",
            }
        ]

    return edit


def test_an_owned_commitment_is_used_first_and_its_cost_is_in_the_total() -> None:
    # One GPU of work and an owned 8-GPU unit: nothing is bought, the owned unit covers it
    # and its whole price is in the bill.
    result = run_plan([_service("chat", 0.5, params_b=8)], _catalog(_owning(1)))
    [owned] = result.plan.commitments
    assert owned.owned and owned.months_left == 5
    assert owned.used_chip_hours == pytest.approx(HOURS)
    assert result.plan.objective_monthly_usd == pytest.approx(8 * HOURS * H100_USD * 0.6)
    assert result.plan.cost_breakdown.on_demand_usd == 0
    [a] = result.plan.assignments
    assert a.showback_monthly_usd == pytest.approx(result.plan.objective_monthly_usd)


def test_owned_units_fill_up_before_more_are_bought() -> None:
    result = run_plan([_service("chat", 40)], _catalog(_owning(2)))
    owned = [c for c in result.plan.commitments if c.owned]
    bought = [c for c in result.plan.commitments if not c.owned]
    assert [c.units for c in owned] == [2]
    assert owned[0].used_chip_hours == pytest.approx(16 * HOURS)
    assert bought  # 34 GPUs: the rest is bought
    assert result.plan.cost_breakdown.reserved_usd == pytest.approx(
        sum(c.monthly_cost_usd for c in result.plan.commitments), abs=0.01
    )


def test_one_savings_plan_covers_both_accelerators() -> None:
    def plan_only(data: dict[str, Any]) -> None:
        del data["pricing_options"]["reserved_1yr"]
        data["platforms"]["neuron"]["adopted"] = True

    rows = [
        _service("chat", 8),
        {
            "id": "sft",
            "kind": "training",
            "model_family": "llama",
            "params_b": 8,
            "h100_gpu_hours": 4000,
            "neuron_ready": True,
            "pinned_accelerator": "trn2",
            "load_profile": "continuous",
        },
    ]
    result = run_plan(rows, _catalog(plan_only))
    [plan] = result.plan.commitments
    assert plan.kind == "savings_plan"
    covered = {a.accelerator for a in result.plan.assignments if "savings_plan_1yr" in a.coverage}
    assert covered == {"h100", "trn2"}
    # The commitment is what the covered chips cost at the plan's rates, hour by hour.
    trn2_rate = 0.41 * 0.7
    for s in result.plan.slices:
        rate = H100_USD * 0.7 if s.accelerator == "h100" else trn2_rate
        assert s.covered_by.get("savings_plan_1yr", 0.0) * rate <= plan.usd_per_hour + 1e-6


def test_the_greedy_baseline_respects_the_porting_cap() -> None:
    def capped(data: dict[str, Any]) -> None:
        data["economics"]["porting_capacity_weeks_per_cycle"] = 8

    catalog = _catalog(capped)
    inventory = read_inventory(
        SAMPLE, list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    estimates = estimate(inventory.workloads, catalog)
    placement = greedy_placement(estimates.options, catalog)
    options = estimates.options
    chosen = options[
        options["feasible"]
        & options["needs_port"]
        & options.apply(lambda r: placement.get(r["workload"]) == r["accelerator"], axis=1)
    ]
    weeks = sum(
        catalog.platforms[str(p)].porting_weeks_per_family.value
        for p in chosen.drop_duplicates(["family", "platform"])["platform"]
    )
    assert weeks <= 8
    result = plan(inventory, catalog, EXACT)
    assert_consistent(result)
    baselines = result.plan.baselines
    assert baselines.greedy_usd is not None
    assert baselines.savings_vs_greedy_usd is not None
    assert baselines.savings_vs_greedy_usd >= -0.01


def test_an_owned_commitment_no_work_can_use_is_still_paid_in_plan_and_baselines() -> None:
    def owned_trn2(data: dict[str, Any]) -> None:
        data["owned_commitments"] = [
            {
                "pricing": "reserved_1yr",
                "accelerator": "trn2",
                "unit_chips": 4,
                "units": 1,
                "months_left": 3,
                "monthly_usd": 700,
                "source": "test: signed before the plan",
            }
        ]

    result = run_plan([_service("chat", 8)], _catalog(owned_trn2))
    plan_total = result.plan.objective_monthly_usd
    assert plan_total == pytest.approx(8 * HOURS * H100_USD * 0.6 + 700)
    baselines = result.plan.baselines
    assert baselines.all_h100_on_demand_usd == pytest.approx(8 * HOURS * H100_USD + 700)
    assert baselines.all_h100_optimal_usd == pytest.approx(plan_total)
    [owned] = [c for c in result.plan.commitments if c.owned]
    assert (owned.accelerator, owned.used_chip_hours, owned.utilization) == ("trn2", 0, 0)


def _training(id: str, params_b: float, gpu_hours: float, **fields: Any) -> dict[str, Any]:
    return {
        "id": id,
        "kind": "training",
        "model_family": "llama",
        "params_b": params_b,
        "h100_gpu_hours": gpu_hours,
        **fields,
    }


def test_fixed_short_work_grouped_by_chips_prices_as_one_variable_per_job() -> None:
    """Short jobs with a single possible accelerator share one cover variable per chips held;
    the same jobs given a choice they never take (a migration nobody would pay for) get one
    each. Both models must find the same optimum and the same coverage per job."""
    jobs = [
        _training("sft-a", 8, 900),
        _training("sft-b", 8, 2400),  # same chips as sft-a: one group
        _training("ft-70b", 70, 6000),
        _training("pre-405b", 405, 30000),
    ]
    rows = [_service("chat", 40), *jobs]

    def unaffordable_migration(data: dict[str, Any]) -> None:
        cost = data["platforms"]["neuron"]["migration_one_off_usd"]
        cost["low"] = cost["high"] = 1e12

    pinned = run_plan(
        [{**r, "pinned_accelerator": "h100"} for r in rows], _catalog(unaffordable_migration)
    )
    free_rows = [{k: v for k, v in r.items() if k != "pinned_accelerator"} for r in rows]
    free = run_plan(free_rows, _catalog(unaffordable_migration))
    assert {a.accelerator for a in free.plan.assignments} == {"h100"}
    assert pinned.plan.objective_monthly_usd == pytest.approx(
        free.plan.objective_monthly_usd, rel=1e-6
    )
    by_id = {a.workload_id: a for a in free.plan.assignments}
    for a in pinned.plan.assignments:
        for option, hours in a.coverage.items():
            assert hours == pytest.approx(by_id[a.workload_id].coverage.get(option, 0.0), abs=0.01)
    # The pinned model really groups them, and the groups matter: commitments cover part of
    # the short jobs' hours, not all.
    grouped = build_model(
        pinned.estimates.options, pinned.estimates.workloads["id"].tolist(), pinned.catalog
    )
    each = build_model(
        free.estimates.options, free.estimates.workloads["id"].tolist(), free.catalog
    )
    assert not grouped.month.short_cover and len(grouped.month.short_cover_groups) == 3
    assert (
        len(each.month.short_cover) == 8 and not each.month.short_cover_groups
    )  # 4 jobs x 2 accelerators
    covered = [
        a.chip_hours - a.coverage.get("on_demand", 0.0)
        for a in pinned.plan.assignments
        if a.workload_id != "chat"
    ]
    assert any(c > 1 for c in covered)
    assert any(a.coverage.get("on_demand", 0.0) > 1 for a in pinned.plan.assignments)


def _two_thirds_profile(data: dict[str, Any]) -> None:
    """A serving profile up 16 hours of every day (two thirds of the month's hours)."""
    day = [1] * 16 + [0] * 8
    data["load_profiles"]["two_thirds"] = {
        "kind": "serving",
        "weekday": day,
        "weekend": day,
        "source": "test: up 16 hours a day",
    }


def test_utilisation_is_counted_owned_first_slice_by_slice() -> None:
    # Two owned 8-GPU units (16 GPUs) and demand of 8 GPUs all month plus 16 more GPUs for
    # 16 hours a day: 24 GPUs two thirds of the time, 8 the rest. A third unit is worth buying
    # (it is busy 2/3 of the hours, above its 60% break-even). Slice by slice the owned units
    # cover 16 of the 24 GPUs in the busy hours and 8 in the others: (16 x 2/3 + 8 x 1/3) / 16
    # = 5/6 used; the bought unit covers 8 in the busy hours only: 2/3 used, saving
    # 8 x 730 x 2/3 x $4 - 8 x 730 x $2.40 = $1,557.33 a month. (Counted over the month,
    # owned first, the owned units would look 100% used and the purchase 1/3.)
    catalog = _catalog(_owning(2), _no_savings_plan, _two_thirds_profile)
    result = run_plan(
        [_service("base", 8), _service("day", 18, load_profile="two_thirds")], catalog
    )
    chips = {a.workload_id: a.chips for a in result.plan.assignments}
    assert chips == {"base": 8, "day": 16}
    owned = [c for c in result.plan.commitments if c.owned]
    bought = [c for c in result.plan.commitments if not c.owned]
    assert [(c.units, c.unit_chips) for c in owned] == [(2, 8)]
    assert [(c.units, c.unit_chips) for c in bought] == [(1, 8)]
    assert owned[0].utilization == pytest.approx(5 / 6, abs=1e-3)
    assert bought[0].utilization == pytest.approx(2 / 3, abs=1e-3)
    assert bought[0].break_even_utilization == pytest.approx(0.6)
    assert bought[0].net_saving_monthly_usd == pytest.approx(
        8 * HOURS * 2 / 3 * H100_USD - 8 * HOURS * H100_USD * 0.6, abs=0.05
    )
    [purchase] = result.plan.reserved_purchases
    assert purchase.utilization == pytest.approx(2 / 3, abs=1e-3)
    assert purchase.break_even_utilization == pytest.approx(0.6)


def test_a_part_month_job_is_covered_only_by_what_steady_work_leaves_free() -> None:
    # Two owned 8-GPU units (16 GPUs), nothing else worth buying. A chat service holds 8 GPUs
    # around the clock; a 70B fine-tune holds 24 GPUs for 125 hours (3,000 GPU-hours). While
    # it runs only 16 - 8 = 8 owned GPUs are free: 125 x 8 = 1,000 of its GPU-hours are
    # covered, 2,000 paid on demand. Total: 16 x 730 x $2.40 owned + 2,000 x $4 = $36,032.
    # (Bounded by everything held, 16 GPUs, the job looked two-thirds covered: $32,032.)
    rows = [_service("chat", 8), _training("ft", 70, 3000, pinned_accelerator="h100")]
    result = run_plan(rows, _catalog(_owning(2), _no_savings_plan))
    job = next(a for a in result.plan.assignments if a.workload_id == "ft")
    assert (job.chips, job.run_hours) == (24, pytest.approx(125.0))
    assert job.coverage == {
        "reserved_1yr": pytest.approx(1000.0, abs=0.01),
        "on_demand": pytest.approx(2000.0, abs=0.01),
    }
    owned = 16 * HOURS * H100_USD * (1 - RESERVED)
    assert result.plan.objective_monthly_usd == pytest.approx(owned + 2000 * H100_USD, abs=0.05)
    assert [(c.units, c.owned) for c in result.plan.commitments] == [(2, True)]
    # The steady cover each slice reports is the chat's 8 GPUs.
    assert {s.steady_committed_chips for s in result.plan.slices} == {8.0}


def test_the_check_refuses_a_part_month_job_covered_by_chips_steady_work_holds() -> None:
    rows = [_service("chat", 8), _training("ft", 70, 3000, pinned_accelerator="h100")]
    result = run_plan(rows, _catalog(_owning(2), _no_savings_plan))
    plan = result.plan.model_copy(deep=True)
    job = next(a for a in plan.assignments if a.workload_id == "ft")
    # Claim what the bound on everything held would give: 125 h x 16 GPUs.
    job.coverage = {"reserved_1yr": 2000.0, "on_demand": 1000.0}
    problems = check_plan(plan, result.estimates.workloads, result.catalog)
    assert any(p.startswith("concurrency: ft:") and "8.0 chips free" in p for p in problems)


def test_a_savings_plan_is_free_for_a_gang_only_net_of_what_other_accelerators_spend() -> None:
    # An owned savings plan of $22.40/h and nothing more to buy. A chat on 4 H100 spends
    # $11.20/h of it (4 x $2.80) in every hour. A 405B pre-training on Trainium2 holds 256 chips
    # for 62.5 hours: while it runs $11.20/h is free, 11.20 / (0.7 x $0.41) = 39.0 chips of it,
    # so 62.5 x 11.20 / 0.7 = $1,000 of its on-demand bill is saved. (Taking the chat's share
    # instead saves the same per dollar.) Total: 22.40 x 730 + 16,000 x $0.41 - $1,000 =
    # $21,912. Bounded by the whole plan (78 chips) it looked $1,000 cheaper.
    usd_per_hour = 8 * H100_USD * 0.7

    def owned_plan_only(data: dict[str, Any]) -> None:
        del data["pricing_options"]["reserved_1yr"]
        data["pricing_options"]["savings_plan_1yr"]["max_usd_per_hour"] = 0
        data["platforms"]["neuron"]["adopted"] = True
        data["owned_commitments"] = [
            {
                "pricing": "savings_plan_1yr",
                "usd_per_hour": usd_per_hour,
                "months_left": 6,
                "source": "test: bought last year",
            }
        ]

    catalog = _catalog(owned_plan_only)
    rows = [
        _service("chat", 4),
        _training("pretrain", 405, 3000, neuron_ready=True, pinned_accelerator="trn2"),
    ]
    result = run_plan(rows, catalog)
    job = next(a for a in result.plan.assignments if a.workload_id == "pretrain")
    assert (job.chips, job.run_hours, job.chip_hours) == (256, 62.5, 16000)
    trn2_usd = on_demand_rate(catalog, "trn2")
    assert trn2_usd == pytest.approx(0.41)
    saved = 62.5 * (usd_per_hour / 2) / 0.7
    assert result.plan.objective_monthly_usd == pytest.approx(
        usd_per_hour * HOURS + 16000 * trn2_usd - saved, abs=0.05
    )


def test_the_greedy_baseline_weighs_a_migration_programme_against_what_it_saves() -> None:
    # A startup: a small fine-tune would save $67.53 a month on demand on Trainium2 ($1,087.53
    # vs $1,200), but the Neuron programme's one-off amortizes to over $10,000 a month. Placing
    # each workload on its cheapest accelerator alone handed the greedy baseline the programme
    # ($12,887 a month); a greedy that weighs shared one-offs keeps it on H100, at the optimum:
    # the chat on a reserved 1-GPU unit ($1,752) and the fine-tune's 300 GPU-hours on demand
    # ($1,200: 300 of 730 hours is below a reservation's 60% break-even).
    rows = [_training("sft", 8, 300, neuron_ready=True), _service("chat", 1, params_b=8)]
    result = run_plan(rows, _catalog())
    baselines = result.plan.baselines
    assert result.plan.migrations == []
    assert {a.accelerator for a in result.plan.assignments} == {"h100"}
    assert baselines.greedy_usd == pytest.approx(result.plan.objective_monthly_usd, abs=0.01)
    assert result.plan.objective_monthly_usd == pytest.approx(1200 + 1752, abs=0.01)


def test_a_move_dearer_at_the_plans_prices_says_what_covers_it_where_it_goes() -> None:
    # Four owned 16-chip Trainium2 units with nothing to run: the chat on H100 today moves to
    # them although Trainium2 costs more for it on demand. The move says so, and why: the
    # owned units cover all of its chip-hours, at the price the plan shows for it there.
    def idle_trn2(data: dict[str, Any]) -> None:
        data["platforms"]["neuron"]["adopted"] = True
        data["owned_commitments"] = [
            {
                "pricing": "reserved_1yr",
                "accelerator": "trn2",
                "unit_chips": 16,
                "units": 4,
                "months_left": 10,
                "source": "test: bought last year",
            }
        ]

    row = _service("chat", 8, current_accelerator="h100", neuron_ready=True)
    del row["pinned_accelerator"]
    result = run_plan([row], _catalog(idle_trn2))
    [a] = result.plan.assignments
    [move] = result.plan.moves
    assert (a.accelerator, move.to_accelerator) == ("trn2", "trn2")
    on_demand = {o.accelerator: o.monthly_cost_usd for o in a.options if o.pricing == "on_demand"}
    assert move.list_monthly_saving_usd == pytest.approx(on_demand["h100"] - on_demand["trn2"])
    assert move.list_monthly_saving_usd < 0
    # At the plan's prices: the owned units' rate on Trainium2 against the same buying
    # decision (a reservation) staying on H100.
    reserved = {o.accelerator: o.monthly_cost_usd for o in a.options if o.pricing == "reserved_1yr"}
    assert a.coverage == {"reserved_1yr": pytest.approx(a.chip_hours)}
    assert move.stay_monthly_usd == pytest.approx(reserved["h100"], abs=0.01)
    assert move.plan_monthly_usd == pytest.approx(a.monthly_cost_usd)
    saving = reserved["h100"] - a.monthly_cost_usd
    assert move.monthly_saving_usd == pytest.approx(saving, abs=0.01)
    assert move.monthly_saving_usd < 0 and move.payback_months is None
    assert f"costs ${-move.monthly_saving_usd:,.2f} a month more on trn2" in move.reason
    assert "cover 100% of its chip-hours" in move.reason
    assert f"${a.monthly_cost_usd:,.2f} a month there" in move.reason
    assert "paid for whether used or not" in move.reason

"""The roadmap over a horizon: hand-solvable cases, and every rule re-checked month by month."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from placement.analysing.checks import check_plan
from placement.horizon.checks import check_roadmap
from placement.horizon.releases import catalog_in
from placement.models.catalog import Catalog
from placement.models.plan import Plan, Roadmap
from placement.pipeline import PlanResult, plan
from placement.reading import read_inventory
from placement.reporting.plan import render_plan, summary_lines
from tests.conftest import frame, make_catalog, simple_catalog_dict, workload
from tests.test_cli import invoke

SAMPLE = Path(__file__).parent.parent / "inputs" / "sample_inventory.csv"

MIGRATION_USD = 5000.0  # one-off of the Neuron programme in these tests
PORT_USD = 200.0  # 2 weeks x $100
SWITCH_USD = 500.0  # a move, where a test sets it (less than a month's saving)


def horizon_catalog(edit: Any = None, reservations: bool = False) -> Catalog:
    """The simple catalog on a 730-hour month (4.345 weeks): a 13-week migration programme is
    3 months and a 2-week port 1 month, so Trainium2 is usable from month 5 at the earliest;
    one-offs amortized over 12 months in the steady state; on demand only unless told."""

    def change(data: dict[str, Any]) -> None:
        econ = data["economics"]
        econ["hours_per_month"]["value"] = 730
        econ["amortization_months"]["value"] = 12
        neuron = data["platforms"]["neuron"]
        for key, value in (("migration_lead_weeks", 13), ("migration_one_off_usd", MIGRATION_USD)):
            neuron[key].update(low=value, high=value, point=value)
        if not reservations:
            del data["pricing_options"]["reserved_1yr"]
        if edit is not None:
            edit(data)

    return make_catalog(simple_catalog_dict(), change)


def run(rows: list[dict[str, Any]], catalog: Catalog, months: int | None) -> PlanResult:
    inventory = read_inventory(
        frame(rows), list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    result = plan(inventory, catalog, horizon=months)
    # The plan, and its JSON read back as a script would, re-check clean.
    for plan_ in (result.plan, Plan.model_validate_json(result.plan.model_dump_json())):
        if months is not None:
            assert check_roadmap(plan_, result.inventory.workloads, catalog) == []
        # The end state runs on the SDK of the horizon's last month.
        end = catalog if months is None else catalog_in(catalog, months)
        assert check_plan(plan_, result.inventory.workloads, end) == []
    return result


def roadmap_of(result: PlanResult) -> Roadmap:
    assert result.plan.roadmap is not None
    return result.plan.roadmap


def target_of(plan_: Plan, workload_id: str) -> tuple[str, int | None]:
    assert plan_.roadmap is not None
    [w] = [w for w in plan_.roadmap.workloads if w.workload_id == workload_id]
    return w.target_accelerator, w.ready_month


def on_demand_saving(result: PlanResult, workload_id: str) -> float:
    """H100 minus Trainium2 compute a month for one workload, from its options."""
    [a] = [a for a in result.plan.assignments if a.workload_id == workload_id]
    cost = {o.accelerator: o.monthly_cost_usd for o in a.options if o.pricing == "on_demand"}
    return cost["h100"] - cost["trn2"]


def test_a_migration_that_pays_in_steady_state_but_not_within_a_year_waits_for_24_months() -> None:
    catalog = horizon_catalog()
    job = workload("job", h100_gpu_hours=500)
    steady = run([job], catalog, None)
    saving = on_demand_saving(steady, "job")
    one_off = MIGRATION_USD + PORT_USD
    # The steady state pays it back within its 12-month amortization; a 12-month horizon,
    # whose first 4 months run on H100 while the programme and the port take their time,
    # does not; 24 months do.
    assert 8 * saving < one_off < 12 * saving
    assert target_of_steady(steady) == "trn2"
    year = run([job], catalog, 12)
    assert target_of(year.plan, "job") == ("h100", 1)
    assert roadmap_of(year).steps == []
    two_years = run([job], catalog, 24)
    assert target_of(two_years.plan, "job") == ("trn2", 5)
    steps = {(s.item, s.start_month, s.ready_month) for s in roadmap_of(two_years).steps}
    assert steps == {("migration", 1, 4), ("port", 4, 5)}
    # The horizon's cost, by hand: 4 months on H100, 20 on Trainium2, and the one-offs.
    h100 = steady.plan.assignments[0].options
    cost = {o.accelerator: o.monthly_cost_usd for o in h100 if o.pricing == "on_demand"}
    expected = 4 * cost["h100"] + 20 * cost["trn2"] + one_off
    assert roadmap_of(two_years).total_usd == pytest.approx(expected, abs=0.5)
    assert two_years.plan.objective_monthly_usd == pytest.approx(expected / 24, abs=0.05)
    # Against staying on H100: the saving turns positive once the one-offs are paid back.
    road = roadmap_of(two_years)
    assert road.stay_total_usd == pytest.approx(24 * cost["h100"], abs=0.5)
    months_to_pay = 4 + one_off / saving
    assert road.payback_month == int(months_to_pay) + 1
    assert road.first_year_net_usd == pytest.approx(8 * saving - one_off, abs=0.5)
    # The headline's comparisons are the same 24 months: staying on H100 and all H100 on
    # demand are both 24 months of the H100 cost here; the end state is the steady state.
    assert road.stay_monthly_usd == pytest.approx(cost["h100"], abs=0.05)
    assert road.all_h100_on_demand_total_usd == pytest.approx(24 * cost["h100"], abs=0.5)
    assert road.all_h100_on_demand_monthly_usd == pytest.approx(cost["h100"], abs=0.05)
    assert road.end_state_monthly_usd == pytest.approx(steady.plan.objective_monthly_usd, abs=0.05)


def target_of_steady(result: PlanResult) -> str:
    [a] = result.plan.assignments
    return a.accelerator


def test_ports_under_one_engineer_queue_the_more_valuable_first() -> None:
    def adopted(data: dict[str, Any]) -> None:
        data["platforms"]["neuron"]["adopted"] = True
        data["economics"]["porting_engineers"] = 1

    rows = [
        workload("small", model_family="t5", h100_gpu_hours=300),
        workload("big", model_family="llama", h100_gpu_hours=900),
    ]
    result = run(rows, horizon_catalog(adopted), 6)
    ports = {s.family: (s.start_month, s.ready_month) for s in roadmap_of(result).steps}
    assert ports == {"llama": (1, 2), "t5": (2, 3)}
    assert target_of(result.plan, "big") == ("trn2", 2)
    assert target_of(result.plan, "small") == ("trn2", 3)
    # Without the cap both ports run at once.
    free = run(rows, horizon_catalog(lambda d: d["platforms"]["neuron"].update(adopted=True)), 6)
    assert {s.family: s.ready_month for s in roadmap_of(free).steps} == {"llama": 2, "t5": 2}


def _owned_h100(months_left: int) -> Any:
    def edit(data: dict[str, Any]) -> None:
        data["owned_commitments"] = [
            {
                "pricing": "reserved_1yr",
                "accelerator": "h100",
                "units": 1,
                "months_left": months_left,
                "source": "test",
            }
        ]

    return edit


def test_an_owned_commitment_expiring_is_replaced_only_if_it_pays() -> None:
    catalog = horizon_catalog(_owned_h100(5), reservations=True)
    # A one-chip job running all month on H100: one reservation unit covers it.
    always = workload("job", h100_gpu_hours=730, pinned_accelerator="h100")
    result = run([always], catalog, 18)
    bought = [(p.month, p.units) for p in roadmap_of(result).purchases]
    # Renewed as each runs out: in month 6 as the owned unit ends, and in month 18 as that one
    # does. The job runs on after the horizon, so month 18's unit is weighed on the one payment
    # inside it; its 11 later ones are reported, not charged.
    assert bought == [(6, 1), (18, 1)]
    assert "owned reserved_1yr/h100/1" in roadmap_of(result).months[4].commitments_expiring
    road = roadmap_of(result)
    assert road.after_horizon_usd == pytest.approx(11 * 730 * 2 * 0.5)
    assert road.after_horizon_charged_usd == 0
    # The same job ending in month 8: a year's payments for three months' use do not pay.
    ending = run([{**always, "end_month": 8}], catalog, 18)
    assert roadmap_of(ending).purchases == []


def test_each_workload_moves_in_its_own_month_waiting_out_an_owned_commitment() -> None:
    def adopted_and_owned(data: dict[str, Any]) -> None:
        data["platforms"]["neuron"]["adopted"] = True
        _owned_h100(5)(data)
        switching = data["economics"]["switching_usd_per_workload"]
        switching.update(low=SWITCH_USD, high=SWITCH_USD, point=SWITCH_USD)
        # Reservations 20% off ($1.60 an H100 hour): dearer than Trainium2's $1, so moving pays.
        discount = data["pricing_options"]["reserved_1yr"]["discount_vs_on_demand"]
        discount.update(low=0.2, high=0.2, point=0.2)

    catalog = horizon_catalog(adopted_and_owned, reservations=True)
    # Two one-chip jobs on H100 today, one unit owned for 5 more months: the port is ready in
    # month 2; one job moves then, the other once the unit it runs on has run out.
    rows = [workload(name, h100_gpu_hours=730, current_accelerator="h100") for name in ("a", "b")]
    months = 8
    result = run(rows, catalog, months)
    road = roadmap_of(result)
    assert [(s.family, s.start_month, s.ready_month) for s in road.steps] == [("llama", 1, 2)]
    assert road.purchases == []  # $1.60 reserved against $1 on Trainium2 once ported
    assert sorted(w.ready_month for w in road.workloads) == [2, 6]
    assert [len(m.moves) for m in road.months] == [0, 1, 0, 0, 0, 1, 0, 0]
    # By hand: month 1 one job on demand on H100 (the owned unit covers the other); one job on
    # Trainium2 from month 2, the other from month 6; the owned unit's five payments; the
    # port; two moves. Had both moved in one month, one job would pay twice (months 2-5) or
    # run on demand on H100 instead of on Trainium2 (months 2-5).
    options = result.plan.assignments[0].options
    cost = {o.accelerator: o.monthly_cost_usd for o in options if o.pricing == "on_demand"}
    unit = road.months[0].commitments_usd
    expected = cost["h100"] + (7 + 3) * cost["trn2"] + 5 * unit + PORT_USD + 2 * SWITCH_USD
    assert road.total_usd == pytest.approx(expected, abs=0.1)


def test_a_workload_ending_in_month_3_gets_no_one_year_commitment() -> None:
    catalog = horizon_catalog(reservations=True)
    always = workload("job", h100_gpu_hours=730, pinned_accelerator="h100")
    lasting = run([always], catalog, 12)
    assert [(p.month, p.units, p.term_months) for p in roadmap_of(lasting).purchases] == [
        (1, 1, 12)
    ]
    for months in (3, 6, 12):
        short = run([{**always, "end_month": 3}], catalog, months)
        assert roadmap_of(short).purchases == []
        assert all(m.cost_usd == 0 for m in roadmap_of(short).months[3:])


def test_a_workload_on_trainium2_today_stays_there_without_lead_time() -> None:
    catalog = horizon_catalog()
    today = workload("today", h100_gpu_hours=500, needed_in_weeks=0, current_accelerator="trn2")
    result = run([today], catalog, 12)
    assert target_of(result.plan, "today") == ("trn2", 1)
    road = roadmap_of(result)
    assert road.steps == [] and road.months[0].workloads_by_accelerator == {"trn2": 1}
    assert sum(m.switching_usd + m.migration_usd + m.porting_usd for m in road.months) == 0


def test_growth_and_months_shape_the_monthly_cost() -> None:
    catalog = horizon_catalog()
    rows = [
        workload("grows", h100_gpu_hours=100, monthly_growth=0.5, pinned_accelerator="h100"),
        workload("late", h100_gpu_hours=200, start_month=3, end_month=4, pinned_accelerator="h100"),
    ]
    result = run(rows, catalog, 5)
    rate = 2.0  # the simple catalog's H100 dollars per GPU-hour
    expected = [rate * (100 * 1.5 ** (m - 1) + (200 if 3 <= m <= 4 else 0)) for m in range(1, 6)]
    got = [m.cost_usd for m in roadmap_of(result).months]
    assert got == pytest.approx(expected, abs=0.05)
    assert [m.workloads_by_accelerator for m in roadmap_of(result).months][2] == {"h100": 2}


def test_without_a_horizon_the_plan_has_no_roadmap_and_is_unchanged() -> None:
    catalog = horizon_catalog()
    job = workload("job", h100_gpu_hours=500)
    steady = run([job], catalog, None)
    assert steady.plan.roadmap is None
    assert steady.plan.run is not None and steady.plan.run.horizon_months is None


def test_the_cli_gives_the_roadmap_in_json_csv_and_the_table(tmp_path: Path) -> None:
    inventory = tmp_path / "inv.csv"
    inventory.write_text(
        "id,kind,model_family,params_b,h100_gpu_hours,current_accelerator,monthly_growth\n"
        "a,training,llama,8,1000,h100,0.02\n"
        "b,inference,llama,8,500,,\n"
    )
    document = invoke("plan", str(inventory), "--horizon", "3", "--format", "json")
    parsed = Plan.model_validate_json(document.stdout)
    assert parsed.roadmap is not None and parsed.roadmap.horizon_months == 3
    assert parsed.run is not None and parsed.run.horizon_months == 3
    assert len(parsed.roadmap.months) == 3
    out = tmp_path / "plan.csv"
    invoke("plan", str(inventory), "--horizon", "3", "--format", "csv", "-o", str(out))
    months = (tmp_path / "plan.roadmap.csv").read_text().splitlines()
    assert months[0].startswith("month,cost_usd,on_demand_usd") and len(months) == 4
    table = invoke("plan", str(inventory), "--horizon", "3").stdout
    assert "Roadmap by month" in table and "every workload on its target" in table
    streamed = invoke("plan", str(inventory), "--horizon", "3", "--format", "csv").stdout
    assert "\n# roadmap\nmonth," in streamed


def test_whatif_and_sweep_plan_roadmaps_when_given_a_horizon() -> None:
    from placement.catalog import Setting, read_catalog
    from placement.comparing import whatif
    from placement.comparing.sweep import Parameter, sweep
    from placement.scenarios import Scenario

    source = read_catalog()
    rows = [workload("job", h100_gpu_hours=500, current_accelerator="h100")]
    inventory = read_inventory(
        frame(rows), list(source.catalog.accelerators), load_profiles=source.catalog.profile_kinds()
    )
    price = Setting("accelerators.h100.on_demand_usd_per_chip_hour", 3.0, "3.0", "test", "test")
    cheaper = Scenario("cheaper", "", "test", "", (price,))
    compared = whatif(inventory, [cheaper], source, workers=1, horizon=4)
    for outcome in compared.outcomes:
        assert outcome.plan.roadmap is not None and outcome.plan.roadmap.horizon_months == 4
    volume = Parameter.parse_range("inventory.h100_gpu_hours", "100:200:2")
    swept = sweep(inventory, [volume], source, workers=1, horizon=4)
    assert all(p.plan.roadmap is not None for p in swept.points)


def _speculative_decoding_from(month: int) -> Any:
    """Neuron adopted, and speculative decoding supported from ``month`` of the horizon."""

    def edit(data: dict[str, Any]) -> None:
        neuron = data["platforms"]["neuron"]
        neuron["adopted"] = True
        neuron["feature_roadmap"] = [
            {
                "feature": "speculative_decoding",
                "from_month": month,
                "sdk_version": "2.30",
                "rule": {"support": "supported", "source": "test"},
                "source": "test: a future Neuron SDK",
            }
        ]

    return edit


def test_a_dated_sdk_feature_moves_a_workload_when_it_arrives() -> None:
    job = workload(
        "serve",
        kind="inference",
        serving="batch",
        h100_gpu_hours=2000,  # saves $2,000 a month on Trainium2: more than the switching
        features="speculative_decoding",
        neuron_ready=True,
        current_accelerator="h100",
    )
    # Today's SDK cannot run it on Trainium2: it stays on H100 for the whole horizon...
    steady = run([job], horizon_catalog(_speculative_decoding_from(99)), 12)
    assert target_of(steady.plan, "serve") == ("h100", 1)
    # ...and from the month the SDK brings the feature, it moves (no port: Neuron-ready).
    later = run([job], horizon_catalog(_speculative_decoding_from(4)), 12)
    assert target_of(later.plan, "serve") == ("trn2", 4)
    road = roadmap_of(later)
    assert road.months[2].workloads_by_accelerator == {"h100": 1}
    assert road.months[3].workloads_by_accelerator == {"trn2": 1} and road.months[3].moves == [
        "serve"
    ]
    # The end state is planned with the SDK of the horizon's last month.
    assert later.plan.assignments[0].accelerator == "trn2"


def test_a_dated_feature_must_name_a_known_feature() -> None:
    with pytest.raises(ValueError, match="not one of"):
        horizon_catalog(
            lambda d: d["platforms"]["neuron"].update(
                feature_roadmap=[
                    {
                        "feature": "flash_atention",
                        "from_month": 3,
                        "rule": {"support": "supported", "source": "t"},
                        "source": "t",
                    }
                ]
            )
        )


def test_capacity_does_not_lapse_because_the_horizon_ends() -> None:
    def owned_and_40_off(data: dict[str, Any]) -> None:
        _owned_h100(5)(data)
        discount = data["pricing_options"]["reserved_1yr"]["discount_vs_on_demand"]
        discount.update(low=0.4, high=0.4, point=0.4)

    catalog = horizon_catalog(owned_and_40_off, reservations=True)
    # One H100 all month, an owned unit with 5 months left, 12 months planned. A unit bought in
    # month 6 is paid 7 times inside the horizon for 7 months of use at 60% of on demand; its
    # 5 payments after the horizon are the next months' (the job runs on). Charging them here
    # would weigh 12 payments against 7 months (12 x 0.6 > 7) and leave months 6-12 on demand.
    result = run([workload("job", h100_gpu_hours=730, pinned_accelerator="h100")], catalog, 12)
    road = roadmap_of(result)
    assert [(p.month, p.units) for p in road.purchases] == [(6, 1)]
    unit = 730 * 2 * 0.6
    assert [m.on_demand_usd for m in road.months] == [0] * 12
    assert [m.commitments_usd for m in road.months] == pytest.approx([unit] * 12)
    assert road.after_horizon_usd == pytest.approx(5 * unit)
    assert road.after_horizon_charged_usd == 0
    assert road.total_usd == pytest.approx(12 * unit)
    assert result.plan.objective_monthly_usd == pytest.approx(unit)


def test_check_plan_reads_a_roadmaps_breakdown_from_its_months() -> None:
    # A roadmap's breakdown is the horizon's monthly average of its months' components; its
    # assignments and commitments are the end state's. check_plan holds it to the months.
    catalog = horizon_catalog(reservations=True)
    result = run([workload("job", h100_gpu_hours=730, pinned_accelerator="h100")], catalog, 6)
    road = roadmap_of(result)
    breakdown = result.plan.cost_breakdown
    assert breakdown.reserved_usd == pytest.approx(
        (sum(m.commitments_usd for m in road.months) + road.after_horizon_charged_usd) / 6,
        abs=0.01,
    )
    wrong = result.plan.model_copy(
        update={"cost_breakdown": breakdown.model_copy(update={"on_demand_usd": 100.0})}
    )
    problems = check_plan(wrong, result.inventory.workloads, catalog)
    assert any("on_demand_usd is 100.0" in p for p in problems)


def test_a_roadmap_that_changes_nothing_says_so(tmp_path: Path) -> None:
    """Services that stay on H100, nothing owned: the roadmap moves nothing and ports nothing,
    so it is its own comparison (no saving, no payback: solver-gap noise between it and the
    stay-put model is not a saving), and it buys its commitments in month 1."""
    from tests.test_commitments import _catalog, _service

    rows = [
        _service("chat", 8, current_accelerator="h100"),
        _service("agent", 20, current_accelerator="h100"),
    ]
    catalog = _catalog()
    result = run(rows, catalog, 12)
    roadmap = roadmap_of(result)
    assert roadmap.changes_nothing
    assert roadmap.payback_month is None and roadmap.first_year_net_usd == 0
    assert all(month.saving_usd == 0 for month in roadmap.months)
    assert roadmap.stay_total_usd == roadmap.total_usd
    assert {p.month for p in roadmap.purchases} == {1}
    inventory = tmp_path / "inv.csv"
    frame(rows).to_csv(inventory, index=False)
    table = invoke("plan", inventory, "--horizon", "12")
    assert table.exit_code == 0, table.output
    assert "changes nothing" in table.output
    # Where its last month and the end state (the same placement planned as a steady state)
    # differ by more than the gap, the summary says by how much and why.
    end_state, last = roadmap.end_state_monthly_usd, roadmap.months[-1].cost_usd
    assert end_state is not None
    differ = abs(end_state - last) > 1e-3 * end_state + 1.0
    assert ("roadmap month 12" in table.output) == differ
    if differ:
        note = dict(summary_lines(result.plan))["  roadmap month 12"]
        assert note.startswith(f"${last:,.0f}, ${abs(end_state - last):,.0f} ")


def test_a_roadmap_that_changes_nothing_costs_each_month_what_the_steady_state_does() -> None:
    """Two H100 services of 2-GPU replicas, nothing to move, no growth, nothing owned: every
    month of the roadmap is the steady state's month, so it costs what the end state costs,
    within the gap: three 8-GPU units ($42,048) and a savings plan of $5.60 an hour ($4,088),
    $46,136. A 1-GPU unit holds only 1-GPU replicas, in the roadmap's months as in the steady
    state (they bought 1-GPU units these replicas cannot use and stated $45,552)."""
    from tests.test_commitments import _catalog, _service

    rows = [
        _service("chat", 8, current_accelerator="h100"),
        _service("agent", 20, current_accelerator="h100"),
    ]
    roadmap = roadmap_of(run(rows, _catalog(), 12))
    assert roadmap.changes_nothing and roadmap.end_state_monthly_usd is not None
    assert roadmap.end_state_monthly_usd == pytest.approx(46_136, abs=0.05)
    for month in roadmap.months:
        assert month.cost_usd == pytest.approx(roadmap.end_state_monthly_usd, rel=1e-3)
    assert {p.product for p in roadmap.purchases} <= {"reserved_1yr/h100/8", "savings_plan_1yr"}


def test_the_headline_compares_the_horizons_average_over_the_same_months_and_growth() -> None:
    """Over 3 months, one job growing 10% a month and one starting in month 2: all H100 on
    demand over the horizon is each month's demand at the H100 on-demand cost, averaged over
    the 3 months; staying put and the end state are labelled as what they are."""
    catalog = horizon_catalog()
    rows = [
        workload("grows", h100_gpu_hours=500, monthly_growth=0.1),
        workload("late", h100_gpu_hours=200, start_month=2),
    ]
    result = run(rows, catalog, 3)
    road = roadmap_of(result)
    h100 = {
        a.workload_id: next(
            o.monthly_cost_usd
            for o in a.options
            if (o.accelerator, o.pricing) == ("h100", "on_demand")
        )
        for a in result.plan.assignments
    }
    assert h100 == {"grows": 1000.0, "late": 400.0}  # 500 and 200 GPU-hours at $2
    total = h100["grows"] * (1 + 1.1 + 1.21) + h100["late"] * (0 + 1 + 1)  # 4,110
    assert road.all_h100_on_demand_total_usd == pytest.approx(total, abs=0.05)
    assert road.all_h100_on_demand_monthly_usd == pytest.approx(total / 3, abs=0.01)  # 1,370
    # Three months are too few for the Neuron programme: the roadmap stays on H100.
    assert road.stay_monthly_usd == pytest.approx(result.plan.objective_monthly_usd, abs=0.05)
    lines = dict(summary_lines(result.plan))
    assert lines["monthly cost"] == "$1,370 (average of 3 months)"
    # It runs on H100 on demand all along (nothing pays in 3 months), so the same.
    assert lines["all H100 on-demand (same)"] == "$1,370 (the same)"
    assert lines["staying put (3-month avg)"] == "$1,370 (the same)"
    assert lines["end state (month 3 on)"].endswith("a month")
    # Its one-offs are spread over the horizon's months, not amortized: the labels say so.
    assert "  porting (over 3 months)" in lines and "  porting (amortized)" not in lines


def test_a_sample_roadmap_shows_what_it_buys_and_its_json_checks_clean() -> None:
    """The sample over 12 months: the JSON re-checks clean; the table lists the roadmap's
    purchases beside the end state's commitments (labelled as such), fits 80 columns, and its
    Roadmap section has no empty header row."""
    result = plan(SAMPLE, horizon=12)
    document = Plan.model_validate_json(result.plan.model_dump_json())
    workloads = result.inventory.workloads
    assert check_roadmap(document, workloads, result.catalog) == []
    assert check_plan(document, workloads, catalog_in(result.catalog, 12)) == []
    road = roadmap_of(result)
    bought = {(p.product, p.units) for p in road.purchases if p.units is not None}
    assert bought == {("reserved_1yr/h100/1", 5), ("reserved_1yr/h100/8", 14)}
    table = render_plan(result.plan, "table")
    assert max(len(line) for line in table.splitlines()) <= 80
    # Its months are priced in the steady state's month model (part-month training covered
    # only by what is free while it runs, cover in whole chips), so its last month costs what
    # the same placement planned as a steady state does, and buys what that one holds.
    last, end_state = road.months[-1].cost_usd, road.end_state_monthly_usd
    assert end_state is not None and last == pytest.approx(end_state, rel=1e-3)
    assert "  roadmap month 12" not in dict(summary_lines(result.plan))
    held = {(c.pricing, c.unit_chips, c.units) for c in result.plan.commitments}
    assert held == {("reserved_1yr", 1, 5), ("reserved_1yr", 8, 14)}
    lines = table.splitlines()
    buys = lines.index("Commitments the roadmap buys")
    assert "reserved_1yr/h100/8   14 units" in "\n".join(lines[buys : buys + 8])
    assert any(line.startswith("End-state commitments (month 12 on") for line in lines)
    roadmap = lines.index("Roadmap")
    assert lines[roadmap + 1].split()[0] == "horizon"  # no header row, no rule


def test_over_a_horizon_a_part_month_job_is_covered_only_by_what_steady_work_leaves_free() -> None:
    """The steady state's case (tests/test_commitments.py) over 4 months: two owned 8-GPU units
    for 5 more months, a chat service on 8 GPUs around the clock, a 70B fine-tune on 24 GPUs
    for 125 hours a month. While it runs only 8 owned GPUs are free: each month costs
    16 x 730 x $2.40 owned + 2,000 GPU-hours on demand x $4 = $36,032, as in the steady state
    (the roadmap's months covered the job with all 16 held GPUs: $32,032)."""
    from tests.test_commitments import _catalog, _no_savings_plan, _owning, _service, _training

    rows = [_service("chat", 8), _training("ft", 70, 3000, pinned_accelerator="h100")]
    catalog = _catalog(_owning(2), _no_savings_plan)
    result = run(rows, catalog, 4)
    road = roadmap_of(result)
    owned = 16 * 730 * 4.0 * (1 - 0.4)
    for month in road.months:
        assert month.commitments_usd == pytest.approx(owned, abs=0.05)
        assert month.on_demand_usd == pytest.approx(2000 * 4.0, abs=0.05)
        assert month.cost_usd == pytest.approx(36_032, abs=0.05)
    assert road.purchases == []
    assert road.end_state_monthly_usd == pytest.approx(36_032, abs=0.05)
    assert result.plan.objective_monthly_usd == pytest.approx(36_032, abs=0.05)


def test_over_a_horizon_flexible_work_is_placed_in_whole_chips_as_in_the_steady_state() -> None:
    """Four 1-GPU dev jobs of 250 GPU-hours a month over 3 months (tests/test_whole_chips.py):
    one GPU busy all month, a second 270 hours; every month is the steady state's, a reserved
    GPU ($1,752) and 270 hours on demand ($1,080): $2,832, no savings plan (worth part of a
    GPU, it is not used all month)."""
    from tests.test_whole_chips import CATALOG, _dev_jobs

    road = roadmap_of(run(_dev_jobs(4, 250), CATALOG, 3))
    for month in road.months:
        assert month.cost_usd == pytest.approx(2_832.0, rel=1e-3)
        assert month.commitments_usd == pytest.approx(1_752.0, rel=1e-3)
    assert [(p.product, p.units) for p in road.purchases] == [("reserved_1yr/h100/1", 1)]


def test_a_gang_job_beside_owned_gpus_a_service_fills_moves_when_the_steady_state_would() -> None:
    """A chat service on 50 of 64 owned H100 (8 units of 8, 24 months left) and a 405B
    pre-training of 18,624 GPU-hours a month on 128 GPUs for 145.5 hours: while it runs only 14
    owned GPUs are free, 2,037 of its GPU-hours covered. Spread over the month, as the roadmap
    MILP prices work, the owned GPUs looked to cover 10,220 of them, staying on H100 looked
    cheapest and the roadmap kept it there, while the steady state moves it to Trainium2. With
    short work's cover bounded by what the service leaves free, the roadmap moves it too, and
    the MILP's months are what the steady state's month model makes of them."""
    import re

    from tests.test_commitments import _catalog, _service

    def owning(data: dict[str, Any]) -> None:
        data["owned_commitments"] = [
            {
                "pricing": "reserved_1yr",
                "accelerator": "h100",
                "unit_chips": 8,
                "units": 8,
                "months_left": 24,
                "source": "test: bought last year",
            }
        ]

    rows = [
        _service("chat", 60, current_accelerator="h100", pinned_accelerator=None),
        {
            "id": "pretrain",
            "kind": "training",
            "model_family": "llama",
            "params_b": 405,
            "precision": "bf16",
            "h100_gpu_hours": 18624,
            "current_accelerator": "h100",
        },
    ]
    catalog = _catalog(owning)
    steady = run(rows, catalog, None).plan
    assert {a.workload_id: a.accelerator for a in steady.assignments}["pretrain"] == "trn2"
    result = run(rows, catalog, 12)
    road = roadmap_of(result)
    assert target_of(result.plan, "pretrain")[0] == "trn2"
    assert road.stay_total_usd is not None and road.total_usd < road.stay_total_usd
    # Staying, the pre-training's 18,624 GPU-hours less the 2,037 that 14 free GPUs cover
    # for 145.5 hours are paid on demand at $4 (the chat's 50 GPUs on owned units).
    assert road.months[0].on_demand_usd == pytest.approx((18_624 - 14 * 145.5) * 4.0, abs=1.0)
    [priced, decided] = re.findall(r"\$([\d,.]+)", result.solve.termination.split("; months")[1])[
        :2
    ]
    assert float(priced.replace(",", "")) == pytest.approx(
        float(decided.replace(",", "")), rel=1e-3
    )


def test_growth_that_takes_a_volume_past_its_bound_is_refused_with_the_most_it_may_be(
    tmp_path: Path,
) -> None:
    """monthly_growth 10 is a valid cell, but over 12 months it makes 1,000 GPU-hours 2.9e14:
    refused before any solve, naming the row, the column and the largest growth that fits."""
    inv = tmp_path / "grow.csv"
    inv.write_text(
        "id,kind,model_family,params_b,h100_gpu_hours,monthly_tokens_b,serving,ttft_slo_ms,"
        "monthly_growth\n"
        "ft,training,llama,70,1000,,,,10\n"
        "chat,inference,llama,8,,30,online,500,0.05\n",
        encoding="utf-8",
    )
    result = invoke("plan", inv, "--horizon", "12")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "row 1 (workload 'ft'), column 'monthly_growth': got 10" in result.stderr
    most = (1e9 / 1000) ** (1 / 11) - 1  # 1,000 GPU-hours may grow to the bound by month 12
    assert f"expected at most {int(most * 1e4) / 1e4:g}" in result.stderr
    assert "chat" not in result.stderr  # 5% a month stays far inside its bound
    assert invoke("plan", inv).exit_code == 0  # growth means nothing without a horizon

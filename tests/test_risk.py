"""risk: the catalog's ranges sampled, every sample planned; hand-solvable cases and invariants."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from placement.catalog import default_catalog_text, read_catalog
from placement.models.catalog import Catalog, uncertain_ranges
from placement.models.risk import RiskResult
from placement.pipeline import SolverOptions
from placement.reading import Inventory, read_inventory
from placement.reporting.risk import render_risk
from placement.uncertainty import evaluate
from placement.uncertainty.risk import risk
from placement.uncertainty.sampling import Figure, draw_values, uncertain_figures
from tests.conftest import frame, simple_catalog_dict, workload
from tests.test_cli import assert_clean_failure, invoke

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"
EXACT = SolverOptions(gap=0.0)
TRN2_PRICE = "accelerators.trn2.on_demand_usd_per_chip_hour"

# Two 1B llama training jobs of 10,000 H100 GPU-hours each (100 chips all month) in the simple
# catalog (conftest): on H100, 1-chip reservations at $1/chip-hour cost 2 x $10,000; on
# Trainium2 at price p, 4-chip reservations at half of p cost 200 chips x 100 h x p/2 = 10,000 p,
# plus llama's port (2 weeks x $100) and the migration ($500), amortised over one month. The
# migration pays exactly when 10,000 p + 700 < 20,000: below p = 1.93.
BREAK_EVEN_PRICE = 1.93
ALL_H100_USD = 20_000.0


def _node(data: dict[str, Any], path: str) -> dict[str, Any]:
    node: Any = data
    for key in path.split("."):
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def one_uncertain_figure(
    data: dict[str, Any],
    path: str | None,
    low: float = 0.0,
    high: float = 0.0,
    point: float | None = None,
) -> Catalog:
    """The catalog with every range at its point except ``path`` (if any), uniform on
    [low, high]."""
    for where in uncertain_ranges(Catalog.model_validate(data)):
        node = _node(data, where)
        if where == path:
            node.update(low=low, high=high, point=point, distribution="uniform")
        else:
            value = node.get("point")
            value = (node["low"] + node["high"]) / 2 if value is None else value
            node.update(low=value, high=value, point=value)
    return Catalog.model_validate(data)


def inventory_of(rows: list[dict[str, Any]], catalog: Catalog) -> Inventory:
    return read_inventory(
        frame(rows), list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )


def two_jobs(catalog: Catalog) -> Inventory:
    rows = [workload("a", h100_gpu_hours=10_000), workload("b", h100_gpu_hours=10_000)]
    return inventory_of(rows, catalog)


def sampled_prices(result: RiskResult, catalog: Catalog) -> np.ndarray:
    figures = uncertain_figures(catalog)
    assert [f.path for f in figures] == [TRN2_PRICE]
    return draw_values(catalog, figures, result.seed, result.samples)[:, 0]


def risk_json(tmp_path: Path, *args: str | Path) -> dict[str, Any]:
    """``placement risk SAMPLE ARGS --workers 1 --format json -o FILE``, read back."""
    out = tmp_path / "risk.json"
    done = invoke("risk", SAMPLE, *args, "--workers", "1", "--format", "json", "-o", out)
    assert done.exit_code == 0, done.stderr
    document: dict[str, Any] = json.loads(out.read_text())
    return document


def assert_invariants(result: RiskResult) -> None:
    """What holds for every risk result: ordered percentiles, regret never negative, each
    sample's optimum at most the held plan, chances between 0 and 1."""
    for spread in (result.optimal_cost_usd, result.base_plan_cost_usd, result.all_h100_cost_usd):
        if spread.samples:
            assert spread.p10 is not None and spread.p50 is not None and spread.p90 is not None
            assert spread.p10 <= spread.p50 <= spread.p90
    for sample in result.sample_costs:
        if sample.regret_usd is not None:
            assert sample.regret_usd >= 0
        if sample.optimal_usd is not None and sample.base_plan_usd is not None:
            assert sample.optimal_usd <= sample.base_plan_usd + 0.01
    for chance in (
        result.probability_beats_all_h100,
        result.probability_beats_staying,
        result.probability_base_plan_beats_all_h100,
    ):
        assert chance is None or 0 <= chance <= 1
    assert all(0 <= share <= 1 for share in result.trainium_share.values())


# --- sampling ---------------------------------------------------------------------------


@pytest.mark.parametrize("distribution", ["uniform", "triangular"])
def test_a_figure_is_drawn_by_its_distribution(distribution: str) -> None:
    figure = Figure("x", low=0.0, point=0.0, high=1.0, distribution=distribution)
    assert figure.at(0.0) == 0.0
    assert figure.at(1.0) == pytest.approx(1.0)
    # The median: 0.5 for the uniform; 1 - sqrt(1/2) for a triangle with its mode at 0.
    expected = 0.5 if distribution == "uniform" else 1 - 0.5**0.5
    assert figure.at(0.5) == pytest.approx(expected)


def test_draws_follow_the_stated_distributions() -> None:
    catalog = read_catalog().catalog
    figures = uncertain_figures(catalog)
    values = draw_values(catalog, figures, seed=11, count=2000)
    for column, figure in enumerate(figures):
        drawn = values[:, column]
        assert drawn.min() >= figure.low and drawn.max() <= figure.high
        expected = (
            (figure.low + figure.high) / 2
            if figure.distribution == "uniform"
            else (figure.low + figure.point + figure.high) / 3
        )
        width = figure.high - figure.low
        assert abs(drawn.mean() - expected) < 0.03 * width, figure.path


def test_linked_figures_move_together_and_against() -> None:
    catalog = read_catalog().catalog
    figures = uncertain_figures(catalog)
    values = draw_values(catalog, figures, seed=5, count=2000)
    column = {f.path: i for i, f in enumerate(figures)}

    def rank_corr(a: str, b: str) -> float:
        x, y = values[:, column[a]], values[:, column[b]]
        return float(np.corrcoef(np.argsort(np.argsort(x)), np.argsort(np.argsort(y)))[0, 1])

    # The two prices move in lockstep (correlation 1).
    assert rank_corr(TRN2_PRICE, "accelerators.h100.on_demand_usd_per_chip_hour") > 0.999
    # The SDK's maturity: throughput with it, porting weeks against it (correlation 0.8).
    throughput = "accelerators.trn2.inference_throughput_vs_reference"
    assert rank_corr(throughput, "accelerators.trn2.inference_serving_efficiency") > 0.6
    assert rank_corr(throughput, "platforms.neuron.porting_weeks_per_family") < -0.6
    # A figure linked nowhere is independent of them.
    assert abs(rank_corr(throughput, "economics.porting_engineer_usd_per_week")) < 0.1


def test_a_sample_is_the_same_however_many_are_drawn() -> None:
    catalog = read_catalog().catalog
    figures = uncertain_figures(catalog)
    many = draw_values(catalog, figures, seed=3, count=50)
    few = draw_values(catalog, figures, seed=3, count=7)
    assert np.array_equal(many[:7], few)
    assert not np.array_equal(draw_values(catalog, figures, seed=4, count=7), few)


def test_the_break_even_share_of_uniform_draws() -> None:
    catalog = one_uncertain_figure(simple_catalog_dict(), TRN2_PRICE, 1.5, 2.5)
    prices = draw_values(catalog, uncertain_figures(catalog), seed=1, count=4000)[:, 0]
    # (1.93 - 1.5) / (2.5 - 1.5) = 0.43 of the futures lie below the break-even price.
    assert abs((prices < BREAK_EVEN_PRICE).mean() - 0.43) < 3 * (0.43 * 0.57 / 4000) ** 0.5


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("accelerators.trn2.chip", "is not a range of this catalog"),
        ("accelerators.trn2.on_demand_usd_per_chip_hor", "is not a field"),
        ("accelerators.trn3.on_demand_usd_per_chip_hour", "no 'accelerators.trn3'"),
    ],
)
def test_a_linked_path_that_is_not_a_range_is_refused(
    tmp_path: Path, path: str, message: str
) -> None:
    data = yaml.safe_load(default_catalog_text())
    data["uncertainty"]["linked"]["neuron_sdk_maturity"]["figures"][path] = "with"
    file = tmp_path / "catalog.yaml"
    file.write_text(yaml.safe_dump(data))
    result = invoke("risk", SAMPLE, "--catalog", file, "--samples", "2")
    assert_clean_failure(result)
    assert repr(path) in result.stderr and message in result.stderr


def test_a_linked_figure_a_scenario_removes_links_nothing() -> None:
    """Making flash attention supported removes its slowdown, which the default catalog links
    to the SDK's maturity: the catalog stays valid and the figure is simply not drawn."""
    catalog = read_catalog(
        overrides=[
            "platforms.neuron.features.flash_attention="
            "{support: supported, source: 'test: a future SDK'}"
        ]
    ).catalog
    paths = [f.path for f in uncertain_figures(catalog)]
    assert "platforms.neuron.features.flash_attention.attention_slowdown" not in paths
    assert "accelerators.trn2.ttft_7b_ms_cold" in paths


# --- hand-solvable cases ----------------------------------------------------------------


def test_migration_pays_below_the_break_even_price_sample_by_sample() -> None:
    """The point plan (price 2.0) stays on H100; held fixed it costs $20,000 in every future,
    and each future's optimum migrates exactly when its price is below 1.93."""
    catalog = one_uncertain_figure(simple_catalog_dict(), TRN2_PRICE, 1.5, 2.5)
    result = risk(two_jobs(catalog), catalog, samples=12, seed=2, solver=EXACT, workers=1)
    assert_invariants(result)
    assert result.point_plan_cost_usd == ALL_H100_USD
    prices = sampled_prices(result, catalog)
    for price, sample in zip(prices, result.sample_costs, strict=True):
        migrating = 10_000 * price + 700
        assert sample.all_h100_usd == pytest.approx(ALL_H100_USD)
        assert sample.base_plan_usd == pytest.approx(ALL_H100_USD)
        assert sample.optimal_usd == pytest.approx(min(migrating, ALL_H100_USD), abs=0.01)
        assert sample.regret_usd == pytest.approx(max(0.0, ALL_H100_USD - migrating), abs=0.01)
    assert result.probability_beats_all_h100 == pytest.approx(
        float((prices < BREAK_EVEN_PRICE).mean())
    )
    assert result.probability_base_plan_beats_all_h100 == 0
    cheap = float((prices < BREAK_EVEN_PRICE).mean())
    assert result.trainium_share == {"a": pytest.approx(cheap), "b": pytest.approx(cheap)}
    assert result.trainium_accelerators == ["trn2"]
    assert result.drivers[0].path == TRN2_PRICE
    assert result.drivers[0].effect_usd > 0


def test_a_held_migration_is_paid_in_every_future() -> None:
    """The point plan (price 1.8) migrates and reserves Trainium2; held fixed, its reservations,
    port and migration are paid whatever the price, so it costs 10,000 p + 700 in every
    future and beats all-H100 exactly below 1.93."""
    catalog = one_uncertain_figure(simple_catalog_dict(), TRN2_PRICE, 1.4, 2.2, point=1.8)
    result = risk(two_jobs(catalog), catalog, samples=12, seed=4, solver=EXACT, workers=1)
    assert_invariants(result)
    assert result.point_plan_cost_usd == pytest.approx(10_000 * 1.8 + 700)
    prices = sampled_prices(result, catalog)
    for price, sample in zip(prices, result.sample_costs, strict=True):
        held = 10_000 * price + 700
        assert sample.base_plan_usd == pytest.approx(held, abs=0.01)
        assert sample.optimal_usd == pytest.approx(min(held, ALL_H100_USD), abs=0.01)
        assert sample.regret_usd == pytest.approx(max(0.0, held - ALL_H100_USD), abs=0.01)
    below = float((prices < BREAK_EVEN_PRICE).mean())
    assert result.probability_base_plan_beats_all_h100 == pytest.approx(below)
    assert result.probability_beats_all_h100 == pytest.approx(below)


def test_ranges_of_zero_width_give_every_sample_the_point_plan() -> None:
    data = simple_catalog_dict()
    catalog = one_uncertain_figure(data, TRN2_PRICE, 1.8, 1.8)
    assert uncertain_figures(catalog) == []
    result = risk(two_jobs(catalog), catalog, samples=25, seed=9, solver=EXACT, workers=1)
    point = result.point_plan_cost_usd
    for spread in (result.optimal_cost_usd, result.base_plan_cost_usd):
        assert spread.samples == 25
        assert spread.mean == spread.p10 == spread.p50 == spread.p90 == point
    assert result.regret_usd.mean == result.regret_usd.max == 0
    assert result.drivers == [] and result.figures == []


def test_raising_the_h100_price_range_never_lowers_the_chance_migrating_pays() -> None:
    """Trainium2 at $2: migrating costs 20,000 + 700 and pays once H100 costs over 2.07."""
    chances = []
    for low, high in ((1.6, 2.4), (1.8, 2.6), (2.0, 2.8)):
        data = simple_catalog_dict()
        _node(data, TRN2_PRICE).update(low=2.0, high=2.0, point=2.0)
        catalog = one_uncertain_figure(
            data, "accelerators.h100.on_demand_usd_per_chip_hour", low, high
        )
        result = risk(two_jobs(catalog), catalog, samples=10, seed=1, solver=EXACT, workers=1)
        assert_invariants(result)
        chances.append(result.probability_beats_all_h100)
    assert chances == sorted(chances)
    assert chances[0] < chances[-1]


# --- running it -------------------------------------------------------------------------


def _hand_case() -> tuple[Inventory, Catalog]:
    catalog = one_uncertain_figure(simple_catalog_dict(), TRN2_PRICE, 1.5, 2.5)
    return two_jobs(catalog), catalog


def test_the_same_seed_gives_the_same_result_on_one_or_two_workers() -> None:
    inventory, catalog = _hand_case()
    one = risk(inventory, catalog, samples=8, seed=6, solver=EXACT, workers=1)
    two = risk(inventory, catalog, samples=8, seed=6, solver=EXACT, workers=2)
    assert one.model_dump() == two.model_dump()
    assert risk(inventory, catalog, samples=8, seed=7, solver=EXACT, workers=1) != one


def test_a_real_dask_cluster_gives_the_local_result(dask_cluster: str) -> None:
    inventory, catalog = _hand_case()
    local = risk(inventory, catalog, samples=6, seed=6, solver=EXACT, workers=1)
    remote = risk(inventory, catalog, samples=6, seed=6, solver=EXACT, scheduler=dask_cluster)
    assert remote.model_dump() == local.model_dump()


def test_a_failed_sample_is_recorded_and_the_rest_go_on(monkeypatch: pytest.MonkeyPatch) -> None:
    inventory, catalog = _hand_case()
    real = evaluate.evaluate_sample

    def failing(index: int, *args: Any) -> evaluate.SampleOutcome:
        if index == 3:
            raise RuntimeError("the solver's licence ran out")
        return real(index, *args)

    monkeypatch.setattr(evaluate, "evaluate_sample", failing)
    result = risk(inventory, catalog, samples=5, seed=1, solver=EXACT, workers=1)
    assert result.failed_samples == 1
    assert [f.sample for f in result.failures] == [3]
    assert "licence ran out" in (result.failures[0].error or "")
    assert result.optimal_cost_usd.samples == 4
    assert "1 sample failed and is not counted" in render_risk(result, "md")


def test_the_command_prints_the_documented_keys(tmp_path: Path) -> None:
    document = risk_json(tmp_path, "--samples", "2", "--seed", "1")
    for key in (
        "samples",
        "seed",
        "failed_samples",
        "optimal_cost_usd",
        "base_plan_cost_usd",
        "regret_usd",
        "probability_beats_all_h100",
        "probability_beats_staying",
        "trainium_share",
        "drivers",
    ):
        assert key in document, key
    for key in ("mean", "p10", "p50", "p90"):
        assert key in document["optimal_cost_usd"] and key in document["base_plan_cost_usd"]
    assert {"mean", "p90"} <= set(document["regret_usd"])
    assert all({"path", "effect_usd"} <= set(d) for d in document["drivers"])
    assert document["samples"] == 2 and document["failed_samples"] == 0
    result = RiskResult.model_validate(document)
    assert_invariants(result)
    for fmt in ("table", "csv", "md"):
        assert render_risk(result, fmt).strip()


@pytest.mark.parametrize("samples", ["0", "-3", "1.5", "1000001"])
def test_bad_sample_counts_are_usage_errors(samples: str) -> None:
    assert_clean_failure(invoke("risk", SAMPLE, "--samples", samples))


# --- uncertainty stated in the inventory ------------------------------------------------


def _fixed_catalog() -> Catalog:
    """The simple catalog with every range at its point (nothing drawn from it)."""
    return one_uncertain_figure(simple_catalog_dict(), path=None)


def test_a_volume_range_is_drawn_and_drives_the_cost() -> None:
    catalog = _fixed_catalog()
    rows = [
        workload("a", h100_gpu_hours=1000, volume_low=500, volume_high=2000),
        workload("b", h100_gpu_hours=1000),
    ]
    inventory = inventory_of(rows, catalog)
    figures = uncertain_figures(catalog)
    assert figures == []
    result = risk(inventory, catalog, samples=8, seed=1, solver=EXACT, workers=1)
    assert_invariants(result)
    assert [f.path for f in result.figures] == ["inventory.a.h100_gpu_hours"]
    assert result.figures[0].low == 500 and result.figures[0].high == 2000
    assert result.drivers[0].path == "inventory.a.h100_gpu_hours"
    assert result.drivers[0].effect_usd > 0
    costs = {s.optimal_usd for s in result.sample_costs}
    assert len(costs) > 1  # the volume moves the cost


def test_a_volume_range_of_zero_width_is_certain() -> None:
    catalog = _fixed_catalog()
    rows = [workload("a", h100_gpu_hours=1000, volume_low=1000, volume_high=1000)]
    result = risk(inventory_of(rows, catalog), catalog, samples=3, seed=1, solver=EXACT, workers=1)
    assert result.figures == []
    assert result.optimal_cost_usd.p10 == result.optimal_cost_usd.p90 == result.point_plan_cost_usd


@pytest.mark.parametrize(
    ("cells", "column"),
    [("1000,1200,2000", "volume_low"), ("1000,500,900", "volume_high"), ("1000,-1,", "volume_low")],
)
def test_a_volume_range_around_the_volume_is_checked(
    tmp_path: Path, cells: str, column: str
) -> None:
    path = tmp_path / "inv.csv"
    path.write_text(
        "id,kind,model_family,params_b,h100_gpu_hours,volume_low,volume_high\n"
        f"a,training,llama,8,{cells}\n"
    )
    result = invoke("risk", path, "--samples", "2")
    assert_clean_failure(result)
    assert f"column '{column}'" in result.stderr


def test_a_scenario_is_applied_before_the_futures_are_drawn(tmp_path: Path) -> None:
    scenario = ROOT / "inputs" / "scenarios" / "h100_price_cut.yaml"
    planned = invoke("plan", SAMPLE, "--scenario", scenario, "--format", "json")
    assert planned.exit_code == 0, planned.stderr
    document = risk_json(tmp_path, "--scenario", scenario, "--samples", "2")
    assert document["scenario"] == "h100-price-cut"
    assert document["point_plan_cost_usd"] == json.loads(planned.stdout)["objective_monthly_usd"]


# --- the roadmap held fixed (--horizon) ---------------------------------------------------

# The two jobs on H100 with the H100 price uncertain and Trainium2 dear ($2, no cheaper than
# H100's reservations): the roadmap reserves 200 one-chip units (100 h a month each at half
# the on-demand price P) and keeps them; held fixed, each month costs 200 x 100 x P / 2.
H100_PRICE = "accelerators.h100.on_demand_usd_per_chip_hour"


def _dear_trainium(low: float, high: float) -> Catalog:
    data = simple_catalog_dict()
    _node(data, TRN2_PRICE).update(low=2.0, high=2.0, point=2.0)
    return one_uncertain_figure(data, H100_PRICE, low, high)


def test_a_held_roadmap_costs_its_reservations_at_each_sampled_price() -> None:
    catalog = _dear_trainium(1.6, 2.4)
    result = risk(two_jobs(catalog), catalog, samples=6, seed=1, solver=EXACT, workers=1, horizon=3)
    horizon = result.horizon
    assert horizon is not None and horizon.horizon_months == 3
    assert horizon.planned_total_usd == horizon.point_total_usd == 3 * 10_000 * 2.0
    figures = uncertain_figures(catalog)
    prices = draw_values(catalog, figures, 1, 6)[:, 0]
    held = [s.roadmap_usd for s in result.sample_costs]
    assert held == pytest.approx([3 * 10_000 * p for p in prices], abs=0.01)
    assert horizon.total_usd.samples == 6 and horizon.broken_samples == 0
    for month in horizon.months:
        assert month.planned_usd == month.point_usd == 20_000
        assert month.p10 is not None and month.p50 is not None and month.p90 is not None
        assert month.p10 <= month.p50 <= month.p90
    [driver] = horizon.drivers
    assert driver.path == H100_PRICE
    assert driver.effect_usd == pytest.approx(3 * 10_000 * 0.8)
    two = risk(two_jobs(catalog), catalog, samples=6, seed=1, solver=EXACT, workers=2, horizon=3)
    assert two.model_dump() == result.model_dump()


def test_a_held_roadmap_on_a_real_dask_cluster_is_the_local_one(dask_cluster: str) -> None:
    catalog = _dear_trainium(1.6, 2.4)
    jobs = two_jobs(catalog)
    local = risk(jobs, catalog, samples=4, seed=3, solver=EXACT, workers=1, horizon=2)
    remote = risk(jobs, catalog, samples=4, seed=3, solver=EXACT, scheduler=dask_cluster, horizon=2)
    assert remote.horizon is not None and remote.horizon.total_usd.samples == 4
    assert remote.model_dump() == local.model_dump()


def test_zero_width_ranges_give_every_sample_the_point_roadmap() -> None:
    catalog = _dear_trainium(2.0, 2.0)
    result = risk(two_jobs(catalog), catalog, samples=4, seed=2, solver=EXACT, workers=1, horizon=2)
    horizon = result.horizon
    assert horizon is not None and horizon.point_total_usd is not None
    assert [s.roadmap_usd for s in result.sample_costs] == [horizon.point_total_usd] * 4
    total = horizon.total_usd
    assert total.mean == total.p10 == total.p50 == total.p90 == horizon.point_total_usd
    assert all(m.p10 == m.p90 == m.point_usd for m in horizon.months)


def test_a_roadmap_its_figures_leave_nowhere_to_run_is_broken() -> None:
    """With the roadmap's place no longer feasible (as a sample's memory, latency or a
    feature could make it), the roadmap cannot be held: the sample says so, not a cost."""
    from placement.horizon.held import RoadmapBroken, held_roadmap_months
    from placement.pipeline import plan

    catalog = _dear_trainium(2.0, 2.0)
    planned = plan(two_jobs(catalog), catalog, EXACT, horizon=3)
    roadmap = planned.plan.roadmap
    assert roadmap is not None
    assert {w.target_accelerator for w in roadmap.workloads} == {"h100"}
    options = planned.estimates.options
    broken = replace(
        planned.estimates,
        options=options.assign(feasible=options["feasible"] & options["accelerator"].ne("h100")),
    )
    with pytest.raises(RoadmapBroken, match="month 1: a on h100, b on h100 can no longer"):
        held_roadmap_months(roadmap, broken, catalog, EXACT)


def test_the_command_prints_the_held_roadmap(tmp_path: Path) -> None:
    small = tmp_path / "five.csv"
    small.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:6]))
    out = tmp_path / "risk.json"
    args = ("--samples", "2", "--seed", "1", "--horizon", "2", "--workers", "1")
    done = invoke("risk", small, *args, "--format", "json", "-o", out)
    assert done.exit_code == 0, done.stderr
    horizon = json.loads(out.read_text())["horizon"]
    assert horizon["horizon_months"] == 2 and len(horizon["months"]) == 2
    assert {"planned_usd", "point_usd", "p10", "p50", "p90"} <= set(horizon["months"][0])
    table = invoke("risk", small, *args)
    assert table.exit_code == 0 and "Over 2 months the roadmap, held fixed, costs" in table.stdout
    csv = invoke("risk", small, *args, "--format", "csv")
    assert "# roadmap_months" in csv.stdout and "roadmap_usd" in csv.stdout
    plain = invoke("risk", small, "--samples", "2", "--seed", "1", "--format", "csv")
    assert "roadmap" not in plain.stdout


def test_a_roadmap_with_no_solution_says_so_over_the_months_asked(tmp_path: Path) -> None:
    small, out = tmp_path / "five.csv", tmp_path / "risk.json"
    small.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:6]))
    args = ("--samples", "2", "--horizon", "3", "--time-limit", "0.000001", "--workers", "1")
    done = invoke("risk", small, *args, "--format", "json", "-o", out)
    assert done.exit_code == 3, done.stderr
    horizon = json.loads(out.read_text())["horizon"]
    assert horizon["horizon_months"] == 3 and horizon["months"] == []
    assert horizon["planned_total_usd"] is None and horizon["roadmap_status"] == "no_solution"
    table = invoke("risk", small, *args)
    assert "No roadmap over 3 months (no_solution)." in table.stdout

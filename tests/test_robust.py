"""plan --robust: a first stage chosen for sampled futures at once, hand-checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from placement.analysing.checks import check_plan
from placement.catalog import Setting
from placement.formulating.first_stage import FirstStage
from placement.models.catalog import Catalog
from placement.models.plan import RobustReport
from placement.pipeline import PlanResult, SolverOptions, plan
from placement.scenarios import Scenario
from placement.uncertainty.evaluate import first_stage_of, held_plan_usd, held_plans_usd
from placement.uncertainty.robust import robust_plan
from tests.conftest import simple_catalog_dict, workload
from tests.test_cli import assert_clean_failure, invoke
from tests.test_risk import TRN2_PRICE, _node, inventory_of, one_uncertain_figure, two_jobs

EXACT = SolverOptions(gap=0.0)
THROUGHPUT = "workload_model.training_tokens_per_reference_chip_hour.default.0.figure"
ROOT = Path(__file__).resolve().parents[1]


def _uncertain_demand() -> tuple[Catalog, Any]:
    """One 8B llama training job pinned to H100 whose chip-hours depend on an uncertain
    throughput (half to one and a half times its point), with reservations only 20% off: a
    reserved chip pays only where demand reaches it in 4 futures of 5, so committing to the
    point's demand hedges badly (a newsvendor: the robust plan commits to the demand of a
    low quantile, the point plan to the point's)."""
    data = simple_catalog_dict()
    _node(data, "pricing_options.reserved_1yr.discount_vs_on_demand").update(
        low=0.2, high=0.2, point=0.2
    )
    point = _node(data, THROUGHPUT)["point"]
    catalog = one_uncertain_figure(data, THROUGHPUT, point * 0.5, point * 1.5)
    # 1,000 chip-hours at the point: 10 chips all month.
    row = workload("a", params_b=8, monthly_tokens_b=point * 1000 / 1e9, pinned_accelerator="h100")
    return catalog, inventory_of([row], catalog)


def _reserved_units(result: PlanResult) -> int:
    return sum(c.units or 0 for c in result.plan.commitments if not c.owned)


def _assert_sound(report: RobustReport) -> None:
    assert report.failed_samples == 0
    assert report.objective_usd is not None and report.point_plan_objective_usd is not None
    assert report.objective_usd <= report.point_plan_objective_usd + 0.01
    assert report.value_of_stochastic_solution_usd is not None
    assert report.value_of_stochastic_solution_usd >= 0
    assert report.perfect_information_cost_usd is not None
    assert report.expected_cost_usd is not None
    assert report.perfect_information_cost_usd <= report.expected_cost_usd + 0.01


def test_when_committing_hedges_badly_the_robust_plan_commits_less() -> None:
    catalog, inventory = _uncertain_demand()
    point_units = 10  # the point plan reserves the point's 10 chips
    point = plan(inventory, catalog, EXACT)
    result = robust_plan(point, samples=20, seed=4, solver=EXACT, workers=1)
    report = result.plan.robust
    assert report is not None
    _assert_sound(report)
    assert report.chosen == "stochastic program"
    assert _reserved_units(result) < point_units
    assert report.expected_cost_usd is not None and report.point_plan_expected_cost_usd
    assert report.expected_cost_usd < report.point_plan_expected_cost_usd
    check = report.out_of_sample
    assert check is not None and check.samples == 20
    # On 20 fresh futures it saves, and the whole interval says so.
    assert check.gap_ci_high_usd is not None and check.gap_ci_high_usd < 0
    assert check_plan(result.plan, result.estimates.workloads, catalog) == []


def test_a_heavy_tail_weight_never_leaves_a_fatter_tail() -> None:
    catalog, inventory = _uncertain_demand()
    result = robust_plan(
        plan(inventory, catalog, EXACT),
        samples=12,
        seed=2,
        cvar=(0.75, 1.0),
        solver=EXACT,
        workers=1,
        out_of_sample=0,
    )
    report = result.plan.robust
    assert report is not None
    _assert_sound(report)
    assert report.cvar_usd is not None and report.point_plan_cvar_usd is not None
    assert report.cvar_usd <= report.point_plan_cvar_usd + 0.01
    assert report.out_of_sample is None


def test_the_robust_plan_never_expects_more_than_the_point_plan() -> None:
    catalog = one_uncertain_figure(simple_catalog_dict(), TRN2_PRICE, 1.4, 2.2, point=1.8)
    point = plan(two_jobs(catalog), catalog, EXACT)
    result = robust_plan(point, samples=8, seed=3, solver=EXACT, workers=1)
    report = result.plan.robust
    assert report is not None
    _assert_sound(report)


def test_a_scenarios_catalog_is_the_one_planned_for() -> None:
    """The robust plan starts from the point plan as given, its scenario applied: the catalog
    it prices with is the scenario's (here, H100 at $3 an hour instead of $2)."""
    catalog, inventory = _uncertain_demand()
    setting = Setting(
        "accelerators.h100.on_demand_usd_per_chip_hour", 3.0, "3", "test", "test: H100 at $3"
    )
    point = plan(inventory, catalog, EXACT, scenario=Scenario("dearer", "", "test", "", (setting,)))
    result = robust_plan(point, samples=3, seed=1, solver=EXACT, workers=1, out_of_sample=0)
    rate = {r.accelerator: r.on_demand_usd_per_chip_hour for r in result.plan.rates}
    assert rate["h100"] == 3.0
    assert result.catalog is point.catalog


def _files(tmp_path: Path) -> tuple[Path, Path]:
    catalog, _ = _uncertain_demand()
    catalog_file = tmp_path / "catalog.yaml"
    catalog_file.write_text(yaml.safe_dump(catalog.model_dump(mode="json")))
    point = _node(catalog.model_dump(mode="json"), THROUGHPUT)["point"]
    inventory = tmp_path / "inv.csv"
    inventory.write_text(
        "id,kind,model_family,params_b,monthly_tokens_b,pinned_accelerator\n"
        f"a,training,llama,8,{point * 1000 / 1e9},h100\n"
    )
    return catalog_file, inventory


def test_the_command_adds_the_robust_block(tmp_path: Path) -> None:
    catalog_file, inventory = _files(tmp_path)
    out = tmp_path / "plan.json"
    done = invoke(
        "plan",
        inventory,
        "--catalog",
        catalog_file,
        "--robust",
        "--samples",
        "6",
        "--cvar",
        "0.8:0.5",
        "--format",
        "json",
        "-o",
        out,
    )
    assert done.exit_code == 0, done.stderr
    robust = json.loads(out.read_text())["robust"]
    for key in (
        "samples",
        "expected_cost_usd",
        "point_plan_expected_cost_usd",
        "value_of_stochastic_solution_usd",
        "perfect_information_cost_usd",
    ):
        assert key in robust, key
    assert robust["samples"] == 6 and robust["cvar_alpha"] == 0.8
    table = invoke("plan", inventory, "--catalog", catalog_file, "--robust", "--samples", "3")
    assert table.exit_code == 0, table.stderr
    assert "Robust plan (3 sampled futures" in table.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--samples", "5"],
        ["--cvar", "0.9:0.5"],
        ["--robust", "--cvar", "1.5:0.5"],
        ["--robust", "--cvar", "0.9"],
        ["--robust", "--cvar", "0.9:2"],
        ["--robust", "--samples", "1"],
        ["--robust", "--horizon", "6"],
    ],
)
def test_robust_usage_errors(tmp_path: Path, args: list[str]) -> None:
    catalog_file, inventory = _files(tmp_path)
    assert_clean_failure(invoke("plan", inventory, "--catalog", catalog_file, *args))


def test_an_uncertain_volume_in_the_inventory_is_planned_for() -> None:
    """The newsvendor again, the demand's range given in the inventory: 1,000 GPU-hours,
    from 500 to 1,500."""
    data = simple_catalog_dict()
    _node(data, "pricing_options.reserved_1yr.discount_vs_on_demand").update(
        low=0.2, high=0.2, point=0.2
    )
    catalog = one_uncertain_figure(data, TRN2_PRICE, 1.0, 1.0)
    row = workload(
        "a", h100_gpu_hours=1000, volume_low=500, volume_high=1500, pinned_accelerator="h100"
    )
    point = plan(inventory_of([row], catalog), catalog, EXACT)
    result = robust_plan(point, samples=16, seed=5, solver=EXACT, workers=1)
    report = result.plan.robust
    assert report is not None
    _assert_sound(report)
    assert _reserved_units(result) < 10


def test_stages_held_in_turn_on_one_model_cost_what_each_costs_alone() -> None:
    """Pricing several first stages on one built model (bounds and sunk cost given back after
    each) gives each the cost of its own fresh model: nothing held leaks into the next."""
    point = plan(ROOT / "inputs" / "sample_inventory.csv", solver=EXACT)
    held = first_stage_of(point.solution)
    assert held.units or held.plan_usd, "the sample plan commits to something"
    doubled = FirstStage(
        {key: 2 * units for key, units in held.units.items()},
        {key: 2 * usd for key, usd in held.plan_usd.items()},
        held.ported,
        held.adopted,
    )
    stages = (held, FirstStage.nothing(), doubled, held)
    together = held_plans_usd(point.estimates, point.catalog, stages, EXACT)
    alone = [held_plan_usd(point.estimates, point.catalog, s, EXACT) for s in stages]
    assert len(together) == len(stages)
    for a, b in zip(together, alone, strict=True):
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert a == pytest.approx(b, rel=1e-9)
    assert together[0] == pytest.approx(point.plan.objective_monthly_usd, rel=1e-6)
    assert together[2] is not None and together[0] is not None and together[2] > together[0]

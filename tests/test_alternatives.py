"""plan --alternatives: near-optimal plans within a slack, hand-checked and re-checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from placement.analysing.checks import check_plan
from placement.models.catalog import Catalog
from placement.pipeline import PlanResult, SolverOptions
from placement.uncertainty.alternatives import with_alternatives
from tests.conftest import make_catalog, run_plan, simple_catalog_dict, workload
from tests.test_cli import assert_clean_failure, invoke

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"
EXACT = SolverOptions(gap=0.0)

# The simple catalog (conftest): reserved H100 $1/chip-hour (1-chip units), reserved Trainium2
# $0.5/chip-hour (4-chip units), a port $200 a family, the migration $500, all over one month.
# llama, 10,000 chip-hours: $10,000 on H100 or $5,000 + $200 on Trainium2. mistral, 800
# chip-hours: $800 on H100 or $400 + $200 on Trainium2. The optimum ports both and migrates:
# $5,200 + $600 + $500 = $6,300. Porting llama alone costs $5,700 + $800 = $6,500 (+3.17%);
# all on H100 $10,800 (+71%).
OPTIMUM = 6_300.0
ONE_PORT = 6_500.0


def _hand_case(slack: float) -> tuple[PlanResult, Catalog]:
    catalog = make_catalog(simple_catalog_dict())
    rows = [
        workload("big-llama", h100_gpu_hours=10_000),
        workload("small-mistral", model_family="mistral", h100_gpu_hours=800),
    ]
    result = run_plan(rows, catalog)
    assert result.plan.objective_monthly_usd == pytest.approx(OPTIMUM)
    return with_alternatives(result, slack, EXACT), catalog


def _assert_sound(result: PlanResult, catalog: Catalog, slack: float) -> None:
    """Every alternative is within the slack, at least as good on its own measure, and a plan
    that check_plan finds nothing wrong with."""
    plan = result.plan
    optimum = plan.objective_monthly_usd
    assert optimum is not None and plan.alternatives is not None
    for alternative in plan.alternatives:
        assert alternative.monthly_cost_usd <= optimum * (1 + slack) + 0.01
        assert alternative.within <= slack + 1e-9
        assert alternative.measure <= alternative.plan_measure + 1e-6 * max(
            1.0, alternative.plan_measure
        )
        whole = alternative.as_plan(plan)
        assert check_plan(whole, result.estimates.workloads, catalog) == []


def test_a_wide_slack_ports_one_family_fewer() -> None:
    result, catalog = _hand_case(0.05)
    _assert_sound(result, catalog, 0.05)
    found = {a.objective: a for a in result.plan.alternatives or []}
    fewest = found["fewest_ported_families"]
    assert fewest.monthly_cost_usd == pytest.approx(ONE_PORT)
    assert [p.family for p in fewest.ported_families] == ["llama"]
    assert fewest.measure == 1 and fewest.plan_measure == 2
    assert {a.workload_id: a.accelerator for a in fewest.assignments} == {
        "big-llama": "trn2",
        "small-mistral": "h100",
    }
    # Not migrating costs 71% more: the least it can do within 5% is the plan's one migration.
    assert found["no_migration"].measure == 1


def test_a_narrow_slack_keeps_the_plans_ports() -> None:
    result, catalog = _hand_case(0.01)
    _assert_sound(result, catalog, 0.01)
    found = {a.objective: a for a in result.plan.alternatives or []}
    assert found["fewest_ported_families"].measure == 2
    assert found["fewest_ported_families"].monthly_cost_usd == pytest.approx(OPTIMUM)


def test_the_command_adds_alternatives_to_the_json(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    done = invoke("plan", SAMPLE, "--alternatives", "1%", "--format", "json", "-o", out)
    assert done.exit_code == 0, done.stderr
    document = json.loads(out.read_text())
    optimum = document["objective_monthly_usd"]
    assert {a["objective"] for a in document["alternatives"]} == {
        "fewest_ported_families",
        "least_trainium",
        "least_committed",
        "no_migration",
    }
    for alternative in document["alternatives"]:
        assert {"objective", "monthly_cost_usd", "within", "assignments"} <= set(alternative)
        assert {"ported_families", "commitments"} <= set(alternative)
        assert alternative["monthly_cost_usd"] <= optimum * 1.01 + 0.01


@pytest.mark.parametrize("slack", ["150%", "1.5", "-1", "abc", "nan"])
def test_a_bad_slack_is_a_usage_error(slack: str) -> None:
    assert_clean_failure(invoke("plan", SAMPLE, "--alternatives", slack))


def test_alternatives_do_not_combine_with_a_horizon() -> None:
    result = invoke("plan", SAMPLE, "--alternatives", "1%", "--horizon", "6")
    assert_clean_failure(result)
    assert "--horizon" in result.stderr

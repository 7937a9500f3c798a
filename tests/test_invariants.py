"""Properties every plan must have, on generated inventories and the sample.

Exactness matters here, so plans are solved with a zero MIP gap.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placement.models.catalog import Catalog
from tests.conftest import (
    EXACT,
    default_catalog_dict,
    make_catalog,
    run_plan,
    simple_catalog_dict,
)

FAMILIES = ["llama", "mistral", "t5", "bert", "qwen2", "mixtral", "acme_lm"]


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["training", "inference"]))
    row: dict[str, Any] = {
        "kind": kind,
        "model_family": draw(st.sampled_from(FAMILIES)),
        "params_b": draw(st.sampled_from([0.34, 1, 7, 8, 13, 34, 70, 180])),
        "precision": draw(st.sampled_from(["bf16", "fp8", "int4"])),
    }
    if draw(st.booleans()):
        row["monthly_tokens_b"] = draw(st.floats(0.1, 60))
    else:
        row["h100_gpu_hours"] = draw(st.floats(1, 20000))
    if kind == "inference":
        row["serving"] = draw(st.sampled_from(["online", "batch"]))
        if draw(st.booleans()):
            row["ttft_slo_ms"] = draw(st.sampled_from([25, 60, 150, 500]))
    if draw(st.integers(0, 4)) == 0:
        row["features"] = draw(
            st.sampled_from(["flash_attention", "moe", "lora", "speculative_decoding", "qlora"])
        )
    if draw(st.integers(0, 4)) == 0:
        row["needed_in_weeks"] = draw(st.sampled_from([4, 12, 20, 30]))
    return row


@st.composite
def any_workloads(draw: st.DrawFn) -> dict[str, Any]:
    """Wider than ``workloads``: pins, Neuron-ready families, unknown and pending families."""
    row = draw(workloads())
    row["model_family"] = draw(st.sampled_from([*FAMILIES, "deepseek_v3", "qwen2_5_vl", "x-lm"]))
    if draw(st.integers(0, 5)) == 0:
        row["pinned_accelerator"] = draw(st.sampled_from(["h100", "trn2"]))
    if draw(st.integers(0, 5)) == 0:
        row["neuron_ready"] = True
    if draw(st.integers(0, 5)) == 0:
        row["features"] = ";".join(
            draw(
                st.sets(
                    st.sampled_from(
                        [
                            "flash_attention",
                            "lora",
                            "lora_multi_rank",
                            "qlora",
                            "moe",
                            "speculative_decoding",
                        ]
                    ),
                    max_size=3,
                )
            )
        )
    return row


def inventories(max_size: int = 7) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(workloads(), min_size=1, max_size=max_size).map(
        lambda rows: [{"id": f"w{i}", **row} for i, row in enumerate(rows)]
    )


def money_scaled(factor: float) -> Any:
    """Multiply every money figure (names ending in _usd or containing _usd_per_)."""

    def scale(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                money = isinstance(key, str) and (key.endswith("_usd") or "_usd_per_" in key)
                if money and isinstance(value, int | float):
                    out[key] = value * factor
                elif money and isinstance(value, dict):
                    out[key] = {
                        k: (v * factor if k in {"low", "high", "point"} and v is not None else v)
                        for k, v in value.items()
                    }
                else:
                    out[key] = scale(value)
            return out
        if isinstance(node, list):
            return [scale(v) for v in node]
        return node

    def edit(data: dict[str, Any]) -> None:
        data.update(scale(data))

    return edit


def h100_price(factor: float) -> Any:
    def edit(data: dict[str, Any]) -> None:
        price = data["accelerators"]["h100"]["on_demand_usd_per_chip_hour"]
        for key in ("low", "high", "point"):
            if price.get(key) is not None:
                price[key] *= factor

    return edit


SETTINGS = settings(
    max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
DEFAULT = default_catalog_dict()


@SETTINGS
@given(rows=inventories())
def test_plan_never_costs_more_than_any_baseline(rows: list[dict[str, Any]]) -> None:
    result = run_plan(rows, make_catalog(DEFAULT))
    p = result.plan
    assert p.status == "optimal"
    total = p.objective_monthly_usd
    assert total is not None
    for baseline in (
        p.baselines.all_h100_on_demand_usd,
        p.baselines.all_h100_optimal_usd,
        p.baselines.greedy_usd,
    ):
        if baseline is not None:
            # The plan's total is four components each rounded to the cent.
            assert total <= baseline + 0.02


@SETTINGS
@given(rows=inventories())
def test_doubling_every_money_figure_doubles_the_optimum(rows: list[dict[str, Any]]) -> None:
    base = run_plan(rows, make_catalog(DEFAULT))
    doubled = run_plan(rows, make_catalog(DEFAULT, money_scaled(2.0)))
    assert base.plan.objective_monthly_usd is not None
    assert doubled.plan.objective_monthly_usd == pytest.approx(
        2 * base.plan.objective_monthly_usd, rel=1e-6, abs=0.02
    )


@SETTINGS
@given(rows=inventories())
def test_prohibitive_migration_leaves_nothing_on_trainium2(rows: list[dict[str, Any]]) -> None:
    def prohibitive(data: dict[str, Any]) -> None:
        data["platforms"]["neuron"]["migration_one_off_usd"] = {
            "low": 1e12,
            "high": 1e12,
            "source": "test",
        }

    result = run_plan(rows, make_catalog(DEFAULT, prohibitive))
    assert all(a.accelerator != "trn2" for a in result.plan.assignments)
    assert result.plan.migrations == []


def _h100_paid_chip_hours(result: Any, catalog: Catalog) -> float:
    """H100 chip-hours paid for: on-demand hours used plus every reserved unit's hours."""
    hours = catalog.economics.hours_per_month.value
    on_demand = sum(
        a.chip_hours
        for a in result.plan.assignments
        if a.accelerator == "h100" and a.pricing == "on_demand"
    )
    reserved = sum(
        r.units * r.chips_per_unit * hours
        for r in result.plan.reserved_purchases
        if r.accelerator == "h100"
    )
    return on_demand + reserved


@SETTINGS
@given(rows=inventories(), factor=st.sampled_from([1.25, 2.0, 5.0]))
def test_higher_h100_price_never_moves_work_onto_h100(
    rows: list[dict[str, Any]], factor: float
) -> None:
    # For optima x1 at price p1 < p2 and x2 at p2: (p2 - p1) (H(x2) - H(x1)) <= 0, where H is
    # the H100 chip-hours paid for. So work never moves off Trainium2 onto H100.
    low_catalog = make_catalog(DEFAULT)
    high_catalog = make_catalog(DEFAULT, h100_price(factor))
    low = run_plan(rows, low_catalog)
    high = run_plan(rows, high_catalog)
    assert (
        _h100_paid_chip_hours(high, high_catalog) <= _h100_paid_chip_hours(low, low_catalog) + 1e-6
    )
    assert high.plan.objective_monthly_usd is not None
    assert low.plan.objective_monthly_usd is not None
    assert high.plan.objective_monthly_usd >= low.plan.objective_monthly_usd - 0.01


@SETTINGS
@given(rows=inventories(max_size=6), drop=st.integers(0, 5))
def test_removing_a_workload_never_raises_the_optimum(
    rows: list[dict[str, Any]], drop: int
) -> None:
    if len(rows) < 2:
        return
    fewer = [r for i, r in enumerate(rows) if i != drop % len(rows)]
    catalog = make_catalog(DEFAULT)
    full = run_plan(rows, catalog).plan.objective_monthly_usd
    part = run_plan(fewer, catalog).plan.objective_monthly_usd
    assert full is not None and part is not None
    assert part <= full + 0.01


def test_cbc_and_highs_agree_on_the_simple_instances() -> None:
    from placement.pipeline import SolverOptions

    rows = [
        {
            "id": "a",
            "kind": "training",
            "model_family": "llama",
            "params_b": 1,
            "h100_gpu_hours": 1000,
        },
        {
            "id": "b",
            "kind": "training",
            "model_family": "mistral",
            "params_b": 1,
            "h100_gpu_hours": 1000,
        },
    ]
    catalog = make_catalog(simple_catalog_dict())
    highs = run_plan(rows, catalog, EXACT)
    cbc = run_plan(rows, catalog, SolverOptions(solver="cbc", gap=0.0))
    assert cbc.plan.status == "optimal"
    assert cbc.plan.solver.name == "cbc"
    assert cbc.plan.objective_monthly_usd == pytest.approx(highs.plan.objective_monthly_usd)
    assert cbc.plan.objective_monthly_usd == pytest.approx(1900)


@SETTINGS
@given(
    rows=st.lists(any_workloads(), min_size=1, max_size=8).map(
        lambda rows: [{"id": f"w{i}", **row} for i, row in enumerate(rows)]
    )
)
def test_any_inventory_gets_a_rechecked_explained_plan(rows: list[dict[str, Any]]) -> None:
    catalog = make_catalog(DEFAULT)
    result = run_plan(rows, catalog)  # re-checks every constraint and the totals
    plan = result.plan
    assert plan.status == "optimal"
    assert len(plan.assignments) + len(plan.unplaced) == len(rows)
    for assignment in plan.assignments:
        assert assignment.why
        assert len(assignment.options) == len(catalog.accelerators) * len(catalog.pricing_options)
    for unplaced in plan.unplaced:
        assert len(unplaced.reasons) == len(catalog.accelerators)
    assert result.exit_code == (3 if plan.unplaced else 0)

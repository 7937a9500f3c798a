"""The notebook API: a plan as flat DataFrames, a short repr, an HTML view, and charts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from placement import plan
from placement.pipeline import PlanResult
from placement.reporting import charts

SAMPLE = Path(__file__).resolve().parent.parent / "inputs" / "sample_inventory.csv"


@pytest.fixture(scope="module")
def result() -> PlanResult:
    return plan(SAMPLE)


def test_the_frames_add_up_to_the_plan(result: PlanResult) -> None:
    made = result.plan
    frames = result.frames()
    assignments = frames["assignments"]
    assert list(assignments["workload_id"]) == [a.workload_id for a in made.assignments]
    assert assignments["monthly_cost_usd"].sum() == pytest.approx(
        sum(a.monthly_cost_usd for a in made.assignments)
    )
    coverage = assignments.filter(like="coverage_").sum(axis=1)
    assert coverage.to_numpy() == pytest.approx(assignments["chip_hours"].to_numpy(), rel=1e-3)
    options = frames["options"]
    assert options["chosen"].sum() == len(made.assignments)
    assert options.groupby("workload_id")["chosen"].sum().eq(1).all()
    showback = frames["showback"]
    assert "team" in showback.columns  # the sample's extra column, flat
    by_team = showback.groupby("team")["showback_monthly_usd"].sum()
    assert by_team.sum() == pytest.approx(
        sum(a.showback_monthly_usd or 0 for a in made.assignments)
    )
    assert len(frames["commitments"]) == len(made.commitments)
    assert len(frames["slices"]) == len(made.slices)
    assert frames["roadmap"].empty and "cost_usd" in frames["roadmap"].columns
    assert all(isinstance(f, pd.DataFrame) for f in frames.values())


def test_repr_is_one_line_and_the_html_view_is_escaped(result: PlanResult) -> None:
    made = result.plan
    line = repr(result)
    assert "\n" not in line and len(line) < 200
    assert line.startswith("PlanResult(optimal, $") and f"{len(made.assignments)} placed" in line
    assert repr(made).startswith("Plan(optimal")
    view = result._repr_html_()
    assert "<table" in view and "monthly cost" in view
    marked = made.model_copy(deep=True)
    marked.assignments[0].workload_id = "<b>x</b>"
    from placement.analysing.frames import summary_html

    assert "<b>x</b>" not in summary_html(marked) and "&lt;b&gt;x&lt;/b&gt;" in summary_html(marked)


def test_the_charts_draw_what_the_plan_has(result: PlanResult) -> None:
    made = result.plan
    for draw in (charts.cost_chart, charts.chip_hours_chart, charts.week_chart):
        figure = draw(made)
        assert figure is not None and figure.axes
    assert charts.roadmap_chart(made) is None  # a steady-state plan has no months
    cost = charts.cost_chart(made)
    assert cost is not None
    labels = [t.get_text() for t in cost.axes[0].texts]
    assert f"${round(made.objective_monthly_usd or 0):,}" in labels
    svg = charts.svg_text(cost, "cost")
    assert svg.startswith("<svg") and "<metadata>" not in svg and "<text" not in svg
    assert charts.usd_short(1_234_567) == "$1.23M" and charts.usd_short(-12_500) == "-$12.5k"

"""``placement report``: one self-contained decision brief, checked as text and in a real browser.

The browser test opens the HTML in headless Chromium (Debian's ``chromium``, which ``.ci/run``
installs where missing, driven by Playwright) and fails on any console error, page error or
request other than the file itself; it saves a screenshot beside the report.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from placement.pipeline import plan
from placement.reporting.decision import payback_months
from placement.reporting.report import ReportInput, report_html
from tests.test_cli import assert_clean_failure, invoke

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

# Anything that would make a browser fetch: an attribute naming a remote or relative
# resource, a CSS import or url() of one. (An SVG's xmlns is a name, not a fetch.)
EXTERNAL = re.compile(
    r"""(?:\b(?:src|href|xlink:href|action|poster|data)\s*=\s*["']?+(?!#|data:))"""
    r"""|@import|url\(\s*["']?+(?!#|data:)""",
    re.I,
)


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("report")
    html, md = folder / "report.html", folder / "report.md"
    done = invoke("report", SAMPLE, "--html", html, "--md", md, "--workers", "1")
    assert done.exit_code == 0, done.stderr
    return html, md


def test_the_html_lists_every_workload_and_loads_nothing(sample_report: tuple[Path, Path]) -> None:
    text = sample_report[0].read_text(encoding="utf-8")
    made = plan(SAMPLE).plan
    for a in made.assignments:
        assert f">{a.workload_id}</td>" in text
    assert text.count("<svg") >= 3  # cost, chip-hours, week
    assert EXTERNAL.findall(text) == []
    assert EXTERNAL.findall('<img src="https://x/y.png"><link href=style.css>')  # it can fail
    assert "<script>" in text and "<style>" in text
    money = re.search(r'class="headline">Run (\d+) workloads for \$([\d,]+) a month', text)
    assert money is not None
    assert int(money.group(1)) == len(made.assignments)
    assert int(money.group(2).replace(",", "")) == round(made.objective_monthly_usd or 0)


def test_the_markdown_has_the_same_tables(sample_report: tuple[Path, Path]) -> None:
    text = sample_report[1].read_text(encoding="utf-8")
    made = plan(SAMPLE).plan
    assert text.startswith("# Placement plan: sample_inventory.csv\n\nRun ")
    for heading in ("## What to buy now", "## What to port and when", "## Every workload"):
        assert heading in text
    for a in made.assignments:
        assert f"| {a.workload_id} | {a.accelerator} |" in text


def test_the_payback_is_the_one_offs_over_the_monthly_saving() -> None:
    made = plan(SAMPLE).plan
    one_offs = sum(p.one_off_usd for p in made.ported_families) + sum(
        m.one_off_usd for m in made.migrations
    )
    costs = made.cost_breakdown
    running = made.objective_monthly_usd - costs.porting_amortized_usd  # type: ignore[operator]
    saving = (made.baselines.all_h100_optimal_usd or 0) - (running - costs.migration_amortized_usd)
    assert payback_months(made) == pytest.approx(one_offs / saving)
    assert f"pay back in {one_offs / saving:.1f} months" in report_html(ReportInput(made, "t"))


def test_a_saved_plan_and_a_risk_result_make_a_report(tmp_path: Path) -> None:
    saved, risk = tmp_path / "plan.json", tmp_path / "risk.json"
    assert invoke("plan", SAMPLE, "--format", "json", "-o", saved).exit_code == 0
    done = invoke("risk", SAMPLE, "--samples", "4", "--workers", "1", "--format", "json",
                  "-o", risk)  # fmt: skip
    assert done.exit_code == 0, done.stderr
    html = tmp_path / "r.html"
    done = invoke("report", saved, "--risk", risk, "--html", html)
    assert done.exit_code == 0, done.stderr
    text = html.read_text(encoding="utf-8")
    assert "<h2>The risk</h2>" in text and 'id="chart-risk"' in text
    assert json.loads(saved.read_text())["objective_monthly_usd"] is not None
    assert EXTERNAL.findall(text) == []


def test_a_sweep_result_makes_a_section_with_every_break_even(tmp_path: Path) -> None:
    inv, swept = tmp_path / "one.csv", tmp_path / "sweep.json"
    inv.write_text("id,kind,model_family,params_b,h100_gpu_hours\njob,training,llama,70,1\n")
    done = invoke("sweep", inv, "--param", "inventory.h100_gpu_hours", "--range",
                  "1000:41000:3", "--format", "json", "-o", swept, "--workers", "1")  # fmt: skip
    assert done.exit_code == 0, done.stderr
    break_evens = json.loads(swept.read_text())["break_evens"]
    assert len(break_evens) == 1
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    done = invoke("report", inv, "--sweep", swept, "--html", html, "--md", md)
    assert done.exit_code == 0, done.stderr
    text = html.read_text(encoding="utf-8")
    assert "<h2>Sweep of inventory.h100_gpu_hours</h2>" in text and 'id="chart-sweep"' in text
    assert text.count("job h100 -&gt; trn2") == 1  # the break-even's line
    low, high = round(break_evens[0]["low"]), round(break_evens[0]["high"])
    assert f"between {low:,} and {high:,}" in text
    assert EXTERNAL.findall(text) == []
    markdown = md.read_text(encoding="utf-8")
    assert "## Sweep of inventory.h100_gpu_hours" in markdown and "job h100 -> trn2" in markdown
    assert markdown.count("\n| 1000 ") + markdown.count("\n| 21000 ") == 2  # the grid's rows


def test_a_roadmap_report_draws_its_timeline(tmp_path: Path) -> None:
    html = tmp_path / "r.html"
    done = invoke("report", SAMPLE, "--horizon", "6", "--html", html)
    assert done.exit_code == 0, done.stderr
    text = html.read_text(encoding="utf-8")
    assert 'id="chart-roadmap"' in text and "<h2>The roadmap</h2>" in text


def test_bad_requests_are_refused_cleanly(tmp_path: Path) -> None:
    assert_clean_failure(invoke("report", SAMPLE))  # neither --html nor --md
    not_risk = tmp_path / "x.json"
    not_risk.write_text('{"samples": "many"}')
    done = invoke("report", SAMPLE, "--html", tmp_path / "r.html", "--risk", not_risk)
    assert_clean_failure(done)
    assert "--risk" in done.stderr and not (tmp_path / "r.html").exists()
    done = invoke("report", SAMPLE, "--html", tmp_path / "r.html", "--sweep", not_risk)
    assert_clean_failure(done)
    assert "--sweep" in done.stderr and "placement sweep" in done.stderr
    assert not (tmp_path / "r.html").exists()


def test_a_risk_over_a_horizon_draws_the_roadmaps_fan(tmp_path: Path) -> None:
    small, risk = tmp_path / "five.csv", tmp_path / "risk.json"
    small.write_text("".join(SAMPLE.read_text().splitlines(keepends=True)[:6]))
    done = invoke("risk", small, "--samples", "3", "--horizon", "3", "--workers", "1",
                  "--format", "json", "-o", risk)  # fmt: skip
    assert done.exit_code == 0, done.stderr
    months = json.loads(risk.read_text())["horizon"]["months"]
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    done = invoke("report", small, "--horizon", "3", "--risk", risk, "--html", html, "--md", md)
    assert done.exit_code == 0, done.stderr
    text = html.read_text(encoding="utf-8")
    assert 'id="chart-fan"' in text and "Over 3 months the roadmap, held fixed, costs" in text
    assert EXTERNAL.findall(text) == []
    markdown = md.read_text(encoding="utf-8")
    assert "| month | planned | P10 | P50 | P90 |" in markdown
    assert len(months) == 3 and all(f"| {m['month']} | $" in markdown for m in months)
    if CHROMIUM is not None:
        events = _browser_events(html)
        assert events == []


@contextmanager
def _in_browser(html: Path) -> Iterator[tuple[Any, list[str]]]:
    """``html`` open in headless Chromium: the page, and every console message, page error and
    request other than the file itself, as they come."""
    sync_api = pytest.importorskip("playwright.sync_api")
    events: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on("console", lambda m: events.append(f"console {m.type}: {m.text}"))
        page.on("pageerror", lambda e: events.append(f"page error: {e}"))
        page.on("request", lambda r: r.url != html.as_uri() and events.append(f"fetch {r.url}"))
        page.goto(html.as_uri())
        try:
            yield page, events
        finally:
            browser.close()


def _browser_events(html: Path) -> list[str]:
    """What opening ``html`` in Chromium reports (``_in_browser``), and every chart narrower
    than 100 px."""
    with _in_browser(html) as (page, events):
        charts = page.locator("figure svg")
        for i in range(charts.count()):
            if charts.nth(i).bounding_box()["width"] <= 100:
                events.append(f"chart {i} narrower than 100 px")
    return events


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (.ci/run installs Debian's)")
def test_the_report_renders_in_a_real_browser(sample_report: tuple[Path, Path]) -> None:
    html = sample_report[0]
    with _in_browser(html) as (page, events):
        page.screenshot(path=str(html.with_suffix(".png")), full_page=True)
        charts = page.locator("figure svg")
        assert charts.count() >= 3
        assert all(charts.nth(i).bounding_box()["width"] > 100 for i in range(charts.count()))
        # Sorting by the monthly column, twice, puts the cheapest then the dearest first.
        table = page.locator("table.sortable").last
        header = table.locator("th", has_text="monthly")
        values = lambda: [  # noqa: E731
            float(v or 0) for v in table.locator("tbody tr td:nth-child(6)").evaluate_all(
                "cells => cells.map(c => c.getAttribute('data-v'))")
        ]  # fmt: skip
        header.click()
        ascending = values()
        header.click()
        descending = values()
    assert events == []
    assert ascending == sorted(ascending) and descending == sorted(descending, reverse=True)
    assert html.with_suffix(".png").stat().st_size > 10_000

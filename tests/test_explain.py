"""``placement explain``: one workload's options, its runner-up and its flip points, each checked
against a re-solve of the whole plan and, where the arithmetic is by hand, against that."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from placement.catalog import read_catalog
from placement.comparing.flip_points import explain_workload
from placement.models.explanation import Explanation
from placement.pipeline import SolverOptions, plan
from placement.reading import Inventory, read_inventory
from tests.test_cli import assert_clean_failure, invoke

SOLVER = SolverOptions(gap=1e-6)  # flip points and gaps exact to the cent, not to 0.1%
TARGET = "pretrain-70b"


def small_inventory() -> pd.DataFrame:
    """A 70B pre-training run on Trainium2 (the migration pays through it), a fine-tune and a
    chat service, every family already running on Neuron (no ports)."""
    return pd.DataFrame(
        [
            {"id": TARGET, "kind": "training", "model_family": "llama", "params_b": 70,
             "h100_gpu_hours": 6000, "neuron_ready": True},
            {"id": "finetune-8b", "kind": "training", "model_family": "llama", "params_b": 8,
             "h100_gpu_hours": 800, "neuron_ready": True},
            {"id": "[prod] chat-8b", "kind": "inference", "model_family": "llama",
             "params_b": 8, "monthly_tokens_b": 30, "serving": "online", "ttft_slo_ms": 500,
             "neuron_ready": True},
        ]
    )  # fmt: skip


def as_inventory(rows: pd.DataFrame) -> Inventory:
    return read_inventory(rows, list(read_catalog().catalog.accelerators))


REPORTED: list[tuple[int, int]] = []
"""The progress the ``explained`` fixture's search reported: (solves done, out of)."""


@pytest.fixture(scope="module")
def explained() -> Explanation:
    REPORTED.clear()
    return explain_workload(
        as_inventory(small_inventory()),
        TARGET,
        solver=SOLVER,
        workers=2,
        progress=lambda done, total: REPORTED.append((done, total)),
    )


def test_progress_counts_every_re_solve_and_ends_full(explained: Explanation) -> None:
    """The bar covers the flip points' bisection too, never runs past its total, and ends at
    the number of re-solves made."""
    assert explained.flip_points and REPORTED
    assert REPORTED[-1] == (explained.solves, explained.solves)
    assert all(done <= total for done, total in REPORTED)
    assert [done for done, _ in REPORTED] == sorted(done for done, _ in REPORTED)


def placed_at(path: str, value: float) -> str | None:
    """Where the whole plan runs the target with one figure moved (a re-solve of its own)."""
    rows = small_inventory()
    overrides: list[str] = []
    prefix = f"inventory[{TARGET}]."
    if path.startswith(prefix):
        rows.loc[rows["id"].eq(TARGET), path[len(prefix) :]] = value
    else:
        overrides.append(f"{path}={value!r}")
    made = plan(rows, read_catalog(None, overrides), SOLVER).plan
    return next((a.accelerator for a in made.assignments if a.workload_id == TARGET), None)


def test_the_runner_up_and_its_gap_are_the_pinned_plan_against_the_plan(
    explained: Explanation,
) -> None:
    made = plan(small_inventory(), solver=SOLVER).plan
    assert explained.chosen == "trn2"
    assert explained.runner_up == "h100"
    pinned = small_inventory()
    pinned["pinned_accelerator"] = None
    pinned.loc[pinned["id"].eq(TARGET), "pinned_accelerator"] = "h100"
    forced = plan(pinned, solver=SOLVER).plan
    assert explained.gap_usd == pytest.approx(
        forced.objective_monthly_usd - made.objective_monthly_usd, abs=0.05
    )
    mine = next(a for a in made.assignments if a.workload_id == TARGET)
    assert explained.options == mine.options
    assert explained.plan_monthly_usd == pytest.approx(made.objective_monthly_usd)


def test_the_migration_flip_is_where_the_hand_sum_puts_it(explained: Explanation) -> None:
    """The target is what makes the migration pay: it flips when the programme's amortized
    one-off G / M exceeds the best plan without migrating less the plan without the one-off,
    G* = M (no_migration - (plan - G / M))."""
    made = plan(small_inventory(), solver=SOLVER).plan
    months = read_catalog().catalog.economics.amortization_months.value
    amortized = made.cost_breakdown.migration_amortized_usd
    no_migration = made.baselines.all_h100_optimal_usd
    assert no_migration is not None
    by_hand = months * (no_migration - (made.objective_monthly_usd - amortized))
    flip = next(f for f in explained.flip_points if f.path.endswith("migration_one_off_usd"))
    assert flip.direction == "up" and flip.to == "h100"
    assert flip.last_unchanged <= by_hand + 1 and by_hand - 1 <= flip.flips_at
    assert flip.flips_at - flip.last_unchanged <= explained.tolerance * flip.value


def test_every_flip_point_is_confirmed_by_a_forced_re_solve(explained: Explanation) -> None:
    paths = {f.path for f in explained.flip_points}
    assert {
        "accelerators.h100.on_demand_usd_per_chip_hour",
        "accelerators.trn2.on_demand_usd_per_chip_hour",
        f"inventory[{TARGET}].h100_gpu_hours",
        "platforms.neuron.migration_one_off_usd",
    } <= paths
    for flip in explained.flip_points:
        assert abs(flip.flips_at - flip.last_unchanged) <= explained.tolerance * flip.value
        assert placed_at(flip.path, flip.flips_at) == flip.to, flip
        assert placed_at(flip.path, flip.last_unchanged) == explained.chosen, flip
        # Just past it in the direction it moves, the choice has changed too.
        beyond = flip.flips_at * (1.01 if flip.direction == "up" else 0.99)
        assert placed_at(flip.path, beyond) == flip.to, flip
    changes = [abs(f.change) for f in explained.flip_points]
    assert changes == sorted(changes)


def test_a_figure_that_never_flips_is_reported_as_searched(explained: Explanation) -> None:
    """More pre-training only makes Trainium2 (cheaper per unit of work) more worth it."""
    up = [s for s in explained.steady_figures if s.path == f"inventory[{TARGET}].h100_gpu_hours"]
    assert [s.direction for s in up] == ["up"]
    assert up[0].searched_to == pytest.approx(10 * up[0].value)
    assert placed_at(up[0].path, up[0].searched_to) == "trn2"


def test_the_reasons_give_the_numbers(explained: Explanation) -> None:
    text = " ".join(explained.reasons)
    assert f"${round(explained.gap_usd or 0):,} more" in text
    assert "platforms.neuron.migration_one_off_usd rises from 125k to" in text


def write_small(tmp_path: Path) -> Path:
    path = tmp_path / "small.csv"
    small_inventory().to_csv(path, index=False)
    return path


def test_every_format_without_flip_points(tmp_path: Path) -> None:
    inventory = write_small(tmp_path)
    base = ["explain", inventory, "[prod] chat-8b", "--no-flip-points", "--workers", "1"]
    done = invoke(*base, env={"COLUMNS": "80"})
    assert done.exit_code == 0, done.stderr
    assert "[prod] chat-8b runs on" in done.stdout  # an id is text, never markup
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    out = tmp_path / "chat.json"
    assert invoke(*base, "--format", "json", "-o", out).exit_code == 0
    document = json.loads(out.read_text())
    assert {"options", "chosen", "runner_up", "gap_usd", "reasons", "flip_points"} <= set(document)
    assert document["flip_points"] == [] and len(document["options"]) == 6
    chosen = [o for o in document["options"] if o["accelerator"] == document["chosen"]]
    assert chosen and all(o["feasible"] for o in chosen)
    csv = invoke(*base, "--format", "csv").stdout
    assert csv.splitlines()[0].startswith("chosen,accelerator,pricing")
    assert "# flip_points" in csv
    markdown = invoke(*base, "--format", "md").stdout
    assert markdown.startswith("# [prod] chat-8b") and "| * |" in markdown


def test_an_unknown_id_is_refused_with_the_nearest_ids(tmp_path: Path) -> None:
    inventory = write_small(tmp_path)
    done = invoke("explain", inventory, "pretrain-7b", "--no-flip-points")
    assert_clean_failure(done)
    assert "no workload with id 'pretrain-7b'" in done.stderr
    assert "'pretrain-70b'" in done.stderr and "small.csv" in done.stderr


def test_an_unplaced_workload_says_why_and_exits_3(tmp_path: Path) -> None:
    """Pinned by policy to Trainium2, which lacks a feature it needs."""
    rows = small_inventory()
    chat = rows["id"].eq("[prod] chat-8b")
    rows["features"] = None
    rows["pinned_accelerator"] = None
    rows.loc[chat, ["features", "pinned_accelerator"]] = ["speculative_decoding", "trn2"]
    path = tmp_path / "tight.csv"
    rows.to_csv(path, index=False)
    out = tmp_path / "tight.json"
    done = invoke("explain", path, "[prod] chat-8b", "--format", "json", "-o", out)
    assert done.exit_code == 3, done.stderr
    document = json.loads(out.read_text())
    assert document["chosen"] is None and document["runner_up"] is None
    assert document["reasons"] and all(not o["feasible"] for o in document["options"])
    assert all(f["reason"] for f in document["forced"])

"""sweep: the optimum along a parameter and its break-evens, located by bisection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from placement.catalog import read_catalog
from placement.comparing.reference import reference_figures
from placement.comparing.sweep import BISECTION_TOLERANCE, Parameter, decisions, sweep
from placement.pipeline import plan
from tests.conftest import frame
from tests.test_cli import assert_clean_failure, invoke

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"


def _training(params_b: float, family: str, hours: float) -> Any:
    return frame(
        [
            {
                "id": "job",
                "kind": "training",
                "model_family": family,
                "params_b": params_b,
                "h100_gpu_hours": hours,
            }
        ]
    )


def _hand_bisection(params_b: float, family: str, low: float, high: float) -> float:
    """What a planner would do with `placement plan`: halve the bracket until 0.25% wide."""
    catalog = read_catalog()

    def on_trn2(hours: float) -> bool:
        result = plan(_training(params_b, family, hours), catalog)
        return result.plan.assignments[0].accelerator == "trn2"

    assert not on_trn2(low) and on_trn2(high)
    while high - low > 0.0025 * low:
        mid = (low + high) / 2
        if on_trn2(mid):
            high = mid
        else:
            low = mid
    return (low + high) / 2


MODELS = [m for m in reference_figures()["break_even"]["models"] if m["params_b"] >= 70]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m["name"])
def test_the_break_even_of_a_reference_training_row_matches_a_hand_bisection(
    model: dict[str, Any],
) -> None:
    inventory = _training(model["params_b"], model["model_family"], 1000)
    result = sweep(
        inventory,
        [Parameter.parse_range("inventory.h100_gpu_hours", "1000:61000:5")],
        workers=2,
    )
    [found] = result.break_evens
    by_hand = _hand_bisection(model["params_b"], model["model_family"], 1000, 61000)
    assert found.value == pytest.approx(by_hand, rel=0.02)
    assert found.high - found.low <= 15000 / 256 + 1e-6  # located finer than the grid
    assert "job h100 -> trn2" in found.changes


def test_a_grid_point_equals_the_plan_of_the_same_question() -> None:
    """Every point is a real plan: the same objective `plan --set` gives."""
    inventory = _training(70, "llama", 9000)
    result = sweep(
        inventory,
        [Parameter.parse_range("economics.amortization_months", "6:24:3")],
        workers=1,
    )
    for point in result.points:
        months = int(point.values[0])
        setting = [f"economics.amortization_months={months}"]
        direct = plan(inventory, read_catalog(None, setting))
        assert point.plan.objective_monthly_usd == direct.plan.objective_monthly_usd
        assert decisions(point.plan) == decisions(direct.plan)
    costs = [p.plan.objective_monthly_usd or 0 for p in result.points]
    assert costs == sorted(costs, reverse=True)  # longer amortization never costs more


def test_a_two_parameter_grid_bisects_each_row() -> None:
    result = sweep(
        _training(70, "llama", 1000),
        [
            Parameter.parse_range("inventory.h100_gpu_hours", "1000:41000:3"),
            Parameter.parse_range("platforms.neuron.migration_one_off_usd", "0:250000:2"),
        ],
        workers=2,
    )
    assert len(result.points) == 6
    others = [b.other for b in result.break_evens]
    assert others == sorted(others) and len(set(others)) == len(others) == 2
    cheap, dear = result.break_evens
    assert cheap.value < dear.value  # a dearer migration needs more volume to pay


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "md"])
def test_sweep_cli_formats_and_chart(tmp_path: Path, fmt: str) -> None:
    inv = tmp_path / "one.csv"
    inv.write_text("id,kind,model_family,params_b,h100_gpu_hours\njob,training,llama,70,1\n")
    chart = tmp_path / "sweep.svg"
    result = invoke(
        "sweep",
        inv,
        "--param",
        "inventory.h100_gpu_hours",
        "--range",
        "1000:41000:3",
        "--format",
        fmt,
        "--chart",
        chart,
        "--workers",
        "2",
    )
    assert result.exit_code == 0, result.output
    assert chart.read_text().lstrip().startswith("<?xml")
    if fmt == "json":
        data = json.loads(result.stdout)
        assert len(data["points"]) == 3 and len(data["break_evens"]) == 1
        assert data["optimum"] == [1000.0]
    elif fmt == "csv":
        assert "# break_evens" in result.stdout
    else:
        text = " ".join(result.stdout.split())
        assert "Break-evens" in text and "job h100 -> trn2" in text


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--param", "economics.amortisation_months", "--range", "6:24:3"], "amortisation"),
        (["--param", "inventory.colour", "--range", "1:2:2"], "colour"),
        (["--param", "economics.amortization_months", "--range", "6:24"], "START:STOP:STEPS"),
        (["--param", "economics.amortization_months", "--range", "6:24:1"], "STEPS"),
        (["--param", "economics.amortization_months", "--range", "-6:24:3"], "amortization"),
        (["--param", "economics.amortization_months", "--range", "6:24:10000"], "2 to 250"),
        (["--param", "economics.amortization_months", "--range", "6:inf:3"], "finite"),
    ],
)
def test_a_bad_parameter_is_refused_before_any_solve(args: list[str], says: str) -> None:
    result = invoke("sweep", SAMPLE, *args, "--format", "json")
    problems = assert_clean_failure(result, json_errors=True)
    assert says in json.dumps(problems)


def test_a_volume_column_sets_only_the_workloads_that_give_it() -> None:
    mixed = frame(
        [
            {
                "id": "train",
                "kind": "training",
                "model_family": "llama",
                "params_b": 8,
                "h100_gpu_hours": 500,
            },
            {
                "id": "serve",
                "kind": "inference",
                "model_family": "llama",
                "params_b": 8,
                "monthly_tokens_b": 2,
            },
        ]
    )
    catalog = read_catalog()
    result = sweep(mixed, [Parameter.parse_range("inventory.h100_gpu_hours", "400:800:2")], catalog)
    chip_hours = {
        p.values[0]: {a.workload_id: a.chip_hours for a in p.plan.assignments}
        for p in result.points
    }
    # The serving workload keeps its token volume; the training job's hours follow the grid.
    assert chip_hours[400.0]["serve"] == chip_hours[800.0]["serve"]
    assert chip_hours[800.0]["train"] > chip_hours[400.0]["train"]
    by_hand = plan(mixed.assign(h100_gpu_hours=[800.0, None]), catalog).plan
    assert chip_hours[800.0] == {a.workload_id: a.chip_hours for a in by_hand.assignments}


@pytest.mark.parametrize("price", [2.0, 3.0, 6.0])
def test_a_solve_alone_decides_what_the_whole_plan_decides(price: float) -> None:
    import pandas as pd

    from placement.comparing.batch import CatalogSpec, PlanJob, run_job
    from placement.comparing.sweep import decide
    from placement.pipeline import SolverOptions
    from placement.reading import read_inventory

    catalog = read_catalog()
    rows = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    # One workload no accelerator can take (quantized LoRA, pinned to where it is missing),
    # so that "unplaced" is compared too.
    assert rows.loc[5, "features"] == "qlora"
    impossible = rows.iloc[[5]].assign(id="impossible", pinned_accelerator="trn2")
    inventory = read_inventory(
        pd.concat([rows, impossible], ignore_index=True),
        list(catalog.catalog.accelerators),
        load_profiles=catalog.catalog.profile_kinds(),
    )
    parameter = Parameter("accelerators.h100.on_demand_usd_per_chip_hour", (price,))
    job = PlanJob(inventory, CatalogSpec.of(catalog), parameter.scenario(price), SolverOptions())
    whole = decisions(run_job(job))
    assert decide(job) == whole
    assert whole[1] == ("impossible",)
    assert whole[0] and len(whole[0]) == len(rows)


def test_two_changes_in_one_grid_step_are_both_found() -> None:
    """Three jobs whose plan changes twice as H100 grows dearer (the migration and two jobs at
    one price, the chat service at a higher one): a grid of two points finds both break-evens,
    each where a fine grid of 31 points puts it."""
    from tests.test_explain import as_inventory, small_inventory

    inventory = as_inventory(small_inventory())
    price = "accelerators.h100.on_demand_usd_per_chip_hour"
    coarse = sweep(inventory, [Parameter.parse_range(price, "2:5:2")], workers=1)
    fine = sweep(inventory, [Parameter.parse_range(price, "2:5:31")], workers=1)
    assert len(fine.break_evens) == 2
    assert len(coarse.break_evens) == len(fine.break_evens)
    for c, f in zip(coarse.break_evens, fine.break_evens, strict=True):
        assert c.changes == f.changes
        assert max(c.low, f.low) <= min(c.high, f.high)  # the two brackets overlap


def _count_bisection_solves(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The jobs the sweep's bisection solves from now on (its grid's are plans, not these)."""
    import placement.comparing.sweep as sweeping

    bisected: list[object] = []
    decide = sweeping.decide

    def counted(job: Any) -> Any:
        bisected.append(job)
        return decide(job)

    monkeypatch.setattr(sweeping, "decide", counted)
    return bisected


def test_the_bisection_stops_at_its_budget_with_the_brackets_it_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The two changes in one grid step need more than eight solves to locate in full: with a
    budget of eight, eight are made, both changes are still reported, each bracket holds where
    the full bisection puts it, and one of them is wider than the tolerance."""
    import placement.comparing.sweep as sweeping
    from tests.test_explain import as_inventory, small_inventory

    inventory = as_inventory(small_inventory())
    price = [Parameter.parse_range("accelerators.h100.on_demand_usd_per_chip_hour", "2:5:2")]
    full = sweep(inventory, price, workers=1)
    bisected = _count_bisection_solves(monkeypatch)
    monkeypatch.setattr(sweeping, "BISECTION_SOLVES_PER_CHANGE", 8)
    cut = sweep(inventory, price, workers=1)
    assert len(bisected) == 8
    assert [b.changes for b in cut.break_evens] == [b.changes for b in full.break_evens]
    for c, f in zip(cut.break_evens, full.break_evens, strict=True):
        assert c.low <= f.low and f.high <= c.high
    step = 3.0
    assert max(b.high - b.low for b in cut.break_evens) > BISECTION_TOLERANCE * step
    assert max(b.high - b.low for b in full.break_evens) <= BISECTION_TOLERANCE * step


@pytest.mark.parametrize(("horizon", "prices", "solves"), [(6, "1:8:2", 2), (None, "2:5:2", None)])
def test_the_bisection_of_roadmaps_stays_within_its_bound_of_work(
    horizon: int | None, prices: str, solves: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A roadmap's bisection solves x what each counts (its workloads, at least 1,000, times its
    months) stay within the bound: 12,000 workload-plans are two 6-month roadmaps of the small
    inventory. The changes are still reported, each bracket holding the full bisection's. A
    steady state's bisection is not cut by it."""
    import placement.comparing.limits as limits
    import placement.comparing.sweep as sweeping
    from tests.test_explain import as_inventory, small_inventory

    inventory = as_inventory(small_inventory())
    price = [Parameter.parse_range("accelerators.h100.on_demand_usd_per_chip_hour", prices)]
    task = "decide" if horizon is None else "_plan_decisions"
    bisected: list[object] = []
    solve = getattr(sweeping, task)
    monkeypatch.setattr(sweeping, task, lambda job: bisected.append(job) or solve(job))
    full = sweep(inventory, price, workers=1, horizon=horizon)
    assert full.break_evens
    in_full = len(bisected)
    bisected.clear()
    monkeypatch.setattr(limits, "MAX_BISECTED_ROADMAP_WORKLOAD_PLANS", 12_000)
    cut = sweep(inventory, price, workers=1, horizon=horizon)
    if solves is None:
        assert len(bisected) == in_full
    else:
        assert len(bisected) == solves < in_full
    assert [b.changes for b in cut.break_evens] == [b.changes for b in full.break_evens]
    for c, f in zip(cut.break_evens, full.break_evens, strict=True):
        assert c.low <= f.low and f.high <= c.high


@pytest.mark.parametrize(
    ("path", "values"),
    [
        ("accelerators.h100.on_demand_usd_per_chip_hour", "2:5:2"),
        ("accelerators.trn2.max_chips", "10:100:3"),
    ],
)
def test_progress_counts_the_bisection_solves_too(
    path: str, values: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The progress reported covers every solve, the bisection's after the grid's: it never
    runs past its total, and it ends full at the number of solves made."""
    from tests.test_explain import as_inventory, small_inventory

    bisected = _count_bisection_solves(monkeypatch)
    reports: list[tuple[int, int]] = []
    result = sweep(
        as_inventory(small_inventory()),
        [Parameter.parse_range(path, values)],
        workers=1,
        progress=lambda done, total: reports.append((done, total)),
    )
    assert result.break_evens and bisected
    made = len(result.points) + len(bisected)
    assert reports[-1] == (made, made)
    assert all(done <= total for done, total in reports)
    assert [done for done, _ in reports] == sorted(done for done, _ in reports)
    assert max(done for done, _ in reports[: len(result.points)]) == len(result.points)


def test_a_whole_number_parameter_is_bisected_on_whole_numbers() -> None:
    """A chip limit takes whole numbers: the break-even is located between two neighbours,
    each confirmed by a plan of its own (a fractional limit would be refused)."""
    from tests.test_explain import as_inventory, small_inventory

    limit = "accelerators.trn2.max_chips"
    result = sweep(
        as_inventory(small_inventory()), [Parameter.parse_range(limit, "10:100:3")], workers=1
    )
    assert result.break_evens
    for b in result.break_evens:
        assert b.low.is_integer() and b.high == b.low + 1
        before = plan(small_inventory(), read_catalog(None, [f"{limit}={int(b.low)}"])).plan
        after = plan(small_inventory(), read_catalog(None, [f"{limit}={int(b.high)}"])).plan
        assert decisions(before) != decisions(after)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--param", "accelerators.h100.on_demand_usd_per_chip_hour", "--range", "2:2:3"],
            "--range '2:2:3' for accelerators.h100.on_demand_usd_per_chip_hour: START and STOP "
            "must differ (both are 2",
        ),
        (
            ["--param", "economics.amortization_months", "--range", "6:24:3:4"],
            "--range '6:24:3:4' for economics.amortization_months: expected START:STOP:STEPS",
        ),
        (
            ["--param", "accelerators.h100.on_demand_usd_per_chip_hour", "--range", "nan:6:3"],
            "START and STOP finite numbers",
        ),
        (
            [
                "--param", "accelerators.h100.on_demand_usd_per_chip_hour",
                "--range", "1e308:1.7e308:3",
            ],
            "money (USD) must be at most 1,000,000 (a million dollars an hour",
        ),
    ],
)  # fmt: skip
def test_a_range_that_sweeps_nothing_or_past_the_bounds_is_refused(
    args: list[str], says: str
) -> None:
    result = invoke("sweep", SAMPLE, *args, "--workers", "1")
    assert_clean_failure(result)
    assert says in result.stderr


def test_an_unknown_workload_id_is_named_with_the_nearest_ids() -> None:
    """The message said 'inventory[0] (set): where matches no workload', never the id."""
    unknown = invoke(
        "sweep", SAMPLE, "--param", "inventory[no-such-id].params_b", "--range", "2:6:3"
    )
    assert_clean_failure(unknown)
    assert (
        "--param inventory[no-such-id].params_b: no workload 'no-such-id' in the inventory"
        in unknown.stderr
    )
    misspelt = invoke(
        "sweep", SAMPLE, "--param", "inventory[llama-70b-sf].params_b", "--range", "60:80:2"
    )
    assert_clean_failure(misspelt)
    assert "did you mean 'llama-70b-sft'" in misspelt.stderr


def test_a_workload_pattern_that_matches_is_swept() -> None:
    """An ID is matched as a scenario's ``where`` matches it: a pattern picks its workloads."""
    from placement.reading import read_inventory

    inventory = read_inventory(SAMPLE)
    parameter = Parameter.parse_range("inventory[llama-70b-s*].params_b", "60:80:2")
    assert parameter.on(inventory) == parameter

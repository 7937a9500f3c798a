"""Scenario files: parsed, applied to the catalog and the inventory, and refused clearly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from placement.catalog import read_catalog
from placement.comparing.sweep import Parameter
from placement.pipeline import plan
from placement.reading import read_inventory
from placement.scenarios import ScenarioError, read_scenario, scenario_inventory
from placement.scenarios.apply import matching
from placement.scenarios.files import InventoryChange
from tests.conftest import assert_consistent
from tests.test_cli import assert_clean_failure, invoke

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"
SCENARIOS = sorted((ROOT / "inputs" / "scenarios").glob("*.yaml"))


def _write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _comparable(document: dict[str, Any]) -> dict[str, Any]:
    """A plan JSON without what differs between two runs of the same question."""
    document = json.loads(json.dumps(document))
    run = document["run"]
    for key in ("started_at", "scenario", "scenario_file"):
        run.pop(key, None)
    document["solver"].pop("time_s", None)
    return document


def test_the_samples_cover_what_planners_ask() -> None:
    names = {p.stem for p in SCENARIOS}
    assert {
        "h100_price_cut",
        "neuron_flash_attention",
        "inference_traffic_doubles",
        "load_drop_20",
        "longer_amortization",
        "no_savings_plan",
        "savings_plan_3yr",
    } <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_sample_scenario_plans_the_sample(path: Path) -> None:
    scenario = read_scenario(path)
    result = plan(SAMPLE, scenario=scenario)
    assert result.plan.status == "optimal"
    assert_consistent(result)
    assert result.plan.run is not None and result.plan.run.scenario == scenario.name
    assert result.plan.run.scenario_file is not None
    assert result.plan.run.scenario_file.sha256 == scenario.sha256


def test_a_scenario_that_changes_nothing_reproduces_the_base_plan(tmp_path: Path) -> None:
    empty = _write(tmp_path, "name: nothing\ndescription: no change\n")
    base = invoke("plan", SAMPLE, "--format", "json")
    same = invoke("plan", SAMPLE, "--format", "json", "--scenario", empty)
    assert base.exit_code == same.exit_code == 0
    assert _comparable(json.loads(base.stdout)) == _comparable(json.loads(same.stdout))


def test_catalog_settings_equal_the_same_set_options(tmp_path: Path) -> None:
    scenario = _write(
        tmp_path,
        "name: cut\ndescription: d\ncatalog:\n"
        "  accelerators.h100.on_demand_usd_per_chip_hour: 3.0\n"
        "  economics.amortization_months: 24\n",
    )
    by_scenario = invoke("plan", SAMPLE, "--format", "json", "--scenario", scenario)
    by_set = invoke(
        "plan",
        SAMPLE,
        "--format",
        "json",
        "--set",
        "accelerators.h100.on_demand_usd_per_chip_hour=3.0",
        "--set",
        "economics.amortization_months=24",
    )
    a, b = json.loads(by_scenario.stdout), json.loads(by_set.stdout)
    assert a["objective_monthly_usd"] == b["objective_monthly_usd"]
    assert a["run"]["catalog"]["effective_sha256"] == b["run"]["catalog"]["effective_sha256"]
    assert a["run"]["scenario_file"]["catalog_settings"] == [
        "accelerators.h100.on_demand_usd_per_chip_hour=3.0",
        "economics.amortization_months=24",
    ]


def test_set_has_the_last_word_over_a_scenario(tmp_path: Path) -> None:
    scenario = read_scenario(
        _write(tmp_path, "name: a\ncatalog:\n  economics.amortization_months: 24\n")
    )
    from placement.scenarios import scenario_catalog

    source = read_catalog(None, ["economics.amortization_months=6"])
    changed = scenario_catalog(source, scenario)
    assert changed is not None and not isinstance(changed, type(None))
    catalog = changed.catalog if hasattr(changed, "catalog") else changed
    assert catalog.economics.amortization_months.value == 6


def test_a_text_setting_keeps_its_text(tmp_path: Path) -> None:
    """An SDK version written 2.30 stays "2.30" (YAML would read the number 2.3)."""
    scenario = read_scenario(
        _write(tmp_path, "name: sdk\ncatalog:\n  platforms.neuron.sdk_version: 2.30\n")
    )
    source = read_catalog(settings=scenario.settings)
    assert source.catalog.platforms["neuron"].sdk_version == "2.30"


def _inventory() -> Any:
    catalog = read_catalog().catalog
    return read_inventory(
        SAMPLE, list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    ), catalog


def test_inventory_changes_apply_in_order(tmp_path: Path) -> None:
    inventory, catalog = _inventory()
    frame = inventory.workloads
    scenario = read_scenario(
        _write(
            tmp_path,
            """
name: many
inventory:
  - scale: {column: monthly_tokens_b, by: 2}
    where: {kind: inference}
  - pin: trn2
    where: {model_family: "llama*", kind: training}
  - profile: business_hours
    where: {serving: online}
  - drop: true
    where: {team: research}
  - set: {column: neuron_ready, value: true}
    where: {model_family: mistral}
  - add:
      - {id: new-sft, kind: training, model_family: llama, params_b: 8, h100_gpu_hours: 900}
""",
        )
    )
    changed = scenario_inventory(
        inventory, scenario, list(catalog.accelerators), catalog.profile_kinds()
    ).workloads.set_index("id")
    before = frame.set_index("id")
    dropped = set(before.index[before["team"].eq("research")])
    assert dropped and not dropped & set(changed.index)
    assert "new-sft" in changed.index
    for wid, row in changed.iterrows():
        if wid == "new-sft":
            continue
        old = before.loc[wid]
        if row["kind"] == "inference":
            assert row["monthly_tokens_b"] == pytest.approx(2 * old["monthly_tokens_b"])
        else:
            assert row["monthly_tokens_b"] == pytest.approx(old["monthly_tokens_b"], nan_ok=True)
        if row["kind"] == "training" and str(row["model_family"]).startswith("llama"):
            assert row["pinned_accelerator"] == "trn2"
        if old["serving"] == "online":
            assert row["load_profile"] == "business_hours"
        if row["model_family"] == "mistral":
            assert bool(row["neuron_ready"])
    assert len(changed) == len(before) - len(dropped) + 1


def _problems(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    path = _write(tmp_path, text)
    result = invoke("plan", SAMPLE, "--format", "json", "--scenario", path)
    problems = assert_clean_failure(result, json_errors=True)
    assert all(p["file"] == str(path) or str(path) in p["message"] for p in problems), problems
    return problems


def test_a_malformed_scenario_is_refused_with_every_problem(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path,
        """
name: ""
colour: blue
catalog: [1, 2]
inventory:
  - scale: {column: monthly_tokens_b}
  - drop: true
  - scale: {column: x, by: 2}
    pin: trn2
  - frobnicate: 1
""",
    )
    columns = {p["column"] for p in problems}
    assert {
        "name",
        "colour",
        "catalog",
        "inventory[0].scale",
        "inventory[1].where",
        "inventory[2]",
        "inventory[3]",
    } <= columns
    assert all(p["line"] for p in problems)


def test_not_yaml_is_refused(tmp_path: Path) -> None:
    [problem] = _problems(tmp_path, "name: [unclosed\n")
    assert "not valid YAML" in problem["message"]


def test_an_unknown_catalog_path_names_the_scenario_entry(tmp_path: Path) -> None:
    [problem] = _problems(tmp_path, "name: x\ncatalog:\n  economics.amortisation_months: 24\n")
    assert "catalog 'economics.amortisation_months' (line 3)" in problem["message"]
    assert "amortization_months" in problem["message"]  # the keys that exist


def test_a_bad_catalog_value_names_the_scenario_entry(tmp_path: Path) -> None:
    [problem] = _problems(tmp_path, "name: x\ncatalog:\n  economics.amortization_months: -3\n")
    assert "catalog 'economics.amortization_months'" in problem["message"]


def test_a_filter_that_matches_nothing_is_refused(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path,
        """
name: x
inventory:
  - drop: true
    where: {model_family: nosuchfamily}
  - pin: trn2
    where: {colour: blue}
  - scale: {column: model_family, by: 2}
""",
    )
    messages = " | ".join(p["message"] for p in problems)
    assert "inventory[0] (drop): where matches no workload" in messages
    assert "inventory[1] (pin): where: no column 'colour'" in messages
    assert "inventory[2] (scale): column 'model_family' is not a number" in messages


def test_a_change_that_makes_the_inventory_invalid_names_the_scenario(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path,
        """
name: x
inventory:
  - pin: h200
    where: {id: llama-70b-sft}
  - add:
      - {id: llama-70b-sft, kind: training, model_family: llama, params_b: 8, h100_gpu_hours: 1}
""",
    )
    text = " | ".join(p["message"] for p in problems)
    assert "after" in text and "h200" in text and "llama-70b-sft" in text


def test_a_missing_scenario_file_is_refused(tmp_path: Path) -> None:
    result = invoke("plan", SAMPLE, "--scenario", tmp_path / "none.yaml")
    assert_clean_failure(result)


def test_read_scenario_raises_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as err:
        read_scenario(_write(tmp_path, "- just\n- a list\n"))
    assert err.value.problems[0].line == 1


BOMB = "name: bomb\ncatalog:\n  a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"  {n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n"
    for p, n in zip("abcdefgh", "bcdefghi", strict=True)
)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (BOMB, "aliases expand to more than 100,000 values"),
        ("name: x\ncatalog: &c\n  nested: *c\n", "a recursive alias"),
        ("name: x\nname: y\n", "name: duplicate key (first at line 1), line 2"),
        ("name: x\ncatalog:\n  economics.amortization_months: 12\n"
         "  economics.amortization_months: 24\n", "duplicate key (first at line 3), line 4"),
        ("name: x\ninventory:\n  - set: {column: params_b, value: [1, 2]}\n",
         "value: one value"),
        ("name: x\ninventory:\n  - scale: {column: params_b, by: .nan}\n", "by: a finite number"),
        ("name: x\ninventory:\n  - scale: {column: params_b, by: .inf}\n", "by: a finite"),
    ],
)  # fmt: skip
def test_hostile_yaml_is_refused_before_it_is_built(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    result = invoke("plan", SAMPLE, "--scenario", path, "--summary")
    assert_clean_failure(result)
    assert says in result.stderr


@pytest.mark.parametrize("option", ["--scenario", "--catalog"])
def test_an_endless_or_secret_file_is_refused_without_echoing_it(
    tmp_path: Path, option: str
) -> None:
    """/dev/zero is refused after a bounded read; a .env passed as a catalog or a scenario
    is refused with its keys at most, never its values."""
    endless = invoke("plan", SAMPLE, option, "/dev/zero", "--summary")
    assert_clean_failure(endless)
    assert "larger than 4,000,000 bytes" in endless.stderr
    secret = tmp_path / "prod.env"
    secret.write_text("DB_PASSWORD: hunter2-secret\nAPI_KEY: sk-live-123\n")
    refused = invoke("plan", SAMPLE, option, secret, "--summary")
    assert_clean_failure(refused)
    assert "hunter2-secret" not in refused.stderr and "sk-live-123" not in refused.stderr


EVERY_LAYER_WRONG = """\
name: multi
catalog:
  accelerators.h100.on_demand_usd_per_chip_hourz: 3
  accelerators.trn2.on_demand_usd_per_chip_hour: abc
inventory:
  - set: {column: params_b, value: 5}
    where: {id: nosuchjob}
  - scale: {column: monthly_tokens_b, by: .nan}
  - scale: {column: colour, by: 2}
"""


def test_every_problem_of_every_layer_comes_at_once(tmp_path: Path) -> None:
    """A file's entries, its catalog settings and its inventory changes are checked in turn,
    and every problem found in any of them is in the one message."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(EVERY_LAYER_WRONG, encoding="utf-8")
    result = invoke("plan", SAMPLE, "--scenario", bad)
    assert_clean_failure(result)
    for fragment in (
        "inventory[1].scale: by: a finite number",  # the entry
        "on_demand_usd_per_chip_hourz",  # a setting: no such path
        "(got 'abc')",  # a setting: not a number
        "where matches no workload",  # a change
        "no column 'colour'",  # a change
    ):
        assert fragment in result.stderr, fragment
    assert "5 problems" in result.stderr
    other = tmp_path / "other.yaml"
    other.write_text("name: other\nfoo: 1\n", encoding="utf-8")
    result = invoke("whatif", SAMPLE, bad, other, "--workers", "1")
    assert_clean_failure(result)
    assert "6 problems" in result.stderr and "other.yaml: foo: unknown key" in result.stderr


@pytest.mark.parametrize("option", ["--scenario", "--catalog"])
@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_a_file_nested_too_deeply_is_refused_naming_it(
    tmp_path: Path, option: str, suffix: str
) -> None:
    """20,000 nested brackets are refused from the parser's events, before the recursive
    parser and walks meet them (they raised RecursionError, an internal error)."""
    depth = 20_000
    path = tmp_path / f"deep.{suffix}"
    if suffix == "json":
        path.write_text('{"name": ' + "[" * depth + "]" * depth + "}", encoding="utf-8")
    else:
        path.write_text("name: x\ndescription: " + "[" * depth + "]" * depth + "\n")
    result = invoke("plan", SAMPLE, option, path, "--summary")
    assert_clean_failure(result)
    assert str(path) in result.stderr
    assert "nested deeper than 100 levels" in result.stderr


def test_a_file_at_the_nesting_limit_is_read(tmp_path: Path) -> None:
    """The top-level mapping and 99 lists: 100 levels, read and judged as a scenario."""
    path = tmp_path / "nested.yaml"
    path.write_text("name: x\ndescription: " + "[" * 99 + "]" * 99 + "\n")
    assert [p.expected for p in read_scenario(path).problems] == ["a text"]
    path.write_text("name: x\ndescription: " + "[" * 100 + "]" * 100 + "\n")
    with pytest.raises(ScenarioError, match="nested deeper than 100 levels"):
        read_scenario(path)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_a_scenario_in_utf16_or_utf32_with_a_byte_order_mark_is_read(
    tmp_path: Path, encoding: str
) -> None:
    """As the inventory and the catalog are: Windows editors save UTF-16 with its mark."""
    text = "name: wide\ncatalog:\n  economics.amortization_months: 24\n"
    path = tmp_path / "wide.yaml"
    mark = {"utf-16-be": b"\xfe\xff", "utf-32-be": b"\x00\x00\xfe\xff"}.get(encoding, b"")
    path.write_bytes(mark + text.encode(encoding))
    scenario = read_scenario(path)
    assert scenario.name == "wide" and not scenario.problems
    assert [s.value for s in scenario.settings] == [24]


def test_a_scenario_with_a_utf16_mark_but_not_utf16_is_refused_saying_so(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_bytes(b"\xff\xfe" + "name: x\n".encode("utf-16-le") + b"\x00")  # an odd byte
    result = invoke("plan", SAMPLE, "--scenario", path, "--summary")
    assert_clean_failure(result)
    assert str(path) in result.stderr
    assert "it has a UTF-16 byte-order mark but is not valid UTF-16" in result.stderr


@pytest.mark.parametrize("option", ["--scenario", "--catalog"])
def test_a_named_pipe_nothing_writes_to_is_refused_within_seconds(
    tmp_path: Path, option: str
) -> None:
    """A FIFO with no writer blocked the read for ever; it is now refused after a few
    seconds of silence, as not a regular file."""
    import os
    import time

    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    started = time.monotonic()
    result = invoke("plan", SAMPLE, option, fifo, "--summary")
    assert time.monotonic() - started < 15
    assert_clean_failure(result)
    assert str(fifo) in result.stderr
    assert "a named pipe (FIFO), not a regular file" in result.stderr
    assert "nothing came from it within 5 seconds" in result.stderr


def test_a_named_pipe_with_a_writer_is_read_like_a_file(tmp_path: Path) -> None:
    """What a process substitution ``<(...)`` gives: a pipe read once, as its data comes."""
    import os
    import threading
    import time

    fifo = tmp_path / "scenario.yaml"
    os.mkfifo(fifo)

    def write() -> None:
        time.sleep(0.5)  # the reader is waiting already
        fifo.write_text("name: piped\n", encoding="utf-8")

    writer = threading.Thread(target=write)
    writer.start()
    scenario = read_scenario(fifo)
    writer.join(timeout=30)
    assert scenario.name == "piped" and scenario.text == "name: piped\n"


@pytest.mark.parametrize(
    ("wanted", "selected"),
    [
        ("[prod] llama-70b", ["[prod] llama-70b"]),  # the same text, not a pattern
        ("[PROD] LLAMA-70B", ["[prod] llama-70b"]),  # case aside
        ("llama*", ["llama[v2]"]),  # a pattern still
        ("[pq] llama-70b", ["p llama-70b"]),  # a character class where no id is the text
    ],
)
def test_a_filter_names_an_id_with_brackets_as_written(wanted: str, selected: list[str]) -> None:
    frame = pd.DataFrame({"id": ["[prod] llama-70b", "p llama-70b", "llama[v2]"]})
    change = InventoryChange("pin", "trn2", {"id": [wanted]}, 0, 1)
    assert frame["id"][matching(frame, change, "s.yaml")].tolist() == selected


def test_a_sweep_parameter_names_a_workload_whose_id_holds_brackets() -> None:

    inventory = read_inventory(
        Path(__file__).resolve().parents[1] / "inputs" / "sample_inventory.csv",
        list(read_catalog().catalog.accelerators),
    )
    first = str(inventory.workloads["id"].iloc[0])
    workloads = inventory.workloads.assign(
        id=inventory.workloads["id"].where(inventory.workloads["id"] != first, f"[prod] {first}")
    )
    inventory = type(inventory)(**{**inventory.__dict__, "workloads": workloads})
    path = f"inventory[[prod] {first}].h100_gpu_hours"
    parameter = Parameter.parse_range(path, "100:200:2").on(inventory)
    changed = parameter.scenario(150.0).changes[0]
    assert changed.where == {"id": [f"[prod] {first}"]}

"""Every catalog figure is checked against what it means, from the file and from ``--set``.

Each rule family is tried both ways through the CLI: a catalog file with one bad value (the
problem names the file, the dotted path and the line) and the same path set with ``--set`` (the
problem names the option). Values exactly at a bound pass. A numeric field added to the models
without a bound fails ``test_every_numeric_field_has_a_bound``.
"""

from __future__ import annotations

import codecs
import json
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from pydantic import BaseModel
from ruamel.yaml import YAML

from placement.catalog import apply_overrides, default_catalog_text, load_catalog, read_catalog
from placement.cli.main import cli
from placement.errors import CatalogError
from placement.models import catalog as model
from placement.models.catalog import BOUNDS, Bound, Catalog

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "inputs" / "sample_inventory.csv")

# (dotted path, bad value, what the message says). --set sets the path whole; the file gets the
# value in one place: a range's ``low``, a fixed figure's ``value``.
RULES = [
    ("accelerators.h100.on_demand_usd_per_chip_hour", "-1", "money (USD) must be >= 0"),
    ("platforms.neuron.migration_one_off_usd", "-50000", "money (USD) must be >= 0"),
    ("economics.porting_engineer_usd_per_week", "-1", "money (USD) must be >= 0"),
    (
        "pricing_options.reserved_1yr.discount_vs_on_demand",
        "1.5",
        "a discount must be >= 0 and <= 1",
    ),
    ("pricing_options.on_demand.discount_vs_on_demand", "-0.1", "a discount must be >= 0 and <= 1"),
    ("memory.usable_memory_fraction", "0", "a usable fraction must be > 0 and <= 1"),
    ("accelerators.trn2.max_chips", "-1", "a limit must be >= 0"),
    ("load_profiles.business_hours.weekday.9", "1.5", "a load level must be >= 0 and <= 1"),
    ("memory.inference_overhead_fraction", "-0.1", "a memory overhead must be >= 0"),
    ("memory.training_optimizer_bytes_per_param", "-4", "a memory overhead must be >= 0"),
    ("accelerators.trn2.memory_gb_per_chip", "0", "memory must be > 0"),
    ("memory.bytes_per_param.bf16", "-2", "memory must be > 0"),
    ("accelerators.trn2.inference_throughput_vs_reference", "0", "a throughput figure must be > 0"),
    ("accelerators.trn2.inference_serving_efficiency", "-1", "a throughput figure must be > 0"),
    (
        "workload_model.training_tokens_per_reference_chip_hour.default.0.figure",
        "0",
        "a throughput figure must be > 0",
    ),
    ("platforms.neuron.features.moe.throughput_factor", "1.5", "a slowdown factor must be > 0"),
    ("platforms.neuron.porting_weeks_per_family", "-2", "weeks must be >= 0"),
    ("platforms.neuron.support_lag_weeks", "-1", "weeks must be >= 0"),
    ("economics.porting_capacity_weeks_per_cycle", "-3", "weeks must be >= 0"),
    ("accelerators.h100.ttft_7b_ms_warm", "0", "a latency must be > 0"),
    ("platforms.neuron.graph_caching.ttft_ratio_to_reference", "0", "a latency must be > 0"),
    ("workload_model.online_peak_to_mean_ratio", "0.5", "a peak-to-mean ratio must be >= 1"),
    ("latency.params_exponent", "-1", "a scaling exponent must be >= 0"),
    ("workload_model.size_elasticity_outside_anchors", "0.5", "a size elasticity must be <= 0"),
    ("latency.reference_params_b", "0", "a model size (billions of parameters) must be > 0"),
    ("accelerators.trn2.deployment_unit_chips", "0", "a chip count must be >= 1"),
    ("accelerators.h100.node_chips", "true", "a chip count must be a number, not true/false"),
    ("economics.amortization_months", "0", "months must be >= 1"),
    ("pricing_options.reserved_1yr.term_months", "0", "months must be >= 1"),
    ("economics.hours_per_month", "0", "hours per month must be > 0 and <= 744"),
    ("economics.hours_per_month", "745", "hours per month must be > 0 and <= 744"),
    (
        "accelerators.h100.on_demand_usd_per_chip_hour",
        ".nan",
        "money (USD) must be a finite number",
    ),
    ("platforms.neuron.porting_weeks_per_family", ".inf", "weeks must be a finite number"),
    ("workload_model.online_target_utilization", "0", "a usable fraction must be > 0 and <= 1"),
    (
        "workload_model.training_attention_share_at_benchmark_context",
        "1.5",
        "a share must be > 0 and <= 1",
    ),
    (
        "workload_model.inference_attention_share_at_benchmark_context",
        "0",
        "a share must be > 0 and <= 1",
    ),
    ("workload_model.adapters.trainable_param_fraction", "0", "a share must be > 0 and <= 1"),
    ("workload_model.adapters.qlora_compute_vs_full", "2", "a share must be > 0 and <= 1"),
    (
        "platforms.neuron.features.flash_attention.attention_slowdown",
        "0.5",
        "an attention slowdown must be >= 1",
    ),
    ("workload_model.training_benchmark_context_tokens", "0", "a number of tokens must be >= 1"),
    (
        "workload_model.inference_prefill_tokens_per_s_per_reference_chip.figure",
        "0",
        "a throughput figure must be > 0",
    ),
    ("families.mixtral.active_params.0.active_params_b", "0", "a model size"),
    (
        "accelerators.h100.on_demand_usd_per_chip_hour",
        "1e308",
        "money (USD) must be at most 1,000,000 (a million dollars an hour",
    ),
    (
        "platforms.neuron.migration_one_off_usd",
        "2e15",
        "money (USD) must be at most 1,000,000,000,000,000 (a quadrillion dollars",
    ),
    (
        "workload_model.online_peak_to_mean_ratio",
        "101",
        "a peak-to-mean ratio must be >= 1 and <= 100",
    ),
    ("platforms.neuron.sdk_version", "v2.17", "a version must be dotted numbers"),
    ("platforms.neuron.sdk_version", "banana", "a version must be dotted numbers"),
    ("platforms.neuron.graph_caching.from_sdk_version", "2.x", "a version must be dotted numbers"),
]

# Values exactly at a bound, which are legal.
AT_THE_BOUNDS = [
    "accelerators.h100.on_demand_usd_per_chip_hour=0",
    "platforms.neuron.migration_one_off_usd=0",
    "pricing_options.reserved_1yr.discount_vs_on_demand=0",
    "pricing_options.reserved_1yr.discount_vs_on_demand=1",
    "memory.usable_memory_fraction=1",
    "pricing_options.savings_plan_1yr.max_usd_per_hour=0",
    "load_profiles.business_hours.weekend=1",
    "memory.inference_overhead_fraction=0",
    "memory.training_optimizer_bytes_per_param=0",
    "memory.training_activation_overhead_fraction=2.5",
    "platforms.neuron.features.moe.throughput_factor=1",
    "platforms.neuron.porting_weeks_per_family=0",
    "platforms.neuron.migration_lead_weeks=0",
    "economics.porting_capacity_weeks_per_cycle=0",
    "workload_model.online_peak_to_mean_ratio=1",
    "workload_model.online_target_utilization=1",
    "workload_model.training_attention_share_at_benchmark_context=1",
    "workload_model.inference_attention_share_at_benchmark_context=1",
    "platforms.neuron.features.flash_attention.attention_slowdown=1",
    "workload_model.inference_benchmark_context_tokens=1",
    "latency.params_exponent=0",
    "latency.tensor_parallel_exponent=0",
    "workload_model.size_elasticity_outside_anchors=0",
    "accelerators.trn2.deployment_unit_chips=1",
    "accelerators.h100.max_chips=8",
    "economics.amortization_months=1",
    "pricing_options.reserved_1yr.term_months=1",
    "economics.hours_per_month=744",
    "accelerators.h100.on_demand_usd_per_chip_hour=1000000",
    "pricing_options.savings_plan_1yr.max_usd_per_hour=1e6",
    "economics.porting_engineer_usd_per_week=1e15",
    "workload_model.online_peak_to_mean_ratio=100",
    "platforms.neuron.sdk_version=2.9",
    "platforms.neuron.sdk_version=2.20.1",
]


def _run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def _assert_refused(result: Result, *expected: str) -> None:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)
    assert "invalid catalog: 1 problem\n" in result.output
    for text in expected:
        assert text in result.output


def _in_file(path: str) -> str:
    """Where one bad value goes in the file: a range's ``low``, a fixed figure's ``value``."""
    node: Any = load_catalog()
    for key in path.split("."):
        node = node[int(key)] if isinstance(node, list) else _child(node, key)
    if isinstance(node, model.Range):
        return f"{path}.low"
    return f"{path}.value" if isinstance(node, model.Fixed) else path


def _child(node: Any, key: str) -> Any:
    return node[key] if isinstance(node, dict) else getattr(node, key)


def write_catalog(tmp_path: Path, *edits: str, name: str = "my.yaml") -> Path:
    """The default catalog, comments and all, with ``path=value`` edits written into the file."""
    rt = YAML(typ="rt")
    document = apply_overrides(rt.load(default_catalog_text()), edits)
    path = tmp_path / name
    with path.open("w", encoding="utf-8") as out:
        rt.dump(document, out)
    return path


@pytest.mark.parametrize(("path", "value", "expected"), RULES)
def test_a_bad_value_in_a_catalog_file_names_the_file_and_path(
    tmp_path: Path, path: str, value: str, expected: str
) -> None:
    where = _in_file(path)
    catalog = write_catalog(tmp_path, f"{where}={value}")
    result = _run("plan", SAMPLE, "--catalog", str(catalog))
    _assert_refused(result, f"{catalog}: {where}: {expected}", "line ")


@pytest.mark.parametrize(("path", "value", "expected"), RULES)
def test_a_bad_value_set_on_the_command_line_names_the_option(
    path: str, value: str, expected: str
) -> None:
    result = _run("catalog", "show", "--set", f"{path}={value}")
    _assert_refused(result, f"--set '{path}={value}': {path}: {expected}")


def test_the_default_catalog_passes() -> None:
    assert _run("catalog", "show").exit_code == 0
    source = read_catalog()
    assert source.catalog.platforms["neuron"].sdk_version == "2.20"


@pytest.mark.parametrize("override", AT_THE_BOUNDS)
def test_values_at_the_bounds_pass(override: str) -> None:
    load_catalog(overrides=[override])


def test_values_at_the_bounds_pass_all_at_once_through_the_cli() -> None:
    args = [arg for override in AT_THE_BOUNDS for arg in ("--set", override)]
    result = _run("catalog", "show", "--format", "json", *args)
    assert result.exit_code == 0, result.output


def test_the_bounds_are_the_documented_ones() -> None:
    assert model.MONEY.allows(0) and not model.MONEY.allows(-0.01)
    assert model.USABLE_FRACTION.allows(1) and not model.USABLE_FRACTION.allows(0)
    assert model.HOURS_PER_MONTH.allows(744) and not model.HOURS_PER_MONTH.allows(744.5)
    assert model.SIZE_ELASTICITY.allows(-3) and not model.SIZE_ELASTICITY.allows(0.1)
    docs = (ROOT / "docs" / "inputs.md").read_text(encoding="utf-8")
    for bound in BOUNDS:
        assert f"| {bound.kind} |" in docs, bound.kind
        assert f"`{bound.rule}`" in docs, bound.rule


# --- every numeric field has a bound ---------------------------------------------------------

NUMBERS = (int, float)


def _bound_of(metadata: list[Any]) -> Bound | None:
    return next((m for m in metadata if isinstance(m, Bound)), None)


def _numeric_fields(
    annotation: Any, metadata: list[Any], path: str, seen: set[type]
) -> list[tuple[str, Bound | None]]:
    """Every number below ``annotation`` (a field's type), with the bound declared on it."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _numeric_fields(args[0], [*metadata, *annotation.__metadata__], path, seen)
    if origin in (typing.Union, types.UnionType):
        found = []
        for arg in args:
            found += _numeric_fields(arg, metadata, path, seen)
        return found
    if origin is dict:
        return _numeric_fields(args[1], [], f"{path}.*", seen)
    if origin is list:
        return _numeric_fields(args[0], [], f"{path}.N", seen)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_fields(annotation, path, seen)
    if annotation in NUMBERS:
        return [(path, _bound_of(metadata))]
    return []


def _model_fields(cls: type[BaseModel], path: str, seen: set[type]) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for name, field in cls.model_fields.items():
        here = f"{path}.{name}" if path else name
        found += _numeric_fields(field.annotation, list(field.metadata), here, seen)
    return found


def catalog_numbers() -> list[tuple[str, Bound | None]]:
    """Every numeric field of the catalog models, by path (``*`` a map key, ``N`` a list item)."""
    return _model_fields(Catalog, "", set())


def test_every_numeric_field_has_a_bound() -> None:
    numbers = catalog_numbers()
    assert len(numbers) > 60  # the walk reaches into ranges, maps and lists
    unbounded = [path for path, bound in numbers if bound is None]
    assert unbounded == []


def test_the_walk_finds_a_number_without_a_bound() -> None:
    class Loose(BaseModel):
        price_usd: float
        figure: model.Range[float]
        chips: dict[str, list[int]]

    found = dict(_model_fields(Loose, "", set()))
    assert set(found) == {
        "price_usd",
        "figure.low",
        "figure.high",
        "figure.point",
        "chips.*.N",
    }
    assert all(bound is None for bound in found.values())


# Field names carry their unit; the unit decides the bound.
NAMED = [
    (lambda p: "usd_per_" in p and p.endswith("_hour"), model.MONEY_PER_HOUR),
    (lambda p: p.endswith("_usd") or "_usd_per_" in p, model.MONEY),
    (lambda p: "discount_vs_on_demand" in p, model.DISCOUNT),
    (lambda p: "usable" in p and "fraction" in p, model.USABLE_FRACTION),
    (lambda p: "overhead_fraction" in p, model.OVERHEAD),
    (lambda p: p.split(".")[-1] in {"deployment_unit_chips", "node_chips"}, model.CHIPS),
    (lambda p: p.endswith("reservation_unit_chips"), model.CHIPS),
    (lambda p: "_months" in p, model.MONTHS),
    (lambda p: "hours_per_month" in p, model.HOURS_PER_MONTH),
    (lambda p: "memory_gb_per_chip" in p or "bytes_per_param.*" in p, model.MEMORY),
    (lambda p: "_weeks" in p, model.WEEKS),
    (lambda p: "_ms_" in p, model.LATENCY),
    (lambda p: p.endswith("params_b"), model.MODEL_SIZE),
]


def test_names_and_bounds_agree() -> None:
    numbers = catalog_numbers()
    checked = 0
    for path, bound in numbers:
        field = ".".join(part for part in path.split(".") if part not in {"low", "high", "point"})
        field = field.removesuffix(".value")
        for matches, expected in NAMED:
            if matches(field):
                assert bound == expected, (path, bound)
                checked += 1
                break
    assert checked > 30


# --- reported once per value, naming where it came from --------------------------------------


def test_a_range_set_to_one_bad_number_is_one_problem_naming_the_option() -> None:
    result = _run(
        "catalog",
        "show",
        "--format",
        "json",
        "--set",
        "accelerators.h100.on_demand_usd_per_chip_hour=-1",
    )
    assert result.exit_code == 2
    [problem] = json.loads(result.stdout)["problems"]
    assert problem["file"] == "--set"
    assert problem["column"] == "accelerators.h100.on_demand_usd_per_chip_hour"
    assert problem["value"] == "-1"
    assert problem["expected"] == "money (USD) must be >= 0"


def test_file_and_option_problems_are_reported_together(tmp_path: Path) -> None:
    catalog = write_catalog(
        tmp_path,
        "accelerators.trn2.memory_gb_per_chip.value=0",
        "pricing_options.reserved_1yr.discount_vs_on_demand.high=1.2",
    )
    with pytest.raises(CatalogError) as err:
        load_catalog(
            catalog,
            overrides=["economics.amortization_months=0", "nonsense.path=1", "name=ok"],
        )
    problems = {p.column: p for p in err.value.problems}
    assert set(problems) == {
        "accelerators.trn2.memory_gb_per_chip.value",
        "pricing_options.reserved_1yr.discount_vs_on_demand.high",
        "economics.amortization_months",
        "nonsense.path",
    }
    memory = problems["accelerators.trn2.memory_gb_per_chip.value"]
    assert memory.file == str(catalog)
    assert memory.line is not None and memory.value == 0
    text = catalog.read_text(encoding="utf-8").splitlines()[memory.line - 1]
    assert "memory_gb_per_chip" in text
    assert problems["economics.amortization_months"].file == "--set"


def test_an_override_replaces_a_bad_value_of_the_file(tmp_path: Path) -> None:
    catalog = write_catalog(tmp_path, "accelerators.h100.on_demand_usd_per_chip_hour.low=-1")
    price = load_catalog(catalog, ["accelerators.h100.on_demand_usd_per_chip_hour=4"])
    assert price.accelerators["h100"].on_demand_usd_per_chip_hour.value == 4


def test_a_cross_check_broken_by_an_override_is_blamed_on_it(tmp_path: Path) -> None:
    catalog = write_catalog(tmp_path, "accelerators.h100.ttft_7b_ms_warm.low=-1")
    with pytest.raises(CatalogError) as err:
        load_catalog(
            catalog,
            overrides=[
                "accelerators.h100.on_demand_usd_per_chip_hour.point=9",
                "accelerators.trn2.node_chips=6",
            ],
        )
    messages = "\n".join(sorted(p.message for p in err.value.problems))
    assert len(err.value.problems) == 3
    assert f"{catalog}: accelerators.h100.ttft_7b_ms_warm.low: a latency must be > 0" in messages
    assert (
        "--set 'accelerators.h100.on_demand_usd_per_chip_hour.point=9': "
        "accelerators.h100.on_demand_usd_per_chip_hour: point 9.0 must lie within" in messages
    )
    assert "--set 'accelerators.trn2.node_chips=6': accelerators.trn2: node_chips" in messages


def test_a_cross_check_the_file_breaks_stays_the_files(tmp_path: Path) -> None:
    catalog = write_catalog(tmp_path, "accelerators.trn2.node_chips=6")
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog, overrides=["accelerators.trn2.on_demand_usd_per_chip_hour=0.5"])
    [problem] = err.value.problems
    assert problem.file == str(catalog)
    assert problem.message.startswith(f"{catalog}: accelerators.trn2: node_chips must be")


@pytest.mark.parametrize(
    "figure",
    [
        "training_attention_share_at_benchmark_context",
        "inference_attention_share_at_benchmark_context",
        "training_benchmark_context_tokens",
        "inference_benchmark_context_tokens",
    ],
)
def test_an_attention_slowdown_needs_the_benchmark_figures(tmp_path: Path, figure: str) -> None:
    rt = YAML(typ="rt")
    document = rt.load(default_catalog_text())
    del document["workload_model"][figure]
    path = tmp_path / "no_share.yaml"
    with path.open("w", encoding="utf-8") as out:
        rt.dump(document, out)
    result = _run("plan", SAMPLE, "--catalog", str(path))
    _assert_refused(
        result,
        "platforms.neuron.features.flash_attention.attention_slowdown needs "
        f"workload_model.{figure}",
    )


def test_replica_chip_counts_must_increase() -> None:
    with pytest.raises(CatalogError) as err:
        load_catalog(overrides=["accelerators.h100.replica_chip_counts=[1, 4, 2]"])
    assert "replica_chip_counts must be a non-empty increasing list" in str(err.value)


def test_a_broken_reference_names_the_override_that_broke_it() -> None:
    with pytest.raises(CatalogError) as err:
        load_catalog(overrides=["baseline.accelerator=h200", "economics.hours_per_month=700"])
    [problem] = err.value.problems
    assert problem.file == "--set"
    assert problem.column == "baseline.accelerator"
    assert problem.message == (
        "--set 'baseline.accelerator=h200': baseline.accelerator 'h200' is not an accelerator"
    )


def test_two_bad_values_in_a_file_are_two_problems(tmp_path: Path) -> None:
    catalog = write_catalog(
        tmp_path,
        "accelerators.h100.on_demand_usd_per_chip_hour.low=-2",
        "accelerators.h100.on_demand_usd_per_chip_hour.point=-1",
    )
    result = _run("catalog", "show", "--catalog", str(catalog))
    assert result.exit_code == 2
    assert "invalid catalog: 2 problems" in result.output
    assert ".on_demand_usd_per_chip_hour.low: money" in result.output
    assert ".on_demand_usd_per_chip_hour.point: money" in result.output


# --- versions: dotted numbers, kept as text ---------------------------------------------------


def test_versions_stay_text_and_must_be_dotted_numbers() -> None:
    catalog = load_catalog(overrides=["platforms.neuron.sdk_version=2.20"])
    assert catalog.platforms["neuron"].sdk_version == "2.20"
    quoted = load_catalog(overrides=['platforms.neuron.sdk_version="2.17"'])
    assert quoted.platforms["neuron"].sdk_version == "2.17"
    for bad in ("v2.17", "banana", "2", "2.", "2.17-beta"):
        with pytest.raises(CatalogError, match="a version must be dotted numbers"):
            load_catalog(overrides=[f"platforms.neuron.sdk_version={bad}"])


def test_an_unquoted_version_in_a_file_is_refused(tmp_path: Path) -> None:
    catalog = tmp_path / "unquoted.yaml"
    text = default_catalog_text().replace('sdk_version: "2.20"', "sdk_version: 2.20")
    catalog.write_text(text, encoding="utf-8")
    result = _run("catalog", "show", "--catalog", str(catalog))
    _assert_refused(result, "platforms.neuron.sdk_version: a version must be text, quoted")


# --- encodings, duplicate keys, YAML syntax ---------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig"])
def test_utf16_and_utf8_with_a_byte_order_mark_are_read(tmp_path: Path, encoding: str) -> None:
    catalog = tmp_path / "marked.yaml"
    data = default_catalog_text().encode(encoding)
    if encoding == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    catalog.write_bytes(data)
    assert load_catalog(catalog) == load_catalog()


def test_utf16_without_its_mark_and_latin1_are_refused_with_a_line(tmp_path: Path) -> None:
    bare = tmp_path / "bare.yaml"
    bare.write_bytes(default_catalog_text().encode("utf-16-le"))
    result = _run("catalog", "show", "--catalog", str(bare))
    _assert_refused(result, f"{bare}: line 1:", "UTF-16 (little-endian) without a byte-order mark")
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes(
        default_catalog_text().replace("name:", "# caf\xe9\nname:").encode("latin-1")
    )
    result = _run("catalog", "show", "--catalog", str(latin1))
    _assert_refused(result, f"{latin1}: line 6:", "byte 0xe9 on line 6 is not UTF-8")


def test_duplicate_keys_are_all_named_with_path_and_lines(tmp_path: Path) -> None:
    catalog = tmp_path / "dup.yaml"
    text = default_catalog_text().replace(
        "    node_chips: 8\n", "    node_chips: 8\n    node_chips: 16\n"
    )
    text = text.replace("bf16: 2,", "bf16: 2, bf16: 3,")
    catalog.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog)
    node, bf16 = sorted(err.value.problems, key=lambda p: str(p.column))
    assert node.column == "accelerators.h100.node_chips"
    assert "duplicate key 'node_chips' (first at line" in node.message
    assert node.line is not None
    assert text.splitlines()[node.line - 1].strip() == "node_chips: 16"
    assert bf16.column == "memory.bytes_per_param.bf16"


def test_a_yaml_syntax_error_names_its_line_and_column(tmp_path: Path) -> None:
    catalog = tmp_path / "broken.yaml"
    catalog.write_text(default_catalog_text().replace("node_chips: 8", "node_chips: [8"))
    result = _run("catalog", "show", "--catalog", str(catalog))
    _assert_refused(result, f"{catalog}: line ", ", column ", "not valid YAML")


# --- money has a ceiling: no figure near float's maximum reaches the solver -------------------


def test_a_price_near_floats_maximum_is_refused_naming_path_value_and_bound() -> None:
    """1e308 per chip-hour passed every check and broke HiGHS (IndexError inside PuLP)."""
    result = _run("plan", SAMPLE, "--set", "accelerators.h100.on_demand_usd_per_chip_hour=1e308")
    _assert_refused(
        result,
        "--set 'accelerators.h100.on_demand_usd_per_chip_hour=1e308': "
        "accelerators.h100.on_demand_usd_per_chip_hour: money (USD) must be at most "
        "1,000,000 (a million dollars an hour",
        "(got '1e308')",
    )


def test_an_hourly_commitment_cap_has_the_hourly_ceiling() -> None:
    result = _run(
        "catalog", "show", "--set", "pricing_options.savings_plan_1yr.max_usd_per_hour=2e6"
    )
    _assert_refused(
        result,
        "pricing_options.savings_plan_1yr.max_usd_per_hour: money (USD) must be at most 1,000,000",
    )


def test_money_at_its_ceilings_plans_without_an_error() -> None:
    """The largest accepted figures keep every cost the solver sees finite and below the
    10^20 HiGHS takes for infinite (2e15 per chip-hour crashed it): the plan is solved."""
    hourly, other = model.MAX_USD_PER_HOUR, model.MAX_USD
    result = _run(
        "plan", SAMPLE, "--summary",
        "--set", f"accelerators.h100.on_demand_usd_per_chip_hour={hourly}",
        "--set", f"accelerators.trn2.on_demand_usd_per_chip_hour={hourly}",
        "--set", f"platforms.neuron.migration_one_off_usd={other}",
        "--set", f"economics.porting_engineer_usd_per_week={other}",
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_the_money_ceilings_are_documented_with_their_reasons() -> None:
    docs = (ROOT / "docs" / "inputs.md").read_text(encoding="utf-8")
    assert model.MONEY_PER_HOUR.ceiling == model.MAX_USD_PER_HOUR == 1_000_000
    assert model.MONEY.ceiling == model.MAX_USD == 10**15
    assert f"`{model.MONEY_PER_HOUR.ceiling_rule}` (a million dollars an hour" in docs
    assert f"`{model.MONEY.ceiling_rule}` (a quadrillion dollars" in docs
    for bound in (model.MONEY, model.MONEY_PER_HOUR):
        assert bound.ceiling is not None
        assert bound.allows(bound.ceiling) and not bound.allows(bound.ceiling * 1.01)
        assert bound.rule == ">= 0"  # a negative figure reads as it always did


@pytest.mark.parametrize(
    ("path", "value", "says"),
    [
        ("accelerators.trn2.inference_serving_efficiency", "1e-300", "must be at least 1e-06"),
        ("accelerators.trn2.inference_serving_efficiency", "0", "must be > 0"),
        ("accelerators.trn2.inference_serving_efficiency", "1e-6", None),
    ],
)
def test_a_throughput_too_small_to_size_by_is_refused(
    path: str, value: str, says: str | None
) -> None:
    """A figure the chips are divided by: 1e-300 overflowed the estimates (exit 1); the floor
    refuses it with its reason, and zero keeps the message its meaning gives."""
    if says is None:
        read_catalog(overrides=[f"{path}={value}"])
        return
    with pytest.raises(CatalogError, match=says):
        read_catalog(overrides=[f"{path}={value}"])

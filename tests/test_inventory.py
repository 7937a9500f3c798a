"""The inventory reader: every format, every rule, every problem reported at once."""

from __future__ import annotations

import copy
import json
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from placement.models.workload import (
    BOUNDS,
    FEATURES,
    KINDS,
    PRECISIONS,
    SERVING_MODES,
    Workload,
)
from placement.reading import (
    FRAME_COLUMNS,
    InputError,
    InputProblem,
    Inventory,
    inventory_from_records,
    read_inventory,
)

DATA = Path(__file__).parent / "data" / "inventory"
ACCELERATORS = ("trn2", "h100")

# The inventory of tests/data/inventory/valid.* once normalized.
EXPECTED = pd.DataFrame(
    {
        "id": pd.Series(["llama-70b-pretrain", "t5-serve", "mistral-batch"], dtype=object),
        "kind": pd.Series(["training", "inference", "inference"], dtype=object),
        "model_family": pd.Series(["llama", "t5", "mistral"], dtype=object),
        "params_b": [70.0, 0.8, 7.0],
        "precision": pd.Series(["bf16", "fp8", "int4"], dtype=object),
        "monthly_tokens_b": [40.0, np.nan, 0.0],
        "h100_gpu_hours": [np.nan, 1200.0, np.nan],
        "serving": pd.Series([None, "online", "batch"], dtype=object),
        "ttft_slo_ms": [np.nan, 150.0, np.nan],
        "features": pd.Series(["flash_attention;moe", "", "lora"], dtype=object),
        "needed_in_weeks": [20.0, np.nan, 4.0],
        "neuron_ready": [True, False, False],
        "pinned_accelerator": pd.Series([None, "h100", "trn2"], dtype=object),
        "active_params_b": [np.nan, np.nan, np.nan],
        "context_tokens": [np.nan, np.nan, np.nan],
        "peak_to_mean": [np.nan, np.nan, np.nan],
        "input_token_share": [np.nan, np.nan, np.nan],
        "load_profile": pd.Series([None, None, None], dtype=object),
        "current_accelerator": pd.Series([None, None, None], dtype=object),
        "start_month": [np.nan, np.nan, np.nan],
        "end_month": [np.nan, np.nan, np.nan],
        "monthly_growth": [np.nan, np.nan, np.nan],
        "volume_low": [np.nan, np.nan, np.nan],
        "volume_high": [np.nan, np.nan, np.nan],
        "needs_flash_attention": [True, False, False],
        "needs_lora": [False, False, True],
        "needs_lora_multi_rank": [False, False, False],
        "needs_qlora": [False, False, False],
        "needs_moe": [True, False, False],
        "needs_speculative_decoding": [False, False, False],
    }
)


def valid_records() -> list[dict[str, Any]]:
    """valid.yaml's records with features as text, as a spreadsheet or a frame holds them."""
    records = yaml.safe_load((DATA / "valid.yaml").read_text())["workloads"]
    for record in records:
        if isinstance(record.get("features"), list):
            record["features"] = ";".join(record["features"])
    return records


def write_csv(records: list[dict[str, Any]], path: Path) -> None:
    pd.DataFrame(records).to_csv(path, index=False)


def write_xlsx(records: list[dict[str, Any]], path: Path) -> None:
    pd.DataFrame(records).to_excel(path, index=False)


def write_json(records: list[dict[str, Any]], path: Path) -> None:
    path.write_text(json.dumps(records))


def write_json_wrapped(records: list[dict[str, Any]], path: Path) -> None:
    path.write_text(json.dumps({"workloads": records}))


def write_yaml(records: list[dict[str, Any]], path: Path) -> None:
    path.write_text(yaml.safe_dump(records))


def write_parquet(records: list[dict[str, Any]], path: Path) -> None:
    pd.DataFrame(records).to_parquet(path)


WRITERS: dict[str, tuple[str, Callable[[list[dict[str, Any]], Path], None]]] = {
    "csv": (".csv", write_csv),
    "xlsx": (".xlsx", write_xlsx),
    "json": (".json", write_json),
    "json-wrapped": (".json", write_json_wrapped),
    "yaml": (".yaml", write_yaml),
    "yml": (".yml", write_yaml),
    "parquet": (".parquet", write_parquet),
}


def base(**fields: Any) -> dict[str, Any]:
    """A valid inference row as text cells, with ``fields`` changed."""
    row: dict[str, Any] = {
        "id": "w",
        "kind": "inference",
        "model_family": "llama",
        "params_b": "7",
        "monthly_tokens_b": "10",
    }
    row.update(fields)
    return row


def problems_of(
    rows: list[dict[str, Any]], accelerator_names: tuple[str, ...] | None = ACCELERATORS
) -> list[InputProblem]:
    with pytest.raises(InputError) as info:
        inventory_from_records(rows, "inv.json", accelerator_names)
    return info.value.problems


def read_text(tmp_path: Path, name: str, text: str, **kwargs: Any) -> Inventory:
    path = tmp_path / name
    path.write_text(text)
    return read_inventory(path, **kwargs)


def problems_in_file(path: Path) -> list[InputProblem]:
    with pytest.raises(InputError) as info:
        read_inventory(path, ACCELERATORS)
    return info.value.problems


def assert_plain(problem: InputProblem) -> None:
    """Messages are for planners: no pydantic vocabulary, no documentation links."""
    text = str(problem).lower()
    for jargon in ("pydantic", "http", "input should", "validation error", "literal"):
        assert jargon not in text


# --- every format reads to the same inventory ---


def test_csv_fixture_reads_to_the_normalized_frame() -> None:
    inv = read_inventory(DATA / "valid.csv", ACCELERATORS)
    pd.testing.assert_frame_equal(inv.workloads[list(FRAME_COLUMNS)], EXPECTED)
    assert inv.extra_columns == ("Team",)
    assert list(inv.workloads.columns) == [*FRAME_COLUMNS, "Team"]
    assert inv.workloads["Team"].tolist() == ["foundation", "search", ""]  # as read
    assert inv.source == str(DATA / "valid.csv")


def test_yaml_fixture_with_workloads_key_and_feature_list() -> None:
    inv = read_inventory(str(DATA / "valid.yaml"), ACCELERATORS)
    pd.testing.assert_frame_equal(inv.workloads[list(FRAME_COLUMNS)], EXPECTED)
    assert inv.workloads["Team"].tolist() == ["foundation", "search", ""]


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_every_format_round_trips_the_same_inventory(tmp_path: Path, fmt: str) -> None:
    suffix, write = WRITERS[fmt]
    path = tmp_path / f"inventory{suffix}"
    write(valid_records(), path)
    inv = read_inventory(path, ACCELERATORS)
    pd.testing.assert_frame_equal(inv.workloads[list(FRAME_COLUMNS)], EXPECTED)
    assert inv.extra_columns == ("Team",)
    assert inv.workloads["Team"].tolist()[:2] == ["foundation", "search"]
    assert inv.source == str(path)


def test_dataframe_source_keeps_extra_dtypes() -> None:
    frame = pd.DataFrame(valid_records())
    frame["cost_center"] = pd.array([101, None, 103], dtype="Int64")
    inv = read_inventory(frame, ACCELERATORS)
    pd.testing.assert_frame_equal(inv.workloads[list(FRAME_COLUMNS)], EXPECTED)
    assert inv.source == "<DataFrame>"
    assert inv.extra_columns == ("Team", "cost_center")
    assert inv.workloads["cost_center"].dtype == "Int64"
    assert inv.workloads["cost_center"].isna().tolist() == [False, True, False]


def test_dataframe_is_not_modified_and_its_index_is_not_kept() -> None:
    frame = pd.DataFrame(valid_records(), index=[10, 20, 30])
    before = frame.copy()
    inv = read_inventory(frame)
    pd.testing.assert_frame_equal(frame, before)
    assert inv.workloads.index.tolist() == [0, 1, 2]


def test_inventory_from_records_matches_files() -> None:
    inv = inventory_from_records(valid_records(), "api", ACCELERATORS)
    pd.testing.assert_frame_equal(inv.workloads[list(FRAME_COLUMNS)], EXPECTED)
    assert inv.source == "api"


# --- defaults and normalization ---


def test_defaults_are_applied() -> None:
    training = base(id="t", kind="training")
    inference = base(id="i")
    frame = inventory_from_records([training, inference], "inv.json").workloads
    assert frame["precision"].tolist() == ["bf16", "bf16"]
    assert frame["serving"].tolist() == [None, "online"]
    assert frame["neuron_ready"].tolist() == [False, False]
    assert frame["features"].tolist() == ["", ""]
    assert frame["pinned_accelerator"].tolist() == [None, None]
    for column in ("h100_gpu_hours", "ttft_slo_ms", "needed_in_weeks"):
        assert frame[column].isna().all()
    assert not frame[[f"needs_{feature}" for feature in FEATURES]].to_numpy().any()


def test_blank_cells_take_defaults_too() -> None:
    row = base(precision=" ", serving="", neuron_ready=None, features=float("nan"))
    frame = inventory_from_records([row], "inv.json").workloads
    assert list(frame.loc[0, ["precision", "serving", "neuron_ready", "features"]]) == [
        "bf16",
        "online",
        False,
        "",
    ]


def test_words_are_case_insensitive_and_stored_lower_case() -> None:
    row = base(
        kind=" INFERENCE ",
        model_family="DeepSeek_V3",
        precision="FP16",
        serving="Batch",
        features=" MoE ; Flash_Attention;moe;",
        pinned_accelerator="TRN2",
    )
    frame = inventory_from_records([row], "inv.json", ["Trn2", "H100"]).workloads
    assert list(frame.loc[0, ["kind", "model_family", "precision", "serving"]]) == [
        "inference",
        "deepseek_v3",
        "fp16",
        "batch",
    ]
    assert frame.loc[0, "features"] == "flash_attention;moe"  # catalog order, once each
    assert frame.loc[0, "pinned_accelerator"] == "trn2"


def test_column_names_ignore_case_and_surrounding_spaces(tmp_path: Path) -> None:
    inv = read_text(
        tmp_path,
        "inv.csv",
        " ID ,KIND, Model_Family ,Params_B,MONTHLY_TOKENS_B, Notes \nw1,training,llama,1,2,hi\n",
    )
    assert inv.workloads.loc[0, "id"] == "w1"
    assert inv.extra_columns == ("Notes",)


@pytest.mark.parametrize(
    ("cell", "expected"),
    [("true", True), ("Yes", True), ("1", True), (1, True), (True, True), ("FALSE", False),
     ("no", False), ("0", False), (0.0, False), ("", False)],
)  # fmt: skip
def test_neuron_ready_words(cell: object, expected: bool) -> None:
    frame = inventory_from_records([base(neuron_ready=cell)], "inv.json").workloads
    assert frame["neuron_ready"].tolist() == [expected]


@pytest.mark.parametrize(("cell", "expected"), [(42, "42"), (42.0, "42"), (" 007 ", "007")])
def test_ids_from_numbers_and_text(cell: object, expected: str) -> None:
    frame = inventory_from_records([base(id=cell)], "inv.json").workloads
    assert frame.loc[0, "id"] == expected


def test_csv_cells_are_text_never_guessed(tmp_path: Path) -> None:
    header = "id,kind,model_family,params_b,h100_gpu_hours,owner\n"
    inv = read_text(tmp_path, "inv.csv", header + "007,training,NA,1,0,NULL\n")
    assert list(inv.workloads.loc[0, ["id", "model_family", "owner"]]) == ["007", "na", "NULL"]


def test_unknown_families_are_allowed() -> None:
    frame = inventory_from_records([base(model_family="acme_lm")], "inv.json").workloads
    assert frame.loc[0, "model_family"] == "acme_lm"


def test_any_pin_is_accepted_without_accelerator_names() -> None:
    frame = inventory_from_records([base(pinned_accelerator="B200")], "inv.json").workloads
    assert frame.loc[0, "pinned_accelerator"] == "b200"


def test_blank_rows_are_skipped_but_counted(tmp_path: Path) -> None:
    text = "id,kind,model_family,params_b,monthly_tokens_b\n"
    text += "\nw1,training,llama,1,1\n,,,,\nw2,x,llama,1,1\n"
    path = tmp_path / "inv.csv"
    path.write_text(text)
    [problem] = problems_in_file(path)
    assert (problem.row, problem.line, problem.column, problem.value) == (4, 5, "kind", "x")
    path.write_text(text.replace("w2,x", "w2,training"))
    assert read_inventory(path).workloads["id"].tolist() == ["w1", "w2"]


def test_extra_columns_keep_values_as_read(tmp_path: Path) -> None:
    inv = read_text(
        tmp_path,
        "inv.csv",
        "id,kind,model_family,params_b,monthly_tokens_b,team,budget\n"
        "w1,training,llama,1,1, core ,0012\nw2,training,llama,1,1,,\n",
    )
    assert inv.extra_columns == ("team", "budget")
    assert inv.workloads["team"].tolist() == [" core ", ""]
    assert inv.workloads["budget"].tolist() == ["0012", ""]


# --- every rule: the exact row, column and value ---

RULES = [
    ({"id": " "}, "id", " ", "a non-empty id"),
    ({"kind": "serving"}, "kind", "serving", "one of: training, inference"),
    ({"model_family": ""}, "model_family", "", "a non-empty model family name"),
    ({"params_b": "-3"}, "params_b", "-3", "a number > 0"),
    ({"params_b": "0"}, "params_b", "0", "a number > 0"),
    ({"params_b": "seven"}, "params_b", "seven", "a number > 0"),
    ({"params_b": "inf"}, "params_b", "inf", "a number > 0"),
    ({"params_b": True}, "params_b", True, "a number > 0"),
    ({"precision": "fp64"}, "precision", "fp64", "one of: " + ", ".join(PRECISIONS)),
    ({"monthly_tokens_b": "-1"}, "monthly_tokens_b", "-1", "a number >= 0"),
    ({"monthly_tokens_b": None, "h100_gpu_hours": "-5"}, "h100_gpu_hours", "-5", "a number >= 0"),
    ({"serving": "streaming"}, "serving", "streaming", "one of: online, batch"),
    ({"ttft_slo_ms": "0"}, "ttft_slo_ms", "0", "a number > 0"),
    ({"features": "flash_attn;lora"}, "features", "flash_attn;lora", "(not known: 'flash_attn')"),
    ({"features": "lora,moe"}, "features", "lora,moe", "names separated by ';' from:"),
    ({"needed_in_weeks": "-2"}, "needed_in_weeks", "-2", "a number >= 0"),
    # beyond physics and money: a typo or a unit mistake, never a workload
    ({"params_b": "100001"}, "params_b", "100001", "at most 100,000"),
    ({"params_b": 1e308}, "params_b", 1e308, "at most 100,000"),
    ({"params_b": 10**400}, "params_b", 10**400, "at most 100,000"),
    ({"params_b": "1" + "0" * 400}, "params_b", "1" + "0" * 400, "at most 100,000"),
    ({"params_b": "nan"}, "params_b", "nan", "a number > 0"),
    ({"monthly_tokens_b": "1e12"}, "monthly_tokens_b", "1e12", "at most 10,000,000"),
    (
        {"monthly_tokens_b": None, "h100_gpu_hours": "1e10"},
        "h100_gpu_hours",
        "1e10",
        "at most 1,000,000,000",
    ),
    ({"ttft_slo_ms": "4e6"}, "ttft_slo_ms", "4e6", "at most 3,600,000"),
    ({"needed_in_weeks": "600"}, "needed_in_weeks", "600", "at most 520"),
    ({"id": "a\nb"}, "id", "a\nb", "on one line, without control characters"),
    ({"id": "a\tb"}, "id", "a\tb", "without control characters"),
    ({"model_family": "llama\nt5"}, "model_family", "llama\nt5", "on one line"),
    ({"neuron_ready": "maybe"}, "neuron_ready", "maybe", "true or false"),
    ({"pinned_accelerator": "tpu"}, "pinned_accelerator", "tpu", "one of: trn2, h100"),
    (
        {"monthly_tokens_b": "1", "h100_gpu_hours": "2"},
        "h100_gpu_hours",
        "2",
        "empty when monthly_tokens_b is given (give exactly one of the two)",
    ),
    (
        {"monthly_tokens_b": ""},
        "monthly_tokens_b",
        "",
        "a number >= 0 here or in h100_gpu_hours (exactly one of the two is needed)",
    ),
    (
        {"kind": "training", "serving": "batch"},
        "serving",
        "batch",
        "empty for training (serving applies to inference only)",
    ),
    (
        {"kind": "training", "ttft_slo_ms": "100"},
        "ttft_slo_ms",
        "100",
        "empty for training (ttft_slo_ms applies to inference only)",
    ),
    (
        {"kind": "training", "input_token_share": "0.5"},
        "input_token_share",
        "0.5",
        "empty for training (input_token_share applies to inference only)",
    ),
    (
        {
            "kind": "inference",
            "serving": "online",
            "monthly_tokens_b": "",
            "h100_gpu_hours": "9",
            "input_token_share": "0.5",
        },
        "input_token_share",
        "0.5",
        "empty when h100_gpu_hours is given",
    ),
    (
        {"kind": "training", "peak_to_mean": "2"},
        "peak_to_mean",
        "2",
        "empty except for online inference",
    ),
    (
        {"kind": "inference", "serving": "batch", "peak_to_mean": "2"},
        "peak_to_mean",
        "2",
        "empty except for online inference",
    ),
    ({"params_b": "8", "active_params_b": "9"}, "active_params_b", "9", "at most params_b"),
    ({"peak_to_mean": "0.5", "kind": "inference"}, "peak_to_mean", "0.5", "a number >= 1"),
    ({"input_token_share": "1.2", "kind": "inference"}, "input_token_share", "1.2", "at most 1"),
    ({"context_tokens": "0"}, "context_tokens", "0", "a number > 0 and at most 10,000,000"),
    ({"active_params_b": "-1"}, "active_params_b", "-1", "a number > 0"),
    ({"current_accelerator": "tpu"}, "current_accelerator", "tpu", "one of: trn2, h100"),
    ({"start_month": "2.5"}, "start_month", "2.5", "a whole number of months >= 1"),
    ({"start_month": "0"}, "start_month", "0", "a whole number of months >= 1"),
    ({"end_month": "121"}, "end_month", "121", "at most 120"),
    ({"start_month": "4", "end_month": "3"}, "end_month", "3", "at least start_month (4)"),
    ({"monthly_growth": "-1"}, "monthly_growth", "-1", "a number > -1"),
    ({"monthly_growth": "25"}, "monthly_growth", "25", "(a fraction: 0.05 is 5% a month)"),
]


@pytest.mark.parametrize(("fields", "column", "value", "expected"), RULES)
def test_each_rule_names_row_column_and_value(
    fields: dict[str, Any], column: str, value: object, expected: str
) -> None:
    rows = [base(id="fine"), base(**fields)]
    [problem] = problems_of(rows)
    assert (problem.file, problem.row, problem.column) == ("inv.json", 2, column)
    assert problem.value == value and type(problem.value) is type(value)
    assert expected in problem.expected
    assert_plain(problem)


def test_problem_text_matches_the_documented_form() -> None:
    problem = InputProblem("inputs/x.csv", 5, "params_b", "-3", "a number > 0")
    assert str(problem) == (
        "inputs/x.csv: row 5 (line 6), column 'params_b': got '-3'; expected a number > 0"
    )
    empty = InputProblem("inv.json", 2, "kind", None, "one of: training, inference")
    assert str(empty) == (
        "inv.json: row 2, column 'kind': got an empty value; expected one of: training, inference"
    )
    excel = InputProblem("inv.xlsx", 3, "kind", "x", "one of: training, inference", line=7)
    assert str(excel).startswith("inv.xlsx: row 3 (Excel row 7), column 'kind': got 'x'")


def test_csv_message_gives_row_and_line(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text(
        "id,kind,model_family,params_b,monthly_tokens_b\n"
        + "".join(f"w{i},training,llama,1,1\n" for i in range(4))
        + "w9,training,llama,-3,1\n"
    )
    [problem] = problems_in_file(path)
    assert str(problem) == (
        f"{path}: row 5 (line 6), column 'params_b': got '-3'; "
        "expected a number > 0 and at most 100,000"
    )


def test_a_cell_with_its_own_error_gets_no_second_message() -> None:
    [problem] = problems_of([base(monthly_tokens_b="1", h100_gpu_hours="lots")])
    assert (problem.column, problem.value, problem.expected) == (
        "h100_gpu_hours",
        "lots",
        "a number >= 0 and at most 1,000,000,000",
    )


def test_cross_column_rules_are_reported_with_other_errors_of_the_row() -> None:
    row = base(kind="training", params_b="-1", h100_gpu_hours="3", serving="online")
    found = [(p.row, p.column, p.value) for p in problems_of([row])]
    assert found == [
        (1, "params_b", "-1"),
        (1, "h100_gpu_hours", "3"),
        (1, "serving", "online"),
    ]


def test_pin_check_is_case_insensitive() -> None:
    inv = inventory_from_records([base(pinned_accelerator="H100")], "inv.json", ["h100"])
    frame = inv.workloads
    assert frame.loc[0, "pinned_accelerator"] == "h100"
    [problem] = problems_of([base(pinned_accelerator="Trn3")], ("trn2", "h100"))
    assert (problem.row, problem.column, problem.value) == (1, "pinned_accelerator", "Trn3")
    assert problem.expected == "one of: trn2, h100 (or empty for no pin)"


def test_every_duplicate_id_names_the_first_row(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text(
        "id,kind,model_family,params_b,monthly_tokens_b\n"
        "a,training,llama,1,1\nb,training,llama,1,1\na ,training,llama,1,1\na,training,llama,-1,1\n"
    )
    found = [(p.row, p.line, p.column, p.value, p.expected) for p in problems_in_file(path)]
    assert found == [
        (3, 4, "id", "a ", "a unique id; row 1 (line 2) already uses it"),
        (4, 5, "id", "a", "a unique id; row 1 (line 2) already uses it"),
        (4, 5, "params_b", "-1", "a number > 0 and at most 100,000"),
    ]


def test_numeric_and_text_ids_are_the_same_id() -> None:
    [problem] = problems_of([base(id=7), base(id="7"), base(id=8.0), base(id="8.0")])
    assert (problem.row, problem.column, problem.value) == (2, "id", "7")


def test_missing_required_column_is_reported_once(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text(
        "id,kind,model_family,param_b,monthly_tokens_b\n"
        + "".join(f"w{i},training,llama,1,1\n" for i in range(3))
    )
    [problem] = problems_in_file(path)  # the near miss, not also "params_b is missing"
    assert (problem.row, problem.column, problem.value) == (None, "param_b", None)
    assert problem.expected.startswith("a known column name: did you mean 'params_b'?")
    assert str(problem) == f"{path}: column 'param_b': expected {problem.expected}"


def test_missing_volume_columns_are_reported_once() -> None:
    rows = [{"id": "w", "kind": "training", "model_family": "t5", "params_b": 1}] * 3
    rows = [{**row, "id": f"w{i}"} for i, row in enumerate(rows)]
    [problem] = problems_of(rows)
    assert (problem.row, problem.column, problem.value) == (None, "monthly_tokens_b", None)
    assert problem.expected == "a monthly_tokens_b or an h100_gpu_hours column"


def test_missing_columns_do_not_hide_cell_problems() -> None:
    rows = [{"id": "w", "kind": "nope", "params_b": 1, "h100_gpu_hours": 1}]
    found = [(p.row, p.column, p.value) for p in problems_of(rows)]
    assert found == [(None, "model_family", None), (1, "kind", "nope")]


def test_a_column_given_twice_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text("id,kind,model_family,params_b,monthly_tokens_b, ID\nw,training,llama,1,1,v\n")
    [problem] = problems_in_file(path)
    assert (problem.row, problem.column) == (None, "ID")
    assert problem.expected == "each column once ('id' is the same column)"


def test_derived_feature_columns_cannot_be_given() -> None:
    [problem] = problems_of([base(needs_moe="true")])
    assert (problem.row, problem.column) == (None, "needs_moe")
    assert "list the feature in 'features'" in problem.expected


def test_cells_beyond_the_header_are_located(tmp_path: Path) -> None:
    path = tmp_path / "inv.csv"
    path.write_text("id,kind,model_family,params_b,monthly_tokens_b\nw,training,llama,1,1,oops\n")
    [problem] = problems_in_file(path)
    assert (problem.row, problem.line, problem.column, problem.value) == (1, 2, None, "oops")
    assert "column 6 has no header name" in problem.expected


def test_many_problems_in_one_file_are_all_reported() -> None:
    path = DATA / "many_problems.csv"
    with pytest.raises(InputError) as info:
        read_inventory(path, ACCELERATORS)
    found = [(p.row, p.line, p.column, p.value) for p in info.value.problems]
    assert found == [
        (3, 4, "kind", "serving"),
        (4, 5, "params_b", "-3"),
        (4, 5, "precision", "fp64"),
        (4, 5, "monthly_tokens_b", ""),
        (4, 5, "ttft_slo_ms", "0"),
        (4, 5, "features", "flash_attn"),
        (4, 5, "neuron_ready", "maybe"),
        (5, 6, "id", "note\nspans lines"),  # a quoted cell spans lines 6-7: not an id
        (5, 6, "h100_gpu_hours", "2"),
        (5, 6, "serving", "online"),
        (5, 6, "ttft_slo_ms", "200"),
        (6, 8, "id", "ok-1"),
    ]
    text = str(info.value)
    lines = text.splitlines()
    assert lines[0] == f"12 problems in {path}:"
    assert lines[1:] == [f"  {p}" for p in info.value.problems]
    for problem in info.value.problems:
        assert_plain(problem)


def test_excel_rows_are_named_as_excel_shows_them(tmp_path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append([])  # a blank first row: the header is the first row with values
    sheet.append(["id", "kind", "model_family", "params_b", "monthly_tokens_b"])
    sheet.append(["w1", "training", "llama", 1, 1])
    sheet.append(["w2", "training", "llama", "big", 1])
    book.create_sheet("ignored").append(["not", "read"])
    path = tmp_path / "inv.xlsx"
    book.save(path)
    [problem] = problems_in_file(path)
    assert (problem.row, problem.line, problem.column, problem.value) == (2, 4, "params_b", "big")
    assert str(problem).startswith(f"{path}: sheet 'Sheet', row 2 (Excel row 4), column 'params_b'")


def test_records_that_are_not_objects(tmp_path: Path) -> None:
    path = tmp_path / "inv.json"
    path.write_text(json.dumps([base(), "w2", 3]))
    found = [(p.row, p.column, p.value) for p in problems_in_file(path)]
    assert found == [(2, None, "w2"), (3, None, 3)]


# --- whole-file problems ---


@pytest.mark.parametrize("suffix", [".csv", ".json", ".yaml", ".xlsx", ".parquet"])
def test_empty_file(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"empty{suffix}"
    path.write_bytes(b"")
    [problem] = problems_in_file(path)
    assert (problem.file, problem.row, problem.column) == (str(path), None, None)
    assert "the file is empty" in problem.expected


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("header.csv", "id,kind,model_family,params_b,monthly_tokens_b\n\n,,,,\n"),
        ("list.json", "[]"),
        ("wrapped.yaml", "workloads: []\n"),
    ],
)
def test_file_without_rows(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    [problem] = problems_in_file(path)
    assert (problem.row, problem.column) == (None, None)
    assert problem.expected == "at least one workload row (the file has none)"


def test_blank_csv_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "blank.csv"
    path.write_text("\n \n")
    [problem] = problems_in_file(path)
    assert "the file is empty" in problem.expected


@pytest.mark.parametrize("name", ["inv.txt", "inv.xls", "inventory"])
def test_unsupported_extension(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("id\n")
    [problem] = problems_in_file(path)
    assert (problem.row, problem.column) == (None, None)
    assert problem.value == (Path(name).suffix or None)
    assert problem.expected == (
        "a file ending in one of: .csv, .xlsx, .json, .yaml, .yml, .parquet (or --input-format)"
    )


def test_missing_file_and_directory(tmp_path: Path) -> None:
    [missing] = problems_in_file(tmp_path / "nope.csv")
    assert missing.expected == "an existing file (none found)"
    (tmp_path / "dir.csv").mkdir()
    [directory] = problems_in_file(tmp_path / "dir.csv")
    assert directory.expected == "a file, not a directory"
    (tmp_path / "a.csv").symlink_to(tmp_path / "b.csv")
    (tmp_path / "b.csv").symlink_to(tmp_path / "a.csv")
    (tmp_path / "dangling.csv").symlink_to(tmp_path / "gone.csv")
    for name in ("a.csv", "dangling.csv"):
        [linked] = problems_in_file(tmp_path / name)
        assert linked.expected == "an existing file (a link to nothing or in a loop)"


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("bad.xlsx", b"not a zip file", "an Excel .xlsx workbook"),
        ("bad.parquet", b"not parquet at all", "a Parquet file"),
        ("bad.json", b'[{"id": "w1",}\n]', "valid JSON (Expecting property name"),
        ("bad.yaml", b"- id: [w1\n- id: w2\n", "valid YAML ("),
        ("latin1.csv", "id,kind\nw\xe9,training\n".encode("latin-1"), "looks like Latin-1"),
        ("semicolons.csv", b"id;kind;model_family\nw;training;llama\n", "comma-separated"),
        ("scalar.json", b'"workloads"', "a list of workload records"),
        ("object.yaml", b"id: w1\nkind: training\n", "a list of workload records"),
        ("nested.json", b'{"workloads": {"id": "w1"}}', "a list of workload records"),
    ],
)
def test_unreadable_files(tmp_path: Path, name: str, content: bytes, fragment: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    [problem] = problems_in_file(path)
    assert (problem.file, problem.row, problem.column) == (str(path), None, None)
    assert fragment in problem.expected


def test_input_error_needs_a_problem() -> None:
    with pytest.raises(ValueError):
        InputError([])


# --- the model on its own ---


def test_workload_model_applies_the_same_rules() -> None:
    workload = Workload(id="w", kind="inference", model_family="T5", params_b=1, h100_gpu_hours=3)
    assert (workload.serving, workload.model_family, workload.precision) == ("online", "t5", "bf16")
    with pytest.raises(ValueError, match="exactly one of the two"):
        Workload(id="w", kind="training", model_family="t5", params_b=1)
    with pytest.raises(ValueError, match="one of: trn2"):
        Workload.model_validate(
            base(pinned_accelerator="tpu"), context={"accelerator_names": ("trn2",)}
        )


# --- properties and speed ---

_WORDS = st.text(string.ascii_lowercase + string.digits + "_", min_size=1, max_size=10)


def _within(column: str) -> st.SearchStrategy[float]:
    """Any number the column accepts, its bounds included."""
    bound = BOUNDS[column]
    return st.floats(
        min_value=bound.minimum,
        max_value=bound.maximum,
        exclude_min=bound.minimum_open,
        allow_nan=False,
    )


@st.composite
def workload_records(draw: st.DrawFn) -> dict[str, Any]:
    """A valid record in normalized form (what the reader should give back unchanged)."""
    kind = draw(st.sampled_from(KINDS))
    volume = draw(st.sampled_from(["monthly_tokens_b", "h100_gpu_hours"]))
    inference = kind == "inference"
    return {
        "id": draw(st.text(string.ascii_letters + string.digits + "-_.", min_size=1, max_size=12)),
        "kind": kind,
        "model_family": draw(_WORDS),
        "params_b": draw(_within("params_b")),
        "precision": draw(st.sampled_from(PRECISIONS)),
        "monthly_tokens_b": draw(_within(volume)) if volume == "monthly_tokens_b" else None,
        "h100_gpu_hours": draw(_within(volume)) if volume == "h100_gpu_hours" else None,
        "serving": draw(st.sampled_from(SERVING_MODES)) if inference else None,
        "ttft_slo_ms": draw(st.none() | _within("ttft_slo_ms")) if inference else None,
        "features": tuple(sorted(draw(st.sets(st.sampled_from(FEATURES))), key=FEATURES.index)),
        "needed_in_weeks": draw(st.none() | _within("needed_in_weeks")),
        "neuron_ready": draw(st.booleans()),
        "pinned_accelerator": draw(st.none() | st.sampled_from(ACCELERATORS)),
        "team": draw(_WORDS),
    }


def _as_cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, tuple):
        return ";".join(value)
    return repr(value) if isinstance(value, float) else str(value)


def _read_back(frame: pd.DataFrame) -> list[dict[str, Any]]:
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    for row in rows:
        row["features"] = tuple(row["features"].split(";")) if row["features"] else ()
    return [{str(key): value for key, value in row.items()} for row in rows]


@settings(max_examples=50, deadline=None)
@given(st.lists(workload_records(), min_size=1, max_size=6, unique_by=lambda r: r["id"]))
def test_valid_records_read_back_unchanged(
    tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, Any]]
) -> None:
    names = [*records[0]]
    expected = copy.deepcopy(records)
    from_records = inventory_from_records(records, "inv.json", ACCELERATORS)
    assert _read_back(from_records.workloads[names]) == expected

    path = tmp_path_factory.mktemp("prop") / "inv.csv"
    lines = [",".join(names)] + [",".join(_as_cell(r[name]) for name in names) for r in records]
    path.write_text("\n".join(lines) + "\n")
    from_csv = read_inventory(path, ACCELERATORS)
    assert _read_back(from_csv.workloads[names]) == expected
    for feature in FEATURES:
        needs = from_csv.workloads[f"needs_{feature}"].tolist()
        assert needs == [feature in r["features"] for r in records]


def test_ten_thousand_rows_are_all_read(tmp_path: Path) -> None:
    # Speed is measured in benchmarks/run.py, never asserted here.
    rows = [
        base(id=f"w{i}", kind=KINDS[i % 2], params_b=str(1 + i % 400), features="moe;lora")
        for i in range(10_000)
    ]
    path = tmp_path / "big.csv"
    write_csv(rows, path)
    inv = read_inventory(path, ACCELERATORS)
    assert len(inv.workloads) == 10_000
    assert inv.workloads["id"].tolist() == [f"w{i}" for i in range(10_000)]
    assert bool(inv.workloads["needs_moe"].all())


# --- a pipe, a device or standard input is read with a bound -----------------------------------


def test_dev_zero_as_an_inventory_is_refused_after_a_bounded_read() -> None:
    """/dev/zero as a CSV was read until memory ran out (MemoryError, an internal error)."""
    from placement.reading.limits import SizeLimit

    with pytest.raises(InputError) as err:
        read_inventory("/dev/zero", input_format="csv", limit=SizeLimit(10))
    message = str(err.value)
    assert "/dev/zero" in message
    assert "at most 67,108,864 bytes from a pipe, a device or standard input" in message


def test_a_csv_stream_is_refused_at_its_first_line_past_the_workload_limit() -> None:
    """Lines are counted as they come: refused with the workload limit's message, not read
    to its end."""
    import io

    from placement.reading.limits import SizeLimit

    header = b"id,kind,model_family,params_b,monthly_tokens_b\n"
    rows = b"".join(b"w%d,training,llama,8,1\n" % i for i in range(50_000))
    with pytest.raises(InputError) as err:
        read_inventory("-", input_format="csv", stdin=io.BytesIO(header + rows),
                       limit=SizeLimit(1_000))  # fmt: skip
    message = str(err.value)
    assert "<stdin>" in message and "at most 1,000 workloads (--max-workloads 1,000)" in message
    assert "this inventory has more than" in message
    assert "--max-workloads above its count" in message


def test_standard_input_within_its_bounds_is_read() -> None:
    import io

    from placement.reading.limits import SizeLimit

    text = b"id,kind,model_family,params_b,monthly_tokens_b\nw,training,llama,8,1\n"
    inventory = read_inventory("-", input_format="csv", stdin=io.BytesIO(text),
                               limit=SizeLimit(1))  # fmt: skip
    assert inventory.workloads["id"].tolist() == ["w"]


def test_the_stream_bound_follows_the_workload_limit() -> None:
    from placement.reading.limits import BYTES_PER_WORKLOAD, MIN_STREAM_BYTES, SizeLimit

    assert SizeLimit(10).stream_bytes()[0] == MIN_STREAM_BYTES
    bound, basis = SizeLimit(1_000_000).stream_bytes()
    assert bound == 1_000_000 * BYTES_PER_WORKLOAD
    assert "--max-workloads 1,000,000" in basis

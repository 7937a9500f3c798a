"""Properties of the reader, for any inventory hypothesis makes up:

- a valid inventory reads the same from CSV, XLSX, JSON, YAML and Parquet, and plans the same;
- a corrupted one (a typed cell given a value of the wrong type, a row cut short, a column's
  header misspelt) is refused, or reads exactly as the original: never a silent change.
"""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import openpyxl
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placement import plan
from placement.models.workload import BOUNDS, KNOWN_COLUMNS, PRECISIONS
from placement.reading import InputError, Inventory, read_inventory

ACCELERATORS = ["trn2", "h100"]
FAMILIES = ["llama", "t5", "bert", "mistral", "acme_lm"]
SUFFIX = {"csv": ".csv", "xlsx": ".xlsx", "json": ".json", "yaml": ".yaml", "parquet": ".parquet"}
PROFILE = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _number(column: str) -> st.SearchStrategy[float]:
    bound = BOUNDS[column]
    assert bound.minimum is not None and bound.maximum is not None
    low = bound.minimum + (0.5 if bound.minimum_open else 0)
    # whole numbers and halves: every format writes them back exactly
    return st.integers(int(low * 2), int(min(bound.maximum, 10_000) * 2)).map(lambda n: n / 2)


@st.composite
def rows(draw: st.DrawFn) -> dict[str, Any]:
    """One valid row, as text cells (what a CSV holds); blank cells are ''."""
    kind = draw(st.sampled_from(["training", "inference"]))
    row = {
        "id": draw(st.text(string.ascii_lowercase + string.digits + "-", min_size=1, max_size=8)),
        "kind": kind,
        "model_family": draw(st.sampled_from(FAMILIES)),
        "params_b": draw(_number("params_b")),
        "precision": draw(st.sampled_from(["", *PRECISIONS])),
        "monthly_tokens_b": draw(_number("monthly_tokens_b")),
        "ttft_slo_ms": "",
        "serving": "",
        "needed_in_weeks": draw(st.sampled_from(["", 4.0, 20.0])),
        "neuron_ready": draw(st.sampled_from(["", "true", "false"])),
        "pinned_accelerator": draw(st.sampled_from(["", *ACCELERATORS])),
        "team": draw(st.sampled_from(["apps", "research", ""])),
    }
    if kind == "inference":
        row["serving"] = draw(st.sampled_from(["", "online", "batch"]))
        row["ttft_slo_ms"] = draw(st.sampled_from(["", 150.0, 400.0, 2000.0]))
    return row


inventories = st.lists(rows(), min_size=1, max_size=4, unique_by=lambda r: r["id"].strip())


def _frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """The records as text cells; a key a record lacks is an empty cell."""
    return pd.DataFrame(records).astype(object).fillna("").astype(str)


def write(records: list[dict[str, Any]], fmt: str, folder: Path) -> Path:
    """The inventory in one format, as a planner's tools would write it."""
    path = folder / f"inventory{SUFFIX[fmt]}"
    frame = _frame(records)
    if fmt == "csv":
        frame.to_csv(path, index=False)
    elif fmt == "parquet":
        frame.to_parquet(path, index=False)
    elif fmt == "xlsx":
        book = openpyxl.Workbook()
        sheet = book.active
        assert sheet is not None
        sheet.append(list(frame.columns))
        for values in frame.itertuples(index=False):
            sheet.append([None if v == "" else v for v in values])
        book.save(path)
    else:
        plain = [{k: v for k, v in r.items() if v != ""} for r in frame.to_dict("records")]
        text = json.dumps(plain) if fmt == "json" else yaml.safe_dump(plain)
        path.write_text(text, encoding="utf-8")
    return path


def known(inventory: Inventory) -> pd.DataFrame:
    return inventory.workloads[[c for c in inventory.workloads.columns if c in KNOWN_COLUMNS]]


@settings(PROFILE, max_examples=10)
@given(inventories)
def test_every_format_reads_and_plans_the_same(
    tmp_path: Path, records: list[dict[str, Any]]
) -> None:
    read = {}
    for fmt in SUFFIX:
        folder = tmp_path / fmt
        folder.mkdir(exist_ok=True)
        read[fmt] = read_inventory(write(records, fmt, folder), ACCELERATORS)
    base = known(read["csv"])
    for fmt, inventory in read.items():
        pd.testing.assert_frame_equal(known(inventory), base, check_dtype=False, obj=fmt)
    plans = {fmt: plan(read[fmt]).plan for fmt in ("csv", "yaml")}
    assert plans["csv"].objective_monthly_usd == plans["yaml"].objective_monthly_usd
    # extra columns differ only where JSON and YAML leave a blank cell out
    assert [a.model_dump(exclude={"extra"}) for a in plans["csv"].assignments] == [
        a.model_dump(exclude={"extra"}) for a in plans["yaml"].assignments
    ]


WRONG_TYPE = {
    "params_b": ["seventy", "true", "[70]", "7o"],
    "monthly_tokens_b": ["lots", "yes", "1,5"],
    "kind": ["7", "train", "true"],
    "precision": ["16", "bf-16", "half"],
    "serving": ["1", "stream"],
    "needed_in_weeks": ["soon", "next month"],
    "neuron_ready": ["perhaps", "2"],
    "pinned_accelerator": ["tpu", "1"],
}


def _read_or_refuse(text: str, folder: Path) -> pd.DataFrame | None:
    path = folder / "corrupted.csv"
    path.write_text(text, encoding="utf-8")
    try:
        return known(read_inventory(path, ACCELERATORS))
    except InputError:
        return None


@PROFILE
@given(inventories, st.data())
def test_a_cell_of_the_wrong_type_is_refused(
    tmp_path: Path, records: list[dict[str, Any]], data: st.DataObject
) -> None:
    column = data.draw(st.sampled_from(sorted(WRONG_TYPE)))
    row = data.draw(st.integers(0, len(records) - 1))
    if column == "serving" and records[row]["kind"] == "training":
        column = "params_b"
    corrupted = [dict(r) for r in records]
    corrupted[row][column] = data.draw(st.sampled_from(WRONG_TYPE[column]))
    text = _frame(corrupted).to_csv(index=False)
    assert _read_or_refuse(text, tmp_path) is None, (column, corrupted[row][column])


@PROFILE
@given(inventories, st.data())
def test_a_row_cut_short_is_refused_or_reads_the_same(
    tmp_path: Path, records: list[dict[str, Any]], data: st.DataObject
) -> None:
    original = _frame(records).to_csv(index=False)
    lines = original.splitlines()
    index = data.draw(st.integers(1, len(lines) - 1))
    cells = lines[index].split(",")
    # At least the id stays: a line cut to nothing is a blank line, which a spreadsheet export
    # uses as a spacer (skipped, and still counted in the line numbers of messages).
    keep = data.draw(st.integers(1, len(cells) - 1))
    lines[index] = ",".join(cells[:keep])
    before = _read_or_refuse(original, tmp_path)
    after = _read_or_refuse("\n".join(lines) + "\n", tmp_path)
    assert before is not None
    if after is not None:  # only blank trailing cells were cut: nothing changed
        pd.testing.assert_frame_equal(after, before)


def _misspell(name: str, data: st.DataObject) -> str:
    position = data.draw(st.integers(0, len(name) - 1))
    edit = data.draw(st.sampled_from(["drop", "swap", "double", "replace", "plural"]))
    if edit == "drop" and len(name) > 2:
        return name[:position] + name[position + 1 :]
    if edit == "swap" and position + 1 < len(name):
        return name[:position] + name[position + 1] + name[position] + name[position + 2 :]
    if edit == "double":
        return name[:position] + name[position] + name[position:]
    if edit == "replace":
        letter = data.draw(st.sampled_from(string.ascii_lowercase))
        return name[:position] + letter + name[position + 1 :]
    return name + "s" if not name.endswith("s") else name[:-1]


@PROFILE
@given(inventories, st.data())
def test_a_misspelt_header_is_refused_or_reads_the_same(
    tmp_path: Path, records: list[dict[str, Any]], data: st.DataObject
) -> None:
    frame = _frame(records)
    column = data.draw(st.sampled_from([c for c in frame.columns if c in KNOWN_COLUMNS]))
    misspelt = _misspell(column, data)
    before = _read_or_refuse(frame.to_csv(index=False), tmp_path)
    after = _read_or_refuse(frame.rename(columns={column: misspelt}).to_csv(index=False), tmp_path)
    assert before is not None
    if after is not None:  # the misspelling still names the column (case, separators)
        pd.testing.assert_frame_equal(after, before)


def test_a_named_pipe_is_read_like_a_file(tmp_path: Path) -> None:
    import os
    import threading

    fifo = tmp_path / "inventory.csv"
    os.mkfifo(fifo)
    text = "id,kind,model_family,params_b,monthly_tokens_b\nw,training,llama,8,1\n"
    writer = threading.Thread(target=lambda: fifo.write_text(text, encoding="utf-8"))
    writer.start()
    inventory = read_inventory(fifo)
    writer.join(timeout=30)
    assert inventory.workloads["id"].tolist() == ["w"]


@pytest.mark.parametrize("fmt", sorted(SUFFIX))
def test_values_at_their_bounds_read_and_plan(tmp_path: Path, fmt: str) -> None:
    """The largest accepted numbers plan without an error (no overflow anywhere)."""
    records = [
        {
            "id": "largest",
            "kind": "training",
            "model_family": "llama",
            "params_b": BOUNDS["params_b"].maximum,
            "monthly_tokens_b": BOUNDS["monthly_tokens_b"].maximum,
            "needed_in_weeks": BOUNDS["needed_in_weeks"].maximum,
        },
        {
            "id": "busiest",
            "kind": "inference",
            "model_family": "t5",
            "params_b": 11.0,
            "monthly_tokens_b": 1.0,
            "ttft_slo_ms": BOUNDS["ttft_slo_ms"].maximum,
        },
    ]
    inventory = read_inventory(write(records, fmt, tmp_path), ACCELERATORS)
    result = plan(inventory)  # once made HiGHS crash the process: 1e13 chip-hours a month
    assert result.plan.status in ("optimal", "feasible")
    [unplaced] = result.plan.unplaced
    assert unplaced.workload_id == "largest"
    assert all("max_busy_chips_per_workload" in reason for reason in unplaced.reasons)
    assert [a.workload_id for a in result.plan.assignments] == ["busiest"]
    document = json.loads(result.plan.model_dump_json())
    assert document["objective_monthly_usd"] > 0

"""File formats: each reader turns a file's bytes into a :class:`RawTable` of cells as written,
or raises :class:`InputError` about the whole file. Validation is the same for every format."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import yaml

from placement.models.workload import is_blank
from placement.reading.problems import InputError, InputProblem, fail
from placement.reading.tables import SUFFIXES, RawTable


def grid_table(source: str, grid: list[tuple[int, list[Any]]]) -> RawTable:
    """A table from (line number, cells) rows whose first non-blank row is the header."""
    start = next((i for i, (_, cells) in enumerate(grid) if not all(map(is_blank, cells))), None)
    if start is None:
        raise fail(source, "a header row and at least one workload row (the file is empty)")
    header = grid[start][1]
    rows = grid[start + 1 :]
    width = max([len(header), *(len(cells) for _, cells in rows)])
    padded = [cells + [None] * (width - len(cells)) for _, cells in rows]
    names = [("" if is_blank(name) else str(name)) for name in header] + [""] * (
        width - len(header)
    )
    columns = [pd.Series([cells[i] for cells in padded], dtype=object) for i in range(width)]
    return RawTable(source, names, columns, [line for line, _ in rows])


def _text(data: bytes) -> str:
    """UTF-8 text (a byte-order mark is dropped); other encodings are refused by the caller."""
    return data.decode("utf-8-sig")


def _read_csv(data: bytes, source: str) -> RawTable:
    """Every cell is read as text (no NA guessing, ids like ``007`` intact), by the csv module.

    It reports where each record starts, so messages give true line numbers even after blank
    lines or quoted multi-line cells, and a ragged row is one problem, not a crash.
    """
    grid: list[tuple[int, list[Any]]] = []
    reader = csv.reader(io.StringIO(_text(data), newline=""))
    start = 1
    try:
        for cells in reader:
            grid.append((start, list(cells)))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise fail(source, f"well-formed CSV ({exc})", line=reader.line_num) from None
    table = grid_table(source, grid)
    if len(table.names) == 1 and any(sep in table.names[0] for sep in ";\t|"):
        expected = "comma-separated columns (the header row has no commas)"
        raise fail(source, expected, table.names[0])
    return table


def _read_xlsx(data: bytes, source: str) -> RawTable:
    """The first sheet, cell values as Excel stores them (formulas as their cached results)."""
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a damaged or foreign file
        raise fail(source, f"an Excel .xlsx workbook ({type(exc).__name__}: {exc})") from None
    try:
        sheet = book.worksheets[0]
        grid = [
            (number, list(cells))
            for number, cells in enumerate(sheet.iter_rows(min_row=1, values_only=True), 1)
        ]
    finally:
        book.close()
    return grid_table(source, grid)


def _records_document(document: object, source: str) -> list[Any]:
    """JSON and YAML hold a list of records, or an object whose ``workloads`` key holds one."""
    if isinstance(document, Mapping) and "workloads" in document:
        document = document["workloads"]
    if not isinstance(document, list):
        raise fail(source, "a list of workload records, or an object with a 'workloads' list")
    return document


def _read_json(data: bytes, source: str) -> RawTable:
    try:
        document = json.loads(_text(data))
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise fail(source, f"valid JSON ({exc.msg} at {where})") from None
    return records_table(_records_document(document, source), source)


def _read_yaml(data: bytes, source: str) -> RawTable:
    try:
        document = yaml.safe_load(_text(data))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise fail(source, f"valid YAML ({problem}{where})") from None
    if document is None:
        raise fail(source, "a list of workload records (the file is empty)")
    return records_table(_records_document(document, source), source)


def _read_parquet(data: bytes, source: str) -> RawTable:
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises many types for a damaged or foreign file
        raise fail(source, f"a Parquet file ({type(exc).__name__}: {exc})") from None
    return frame_table(frame, source)


def frame_table(frame: pd.DataFrame, source: str) -> RawTable:
    """Columns keep their dtype: a notebook's or Parquet's extra columns come back untouched."""
    columns = [frame.iloc[:, i].reset_index(drop=True) for i in range(frame.shape[1])]
    return RawTable(source, [str(name) for name in frame.columns], columns)


def records_table(records: Sequence[Any], source: str) -> RawTable:
    """Columns are the union of the records' keys, in first-seen order; absent keys are empty."""
    names: dict[str, None] = {}
    problems = []
    for number, record in enumerate(records, 1):
        if isinstance(record, Mapping):
            names.update(dict.fromkeys(str(key) for key in record))
        else:
            problems.append(
                InputProblem(source, number, None, record, "a record of column: value pairs")
            )
    if problems:
        raise InputError(problems)
    rows = [{str(key): value for key, value in record.items()} for record in records]
    columns = [pd.Series([row.get(name) for row in rows], dtype=object) for name in names]
    return RawTable(source, list(names), columns)


READERS = {
    "csv": _read_csv,
    "xlsx": _read_xlsx,
    "json": _read_json,
    "yaml": _read_yaml,
    "parquet": _read_parquet,
}
INPUT_FORMATS: tuple[str, ...] = tuple(READERS)
FORMAT_OF_SUFFIX = {suffix: suffix.lstrip(".").replace("yml", "yaml") for suffix in SUFFIXES}

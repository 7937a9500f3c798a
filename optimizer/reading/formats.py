"""File formats: each reader turns a file's bytes into a :class:`RawTable` of cells as written,
or raises :class:`InputError` about the whole file. Validation is the same for every format.

What each reader refuses rather than guesses (docs/inputs.md, "What is refused"):

- CSV: a quote never closed, text after a closing quote, a quoted cell that swallows what look
  like rows of the file; a header below title or comment lines is reported with its line.
- XLSX: the active visible sheet is read (``--sheet`` picks another), never a hidden one
  silently; a formula with no saved result is an error naming its cell.
- JSON: ``NaN`` and ``Infinity`` (not JSON numbers), a key given twice in a record.
- YAML: a key given twice; every scalar is read as text (as CSV cells are), so ``0042`` stays
  ``0042`` and ``yes`` is the word, judged by each column's own rule.
- Parquet: decimals are numbers and lists stay lists.
"""

from __future__ import annotations

import csv
import io
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import yaml

from placement.models.workload import KNOWN_COLUMNS, is_blank
from placement.reading.columns import canonical
from placement.reading.encoding import decode_text
from placement.reading.limits import SizeLimit
from placement.reading.problems import InputError, InputProblem, fail
from placement.reading.sources import INPUT_FORMATS, SUFFIXES
from placement.reading.tables import RawTable

HEADER_SEARCH_ROWS = 50
"""How far down a file the header is looked for when its first row is not one."""
HEADER_MIN_KNOWN = 2
"""A row naming at least this many known columns is taken to be the header."""
NESTED_TOO_DEEPLY = "lists or records nested too deeply to be an inventory"
CSV_FIELD_LIMIT = 2**31 - 1
"""Cells of any length are data (a long notes cell); the csv module's default stops at 128 KB."""


@dataclass(frozen=True)
class ReadOptions:
    """Choices a reader takes from the command line: the workbook sheet to read, and the size
    limit a reader checks as soon as it can count rows cheaply (a sheet's dimensions)."""

    sheet: str | None = None
    limit: SizeLimit | None = None


def _known_names(cells: Sequence[Any]) -> int:
    return sum(1 for cell in cells if isinstance(cell, str) and canonical(cell) in KNOWN_COLUMNS)


def grid_table(
    source: str,
    grid: list[tuple[int, list[Any]]],
    line_label: str,
    sheet: str | None = None,
) -> RawTable:
    """A table from (line number, cells) rows whose first non-blank row is the header.

    If that row names fewer than :data:`HEADER_MIN_KNOWN` known columns while a later row
    names enough, the file has title or comment lines above its header: an error that says
    where the header seems to be, rather than 30 "missing column" problems.
    """
    filled = [i for i, (_, cells) in enumerate(grid) if not all(map(is_blank, cells))]
    if not filled:
        raise fail(source, "a header row and at least one workload row (the file is empty)")
    start = filled[0]
    if _known_names(grid[start][1]) < HEADER_MIN_KNOWN:
        candidates = filled[1:HEADER_SEARCH_ROWS]
        later = next((i for i in candidates if _known_names(grid[i][1]) >= HEADER_MIN_KNOWN), None)
        if later is not None:
            first_line, first_cells = grid[start]
            shown = ", ".join(str(c) for c in first_cells if not is_blank(c))
            raise fail(
                source,
                f"the header on the first {line_label.split()[-1]}; it seems to be on {line_label} "
                f"{grid[later][0]} ({line_label} {first_line} holds {shown[:60]!r}): remove "
                "the title or comment lines above it",
                sheet=sheet,
                line_label=line_label,
            )
    header = grid[start][1]
    rows = grid[start + 1 :]
    width = max([len(header), *(len(cells) for _, cells in rows)])
    padded = [cells + [None] * (width - len(cells)) for _, cells in rows]
    names = [("" if is_blank(name) else str(name)) for name in header] + [""] * (
        width - len(header)
    )
    columns = [pd.Series([cells[i] for cells in padded], dtype=object) for i in range(width)]
    return RawTable(source, names, columns, [line for line, _ in rows], sheet, line_label)


# --- CSV -----------------------------------------------------------------------------------


def _read_csv(data: bytes, source: str, options: ReadOptions) -> RawTable:
    """Every cell is read as text (no NA guessing, ids like ``007`` intact), by the csv module.

    It reports where each record starts, so messages give true line numbers even after blank
    lines or quoted multi-line cells, and a ragged row is one problem, not a crash. The
    module's strict mode refuses a quote never closed and text after a closing quote.
    """
    csv.field_size_limit(min(CSV_FIELD_LIMIT, sys.maxsize))
    grid: list[tuple[int, list[Any]]] = []
    reader = csv.reader(io.StringIO(decode_text(data, source), newline=""), strict=True)
    start = 1
    try:
        for cells in reader:
            grid.append((start, list(cells)))
            start = reader.line_num + 1
    except csv.Error as exc:
        if "end of data" in str(exc):
            expected = (
                f"a closing quote for the quoted cell that starts on line {start} "
                "(it runs to the end of the file)"
            )
            raise fail(source, expected, line=start) from None
        raise fail(source, f"well-formed CSV ({exc})", line=reader.line_num) from None
    table = grid_table(source, grid, "line")
    if len(table.names) == 1 and any(sep in table.names[0] for sep in ";\t|"):
        expected = "comma-separated columns (the header row has no commas)"
        raise fail(source, expected, table.names[0])
    _check_short_rows(table, grid)
    _check_swallowed_rows(table)
    return table


def _check_short_rows(table: RawTable, grid: list[tuple[int, list[Any]]]) -> None:
    """A CSV line with fewer cells than the header: a separator lost or the line cut short.

    Padding it with empty cells would silently drop its last values (a pin, a deadline), so it
    is refused; spreadsheet exports always write every separator, empty cells included.
    """
    start = next(i for i, (_, cells) in enumerate(grid) if not all(map(is_blank, cells)))
    width = len(grid[start][1])
    problems = [
        InputProblem(
            table.source,
            number,
            None,
            None,
            f"as many cells as the header ({width}); this line has {len(cells)}: a separator "
            "is missing or the line is cut short (empty cells need their commas too)",
            line,
            about_value=False,
        )
        for number, (line, cells) in enumerate(grid[start + 1 :], 1)
        if len(cells) < width and not all(map(is_blank, cells))
    ]
    if problems:
        raise InputError(problems)


def _check_swallowed_rows(table: RawTable) -> None:
    """A quoted cell whose inner lines look like rows of the file (as many commas as the
    header has separators): a quote opened too early or closed too late."""
    width = len(table.names)
    if width < 3 or table.lines is None:
        return
    problems = []
    for name, column in zip(table.names, table.columns, strict=True):
        for index, cell in enumerate(column):
            if not isinstance(cell, str) or "\n" not in cell:
                continue
            inner = cell.splitlines()[1:]
            if any(line.count(",") >= width - 2 for line in inner):
                line = table.lines[index]
                expected = (
                    f"a cell without line breaks: the quoted cell starting on line {line} "
                    f"runs over {len(inner) + 1} lines and swallows what look like rows; "
                    "a quote is probably missing or misplaced"
                )
                problems.append(
                    InputProblem(
                        table.source, index + 1, name, cell, expected, line, about_value=False
                    )
                )
    if problems:
        raise InputError(problems)


# --- XLSX ----------------------------------------------------------------------------------


def _pick_sheet(book: Any, wanted: str | None, source: str) -> Any:
    """The sheet to read: ``wanted`` by name, else the active sheet if visible, else the first
    visible one. A hidden sheet is read only when asked for by name."""
    names = [sheet.title for sheet in book.worksheets]
    visible = [s for s in book.worksheets if s.sheet_state == "visible"]
    listing = ", ".join(
        repr(s.title) + ("" if s.sheet_state == "visible" else f" ({s.sheet_state})")
        for s in book.worksheets
    )
    if wanted is not None:
        match = [s for s in book.worksheets if s.title == wanted] or [
            s for s in book.worksheets if s.title.casefold() == wanted.casefold()
        ]
        if not match:
            raise fail(source, f"--sheet one of the workbook's sheets: {listing}", wanted)
        return match[0]
    if not visible:
        raise fail(source, f"a visible sheet (all are hidden: {listing}); choose one with --sheet")
    active = book.active
    if active is not None and active.title in names and active.sheet_state == "visible":
        return active
    return visible[0]


def _sheet_grid(sheet: Any) -> list[tuple[int, list[Any]]]:
    return [
        (number, list(cells))
        for number, cells in enumerate(sheet.iter_rows(min_row=1, values_only=True), 1)
    ]


def _has_header(grid: list[tuple[int, list[Any]]]) -> bool:
    return any(_known_names(cells) >= HEADER_MIN_KNOWN for _, cells in grid[:HEADER_SEARCH_ROWS])


def _read_xlsx(data: bytes, source: str, options: ReadOptions) -> RawTable:
    """The active visible sheet (or ``--sheet``), values as Excel saved them.

    When the sheet read by default has no header at all (a README in front) while another
    visible sheet has one, the message names that sheet. A formula's value is the result Excel
    saved with it; a workbook written by a script often has none, and such a cell is an error
    naming it rather than an empty cell.
    """
    import openpyxl

    try:
        values = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    except Exception as exc:  # openpyxl raises many types for a damaged or foreign file
        raise fail(source, f"an Excel .xlsx workbook ({type(exc).__name__}: {exc})") from None
    try:
        sheet = _pick_sheet(values, options.sheet, source)
        title = sheet.title
        if options.limit is not None and sheet.max_row:
            options.limit.check(max(0, sheet.max_row - 1), source, approximate=True)
        grid = _sheet_grid(sheet)
        if options.sheet is None and not _has_header(grid):
            others = [
                other.title
                for other in values.worksheets
                if other.title != title
                and other.sheet_state == "visible"
                and _has_header(_sheet_grid(other))
            ]
            if others:
                raise fail(
                    source,
                    f"the inventory on the active sheet; it has no header, but sheet "
                    f"{others[0]!r} has one: use --sheet {others[0]!r}",
                    sheet=title,
                )
        unsaved = [
            (row, col, written)
            for row, cells in enumerate(formulas[title].iter_rows(values_only=True), 1)
            for col, written in enumerate(cells, 1)
            if _is_formula(written) and _cell(grid, row, col) is None
        ]
    finally:
        values.close()
        formulas.close()
    table = grid_table(source, grid, "Excel row", title)
    problems = [
        _bad_cell(
            table,
            row,
            col,
            formula,
            f"a value, not a formula with no saved result (cell {_cell_name(row, col)}); "
            "open and save the workbook in Excel, or write values",
        )
        for row, col, formula in unsaved
    ] + [
        _bad_cell(
            table,
            row,
            col,
            value,
            f"a value, not Excel's error {value} (cell {_cell_name(row, col)}): fix the formula",
        )
        for row, cells in grid
        for col, value in enumerate(cells, 1)
        if isinstance(value, str) and value in EXCEL_ERRORS
    ]
    if problems:
        raise InputError(problems)
    return table


EXCEL_ERRORS = frozenset(
    {"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA"}
)
"""The error values a formula leaves in a cell; openpyxl reads them as text."""


def _bad_cell(table: RawTable, row: int, col: int, value: Any, expected: str) -> InputProblem:
    """A problem with one worksheet cell, located by data row and column where it has them."""
    lines = table.lines or []
    data_row = lines.index(row) + 1 if row in lines else None
    column = table.names[col - 1] if col - 1 < len(table.names) else None
    return InputProblem(
        table.source, data_row, column or None, value, expected, row, table.sheet, "Excel row"
    )


def _is_formula(written: Any) -> bool:
    return isinstance(written, str) and written.startswith("=")


def _cell(grid: list[tuple[int, list[Any]]], row: int, col: int) -> Any:
    cells = grid[row - 1][1] if row - 1 < len(grid) else []
    return cells[col - 1] if col - 1 < len(cells) else None


def _cell_name(row: int, col: int) -> str:
    from openpyxl.utils import get_column_letter

    return f"{get_column_letter(col)}{row}"


# --- JSON and YAML -------------------------------------------------------------------------


class DuplicateKeys(dict[str, Any]):
    """A record in which a key was given more than once (``duplicates``, in order)."""

    def __init__(self, pairs: Sequence[tuple[str, Any]], duplicates: list[str]) -> None:
        super().__init__(pairs)
        self.duplicates = duplicates


class NonFinite:
    """JSON's ``NaN``/``Infinity`` literal: not a number, and never an empty cell."""

    def __init__(self, literal: str) -> None:
        self.literal = literal

    def __repr__(self) -> str:
        return self.literal


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object that remembers keys given twice (json keeps only the last silently)."""
    seen: set[str] = set()
    duplicates = []
    for key, _ in pairs:
        if key in seen:
            duplicates.append(key)
        seen.add(key)
    return DuplicateKeys(pairs, duplicates) if duplicates else dict(pairs)


def _records_document(document: object, source: str) -> list[Any]:
    """JSON and YAML hold a list of records, or an object whose ``workloads`` key holds one."""
    if isinstance(document, Mapping) and "workloads" in document:
        document = document["workloads"]
    if not isinstance(document, list):
        raise fail(source, "a list of workload records, or an object with a 'workloads' list")
    return document


def _read_json(data: bytes, source: str, options: ReadOptions) -> RawTable:
    try:
        document = json.loads(
            decode_text(data, source),
            object_pairs_hook=_json_object,
            parse_constant=NonFinite,
        )
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise fail(source, f"valid JSON ({exc.msg} at {where})") from None
    except RecursionError:
        raise fail(source, f"valid JSON ({NESTED_TOO_DEEPLY})") from None
    if isinstance(document, DuplicateKeys) and "workloads" in document.duplicates:
        raise fail(source, "the key 'workloads' once")
    return records_table(_records_document(document, source), source)


class _TextLoader(yaml.SafeLoader):
    """YAML with every scalar as text, as a CSV cell is: ``0042`` stays ``0042`` (YAML 1.1 would
    read the octal number 34), ``yes`` and ``1.0`` are words judged by each column's own rule.
    An unquoted ``null``, ``~`` or nothing is an empty cell. A key given twice is recorded."""

    duplicates: list[tuple[int, str]]


def _text_scalar(loader: _TextLoader, node: yaml.ScalarNode) -> str | None:
    value = str(node.value)
    if node.style is None and value in ("", "~", "null", "Null", "NULL"):
        return None
    return value


def _text_mapping(loader: _TextLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in result:
            loader.duplicates.append((key_node.start_mark.line + 1, str(key)))
        result[key] = loader.construct_object(value_node, deep=True)
    return result


for _tag in ("str", "int", "float", "bool", "null", "timestamp"):
    _TextLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _text_scalar)
_TextLoader.add_constructor("tag:yaml.org,2002:map", _text_mapping)


def _read_yaml(data: bytes, source: str, options: ReadOptions) -> RawTable:
    loader = _TextLoader(decode_text(data, source))
    loader.duplicates = []
    try:
        document = loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise fail(source, f"valid YAML ({problem}{where})") from None
    except RecursionError:
        raise fail(source, f"valid YAML ({NESTED_TOO_DEEPLY})") from None
    finally:
        loader.dispose()
    if loader.duplicates:
        raise InputError(
            [
                InputProblem(source, None, key, None, f"the key {key!r} once in a record", line)
                for line, key in loader.duplicates
            ]
        )
    if document is None:
        raise fail(source, "a list of workload records (the file is empty)")
    return records_table(_records_document(document, source), source)


def records_table(records: Sequence[Any], source: str) -> RawTable:
    """Columns are the union of the records' keys, in first-seen order; absent keys are empty."""
    names: dict[str, None] = {}
    problems = []
    for number, record in enumerate(records, 1):
        if isinstance(record, Mapping):
            names.update(dict.fromkeys(str(key) for key in record))
            for key in getattr(record, "duplicates", ()):
                expected = f"the key {key!r} once in a record (it is given twice)"
                problems.append(
                    InputProblem(source, number, key, None, expected, about_value=False)
                )
        else:
            problems.append(
                InputProblem(source, number, None, record, "a record of column: value pairs")
            )
    if problems:
        raise InputError(problems)
    rows = [{str(key): value for key, value in record.items()} for record in records]
    columns = [pd.Series([row.get(name) for row in rows], dtype=object) for name in names]
    return RawTable(source, list(names), columns, free_form=True)


# --- Parquet and DataFrames -----------------------------------------------------------------


def _read_parquet(data: bytes, source: str, options: ReadOptions) -> RawTable:
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises many types for a damaged or foreign file
        raise fail(source, f"a Parquet file ({type(exc).__name__}: {exc})") from None
    return frame_table(frame, source)


def _plain_cell(value: Any) -> Any:
    """A Parquet or notebook cell as the validator reads it: lists (numpy arrays of a list
    column) as lists, decimals as floats (or as themselves when out of float range)."""
    if isinstance(value, np.ndarray):
        return [_plain_cell(item) for item in value.tolist()]
    if isinstance(value, Decimal):
        number = float(value)
        return number if math.isfinite(number) or not value.is_finite() else value
    return value


def frame_table(frame: pd.DataFrame, source: str) -> RawTable:
    """Columns keep their dtype (extra columns come back untouched) except for object columns,
    whose lists and decimals are made plain."""
    columns = []
    for i in range(frame.shape[1]):
        column = frame.iloc[:, i].reset_index(drop=True)
        if column.dtype == object:
            column = pd.Series([_plain_cell(v) for v in column], dtype=object, name=column.name)
        columns.append(column)
    return RawTable(source, [str(name) for name in frame.columns], columns)


def rows_hint(fmt: str, data: bytes) -> int | None:
    """A quick count of a file's data rows, before it is parsed (CSV: its lines, multi-line
    cells counted once per line; Parquet: its metadata); None where only parsing can tell."""
    if fmt == "csv":
        return max(0, data.count(b"\n") - 1)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return int(pq.ParquetFile(io.BytesIO(data)).metadata.num_rows)
        except Exception:  # not a Parquet file: the reader says so properly
            return None
    return None


Reader = Callable[[bytes, str, ReadOptions], RawTable]

READERS: dict[str, Reader] = dict(
    zip(INPUT_FORMATS, (_read_csv, _read_xlsx, _read_json, _read_yaml, _read_parquet), strict=True)
)
FORMAT_OF_SUFFIX = {suffix: suffix.lstrip(".").replace("yml", "yaml") for suffix in SUFFIXES}

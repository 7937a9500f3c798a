"""Read and validate a workload inventory: the pipeline's first stage.

Every format (CSV, XLSX, JSON, YAML, Parquet, or a DataFrame from a notebook) is first turned
into the same plain table of cells as written, then validated by one function, so the rules and
the messages cannot differ between formats. Validation collects every problem of the file (all
rows, all columns) before raising :class:`InputError`: a planner fixes a file in one pass, and
no caller ever sees a partly valid inventory.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import json
import os
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd
import yaml
from pydantic import TypeAdapter, ValidationError

from placement.errors import Problem
from placement.models.workload import (
    ACCELERATOR_NAMES,
    EXPECTED,
    FEATURES,
    INVALID_VALUE,
    KNOWN_COLUMNS,
    NUMBER_COLUMNS,
    REQUIRED_COLUMNS,
    VOLUME_COLUMNS,
    Workload,
    id_text,
    is_blank,
)

__all__ = [
    "FEATURE_COLUMNS",
    "FRAME_COLUMNS",
    "INPUT_FORMATS",
    "STDIN",
    "SUFFIXES",
    "InputError",
    "InputProblem",
    "Inventory",
    "inventory_from_records",
    "inventory_summary",
    "read_inventory",
]

FEATURE_COLUMNS: tuple[str, ...] = tuple(f"needs_{feature}" for feature in FEATURES)
FRAME_COLUMNS: tuple[str, ...] = KNOWN_COLUMNS + FEATURE_COLUMNS
"""The normalized columns of :attr:`Inventory.workloads`, in order, before any extra column."""

SUFFIXES: tuple[str, ...] = (".csv", ".xlsx", ".json", ".yaml", ".yml", ".parquet")
DATAFRAME_SOURCE = "<DataFrame>"
STDIN = "-"
STDIN_SOURCE = "<stdin>"

_LINE_LABELS = {".csv": "line", ".xlsx": "Excel row"}
_WORKLOADS = TypeAdapter(list[Workload])


def _native_line(file: str, row: int | None, line: int | None) -> tuple[str | None, int | None]:
    """Where an editor shows a data row: ``("line", 6)``, ``("Excel row", 6)``, or no label for
    formats without lines (JSON, YAML, Parquet).

    Without a known ``line``, the header is taken to be the first line, so the line is row + 1.
    A source without a known suffix (standard input) still has lines if the reader gave them.
    """
    label = _LINE_LABELS.get(Path(file).suffix.lower(), "line" if line is not None else None)
    if label is None:
        return None, None
    return label, (row + 1 if line is None and row is not None else line)


def _location(file: str, row: int | None, line: int | None) -> str:
    """``row 5 (line 6)``: the data row, and where an editor shows it when the format has lines."""
    label, number = _native_line(file, row, line)
    native = f"{label} {number}" if label and number is not None else ""
    if row is None:
        return native
    return f"row {row} ({native})" if native else f"row {row}"


def _shown(value: object) -> str:
    if is_blank(value):
        return "an empty value"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class InputProblem:
    """One thing wrong with an input file, located as precisely as the problem allows.

    ``row`` is the 1-based data row (the JSON/YAML record number, the Parquet/DataFrame row);
    ``line`` is where a text editor or Excel shows that row (CSV line, Excel row number; row + 1
    when not given), so the planner can jump to it. ``row`` and ``column`` are None for problems
    of the whole file or of a whole column. ``expected`` completes the sentence "expected ...".
    """

    file: str
    row: int | None
    column: str | None
    value: object
    expected: str
    line: int | None = None

    def as_problem(self) -> Problem:
        """The general form every input error shares (``line`` filled in where known)."""
        return Problem(
            str(self),
            self.file,
            self.row,
            _native_line(self.file, self.row, self.line)[1],
            self.column,
            None if is_blank(self.value) else self.value,
            self.expected,
        )

    def __str__(self) -> str:
        where = [_location(self.file, self.row, self.line)]
        if self.column is not None:
            where.append(f"column {self.column!r}")
        text = ", ".join(part for part in where if part)
        head = f"{self.file}: {text}" if text else self.file
        if self.row is not None or self.value is not None:
            return f"{head}: got {_shown(self.value)}; expected {self.expected}"
        return f"{head}: expected {self.expected}"


class InputError(Exception):
    """The inventory cannot be used; ``problems`` holds every problem found, in file order."""

    title = "invalid inventory"

    def __init__(self, problems: Sequence[InputProblem]) -> None:
        if not problems:
            raise ValueError("InputError needs at least one problem")
        self.problems = list(problems)
        super().__init__(self.problems)

    def records(self) -> list[dict[str, Any]]:
        """Every problem as a JSON object (the keys of :meth:`Problem.record`)."""
        return [problem.as_problem().record() for problem in self.problems]

    def __str__(self) -> str:
        count = len(self.problems)
        files = {problem.file for problem in self.problems}
        place = f" in {next(iter(files))}" if len(files) == 1 else ""
        header = f"{count} problem{'' if count == 1 else 's'}{place}:"
        return "\n".join([header, *(f"  {problem}" for problem in self.problems)])


@dataclass(frozen=True)
class Inventory:
    """A validated inventory.

    ``workloads`` has one row per workload (index ``0..n-1``) with :data:`FRAME_COLUMNS`
    (normalized: lower-case words, floats with NaN where not given, ``serving`` and
    ``pinned_accelerator`` None where not given) followed by ``extra_columns``, whose values are
    kept exactly as read so reports can carry them through.
    """

    workloads: pd.DataFrame
    extra_columns: tuple[str, ...]
    source: str
    sha256: str | None = None  # of the bytes read; None for a DataFrame or records in memory
    input_format: str | None = None


@dataclass(frozen=True)
class _Table:
    """A file's cells as written: header names, one Series per column, native line numbers.

    Row ``i`` of every column is data row ``i + 1``; ``lines[i]`` is its CSV line or Excel row.
    """

    source: str
    names: list[str]
    columns: list[pd.Series]
    lines: list[int] | None = None

    @property
    def length(self) -> int:
        return len(self.columns[0]) if self.columns else 0


def _fail(source: str, expected: str, value: object = None, line: int | None = None) -> InputError:
    return InputError([InputProblem(source, None, None, value, expected, line)])


# --- formats: each turns a file into a _Table, or raises InputError about the whole file ---


def _grid_table(source: str, grid: list[tuple[int, list[Any]]]) -> _Table:
    """A table from (line number, cells) rows whose first non-blank row is the header."""
    start = next((i for i, (_, cells) in enumerate(grid) if not all(map(is_blank, cells))), None)
    if start is None:
        raise _fail(source, "a header row and at least one workload row (the file is empty)")
    header = grid[start][1]
    rows = grid[start + 1 :]
    width = max([len(header), *(len(cells) for _, cells in rows)])
    padded = [cells + [None] * (width - len(cells)) for _, cells in rows]
    names = [("" if is_blank(name) else str(name)) for name in header] + [""] * (
        width - len(header)
    )
    columns = [pd.Series([cells[i] for cells in padded], dtype=object) for i in range(width)]
    return _Table(source, names, columns, [line for line, _ in rows])


def _text(data: bytes) -> str:
    """UTF-8 text (a byte-order mark is dropped); other encodings are refused by the caller."""
    return data.decode("utf-8-sig")


def _read_csv(data: bytes, source: str) -> _Table:
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
        raise _fail(source, f"well-formed CSV ({exc})", line=reader.line_num) from None
    table = _grid_table(source, grid)
    if len(table.names) == 1 and any(sep in table.names[0] for sep in ";\t|"):
        expected = "comma-separated columns (the header row has no commas)"
        raise _fail(source, expected, table.names[0])
    return table


def _read_xlsx(data: bytes, source: str) -> _Table:
    """The first sheet, cell values as Excel stores them (formulas as their cached results)."""
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a damaged or foreign file
        raise _fail(source, f"an Excel .xlsx workbook ({type(exc).__name__}: {exc})") from None
    try:
        sheet = book.worksheets[0]
        grid = [
            (number, list(cells))
            for number, cells in enumerate(sheet.iter_rows(min_row=1, values_only=True), 1)
        ]
    finally:
        book.close()
    return _grid_table(source, grid)


def _records_document(document: object, source: str) -> list[Any]:
    """JSON and YAML hold a list of records, or an object whose ``workloads`` key holds one."""
    if isinstance(document, Mapping) and "workloads" in document:
        document = document["workloads"]
    if not isinstance(document, list):
        raise _fail(source, "a list of workload records, or an object with a 'workloads' list")
    return document


def _read_json(data: bytes, source: str) -> _Table:
    try:
        document = json.loads(_text(data))
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise _fail(source, f"valid JSON ({exc.msg} at {where})") from None
    return _records_table(_records_document(document, source), source)


def _read_yaml(data: bytes, source: str) -> _Table:
    try:
        document = yaml.safe_load(_text(data))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise _fail(source, f"valid YAML ({problem}{where})") from None
    if document is None:
        raise _fail(source, "a list of workload records (the file is empty)")
    return _records_table(_records_document(document, source), source)


def _read_parquet(data: bytes, source: str) -> _Table:
    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises many types for a damaged or foreign file
        raise _fail(source, f"a Parquet file ({type(exc).__name__}: {exc})") from None
    return _frame_table(frame, source)


def _frame_table(frame: pd.DataFrame, source: str) -> _Table:
    """Columns keep their dtype: a notebook's or Parquet's extra columns come back untouched."""
    columns = [frame.iloc[:, i].reset_index(drop=True) for i in range(frame.shape[1])]
    return _Table(source, [str(name) for name in frame.columns], columns)


def _records_table(records: Sequence[Any], source: str) -> _Table:
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
    return _Table(source, list(names), columns)


_READERS = {
    "csv": _read_csv,
    "xlsx": _read_xlsx,
    "json": _read_json,
    "yaml": _read_yaml,
    "parquet": _read_parquet,
}
INPUT_FORMATS: tuple[str, ...] = tuple(_READERS)
_FORMAT_OF_SUFFIX = {suffix: suffix.lstrip(".").replace("yml", "yaml") for suffix in SUFFIXES}


# --- validation: one function for every format ---


def _plain(column: pd.Series) -> list[Any]:
    """The cells as Python values, every kind of missing (NaN, NA, NaT, None) as None."""
    missing = column.isna().tolist()
    return [None if gone else value for value, gone in zip(column.tolist(), missing, strict=True)]


@dataclass(frozen=True)
class _Columns:
    """Which table column holds each known field and each extra, and which fields are absent."""

    known: dict[str, int]
    extras: dict[str, int]
    absent: frozenset[str]
    unnamed: tuple[int, ...]


def _match_columns(table: _Table) -> tuple[_Columns, list[InputProblem]]:
    """Match header names to fields, ignoring case and surrounding spaces.

    A column missing from the whole file is one problem, not one per row.
    """
    source = table.source
    problems: list[InputProblem] = []

    def column_problem(column: str | None, expected: str) -> None:
        problems.append(InputProblem(source, None, column, None, expected))

    known: dict[str, int] = {}
    extras: dict[str, int] = {}
    unnamed: list[int] = []
    seen: dict[str, str] = {}
    for position, written in enumerate(table.names):
        name = written.strip()
        key = name.lower()
        if not key:
            unnamed.append(position)
        elif key in seen:
            column_problem(name, f"each column once ({seen[key]!r} is the same column)")
        elif key in FEATURE_COLUMNS:
            column_problem(name, "no needs_<feature> column (list the feature in 'features')")
        else:
            seen[key] = name
            if key in KNOWN_COLUMNS:
                known[key] = position
            else:
                extras[name] = position

    absent = {column for column in REQUIRED_COLUMNS if column not in known}
    if not any(column in known for column in VOLUME_COLUMNS):
        absent.update(VOLUME_COLUMNS)
    for column in (*REQUIRED_COLUMNS, VOLUME_COLUMNS[0]):
        if column in absent:
            if column in VOLUME_COLUMNS:
                wanted = "a monthly_tokens_b or an h100_gpu_hours column"
            else:
                wanted = f"a column named {column!r} (required)"
            close = difflib.get_close_matches(column, list(extras), n=1, cutoff=0.75)
            hint = f"; is {close[0]!r} meant to be it?" if close else ""
            column_problem(column, wanted + hint)
    return _Columns(known, extras, frozenset(absent), tuple(unnamed)), problems


def _validate(table: _Table, accelerator_names: Collection[str] | None) -> Inventory:
    """Check every column, row and cell; raise with all problems, or return the inventory."""
    source = table.source
    plain = [_plain(column) for column in table.columns]
    columns, problems = _match_columns(table)

    # A row with nothing in any cell is a spacer: skipped, but still counted in row numbers.
    # (all() stops at a row's first filled cell, usually its id: one check for most rows.)
    keep = [i for i in range(table.length) if not all(is_blank(cells[i]) for cells in plain)]
    if not keep:
        no_rows = InputProblem(
            source, None, None, None, "at least one workload row (the file has none)"
        )
        # With no records there are no column names either: say only what matters.
        raise InputError([*problems, no_rows] if table.names else [no_rows])

    def line_of(index: int) -> int | None:
        return table.lines[index] if table.lines is not None else None

    def cell_problem(index: int, column: str | None, value: object, expected: str) -> None:
        problems.append(InputProblem(source, index + 1, column, value, expected, line_of(index)))

    # Cells under no header name: a ragged CSV line, a stray note beside an Excel table.
    for position in columns.unnamed:
        for index in keep:
            value = plain[position][index]
            if not is_blank(value):
                where = f"column {position + 1} has no header name"
                cell_problem(index, None, value, f"cells only under named columns ({where})")

    cells = {field: [plain[i][row] for row in keep] for field, i in columns.known.items()}
    records = [
        dict(zip(cells, values, strict=True)) for values in zip(*cells.values(), strict=True)
    ]
    if not cells:
        records = [{} for _ in keep]

    # Duplicate ids, judged on the id text even where other cells of the row are invalid.
    first_use: dict[str, int] = {}
    for index, raw in zip(keep, cells.get("id", ()), strict=False):
        text = id_text(raw)
        if text and text in first_use:
            first = first_use[text]
            where = _location(source, first + 1, line_of(first))
            cell_problem(index, "id", raw, f"a unique id; {where} already uses it")
        elif text:
            first_use[text] = index

    context = None
    if accelerator_names is not None:
        names = tuple(dict.fromkeys(str(name).strip().lower() for name in accelerator_names))
        context = {ACCELERATOR_NAMES: names}
    workloads: list[Workload] = []
    try:
        workloads = _WORKLOADS.validate_python(records, context=context)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            number, field = error["loc"][0], str(error["loc"][1])
            if field in columns.absent:
                continue  # reported once for the whole column
            record = records[int(number)]
            expected = error["msg"] if error["type"] == INVALID_VALUE else EXPECTED[field]
            cell_problem(keep[int(number)], field, record.get(field), expected)

    if problems:
        rank = {column: i for i, column in enumerate(KNOWN_COLUMNS)}
        problems.sort(key=lambda p: (p.row or 0, rank.get(p.column or "", len(rank))))
        raise InputError(problems)
    return Inventory(_frame(workloads, table, keep, columns.extras), tuple(columns.extras), source)


def _frame(
    workloads: list[Workload], table: _Table, keep: list[int], extras: dict[str, int]
) -> pd.DataFrame:
    """The normalized frame, built column by column from the validated models.

    Columns are made from plain lists in one step each; no pandas work happens per row.
    """
    rows = map(attrgetter(*KNOWN_COLUMNS), workloads)
    fields = dict(zip(KNOWN_COLUMNS, zip(*rows, strict=True), strict=True))
    features = fields.pop("features")
    fields["features"] = tuple(";".join(names) for names in features)
    columns: dict[str, Any] = {}
    for field in KNOWN_COLUMNS:
        if field in NUMBER_COLUMNS:
            columns[field] = np.array(fields[field], dtype="float64")  # None becomes NaN
        elif field == "neuron_ready":
            columns[field] = np.array(fields[field], dtype=bool)
        elif field in ("serving", "pinned_accelerator"):
            columns[field] = pd.Series(fields[field], dtype=object)  # keeps None, not NaN
        else:
            columns[field] = pd.array(fields[field], dtype="str")
    for feature, column in zip(FEATURES, FEATURE_COLUMNS, strict=True):
        columns[column] = np.array([feature in names for names in features], dtype=bool)
    for name, position in extras.items():
        columns[name] = table.columns[position].iloc[keep].reset_index(drop=True)
    return pd.DataFrame(columns)


# --- public entry points ---


def _source_format(label: str, input_format: str | None) -> str:
    if input_format is not None:
        if input_format not in INPUT_FORMATS:
            expected = "--input-format one of: " + ", ".join(INPUT_FORMATS)
            raise _fail(label, expected, input_format)
        return input_format
    suffix = Path(label).suffix.lower()
    if suffix not in _FORMAT_OF_SUFFIX:
        expected = "a file ending in one of: " + ", ".join(SUFFIXES) + " (or --input-format)"
        raise _fail(label, expected, suffix or None)
    return _FORMAT_OF_SUFFIX[suffix]


def _read_bytes(label: str, stdin: BinaryIO | None) -> tuple[str, bytes]:
    """The source's label for messages and its bytes: a file, a FIFO, or standard input."""
    if label == STDIN:
        stream = stdin if stdin is not None else sys.stdin.buffer
        return STDIN_SOURCE, stream.read()
    path = Path(label)
    if path.is_dir():
        raise _fail(label, "a file, not a directory")
    if not path.exists():
        raise _fail(label, "an existing file (none found)")
    try:
        return label, path.read_bytes()
    except OSError as exc:
        raise _fail(label, f"a readable file ({exc.strerror or exc})") from None


def read_inventory(
    source: str | os.PathLike[str] | pd.DataFrame,
    accelerator_names: Collection[str] | None = None,
    input_format: str | None = None,
    stdin: BinaryIO | None = None,
) -> Inventory:
    """Read, validate and normalize an inventory file, standard input (``-``) or a DataFrame.

    The format comes from ``input_format`` (one of :data:`INPUT_FORMATS`) or else the file's
    extension; standard input needs ``input_format``. ``accelerator_names`` (the catalog's) are
    the values ``pinned_accelerator`` may take; when None, any name is accepted and the
    planner's catalog check comes later. Raises :class:`InputError` listing every problem;
    nothing is returned unless the whole input is valid.
    """
    if isinstance(source, pd.DataFrame):
        return _validate(_frame_table(source, DATAFRAME_SOURCE), accelerator_names)
    label = os.fspath(source)
    if label == STDIN and input_format is None:
        expected = "--input-format (" + ", ".join(INPUT_FORMATS) + ") to read standard input"
        raise _fail(STDIN_SOURCE, expected)
    fmt = _source_format(label, input_format)
    label, data = _read_bytes(label, stdin)
    if not data:
        what = "standard input" if label == STDIN_SOURCE else "the file"
        raise _fail(label, f"a header row and at least one workload row ({what} is empty)")
    try:
        table = _READERS[fmt](data, label)
    except UnicodeDecodeError:
        raise _fail(label, "a UTF-8 text file") from None
    inventory = _validate(table, accelerator_names)
    return replace(inventory, sha256=hashlib.sha256(data).hexdigest(), input_format=fmt)


def inventory_summary(inventory: Inventory, known_families: Collection[str]) -> dict[str, Any]:
    """What ``placement validate`` reports of a valid inventory (lists stay lists)."""
    frame = inventory.workloads
    families = sorted(frame["model_family"].unique())
    return {
        "status": "valid",
        "source": inventory.source,
        "format": inventory.input_format,
        "sha256": inventory.sha256,
        "workloads": len(frame),
        "training": int(frame["kind"].eq("training").sum()),
        "inference": int(frame["kind"].eq("inference").sum()),
        "families": families,
        "unknown_families": [f for f in families if f not in set(known_families)],
        "extra_columns": list(inventory.extra_columns),
    }


def inventory_from_records(
    records: Sequence[Mapping[str, Any]],
    source: str,
    accelerator_names: Collection[str] | None = None,
) -> Inventory:
    """Validate records already in memory (an API payload, a parsed JSON or YAML document).

    Row numbers in problems are record numbers (1-based); ``source`` names them in messages.
    """
    return _validate(_records_table(records, source), accelerator_names)

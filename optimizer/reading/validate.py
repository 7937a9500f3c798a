"""Validate a table of cells, whatever format it came from, into an :class:`Inventory`.

Validation collects every problem of the file (all rows, all columns) before raising
:class:`InputError`: a planner fixes a file in one pass, and no caller ever sees a partly valid
inventory.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from operator import attrgetter
from typing import Any

import numpy as np
import pandas as pd
from pydantic import TypeAdapter, ValidationError

from placement.models.workload import (
    ACCELERATOR_NAMES,
    EXPECTED,
    FEATURES,
    INVALID_VALUE,
    KNOWN_COLUMNS,
    LOAD_PROFILES,
    NUMBER_COLUMNS,
    Workload,
    id_text,
    is_blank,
)
from placement.reading.columns import match_columns
from placement.reading.formats import NonFinite
from placement.reading.problems import InputError, InputProblem, location
from placement.reading.tables import FEATURE_COLUMNS, Inventory, RawTable

_WORKLOADS = TypeAdapter(list[Workload])


def _plain(column: pd.Series) -> list[Any]:
    """The cells as Python values, every kind of missing (NaN, NA, NaT, None) as None."""
    missing = column.isna().tolist()
    return [None if gone else value for value, gone in zip(column.tolist(), missing, strict=True)]


def validate_table(
    table: RawTable,
    accelerator_names: Collection[str] | None,
    load_profiles: Mapping[str, str] | None = None,
) -> Inventory:
    """Check every column, row and cell; raise with all problems, or return the inventory."""
    source = table.source
    plain = [_plain(column) for column in table.columns]
    columns, problems = match_columns(table)

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
        problems.append(
            InputProblem(
                source,
                index + 1,
                column,
                value,
                expected,
                line_of(index),
                table.sheet,
                table.line_label,
            )
        )

    # Values of JSON, YAML, Parquet and DataFrames may be of any type: refuse those no output
    # can write (JSON's NaN, a lone surrogate, binary data), in known and extra columns alike.
    for position, name in enumerate(table.names):
        if table.free_form or table.columns[position].dtype == object:
            if _all_representable(plain[position]):
                continue
            for index in keep:
                value = plain[position][index]
                expected = unrepresentable(value)
                if expected is not None:
                    cell_problem(index, name, value, expected)

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
            where = location(source, first + 1, line_of(first), table.line_label)
            cell_problem(index, "id", raw, f"a unique id; {where} already uses it")
        elif text:
            first_use[text] = index

    context: dict[str, Any] = {}
    if accelerator_names is not None:
        names = tuple(dict.fromkeys(str(name).strip().lower() for name in accelerator_names))
        context[ACCELERATOR_NAMES] = names
    if load_profiles is not None:
        context[LOAD_PROFILES] = {str(k).strip().lower(): v for k, v in load_profiles.items()}
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
        problems = _one_per_cell(problems)
        problems.sort(key=lambda p: (p.row or 0, rank.get(p.column or "", len(rank))))
        raise InputError(problems)
    return Inventory(_frame(workloads, table, keep, columns.extras), tuple(columns.extras), source)


def _one_per_cell(problems: list[InputProblem]) -> list[InputProblem]:
    """The first problem found for each cell (a NaN is not also "not a number > 0")."""
    seen: set[tuple[int, str]] = set()
    kept = []
    for problem in problems:
        if problem.row is not None and problem.column is not None:
            key = (problem.row, problem.column)
            if key in seen:
                continue
            seen.add(key)
        kept.append(problem)
    return kept


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def _all_representable(values: list[Any]) -> bool:
    """Whether :func:`unrepresentable` would pass every value: a column-wide check that spares
    a million calls at 100,000 rows (False only means "look value by value")."""
    if not set(map(type, values)) <= _PLAIN_TYPES:
        return False
    try:
        "".join(v for v in values if type(v) is str).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unrepresentable(value: object) -> str | None:
    """What a value should have been, if no output can carry it; else None. (What a known
    column accepts is its own rule's business.)"""
    if isinstance(value, NonFinite):
        return "a number or text (JSON's NaN and Infinity are not numbers)"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "valid Unicode text (it holds a lone UTF-16 surrogate from a \\u escape)"
    if isinstance(value, bytes | bytearray):
        return "text or a number, not binary data"
    return None


def _frame(
    workloads: list[Workload], table: RawTable, keep: list[int], extras: dict[str, int]
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
        else:
            # Text as Python objects: optional columns keep None, not NaN, and a plan's text
            # stays out of pandas 3's Arrow-backed ``str``, whose fixed cost per operation
            # outweighs the work at a few thousand rows (``pipeline.strings_as_objects``).
            columns[field] = pd.Series(fields[field], dtype=object)
    for feature, column in zip(FEATURES, FEATURE_COLUMNS, strict=True):
        columns[column] = np.array([feature in names for names in features], dtype=bool)
    for name, position in extras.items():
        columns[name] = table.columns[position].iloc[keep].reset_index(drop=True)
    return pd.DataFrame(columns)

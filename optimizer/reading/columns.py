"""Match a table's header names to the inventory's columns."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from placement.models.workload import KNOWN_COLUMNS, REQUIRED_COLUMNS, VOLUME_COLUMNS
from placement.reading.problems import InputProblem
from placement.reading.tables import FEATURE_COLUMNS, RawTable


@dataclass(frozen=True)
class ColumnMatch:
    """Which table column holds each known field and each extra, and which fields are absent."""

    known: dict[str, int]
    extras: dict[str, int]
    absent: frozenset[str]
    unnamed: tuple[int, ...]


def match_columns(table: RawTable) -> tuple[ColumnMatch, list[InputProblem]]:
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
    return ColumnMatch(known, extras, frozenset(absent), tuple(unnamed)), problems

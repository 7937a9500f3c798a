"""The data a reader hands on: the cells of a file as written, and the validated inventory."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from placement.models.workload import FEATURES, KNOWN_COLUMNS

FEATURE_COLUMNS: tuple[str, ...] = tuple(f"needs_{feature}" for feature in FEATURES)
FRAME_COLUMNS: tuple[str, ...] = KNOWN_COLUMNS + FEATURE_COLUMNS
"""The normalized columns of :attr:`Inventory.workloads`, in order, before any extra column."""


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
    sheet: str | None = None  # the workbook sheet read


@dataclass(frozen=True)
class RawTable:
    """A file's cells as written: header names, one Series per column, native line numbers.

    Row ``i`` of every column is data row ``i + 1``; ``lines[i]`` is its CSV line or Excel row.
    """

    source: str
    names: list[str]
    columns: list[pd.Series]
    lines: list[int] | None = None
    sheet: str | None = None  # the workbook sheet the cells come from
    line_label: str | None = None  # "line" (CSV) or "Excel row", for messages
    free_form: bool = False  # JSON or YAML records: a cell may hold a value of any type

    @property
    def length(self) -> int:
        return len(self.columns[0]) if self.columns else 0

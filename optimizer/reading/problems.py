"""Problems found in an input file, located as precisely as each allows, and the error that
carries them all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from placement.errors import Problem
from placement.models.workload import is_blank

_LINE_LABELS = {".csv": "line", ".xlsx": "Excel row"}


def _native_line(
    file: str, row: int | None, line: int | None, label: str | None = None
) -> tuple[str | None, int | None]:
    """Where an editor shows a data row: ``("line", 6)``, ``("Excel row", 6)``, or no label for
    formats without lines (JSON, YAML, Parquet).

    ``label`` is the reader's word for its lines, when it knows better than the file's suffix
    (an Excel workbook read from standard input). Without a known ``line``, the header is taken
    to be the first line, so the line is row + 1. A source without a known suffix (standard
    input) still has lines if the reader gave them.
    """
    if label is None:
        label = _LINE_LABELS.get(Path(file).suffix.lower(), "line" if line is not None else None)
    if label is None:
        return None, None
    return label, (row + 1 if line is None and row is not None else line)


def location(
    file: str, row: int | None, line: int | None, label: str | None = None, sheet: str | None = None
) -> str:
    """``sheet 'Inventory', row 5 (Excel row 6)``: the sheet of a workbook, the data row, and
    where an editor shows it when the format has lines."""
    word, number = _native_line(file, row, line, label)
    native = f"{word} {number}" if word and number is not None else ""
    where = native if row is None else (f"row {row} ({native})" if native else f"row {row}")
    if sheet is None:
        return where
    return f"sheet {sheet!r}, {where}" if where else f"sheet {sheet!r}"


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
    sheet: str | None = None  # the workbook sheet read
    line_label: str | None = None  # "line" or "Excel row", when the file's suffix cannot tell
    about_value: bool = True  # False: the problem is the cell's shape, not its value

    def as_problem(self) -> Problem:
        """The general form every input error shares (``line`` filled in where known)."""
        return Problem(
            str(self),
            self.file,
            self.row,
            _native_line(self.file, self.row, self.line, self.line_label)[1],
            self.column,
            None if is_blank(self.value) else self.value,
            self.expected,
            sheet=self.sheet,
        )

    def __str__(self) -> str:
        where = [location(self.file, self.row, self.line, self.line_label, self.sheet)]
        if self.column is not None:
            where.append(f"column {self.column!r}")
        text = ", ".join(part for part in where if part)
        head = f"{self.file}: {text}" if text else self.file
        if self.about_value and (self.row is not None or self.value is not None):
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


def fail(
    source: str,
    expected: str,
    value: object = None,
    line: int | None = None,
    sheet: str | None = None,
    line_label: str | None = None,
) -> InputError:
    """An error about the whole file (or one line of it, where the reader knows it)."""
    problem = InputProblem(source, None, None, value, expected, line, sheet, line_label)
    return InputError([problem])

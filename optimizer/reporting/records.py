"""Flat records (validate, catalog show, reference) as table, JSON, CSV or Markdown.

The same cell conventions hold everywhere: a missing value is an empty cell (never "nan"),
lists stay lists in JSON and are joined elsewhere, and CSV booleans are ``true``/``false``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd
from rich.console import Console, RenderableType
from rich.text import Text

from placement.reporting.terminal import file_console, new_table, render_text

FOLDED_WORD = 30
"""Words longer than this (dotted paths, hashes) may fold across lines in a table column."""


def is_missing(value: Any) -> bool:
    """None, NaN or pandas' NA: shown as an empty cell."""
    if value is None or value is pd.NA:
        return True
    return isinstance(value, float) and value != value


def text_cell(value: Any, separator: str = ", ") -> str:
    """A cell for a table or Markdown: lists joined, booleans as words, missing as empty."""
    if is_missing(value):
        return ""
    if isinstance(value, list | tuple):
        return separator.join(text_cell(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def csv_cell(value: Any) -> Any:
    """A value for CSV: ``true``/``false`` (numpy's too), lists ``;``-joined like ``features``."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ";".join(text_cell(v) for v in value)
    return value


def csv_text(frame: pd.DataFrame) -> str:
    """The frame as CSV with the cell conventions above."""
    return frame.astype(object).map(csv_cell).to_csv(index=False, lineterminator="\n")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub-flavoured Markdown table; pipes in cells are escaped, newlines flattened.

    pandas' ``DataFrame.to_markdown`` was considered: it needs tabulate and does not escape
    ``|`` inside cells, which breaks the table.
    """

    def cell(value: Any) -> str:
        return text_cell(value).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def render_records(
    records: list[dict[str, Any]], fmt: str, title: str, console: Console | None = None
) -> str:
    """Records in one of ``FORMATS``; the table is drawn on ``console`` (plain if None)."""
    if fmt == "json":
        return json.dumps(records, indent=2, default=str) + "\n"
    # object dtype: values keep their type (no 2 -> 2.0) and a missing value stays None.
    frame = pd.DataFrame(records, dtype=object)
    if fmt == "csv":
        return csv_text(frame)
    rows = [list(row) for row in frame.itertuples(index=False)]
    if fmt == "md":
        return f"# {title}\n\n" + markdown_table(list(frame.columns), rows)
    console = console or file_console()
    columns = [str(col) for col in frame.columns]
    table = new_table(console, title)
    for index, col in enumerate(columns):
        # No word (an id, a file name, a header) is broken where the words fit side by side.
        words = [_longest_word(col), *(_longest_word(text_cell(row[index])) for row in rows)]
        table.add_column(col, min_width=max(words))
    for row in rows:
        table.add_row(*(text_cell(v) for v in row))
    # Rows are read across; when even unbroken words do not fit side by side (or there is only
    # one record), each record is shown as a block of "field  value" lines instead.
    if len(rows) == 1 or not _words_fit(columns, rows, console.width):
        return render_text(console, _record_blocks(console, title, columns, rows))
    return render_text(console, [table])


def _words_fit(columns: list[str], rows: list[list[Any]], width: int) -> bool:
    """Whether the columns fit side by side without breaking a word shorter than FOLDED_WORD
    (each column as wide as its longest word, plus a space either side)."""

    needed = 2  # the table's outer edges
    for index, column in enumerate(columns):
        cells = [_longest_word(text_cell(row[index])) for row in rows]
        needed += max([_longest_word(column), *cells]) + 3  # a space either side, a rule
    return needed <= width


def _longest_word(text: str) -> int:
    # An identifier longer than FOLDED_WORD (a dotted catalog path) may fold; prose may not.
    return min(max((len(word) for word in text.split()), default=0), FOLDED_WORD)


def _record_blocks(
    console: Console, title: str, columns: list[str], rows: list[list[Any]]
) -> list[RenderableType]:
    blocks: list[RenderableType] = [Text(title, style="italic")]
    for number, row in enumerate(rows):
        if number:
            blocks.append(Text(""))
        block = new_table(console, framed=False)
        block.add_column("field", style="bold")
        block.add_column("value")
        for column, value in zip(columns, row, strict=True):
            block.add_row(column, text_cell(value))
        blocks.append(block)
    return blocks

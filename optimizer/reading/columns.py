"""Match a table's header names to the inventory's columns."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
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


UNIT_SUFFIXES: tuple[str, ...] = ("ms", "b", "weeks", "hours")
"""Unit endings a header may leave out (``ttft_slo`` for ``ttft_slo_ms``): a near miss."""
SHORT_NAME = 4
"""Names this short (``id``, ``kind``) allow an edit distance of 1 for a near miss, longer 2."""
WORD_PREFIX_MIN = 4
"""A header of at least this many letters that is the first words of a column is a near miss
(``pinned`` for ``pinned_accelerator``)."""


def canonical(name: str) -> str:
    """The header as a column name: lower case, words joined by ``_``.

    ``Pinned Accelerator``, ``pinned-accelerator``, ``PinnedAccelerator`` and
    `` pinned.accelerator `` all read as ``pinned_accelerator``.
    """
    text = unicodedata.normalize("NFKC", name).strip()
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)  # camelCase -> camel_Case
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")


def edit_distance(a: str, b: str) -> int:
    """Insertions, deletions, substitutions and swaps of neighbours (optimal string alignment)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            cost = char_a != char_b
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def near_miss(name: str, columns: Sequence[str]) -> str | None:
    """The known column a header almost names, or None.

    A near miss is a plural or singular of the column (``feature``), the column without its
    unit (``ttft_slo``), its first words (``pinned``), or within an edit distance of 2 (1 for
    names of up to four letters): ``needed_in_week``, ``param_b``, ``knid``.
    """
    for column in columns:
        if name in (column + "s", column.removesuffix("s")) and name != column:
            return column
        if any(column == f"{name}_{unit}" for unit in UNIT_SUFFIXES):
            return column
        if len(name) >= WORD_PREFIX_MIN and column.startswith(name + "_"):
            return column
    best = min(columns, key=lambda column: edit_distance(name, column))
    allowed = 1 if len(best) <= SHORT_NAME else 2
    return best if edit_distance(name, best) <= allowed else None


def match_columns(table: RawTable) -> tuple[ColumnMatch, list[InputProblem]]:
    """Match header names to fields (see :func:`canonical`).

    A header that almost names a column the file does not have (:func:`near_miss`) is an
    error, never an extra column: carried through unread, a misspelt ``needed_in_week`` would
    silently drop every deadline. Other headers are extra columns, carried through. A column
    missing from the whole file is one problem, not one per row.
    """
    source = table.source
    problems: list[InputProblem] = []

    def column_problem(column: str | None, expected: str) -> None:
        problems.append(InputProblem(source, None, column, None, expected, sheet=table.sheet))

    known: dict[str, int] = {}
    others: dict[str, int] = {}
    unnamed: list[int] = []
    seen: dict[str, str] = {}
    for position, written in enumerate(table.names):
        name = written.strip()
        key = canonical(name)
        if not name:
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
                others[name] = position

    missing = [column for column in KNOWN_COLUMNS if column not in known]
    extras: dict[str, int] = {}
    meant: set[str] = set()
    for name, position in others.items():
        target = near_miss(canonical(name), missing) if missing else None
        if target is None:
            extras[name] = position
        else:
            meant.add(target)
            column_problem(
                name,
                f"a known column name: did you mean {target!r}? (rename the header; a column "
                "that almost names one is not carried through unread)",
            )

    absent = {column for column in REQUIRED_COLUMNS if column not in known}
    if not any(column in known for column in VOLUME_COLUMNS):
        absent.update(VOLUME_COLUMNS)
    for column in (*REQUIRED_COLUMNS, VOLUME_COLUMNS[0]):
        group = set(VOLUME_COLUMNS) if column in VOLUME_COLUMNS else {column}
        if column not in absent or group & meant:  # a near miss already names it
            continue
        if column in VOLUME_COLUMNS:
            wanted = "a monthly_tokens_b or an h100_gpu_hours column"
        else:
            wanted = f"a column named {column!r} (required)"
        close = difflib.get_close_matches(column, list(extras), n=1, cutoff=0.75)
        hint = f"; is {close[0]!r} meant to be it?" if close else ""
        column_problem(column, wanted + hint)
    return ColumnMatch(known, extras, frozenset(absent), tuple(unnamed)), problems

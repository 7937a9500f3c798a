"""Errors the CLI turns into exit code 2: bad input files, catalogs, overrides and options.

Every error carries its problems as :class:`Problem` objects (file, row, column, value and what
was expected), so a script asking for ``--format json`` gets the same facts a person reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

EXIT_OK = 0
"""Every workload planned."""
EXIT_CLUSTER_FAILED = 1
"""The Dask cluster failed the batch (``ClusterError``): nothing was written."""
EXIT_BAD_INPUT = 2
"""Bad input: every problem listed, nothing written."""
EXIT_UNPLACED = 3
"""Some workloads fit nowhere, or no plan exists (infeasible, or the solver stopped first)."""


def json_safe(value: Any) -> Any:
    """A value as JSON can carry it: NaN and infinities as text, unknown types as ``str``."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return json_safe(item())
    return str(value)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located as precisely as the problem allows.

    ``message`` is the sentence people read; the other fields are its parts for scripts: the
    ``file`` (or option, such as ``--set``), the workbook ``sheet``, the data ``row`` and the
    ``line`` an editor shows,
    the ``column`` (for a catalog: the dotted path), the ``value`` found and what was
    ``expected``.
    """

    message: str
    file: str | None = None
    row: int | None = None
    line: int | None = None
    column: str | None = None
    value: Any = None
    expected: str | None = None
    sheet: str | None = None

    def record(self) -> dict[str, Any]:
        """The problem as a JSON object (the same keys for every kind of input error)."""
        return {
            "file": self.file,
            "sheet": self.sheet,
            "row": self.row,
            "line": self.line,
            "column": self.column,
            "value": json_safe(self.value),
            "expected": self.expected,
            "message": self.message,
        }


class PlacementInputError(Exception):
    """Bad input that the user must fix; ``problems`` lists every one of them."""

    def __init__(self, problems: Sequence[str | Problem], title: str = "invalid input") -> None:
        self.problems = [p if isinstance(p, Problem) else Problem(p) for p in problems]
        self.title = title
        super().__init__(self.__str__())

    def __str__(self) -> str:
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        lines = "\n".join(f"  - {p.message}" for p in self.problems)
        return f"{self.title}: {count} {noun}\n{lines}"

    def records(self) -> list[dict[str, Any]]:
        """Every problem as a JSON object."""
        return [p.record() for p in self.problems]


class CatalogError(PlacementInputError):
    """The catalog file or an override is invalid."""

    def __init__(self, problems: Sequence[str | Problem]) -> None:
        super().__init__(problems, title="invalid catalog")


class ClusterError(Exception):
    """A Dask cluster failed a batch part-way (every worker given a job died running it, or
    the scheduler was lost): neither the input's fault nor a bug. The CLI exits 1 with this
    message, under ``--format json`` also as an error document."""

    title = "cluster failed"

    def records(self) -> list[dict[str, Any]]:
        return [{"message": str(self)}]

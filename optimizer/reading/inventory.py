"""Read an inventory: from a path, standard input, a DataFrame or records in memory."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

import pandas as pd

from placement.reading.bounded import TooLarge, Watch, read_bounded, read_stream_bounded
from placement.reading.formats import (
    FORMAT_OF_SUFFIX,
    INPUT_FORMATS,
    READERS,
    ReadOptions,
    frame_table,
    records_table,
    rows_hint,
)
from placement.reading.limits import SizeLimit
from placement.reading.problems import fail
from placement.reading.sources import DATAFRAME_SOURCE, STDIN, STDIN_SOURCE, SUFFIXES
from placement.reading.tables import Inventory
from placement.reading.validate import validate_table


def _source_format(label: str, input_format: str | None) -> str:
    if input_format is not None:
        if input_format not in INPUT_FORMATS:
            expected = "--input-format one of: " + ", ".join(INPUT_FORMATS)
            raise fail(label, expected, input_format)
        return input_format
    suffix = Path(label).suffix.lower()
    if suffix not in FORMAT_OF_SUFFIX:
        expected = "a file ending in one of: " + ", ".join(SUFFIXES) + " (or --input-format)"
        raise fail(label, expected, suffix or None)
    return FORMAT_OF_SUFFIX[suffix]


def _read_bytes(
    label: str, stdin: BinaryIO | None, fmt: str, limit: SizeLimit | None
) -> tuple[str, bytes]:
    """The source's label for messages and its bytes: a file, a FIFO, or standard input.

    A regular file is read whole (its rows are counted before it is parsed). Anything else (a
    pipe, a device such as ``/dev/zero``, standard input) has no size until it ends: it is
    read as it comes, up to :meth:`SizeLimit.stream_bytes`, a CSV's lines counted against the
    workload limit as they come, and refused at the first byte or line beyond either.
    """
    bound, basis = (limit or SizeLimit()).stream_bytes()
    source = STDIN_SOURCE if label == STDIN else label
    watch = _line_watch(source, limit) if fmt == "csv" and limit is not None else None
    try:
        if label == STDIN:
            stream = stdin if stdin is not None else sys.stdin.buffer
            return source, read_stream_bounded(stream, bound, watch)
        path = Path(label)
        if path.is_dir():
            raise fail(label, "a file, not a directory")
        if not path.exists():
            # A link to nothing (or to itself) exists as a name: say why it cannot be read.
            why = "a link to nothing or in a loop" if path.is_symlink() else "none found"
            raise fail(label, f"an existing file ({why})")
        if path.is_file():
            return label, path.read_bytes()
        return label, read_bounded(path, bound, wait=None, watch=watch)
    except TooLarge:
        expected = (
            f"an inventory of at most {bound:,} bytes from a pipe, a device or standard input "
            f"({basis}); more came from it (a device such as /dev/zero is not an inventory)"
        )
        raise fail(source, expected) from None
    except OSError as exc:
        raise fail(label, f"a readable file ({exc.strerror or exc})") from None


def _line_watch(source: str, limit: SizeLimit) -> Watch:
    """Counts a CSV stream's lines as they come and refuses it at the first line beyond the
    workload limit (a CSV line is at most one workload): a ten-million-line pipe is refused
    after its first 200,000 lines, not read whole."""
    allowed, _ = limit.allowed()
    lines = 0

    def watch(chunk: bytes) -> None:
        nonlocal lines
        lines += chunk.count(b"\n")
        if lines - 1 > allowed:
            limit.check(lines - 1, source, partial=True)

    return watch


def read_inventory(
    source: str | os.PathLike[str] | pd.DataFrame,
    accelerator_names: Collection[str] | None = None,
    input_format: str | None = None,
    stdin: BinaryIO | None = None,
    sheet: str | None = None,
    limit: SizeLimit | None = None,
    load_profiles: Mapping[str, str] | None = None,
) -> Inventory:
    """Read, validate and normalize an inventory file, standard input (``-``) or a DataFrame.

    The format comes from ``input_format`` (one of :data:`INPUT_FORMATS`) or else the file's
    extension; standard input needs ``input_format``. ``sheet`` names the sheet of a workbook
    to read (by default its active visible sheet). ``limit``, if given, refuses an inventory
    too large to plan, from a quick count before parsing where the format allows and from the
    exact count before validating. ``accelerator_names`` (the catalog's) are
    the values ``pinned_accelerator`` may take; when None, any name is accepted and the
    planner's catalog check comes later; ``load_profiles`` (name -> ``serving`` or ``work``)
    likewise the values of ``load_profile``. Raises :class:`InputError` listing every problem;
    nothing is returned unless the whole input is valid.
    """
    if isinstance(source, pd.DataFrame):
        if limit is not None:
            limit.check(len(source), DATAFRAME_SOURCE)
        return validate_table(
            frame_table(source, DATAFRAME_SOURCE), accelerator_names, load_profiles
        )
    label = os.fspath(source)
    if label == STDIN and input_format is None:
        expected = "--input-format (" + ", ".join(INPUT_FORMATS) + ") to read standard input"
        raise fail(STDIN_SOURCE, expected)
    fmt = _source_format(label, input_format)
    if sheet is not None and fmt != "xlsx":
        raise fail(label, "--sheet only with an .xlsx workbook", sheet)
    label, data = _read_bytes(label, stdin, fmt, limit)
    if not data:
        what = "standard input" if label == STDIN_SOURCE else "the file"
        raise fail(label, f"a header row and at least one workload row ({what} is empty)")
    if limit is not None:
        hint = rows_hint(fmt, data)
        if hint is not None:
            limit.check(hint, label, approximate=True)
    table = READERS[fmt](data, label, ReadOptions(sheet=sheet, limit=limit))
    if limit is not None:
        limit.check(table.length, label)
    inventory = validate_table(table, accelerator_names, load_profiles)
    return replace(
        inventory,
        sha256=hashlib.sha256(data).hexdigest(),
        input_format=fmt,
        sheet=table.sheet,
    )


def inventory_summary(inventory: Inventory, known_families: Collection[str]) -> dict[str, Any]:
    """What ``placement validate`` reports of a valid inventory (lists stay lists)."""
    frame = inventory.workloads
    families = sorted(frame["model_family"].unique())
    return {
        "status": "valid",
        "source": inventory.source,
        "format": inventory.input_format,
        "sheet": inventory.sheet,
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
    load_profiles: Mapping[str, str] | None = None,
) -> Inventory:
    """Validate records already in memory (an API payload, a parsed JSON or YAML document).

    Row numbers in problems are record numbers (1-based); ``source`` names them in messages.
    """
    return validate_table(records_table(records, source), accelerator_names, load_profiles)

"""How large an inventory this machine can plan, decided before the work starts.

Memory grows linearly with the number of workloads (docs/performance.md, "Size"): the
estimate below is fitted to measured peak resident memory of whole ``placement plan`` runs.
An inventory whose estimate exceeds the memory this machine has available, or beyond
:data:`DEFAULT_MAX_WORKLOADS`, is refused at once with what to do instead, rather than running
for hours and being killed. ``--max-workloads`` replaces both with an explicit limit (to plan
a large inventory on purpose, or to cap a service).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from placement.reading.problems import InputError, fail

BASE_MEMORY_BYTES = 300 * 2**20
"""Peak memory of planning a handful of workloads: the interpreter, pandas, PuLP, HiGHS
(measured: 219 MiB RSS at 1,000 workloads, rounded up)."""
MEMORY_PER_WORKLOAD_BYTES = 24 * 2**10
"""Peak memory each workload adds to a steady-state plan (measured with ``placement plan
INV -o plan.json --format json``: 1,786 MiB RSS at 100,000 workloads, 3,314 MiB at 200,000,
15.3 KiB a workload between them; rounded up by half for inventories with more options, extra
columns or moves per workload)."""
MEMORY_PER_WORKLOAD_MONTH_BYTES = 8 * 2**10
"""What each workload adds per month of a roadmap (``--horizon``), on top of its steady-state
share (measured: 1.78 GB at 10,000 workloads over 24 months, 5.4 KiB a workload-month above
the steady state's estimate; rounded up)."""
USABLE_MEMORY_FRACTION = 0.8
"""The share of the available memory a plan may count on; the rest is the system's."""
DEFAULT_MAX_WORKLOADS = 200_000
"""Without --max-workloads, no more than this many workloads, whatever the memory: the time
grows a little faster than the inventory (the command measured on 2 cores: 29 s at 100,000
workloads, 64 s and 3.3 GB at 200,000; docs/performance.md), so a larger plan runs for
minutes; aggregating or splitting it is the better answer, and --max-workloads the deliberate
one."""


BYTES_PER_WORKLOAD = 4 * 2**10
"""The most bytes of inventory file one workload may take on average when the file comes from a
pipe, a device or standard input, whose size is known only once read: a row of every column is
about 300 bytes of CSV and 700 of JSON, so this leaves room for long notes; a plan holds 24 KiB a
workload in memory anyway (:data:`MEMORY_PER_WORKLOAD_BYTES`), so the bytes read never outgrow
the plan they are for."""
MIN_STREAM_BYTES = 64 * 2**20
"""A stream's bound whatever the workload limit: a small ``--max-workloads`` does not refuse a
short inventory with long notes."""


def memory_per_workload_bytes(months: int | None = None) -> int:
    """The peak memory one workload adds: to a steady-state plan, or to a roadmap over
    ``months``."""
    return MEMORY_PER_WORKLOAD_BYTES + MEMORY_PER_WORKLOAD_MONTH_BYTES * (months or 0)


def estimated_memory_bytes(workloads: int, months: int | None = None) -> int:
    """The peak memory ``placement plan`` needs for this many workloads (over ``months`` of a
    roadmap, if given)."""
    return BASE_MEMORY_BYTES + memory_per_workload_bytes(months) * workloads


def available_memory_bytes() -> int | None:
    """The memory available to new processes (``MemAvailable``), or all of it, or None."""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        for line in meminfo.read_text(encoding="ascii", errors="replace").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _gib(size: float) -> str:
    return f"{size / 2**30:.1f} GB"


@dataclass(frozen=True)
class SizeLimit:
    """The most workloads one plan may hold: ``max_workloads`` if given, else what the
    machine's available memory allows by :func:`estimated_memory_bytes` (for a roadmap over
    ``months``, if given)."""

    max_workloads: int | None = None
    months: int | None = None

    def allowed(self) -> tuple[int, str]:
        """The limit and, for messages, where it comes from."""
        if self.max_workloads is not None:
            return self.max_workloads, f"--max-workloads {self.max_workloads:,}"
        default = (DEFAULT_MAX_WORKLOADS, "the default limit, for a plan within minutes")
        available = available_memory_bytes()
        if available is None:
            return default
        usable = available * USABLE_MEMORY_FRACTION
        per_workload = memory_per_workload_bytes(self.months)
        by_memory = max(0, int((usable - BASE_MEMORY_BYTES) // per_workload))
        if by_memory < DEFAULT_MAX_WORKLOADS:
            return by_memory, f"{_gib(available)} of memory available"
        return default

    def check(
        self, workloads: int, source: str, approximate: bool = False, partial: bool = False
    ) -> None:
        """Refuse an inventory beyond the limit (exit 2), saying what to do instead;
        ``partial``: ``workloads`` were counted in the part of a stream read so far."""
        limit, basis = self.allowed()
        if workloads <= limit:
            return
        about = "more than " if partial else "about " if approximate else ""
        raise self._refusal(source, workloads, limit, basis, about)

    def stream_bytes(self) -> tuple[int, str]:
        """The most bytes an inventory read from a pipe, a device or standard input may hold
        (:data:`BYTES_PER_WORKLOAD` for each workload allowed, at least
        :data:`MIN_STREAM_BYTES`), and where the bound comes from, for messages."""
        limit, basis = self.allowed()
        bound = max(MIN_STREAM_BYTES, limit * BYTES_PER_WORKLOAD)
        return (
            bound,
            f"{BYTES_PER_WORKLOAD // 2**10} KiB for each of the {limit:,} workloads of {basis}",
        )

    def _refusal(
        self, source: str, workloads: int, limit: int, basis: str, about: str
    ) -> InputError:
        need = _gib(estimated_memory_bytes(workloads, self.months))
        # A stream refused part-way has at least this many: the option must allow more.
        count = "above its count" if about == "more than " else f"{workloads}"
        return fail(
            source,
            f"at most {limit:,} workloads ({basis}); this inventory has {about}{workloads:,}, "
            f"which needs {about or 'about '}{need} of memory to plan. Aggregate similar "
            "workloads into one row (their volumes add up), split the inventory (by team or "
            "model family) and plan the parts, or plan it on a larger machine with "
            f"--max-workloads {count}",
        )

"""How long ``sweep`` takes along one parameter of one inventory, break-evens bisected.

::

    python -m benchmarks.sweep                               # 50 points, 1,000 workloads
    python -m benchmarks.sweep --points 50 --size 1000 --workers 2 --write-docs

The parameter is the H100 on-demand price, from $2 to $6 a GPU-hour (``--low``, ``--high``),
the inventory the seeded synthetic one of ``benchmarks.generate``. The time is the whole
``sweep`` call: every grid point planned, then every interval whose decisions differ bisected
to 1/256 of the grid step, on ``--workers`` processes (as ``placement sweep --param
accelerators.h100.on_demand_usd_per_chip_hour --range 2:6:50 --workers 2`` does, without
reading the CSV and writing the output). ``--write-docs`` rewrites the ``sweep`` figures block
of docs/performance.md.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Sequence

from benchmarks.generate import read_synthetic
from benchmarks.run import FIGURE_TABLE_HEAD, measured_on, publish
from placement.comparing.sweep import Parameter, sweep

SECTION = "sweep"
TARGET_SECONDS = 30.0
PARAMETER = "accelerators.h100.on_demand_usd_per_chip_hour"


def peak_rss_mib() -> float:
    """The largest resident set of this process, MiB (Linux reports KiB). The workers are
    the forkserver's children, not this process's: their memory is not in it."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=50)
    parser.add_argument("--low", type=float, default=2.0)
    parser.add_argument("--high", type=float, default=6.0)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    catalog, inventory = read_synthetic(args.size, args.seed)
    parameter = Parameter.parse_range(PARAMETER, f"{args.low:g}:{args.high:g}:{args.points}")
    started = time.perf_counter()
    result = sweep(inventory, [parameter], catalog, workers=args.workers)
    elapsed = time.perf_counter() - started
    statuses = sorted({p.plan.status for p in result.points})
    met = elapsed <= TARGET_SECONDS
    lines = [
        *measured_on(
            f"python -m benchmarks.sweep --points {args.points} --size {args.size} "
            f"--workers {args.workers or 'all'}"
        ),
        *FIGURE_TABLE_HEAD,
        f"| grid points planned | {len(result.points)} |",
        f"| workloads | {args.size:,} |",
        f"| parameter | `{PARAMETER}`, {args.low:g} to {args.high:g} |",
        f"| break-evens located | {len(result.break_evens)} |",
        f"| sweep() total, s | {elapsed:.1f} |",
        f"| peak RSS of the calling process (not its workers), MiB | {peak_rss_mib():.0f} |",
        f"| grid statuses | {', '.join(statuses)} |",
        "",
        f"Target ({args.points} points on {args.size:,} workloads in <= "
        f"{TARGET_SECONDS:.0f} s on 2 cores): {'met' if met else 'MISSED'}: {elapsed:.1f} s.",
    ]
    publish(SECTION, lines, args.write_docs)


if __name__ == "__main__":
    main()

"""How long ``risk`` takes for many samples of one inventory.

::

    python -m benchmarks.risk                                  # 100 samples, 1,000 workloads
    python -m benchmarks.risk --samples 1000 --size 1000 --workers 2 --write-docs

The inventory is the seeded synthetic one of ``benchmarks.generate``; the catalog the packaged
default (44 figures drawn, two linked groups). The time is the whole ``risk`` call: the point
plan, the draws, every sample's optimum, baselines and held plan on ``--workers`` processes, and
the summary. ``--write-docs`` rewrites the ``risk`` figures block of docs/performance.md.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from benchmarks.generate import read_synthetic
from benchmarks.run import FIGURE_TABLE_HEAD, measured_on, publish
from placement.uncertainty.risk import risk

SECTION = "risk"
TARGET_SECONDS = 180.0
TARGET_SAMPLES = 1000


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    catalog, inventory = read_synthetic(args.size, args.seed)
    started = time.perf_counter()
    result = risk(inventory, catalog, samples=args.samples, seed=args.seed, workers=args.workers)
    elapsed = time.perf_counter() - started
    per_sample = elapsed / args.samples
    projected = per_sample * TARGET_SAMPLES
    lines = [
        *measured_on(
            f"python -m benchmarks.risk --samples "
            f"{args.samples} --size {args.size} --workers {args.workers or 'all'}"
        ),
        *FIGURE_TABLE_HEAD,
        f"| samples (failed) | {args.samples:,} ({result.failed_samples}) |",
        f"| workloads | {args.size:,} |",
        f"| figures drawn | {len(result.figures)} |",
        f"| risk() total, s | {elapsed:.1f} |",
        f"| per sample, s (total / samples) | {per_sample:.2f} |",
        f"| optimum P10 / P50 / P90, $/month | {result.optimal_cost_usd.p10:,.0f} / "
        f"{result.optimal_cost_usd.p50:,.0f} / {result.optimal_cost_usd.p90:,.0f} |",
        f"| migrating pays in | {100 * (result.probability_beats_all_h100 or 0):.0f}% |",
        "",
        f"Target ({TARGET_SAMPLES:,} samples on {args.size:,} workloads in <= "
        f"{TARGET_SECONDS:.0f} s on 2 cores): "
        + (
            f"{'met' if elapsed <= TARGET_SECONDS else 'MISSED'}: {elapsed:.1f} s."
            if args.samples == TARGET_SAMPLES
            else f"{'on course' if projected <= TARGET_SECONDS else 'MISSED'} at this rate "
            f"({projected:.0f} s for {TARGET_SAMPLES:,} samples, projected from "
            f"{args.samples:,})."
        ),
    ]
    publish(SECTION, lines, args.write_docs)


if __name__ == "__main__":
    main()

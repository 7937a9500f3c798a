"""How long ``plan --robust`` takes.

::

    python -m benchmarks.robust                                # 50 samples, 1,000 workloads
    python -m benchmarks.robust --samples 50 --size 1000 --write-docs

The inventory is the seeded synthetic one of ``benchmarks.generate``; the catalog the packaged
default. The time is the point plan (``plan``) and the whole ``robust_plan`` call: the
stochastic program over the samples, both first stages priced in every sample (and each
sample's optimum) on all cores, the same on as many fresh samples, and the plan held.
``--write-docs`` rewrites the ``robust`` figures block of docs/performance.md.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from benchmarks.generate import read_synthetic
from benchmarks.run import FIGURE_TABLE_HEAD, measured_on, publish
from placement.pipeline import plan
from placement.uncertainty.robust import robust_plan

SECTION = "robust"
TARGET_SECONDS = 120.0


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    catalog, inventory = read_synthetic(args.size, args.seed)
    started = time.perf_counter()
    point = plan(inventory, catalog)
    result = robust_plan(point, samples=args.samples, seed=args.seed, workers=args.workers)
    elapsed = time.perf_counter() - started
    report = result.plan.robust
    assert report is not None
    lines = [
        *measured_on(f"python -m benchmarks.robust --samples {args.samples} --size {args.size}"),
        *FIGURE_TABLE_HEAD,
        f"| samples (fresh samples) | {args.samples:,} "
        f"({report.out_of_sample.samples if report.out_of_sample else 0:,}) |",
        f"| workloads | {args.size:,} |",
        f"| robust_plan() total, s | {elapsed:.1f} |",
        f"| first stage chosen | {report.chosen} |",
        f"| expected cost, robust / point plan, $/month | {report.expected_cost_usd:,.0f} / "
        f"{report.point_plan_expected_cost_usd:,.0f} |",
        "",
        f"Target ({args.samples} samples of {args.size:,} workloads in <= {TARGET_SECONDS:.0f} s "
        f"on 2 cores): {'met' if elapsed <= TARGET_SECONDS else 'MISSED'}: {elapsed:.1f} s.",
    ]
    publish(SECTION, lines, args.write_docs)


if __name__ == "__main__":
    main()

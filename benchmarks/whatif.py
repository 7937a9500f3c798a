"""How long ``whatif`` takes for many scenarios on one inventory.

::

    python -m benchmarks.whatif                              # 100 scenarios, 1,000 workloads
    python -m benchmarks.whatif --scenarios 100 --size 1000 --workers 2 --write-docs

The scenarios are made from the catalog alone (an H100 on-demand price from $2.50 to $5.50),
so each is a different question with a different optimum; the inventory is the seeded synthetic
one of ``benchmarks.generate``. The time is the whole ``whatif`` call: reading the inventory
once, checking every scenario, and solving the base and every scenario on ``--workers``
processes. ``--write-docs`` rewrites the ``whatif`` figures block of docs/performance.md.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from benchmarks.generate import read_synthetic
from benchmarks.run import FIGURE_TABLE_HEAD, measured_on, publish
from placement.catalog import Setting
from placement.comparing import whatif
from placement.scenarios import Scenario

SECTION = "whatif"
TARGET_SECONDS = 20.0


def price_scenarios(count: int) -> list[Scenario]:
    """``count`` scenarios, each an H100 on-demand price between $2.50 and $5.50."""
    out = []
    for i in range(count):
        price = round(2.5 + 3.0 * i / max(count - 1, 1), 4)
        setting = Setting(
            "accelerators.h100.on_demand_usd_per_chip_hour",
            price,
            str(price),
            "benchmark",
            f"benchmark price {price}",
        )
        out.append(Scenario(f"h100 at ${price}", "", "benchmark", "", (setting,)))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    catalog, inventory = read_synthetic(args.size, args.seed)
    scenarios = price_scenarios(args.scenarios)
    started = time.perf_counter()
    result = whatif(inventory, scenarios, catalog, workers=args.workers)
    elapsed = time.perf_counter() - started
    plans = len(result.outcomes)
    statuses = sorted({o.plan.status for o in result.outcomes})
    solver_s = sum(o.plan.solver.time_s or 0.0 for o in result.outcomes)
    slowest = max(o.plan.solver.time_s or 0.0 for o in result.outcomes)
    met = elapsed < TARGET_SECONDS
    lines = [
        *measured_on(
            f"python -m benchmarks.whatif --scenarios "
            f"{args.scenarios} --size {args.size} --workers {args.workers or 'all'}"
        ),
        *FIGURE_TABLE_HEAD,
        f"| plans solved (base + scenarios) | {plans} |",
        f"| workloads each | {args.size:,} |",
        f"| whatif() total, s | {elapsed:.1f} |",
        f"| per plan, s (total / plans) | {elapsed / plans:.2f} |",
        f"| HiGHS time of the plans' main solves, summed, s | {solver_s:.1f} |",
        f"| slowest main solve, s | {slowest:.1f} |",
        f"| statuses | {', '.join(statuses)} |",
        "",
        f"Target ({args.scenarios} scenarios on {args.size:,} workloads in < "
        f"{TARGET_SECONDS:.0f} s on 2 cores): {'met' if met else 'MISSED'}: {elapsed:.1f} s.",
    ]
    publish(SECTION, lines, args.write_docs)


if __name__ == "__main__":
    main()

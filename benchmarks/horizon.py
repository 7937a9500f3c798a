"""How long a roadmap takes: ``plan --horizon`` on a large synthetic inventory.

::

    python -m benchmarks.horizon                       # 10,000 workloads, 12 months
    python -m benchmarks.horizon --size 1000 --months 24 --write-docs
    python -m benchmarks.horizon --sample 3 --months 120 --write-docs

The inventory is ``benchmarks.generate``'s, with where each workload runs today and how it
changes over time added (seeded): 90% run today (on Trainium2 if Neuron-ready, else on H100),
the rest are new; half grow by 0-4% a month; a tenth start later and a tenth end early. The
time is the whole ``plan()`` call: estimates, the roadmap MILP, the stay-put comparison, the
end state's plan and its baselines. ``--sample N`` plans the first N workloads of the sample
inventory instead: a long horizon on a small inventory. ``--write-docs`` rewrites the
``horizon-<size>`` figures block of docs/performance.md (``horizon-<size>-<months>m`` for a
horizon other than 12 months, ``horizon-<size>-seed<S>-<months>m`` for a seed other than 0,
``horizon-sample<N>-<months>m`` for ``--sample``). An inventory of ``SMALL_INVENTORY``
workloads or fewer is held to ``SMALL_TARGET_SECONDS`` at any horizon.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.generate import synthetic_inventory
from benchmarks.run import FIGURE_TABLE_HEAD, measured_on, replace_section
from placement.catalog import read_catalog
from placement.pipeline import SolverOptions, plan
from placement.reading import read_inventory

SECTION = "horizon"
TARGET_SECONDS = 30.0
SMALL_TARGET_SECONDS = 60.0
"""A long horizon (up to the 120 months allowed) on a small inventory plans within a minute."""
SMALL_INVENTORY = 10
"""The most workloads (of the sample or synthetic) measured against ``SMALL_TARGET_SECONDS``."""
MINUTES_TARGET_SECONDS = 600.0
"""A larger part of the sample, up to the longest horizon, plans in minutes: ten at most."""
SAMPLE = Path(__file__).resolve().parents[1] / "inputs" / "sample_inventory.csv"
DEFAULT_MONTHS = 12
RUNNING_TODAY_SHARE = 0.9
GROWING_SHARE = 0.5
MAX_MONTHLY_GROWTH = 0.04
LATE_START_SHARE = 0.1
EARLY_END_SHARE = 0.1


def roadmap_inventory(size: int, months: int, seed: int) -> pd.DataFrame:
    """The synthetic inventory with current places, growth, starts and ends (see the module)."""
    frame = synthetic_inventory(size, seed=seed)
    rng = np.random.default_rng(seed + 1)
    ready = frame["neuron_ready"].astype(str).str.lower().eq("true")
    today = rng.random(size) < RUNNING_TODAY_SHARE
    frame["current_accelerator"] = np.where(today, np.where(ready, "trn2", "h100"), None)
    growing = rng.random(size) < GROWING_SHARE
    frame["monthly_growth"] = np.where(
        growing, np.round(rng.uniform(0, MAX_MONTHLY_GROWTH, size), 3), np.nan
    )
    late = rng.random(size) < LATE_START_SHARE
    frame["start_month"] = np.where(late, rng.integers(2, max(3, months), size), np.nan)
    early = rng.random(size) < EARLY_END_SHARE
    start = frame["start_month"].fillna(1).to_numpy()
    end = np.maximum(start, rng.integers(1, months + 1, size))
    frame["end_month"] = np.where(early, end, np.nan)
    # Running somewhere today means it has started.
    frame.loc[today, "start_month"] = np.nan
    return frame


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--months", type=int, default=DEFAULT_MONTHS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per solve")
    parser.add_argument("--sample", type=int, metavar="N", help="the sample's first N workloads")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    catalog = read_catalog()
    frame = (
        roadmap_inventory(args.size, args.months, args.seed)
        if args.sample is None
        else pd.read_csv(SAMPLE, dtype=str, keep_default_na=False).head(args.sample)
    )
    size = len(frame)
    inventory = read_inventory(
        frame, list(catalog.catalog.accelerators), load_profiles=catalog.catalog.profile_kinds()
    )
    started = time.perf_counter()
    solver = SolverOptions(time_limit_s=args.time_limit)
    result = plan(inventory, catalog, solver, horizon=args.months)
    elapsed = time.perf_counter() - started
    roadmap = result.plan.roadmap
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if size <= SMALL_INVENTORY:
        target = SMALL_TARGET_SECONDS
    else:
        target = TARGET_SECONDS if args.sample is None else MINUTES_TARGET_SECONDS
    met = elapsed < target
    seeded = f" --seed {args.seed}" if args.sample is None and args.seed else ""
    which = f"--size {args.size}{seeded}" if args.sample is None else f"--sample {args.sample}"
    lines = [
        *measured_on(
            f"python -m benchmarks.horizon {which} --months {args.months}"
            + (f" --time-limit {args.time_limit:g}" if args.time_limit else "")
        ),
        *FIGURE_TABLE_HEAD,
        f"| workloads | {size:,} |",
        f"| months | {args.months} |",
        f"| plan() total, s | {elapsed:.1f} |",
        f"| roadmap MILP solve (HiGHS), s | {result.solve.time_s:.1f} |",
        f"| status, gap | {result.plan.status}, {result.plan.solver.gap} |",
        f"| peak memory, MiB | {peak_mib:,.0f} |",
        f"| monthly average, USD | {result.plan.objective_monthly_usd:,.0f} |",
        f"| steps (ports, migrations) | {len(roadmap.steps) if roadmap else 'n/a'} |",
        "",
        (
            f"Target ({args.months}-month horizon on {size:,} workloads in < "
            f"{target:.0f} s on 2 cores): {'met' if met else 'MISSED'}: {elapsed:.1f} s."
            if args.months == DEFAULT_MONTHS or args.sample is not None or size <= SMALL_INVENTORY
            else f"(The {TARGET_SECONDS:.0f} s target is for a {DEFAULT_MONTHS}-month horizon.)"
        ),
    ]
    text = "\n".join(lines)
    print(text)
    if args.write_docs:
        suffix = "" if args.months == DEFAULT_MONTHS else f"-{args.months}m"
        name = f"{args.size}" if args.sample is None else f"sample{args.sample}"
        name += f"-seed{args.seed}" if seeded else ""
        replace_section(f"{SECTION}-{name}{suffix}", text)


if __name__ == "__main__":
    main()

"""How long printing a plan takes and how much it prints, per format and view.

::

    python -m benchmarks.output                       # 20,000 workloads, 3 repeats
    python -m benchmarks.output --size 20000 --repeat 3 --write-docs

The plan of a seeded synthetic inventory (``benchmarks.generate``) is made once, untimed; then
each output is rendered ``--repeat`` times exactly as the CLI renders it for a pipe
(``COLUMNS=80``, no colour), and the median time, the number of lines, the widest line and the
size are reported. ``--write-docs`` rewrites the ``output`` figures block of
docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from benchmarks.generate import synthetic_inventory
from benchmarks.run import environment, replace_section
from placement.models.plan import Plan
from placement.pipeline import plan
from placement.reporting import PlanView, render_plan
from placement.reporting.plan import plan_csv_sections
from placement.reporting.terminal import file_console

SECTION = "output"
WIDTH = 80


@dataclass(frozen=True)
class OutputFigure:
    """One rendering: its median time over the repeats and what it printed."""

    label: str
    median_s: float
    lines: int
    widest: int
    megabytes: float


def _outputs(plan_: Plan) -> dict[str, Callable[[], str]]:
    workloads = len(plan_.assignments) + len(plan_.unplaced)
    return {
        "table (default view)": lambda: render_plan(
            plan_, "table", PlanView.default(workloads), file_console()
        ),
        "table --summary": lambda: render_plan(plan_, "table", PlanView(0, False), file_console()),
        "table --top 100": lambda: render_plan(plan_, "table", PlanView(100), file_console()),
        "table --all": lambda: render_plan(plan_, "table", PlanView(None), file_console()),
        "markdown (every workload)": lambda: render_plan(plan_, "md"),
        "csv (sections)": lambda: plan_csv_sections(plan_),
        "json": lambda: render_plan(plan_, "json"),
    }


def measure(size: int, seed: int, repeat: int) -> tuple[float, list[OutputFigure]]:
    """Plan once (returning its time), then time every output ``repeat`` times."""
    os.environ["COLUMNS"] = str(WIDTH)
    os.environ.pop("FORCE_COLOR", None)
    inventory = synthetic_inventory(size, seed)
    started = time.perf_counter()
    result = plan(inventory)
    plan_seconds = time.perf_counter() - started
    figures = []
    for label, render in _outputs(result.plan).items():
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            text = render()
            times.append(time.perf_counter() - started)
        lines = text.splitlines()
        figures.append(
            OutputFigure(
                label,
                statistics.median(times),
                len(lines),
                max((len(line.encode()) for line in lines), default=0),
                len(text.encode()) / 1e6,
            )
        )
    return plan_seconds, figures


def markdown(size: int, plan_seconds: float, figures: Sequence[OutputFigure], command: str) -> str:
    env = environment()
    rows = [
        "| output | median time | lines | widest line (bytes) | size |",
        "|---|---|---|---|---|",
    ]
    rows += [
        f"| {f.label} | {f.median_s:.2f} s | {f.lines:,} | {f.widest} | {f.megabytes:.2f} MB |"
        for f in figures
    ]
    return "\n".join(
        [
            f"Measured {time.strftime('%Y-%m-%d')} with `{command}`: {size:,} workloads, "
            f"planned once in {plan_seconds:.1f} s (untimed below), printed at {WIDTH} columns.",
            "",
            "Machine: " + "; ".join(f"{k} {v}" for k, v in env.items()) + ".",
            "",
            *rows,
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    plan_seconds, figures = measure(args.size, args.seed, args.repeat)
    command = f"python -m benchmarks.output --size {args.size} --seed {args.seed} " + (
        f"--repeat {args.repeat}"
    )
    text = markdown(args.size, plan_seconds, figures, command)
    print(text)
    if args.write_docs:
        replace_section(SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

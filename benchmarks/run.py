"""End-to-end benchmark of ``placement.pipeline.plan`` on synthetic inventories.

::

    python -m benchmarks.run                                  # 1,000 and 10,000 workloads
    python -m benchmarks.run --sizes 1000 10000 --seed 0 --solver highs --repeat 3
    python -m benchmarks.run --gap 0.001 --write-docs         # refresh docs/performance.md

For each size a seeded inventory (``benchmarks.generate.synthetic_inventory``) is handed to
``plan()`` as a DataFrame, so reading and validation are part of the measurement. Stage times
come from the same ``plan()`` call: the stage functions ``placement.pipeline`` calls
(``read_inventory``, ``estimate``, ``build_model``, ``solve_model``, ``extract_solution``,
``compute_baselines``, ``assemble_plan``...) are wrapped with timers for the duration of the
run, nothing else changes. Calls nested in another timed stage are reported under it (the
baselines' second model build and solve appear as ``baselines/build`` and ``baselines/solve``).

Memory is measured in a separate, untimed pass of ``plan()`` under ``tracemalloc`` (which
slows Python code down and only sees Python allocations), and as the process's maximum
resident set size from ``resource.getrusage``, which includes HiGHS's C++ allocations. Each
size runs in a fresh child process (unless ``--in-process``) so its max RSS is its own.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import highspy
import pandas as pd

import placement.analysing.baselines as baselines
import placement.pipeline as pipeline
import placement.solving.proof as proof
import placement.solving.solver as solver
import placement.solving.start as start
from benchmarks.generate import synthetic_inventory
from placement.catalog import load_catalog
from placement.estimating import estimate
from placement.formulating.build import build_model
from placement.formulating.model import PlacementModel
from placement.models.catalog import Catalog
from placement.pipeline import SolverOptions
from placement.reading import read_inventory
from placement.solving.choices import DEFAULT_GAP
from placement.solving.model_file import model_file_text

DOCS_PATH = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
DEFAULT_SECTION = "main"
TARGET_WORKLOADS = 10_000
TARGET_SECONDS = 5.0  # issue 20: fleet scale (it was 10 s)
TARGET_GAP = 1e-3

# The stage functions plan() looks up in placement.pipeline's namespace, with report labels.
WRAPPED: dict[str, str] = {
    "read_catalog": "catalog",
    "read_inventory": "read",
    "estimate": "estimate",
    "build_model": "build",
    "solve_model": "solve",
    "solve_plan_model": "solve",
    "extract_solution": "extract",
    "compute_baselines": "baselines",
    "price_greedy": "start",
    "relaxation_bound": "bound",
    "greedy_placement": "greedy",
    "assemble_plan": "assemble",
}
STAGE_MODULES = (pipeline, baselines, start, proof)
"""The modules whose calls of the stage functions are timed (each looks them up by name)."""
STAGES: tuple[str, ...] = (
    "read",
    "estimate",
    "start",
    "bound",
    "build",
    "solve",
    "extract",
    "baselines",
    "assemble",
)
"""Top-level stages, in pipeline order (``catalog`` is zero when a catalog is passed in)."""


# --- timing ------------------------------------------------------------------------------


@dataclass
class StageTimer:
    """Wall time per stage path (``solve``, ``baselines/solve``...), summed over calls."""

    seconds: dict[str, float] = field(default_factory=dict)
    models: list[tuple[str, PlacementModel]] = field(default_factory=list)
    highs_seconds: dict[str, float] = field(default_factory=dict)
    _stack: list[str] = field(default_factory=list)

    def wrap(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._stack.append(label)
            path = "/".join(self._stack)
            started = time.perf_counter()
            try:
                result = function(*args, **kwargs)
            finally:
                self.seconds[path] = self.seconds.get(path, 0.0) + time.perf_counter() - started
                self._stack.pop()
            if label == "build":
                self.models.append((path, result))
            return result

        return timed

    def highs_run(self, run: Callable[..., Any]) -> Callable[..., Any]:
        """HiGHS's own run, timed under the stage that asked for it (the rest of a ``solve``
        is PuLP copying the model into HiGHS, and the whole-chip rounds' bookkeeping)."""

        @functools.wraps(run)
        def timed(*args: Any, **kwargs: Any) -> Any:
            path = "/".join(self._stack)
            started = time.perf_counter()
            try:
                return run(*args, **kwargs)
            finally:
                spent = time.perf_counter() - started
                self.highs_seconds[path] = self.highs_seconds.get(path, 0.0) + spent

        return timed


@contextlib.contextmanager
def timed_stages() -> Iterator[StageTimer]:
    """Wrap the pipeline's stage functions with timers for the duration of the block."""
    timer = StageTimer()
    # A name a module no longer uses is skipped; its time shows up as "not in a stage".
    originals = {
        (module, name): getattr(module, name)
        for module in STAGE_MODULES
        for name in WRAPPED
        if hasattr(module, name)
    }
    call_solver = solver._HiGHS.callSolver
    try:
        for (module, name), function in originals.items():
            setattr(module, name, timer.wrap(WRAPPED[name], function))
        solver._HiGHS.callSolver = timer.highs_run(call_solver)  # type: ignore[method-assign]
        yield timer
    finally:
        for (module, name), function in originals.items():
            setattr(module, name, function)
        solver._HiGHS.callSolver = call_solver  # type: ignore[method-assign]


# --- one measurement -----------------------------------------------------------------------


@dataclass
class Measurement:
    """Everything measured for one inventory size (times in seconds, memory in MiB)."""

    workloads: int
    seed: int
    solver: str
    gap_requested: float
    time_limit_s: float | None
    repeat: int
    generate_s: float
    total_s: float
    total_runs_s: list[float]
    stages_s: dict[str, float]
    highs_s: dict[str, float]
    variables: int
    constraints: int
    baseline_variables: int | None
    baseline_constraints: int | None
    status: str
    gap: float | None
    objective_usd: float | None
    unplaced: int
    placed: int
    greedy_usd: float | None
    all_h100_optimal_usd: float | None
    tracemalloc_peak_mib: float | None
    max_rss_mib: float
    isolated: bool
    load_before: list[float] = field(default_factory=list)  # 1/5/15-min load average
    bound_variables: int | None = None
    bound_constraints: int | None = None
    highs_alone_s: float | None = None

    @property
    def meets_target(self) -> bool:
        return (
            self.total_s < TARGET_SECONDS
            and self.status == "optimal"
            and self.gap is not None
            and self.gap <= TARGET_GAP
        )


def _max_rss_mib() -> float:
    # Linux reports kilobytes, macOS bytes.
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _median(runs: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({key for run in runs for key in run})
    return {key: statistics.median(run.get(key, 0.0) for run in runs) for key in keys}


def measure(
    n: int,
    seed: int = 0,
    solver: str = "highs",
    gap: float = DEFAULT_GAP,
    time_limit_s: float | None = None,
    repeat: int = 1,
    memory: bool = True,
    isolated: bool = False,
    alone: bool = False,
) -> Measurement:
    """Plan an ``n``-workload synthetic inventory ``repeat`` times (plus a tracemalloc pass);
    ``alone``: also time HiGHS alone on the plan's MILP as ``--write-model`` writes it."""
    load_before = list(os.getloadavg())
    started = time.perf_counter()
    frame = synthetic_inventory(n, seed)
    generate_s = time.perf_counter() - started
    catalog = load_catalog()
    options = SolverOptions(solver=solver, time_limit_s=time_limit_s, gap=gap)

    totals: list[float] = []
    stage_runs: list[dict[str, float]] = []
    highs_runs: list[dict[str, float]] = []
    result = None
    sizes: dict[str, tuple[int, int]] = {}
    for _ in range(max(1, repeat)):
        gc.collect()
        with timed_stages() as timer:
            started = time.perf_counter()
            result = pipeline.plan(frame, catalog, options)
            totals.append(time.perf_counter() - started)
        stage_runs.append(timer.seconds)
        highs_runs.append(timer.highs_seconds)
        # The first model built at each stage path: the plan's MILP ("build", built only where
        # the bound does not prove the start), the bound's relaxation, the H100-only baseline.
        sizes: dict[str, tuple[int, int]] = {}
        for path, model in timer.models:
            sizes.setdefault(path, (model.problem.numVariables(), model.problem.numConstraints()))
        del timer  # the models hold HiGHS instances; free them before the memory pass
    assert result is not None

    peak_mib = None
    if memory:
        gc.collect()
        tracemalloc.start()
        try:
            pipeline.plan(frame, catalog, options)
            peak_mib = tracemalloc.get_traced_memory()[1] / 2**20
        finally:
            tracemalloc.stop()

    stages = _median(stage_runs)
    stages.setdefault("catalog", 0.0)
    plan_ = result.plan
    return Measurement(
        workloads=n,
        seed=seed,
        solver=solver,
        gap_requested=gap,
        time_limit_s=time_limit_s,
        repeat=len(totals),
        generate_s=generate_s,
        total_s=statistics.median(totals),
        total_runs_s=totals,
        stages_s=stages,
        highs_s=_median(highs_runs),
        variables=sizes.get("build", (0, 0))[0],
        constraints=sizes.get("build", (0, 0))[1],
        baseline_variables=sizes.get("baselines/build", (None, None))[0],
        baseline_constraints=sizes.get("baselines/build", (None, None))[1],
        status=plan_.status,
        gap=plan_.solver.gap,
        objective_usd=plan_.objective_monthly_usd,
        unplaced=len(plan_.unplaced),
        placed=len(plan_.assignments),
        greedy_usd=plan_.baselines.greedy_usd,
        all_h100_optimal_usd=plan_.baselines.all_h100_optimal_usd,
        tracemalloc_peak_mib=peak_mib,
        max_rss_mib=_max_rss_mib(),
        isolated=isolated,
        load_before=load_before,
        bound_variables=sizes.get("bound/build", (None, None))[0],
        bound_constraints=sizes.get("bound/build", (None, None))[1],
        highs_alone_s=highs_alone_seconds(frame, catalog, gap) if alone else None,
    )


def highs_alone_seconds(frame: pd.DataFrame, catalog: Catalog, gap: float) -> float:
    """HiGHS alone (``highspy``: read the file, solve to ``gap``) on the plan's MILP, written
    as ``placement plan --write-model model.mps`` writes it: the yardstick the end-to-end time
    is compared with (the MILP is solved without the greedy start, as a file carries none)."""
    inventory = read_inventory(
        frame, list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    estimates = estimate(inventory.workloads, catalog)
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.mps"
        path.write_text(model_file_text(model, path), encoding="utf-8")
        del model
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("mip_rel_gap", gap)
        started = time.perf_counter()
        highs.readModel(str(path))
        highs.run()
        return time.perf_counter() - started


def measure_in_child(
    n: int,
    seed: int,
    solver: str,
    gap: float,
    time_limit_s: float | None,
    repeat: int,
    memory: bool,
    alone: bool = False,
) -> Measurement:
    """Run :func:`measure` in a fresh interpreter, so max RSS belongs to this size alone."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "measurement.json"
        command = [
            sys.executable, "-m", "benchmarks.run", "--child-output", str(out),
            "--sizes", str(n), "--seed", str(seed), "--solver", solver, "--gap", repr(gap),
            "--repeat", str(repeat),
        ]  # fmt: skip
        if time_limit_s is not None:
            command += ["--time-limit", repr(time_limit_s)]
        if not memory:
            command.append("--no-tracemalloc")
        if alone:
            command.append("--highs-alone")
        root = Path(__file__).resolve().parents[1]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
        subprocess.run(command, check=True, cwd=root, env=env)
        data = json.loads(out.read_text())
    return Measurement(**data)


# --- reporting -----------------------------------------------------------------------------


def _seconds(value: float) -> str:
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _gap_text(gap: float | None) -> str:
    return "n/a" if gap is None else f"{gap * 100:.4f}%"


def _size(variables: int | None, constraints: int | None) -> str:
    if variables is None or constraints is None:
        return "n/a"
    return f"{variables:,} / {constraints:,}"


def _usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:,.0f}"


def stage_rows(m: Measurement) -> list[tuple[str, float]]:
    """(label, seconds) rows: each stage, the baselines' parts, and what no stage covers."""
    s, h = m.stages_s, m.highs_s
    rows = [("read/validate", s.get("read", 0.0)), ("estimate", s.get("estimate", 0.0))]
    for stage, label in (
        ("start", "greedy start"),
        ("bound", "bound"),
        ("", "plan"),
        ("baselines", "baselines"),
    ):
        prefix = f"{stage}/" if stage else ""
        build, solve = s.get(f"{prefix}build", 0.0), s.get(f"{prefix}solve", 0.0)
        highs = h.get(f"{prefix}solve", 0.0)
        rows.append((f"{label}: build model", build))
        rows.append((f"{label}: HiGHS run", highs))
        rows.append((f"{label}: copy to HiGHS, whole chips", solve - highs))
        if stage:
            rows.append((f"{label}: the rest", s.get(stage, 0.0) - build - solve))
    rows.append(("extract", s.get("extract", 0.0)))
    rows.append(("assemble plan (options, why)", s.get("assemble", 0.0)))
    covered = sum(s.get(stage, 0.0) for stage in STAGES) + s.get("catalog", 0.0)
    rows.append(("not in a stage", m.total_s - covered))
    return rows


def summary_table(measurements: Sequence[Measurement], markdown: bool = False) -> str:
    """One column per size: totals, stage times, model size, memory and the outcome."""
    if not measurements:
        return ""
    header = ["", *(f"{m.workloads:,} workloads" for m in measurements)]
    rows: list[list[str]] = [
        ["plan() total, s", *(_seconds(m.total_s) for m in measurements)],
    ]
    if any(m.repeat > 1 for m in measurements):
        rows.append(
            [
                "  all runs, s",
                *(" / ".join(f"{t:.2f}" for t in m.total_runs_s) for m in measurements),
            ]
        )
    labels = [label for label, _ in stage_rows(measurements[0])]
    per = [dict(stage_rows(m)) for m in measurements]
    for label in labels:
        rows.append([f"  {label}, s", *(_seconds(p.get(label, 0.0)) for p in per)])
    rows += [
        [
            "plan MILP: variables / constraints",
            *(
                f"{m.variables:,} / {m.constraints:,}" if m.variables else "not built (proven)"
                for m in measurements
            ),
        ],
        [
            "bound's relaxation",
            *(_size(m.bound_variables, m.bound_constraints) for m in measurements),
        ],
        [
            "H100-only baseline model",
            *(_size(m.baseline_variables, m.baseline_constraints) for m in measurements),
        ],
        [
            "HiGHS alone on the written MILP, s",
            *(_seconds(m.highs_alone_s) if m.highs_alone_s else "n/a" for m in measurements),
        ],
        [
            "end to end / HiGHS alone",
            *(
                f"{m.total_s / m.highs_alone_s:.2f}" if m.highs_alone_s else "n/a"
                for m in measurements
            ),
        ],
        ["status", *(m.status for m in measurements)],
        ["gap (requested)", *(f"{_gap_text(m.gap)} ({m.gap_requested:g})" for m in measurements)],
        ["objective, $/month", *(_usd(m.objective_usd) for m in measurements)],
        ["greedy baseline, $/month", *(_usd(m.greedy_usd) for m in measurements)],
        ["placed / unplaced", *(f"{m.placed:,} / {m.unplaced:,}" for m in measurements)],
        [
            "tracemalloc peak, MiB",
            *(
                "n/a" if m.tracemalloc_peak_mib is None else f"{m.tracemalloc_peak_mib:,.0f}"
                for m in measurements
            ),
        ],
        [
            "max RSS, MiB" + ("" if all(m.isolated for m in measurements) else " (cumulative)"),
            *(f"{m.max_rss_mib:,.0f}" for m in measurements),
        ],
        ["runs (median shown)", *(str(m.repeat) for m in measurements)],
        ["generate inventory (outside plan), s", *(_seconds(m.generate_s) for m in measurements)],
        [
            "load average before (1 min)",
            *(f"{m.load_before[0]:.2f}" if m.load_before else "n/a" for m in measurements),
        ],
    ]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cell.strip() for cell in row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    out = []
    for row in [header, *rows]:
        cells = [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        out.append("  ".join([row[0].ljust(widths[0]), *cells]))
    return "\n".join(out)


def target_sentence(measurements: Sequence[Measurement]) -> str:
    """Whether the issue's target is met at 10,000 workloads: by the median, and run by run."""
    m = next((m for m in measurements if m.workloads == TARGET_WORKLOADS), None)
    if m is None:
        return f"(target: {TARGET_WORKLOADS:,} workloads not measured in this run)"
    verdict = "met" if m.meets_target else "MISSED"
    if len(m.total_runs_s) > 1:
        verdict += " by the median"
    over = sum(t >= TARGET_SECONDS for t in m.total_runs_s)
    runs = (
        f"; {over} of {len(m.total_runs_s)} runs took {TARGET_SECONDS:g} s or more"
        if len(m.total_runs_s) > 1
        else ""
    )
    return (
        f"Target ({TARGET_WORKLOADS:,} workloads in < {TARGET_SECONDS:g} s, gap <= "
        f"{TARGET_GAP:.1%}): {verdict}: {m.total_s:.1f} s, gap {_gap_text(m.gap)}, "
        f"status {m.status}{runs}."
    )


def environment() -> dict[str, str]:
    """What the figures were measured on."""

    def version(package: str) -> str:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return "not installed"

    return {
        "nproc (CPUs usable)": str(len(os.sched_getaffinity(0)))
        if hasattr(os, "sched_getaffinity")
        else "n/a",
        "logical CPUs": str(os.cpu_count()),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "highspy": version("highspy"),
        "pulp": version("pulp"),
        "pandas": version("pandas"),
        "numpy": version("numpy"),
        "pydantic": version("pydantic"),
        "platform": platform.platform(),
        "revision": _revision(),
    }


def _revision() -> str:
    """The commit measured, and whether the working tree had uncommitted changes."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    if not head:
        return "unknown"
    return f"{head} (with uncommitted changes)" if dirty else head


def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def measured_on(command: str) -> list[str]:
    """The opening lines of every figures block: when, with which command, on what machine."""
    return [
        f"Measured {time.strftime('%Y-%m-%d')} with `{command}`.",
        "",
        "Machine: " + "; ".join(f"{k} {v}" for k, v in environment().items()) + ".",
        "",
    ]


FIGURE_TABLE_HEAD = ["| | figure |", "|---|---|"]
"""The head of a block's two-column table of figures (the batch benchmarks')."""


def figures_markdown(measurements: Sequence[Measurement], command: str) -> str:
    lines = [
        *measured_on(command),
        summary_table(measurements, markdown=True),
        "",
        target_sentence(measurements),
    ]
    return "\n".join(lines)


def markers(section: str) -> tuple[str, str]:
    """The HTML comments around a figures section of docs/performance.md."""
    return f"<!-- figures:{section}:begin -->", f"<!-- figures:{section}:end -->"


def write_docs(
    measurements: Sequence[Measurement],
    command: str,
    section: str = DEFAULT_SECTION,
    path: Path = DOCS_PATH,
) -> None:
    """Replace the text between the markers of one figures section of docs/performance.md."""
    replace_section(section, figures_markdown(measurements, command), path)


def publish(section: str, lines: Sequence[str], write_docs: bool) -> None:
    """Print a figures block (``lines``) and, with ``--write-docs``, put it in ``section`` of
    docs/performance.md."""
    text = "\n".join(lines)
    print(text)
    if write_docs:
        replace_section(section, text)


def replace_section(section: str, markdown: str, path: Path = DOCS_PATH) -> None:
    """Put ``markdown`` between the markers of ``section`` in docs/performance.md."""
    begin, end = markers(section)
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"{path}: no {begin} ... {end} section to rewrite")
    block = f"{begin}\n{markdown}\n{end}"
    path.write_text(pattern.sub(lambda _: block, text, count=1), encoding="utf-8")


# --- command line --------------------------------------------------------------------------


def _measurement_args(argv: Sequence[str]) -> list[str]:
    """The arguments that shape the figures (drops --json, --write-docs, --docs-section)."""
    dropped_with_value = {"--json", "--docs-section", "--child-output"}
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in dropped_with_value:
            skip = True
        elif arg != "--write-docs" and arg.split("=", 1)[0] not in dropped_with_value:
            out.append(arg)
    return out


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run",
        description="Time placement.pipeline.plan end to end on synthetic inventories.",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--solver", choices=("highs", "cbc"), default="highs")
    parser.add_argument(
        "--gap",
        type=float,
        default=DEFAULT_GAP,
        help=f"relative MIP gap (default {DEFAULT_GAP:g}, the planner's default; "
        f"the performance target allows {TARGET_GAP:g})",
    )
    parser.add_argument("--time-limit", type=float, default=None, help="solver time limit, s")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per size (median)")
    parser.add_argument(
        "--no-tracemalloc", action="store_true", help="skip the extra tracemalloc pass"
    )
    parser.add_argument("--in-process", action="store_true", help="run every size in this process")
    parser.add_argument("--json", type=Path, default=None, help="also write measurements here")
    parser.add_argument(
        "--write-docs", action="store_true", help=f"rewrite the figures section of {DOCS_PATH}"
    )
    parser.add_argument(
        "--docs-section",
        default=DEFAULT_SECTION,
        help="which figures section of the page --write-docs rewrites (default: main)",
    )
    parser.add_argument(
        "--highs-alone",
        action="store_true",
        help="also time HiGHS alone on the plan's MILP as --write-model writes it (the "
        "end-to-end / HiGHS-alone ratio; slow at 100,000 workloads)",
    )
    parser.add_argument("--child-output", type=Path, default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    memory = not args.no_tracemalloc
    if args.child_output is not None:
        (n,) = args.sizes
        m = measure(n, args.seed, args.solver, args.gap, args.time_limit, args.repeat, memory,
                    isolated=True, alone=args.highs_alone)  # fmt: skip
        args.child_output.write_text(json.dumps(asdict(m)))
        return 0

    measurements: list[Measurement] = []
    for n in args.sizes:
        print(f"planning {n:,} workloads (seed {args.seed}, {args.solver}, gap {args.gap:g}) ...",
              file=sys.stderr, flush=True)  # fmt: skip
        if args.in_process:
            m = measure(
                n, args.seed, args.solver, args.gap, args.time_limit, args.repeat, memory,
                alone=args.highs_alone,
            )  # fmt: skip
        else:
            m = measure_in_child(
                n, args.seed, args.solver, args.gap, args.time_limit, args.repeat, memory,
                args.highs_alone,
            )  # fmt: skip
        measurements.append(m)
        print(f"  {m.total_s:.2f} s, {m.status}, gap {_gap_text(m.gap)}", file=sys.stderr)

    print(summary_table(measurements))
    print()
    print(target_sentence(measurements))
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(m) for m in measurements], indent=2))
    if args.write_docs:
        given = sys.argv[1:] if argv is None else list(argv)
        command = " ".join(["python -m benchmarks.run", *_measurement_args(given)])
        write_docs(measurements, command, args.docs_section)
        print(f"rewrote the figures section of {DOCS_PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Terminal output: the terminal's width and colour, plain when piped, a screenful for a large
plan, --top/--all/--summary/--quiet, progress only on a terminal, stable text between runs.

Width and colour are checked on real processes: piped (as `| awk` sees it) and on a real
pseudo-terminal of a set size (as a person sees it).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from benchmarks.generate import synthetic_inventory
from placement.cli.main import cli
from placement.models.plan import Plan
from placement.reporting import PlanView, render_plan, summary_lines

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False, env=env)


def run_piped(*args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    """The console script with stdout and stderr piped, as in `placement ... | awk`."""
    return subprocess.run(
        [sys.executable, "-m", "placement", *args],
        capture_output=True,
        timeout=300,
        check=False,
        env={**os.environ, **env},
    )


TOKEN = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|(\r)|(\n)|([^\x1b\r\n]+)")


def visible_lines(screen: str) -> list[str]:
    """What a terminal shows after the output: a minimal emulator of what rich sends (carriage
    return, new line, cursor up, erase line; colours and cursor visibility ignored)."""
    lines = [""]
    row = col = 0
    for match in TOKEN.finditer(screen):
        params, command, cr, nl, text = match.groups()
        if cr:
            col = 0
        elif nl:
            row += 1
            col = 0
            if row == len(lines):
                lines.append("")
        elif text:
            line = lines[row]
            lines[row] = line[:col].ljust(col) + text + line[col + len(text) :]
            col += len(text)
        elif command == "A":
            row = max(0, row - int(params or 1))
        elif command == "K" and params == "2":
            lines[row] = ""
    return [line.rstrip() for line in lines]


def run_on_terminal(args: list[str], columns: int, **env: str) -> tuple[int, str]:
    """The console script on a real pseudo-terminal ``columns`` wide; returns (code, screen)."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    clean = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "NO_COLOR")}
    process = subprocess.Popen(
        [sys.executable, "-m", "placement", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**clean, "TERM": "xterm-256color", **env},
        close_fds=True,
    )
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the follower side closed: the process is done writing
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    os.close(leader)
    code = process.wait(timeout=30)
    return code, b"".join(chunks).decode("utf-8", "replace")


# --- width and colour ------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_piped_output_fits_columns_plain_and_ascii(columns: int) -> None:
    run = run_piped("plan", str(SAMPLE), COLUMNS=str(columns))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns  # bytes: what awk's length counts
    assert b"\x1b[" not in run.stdout  # no colour when piped
    assert all(byte < 128 for byte in run.stdout)  # ASCII frames, not box drawing
    assert run.stderr == b""  # no progress or status line when stderr is not a terminal
    text = run.stdout.decode()
    assert text.index("monthly cost") < text.index("Assignments")  # the summary first
    assert "llama-405b-pretrain" in text


@pytest.mark.parametrize(
    "command",
    [["validate", str(SAMPLE)], ["catalog", "show"], ["reference"]],
    ids=["validate", "catalog-show", "reference"],
)
@pytest.mark.parametrize("columns", [60, 80])
def test_every_tables_lines_fit_the_width(command: list[str], columns: int) -> None:
    """Records too wide to read across are shown as blocks of 'field  value' lines."""
    result = invoke(*command, env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns
    if command[0] == "validate":
        assert any(line.split()[:2] == ["workloads", "30"] for line in lines if line.strip())


def test_piped_output_without_columns_is_80_wide() -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    run = subprocess.run(
        [sys.executable, "-m", "placement", "catalog", "show"],
        capture_output=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert run.returncode == 0
    assert max(len(line) for line in run.stdout.splitlines()) <= 80


def test_a_terminal_gets_its_width_and_colour() -> None:
    code, screen = run_on_terminal(["plan", str(SAMPLE)], columns=72)
    assert code == 0, screen
    assert "\x1b[" in screen  # colour on a terminal
    lines = visible_lines(screen)
    text = "\n".join(lines)
    assert "┏" in text or "━" in text  # box drawing on a terminal
    assert max(len(line) for line in lines) <= 72
    assert "monthly cost" in text and "llama-405b-pretrain" in text


def test_no_color_is_honoured_on_a_terminal() -> None:
    code, screen = run_on_terminal(["plan", str(SAMPLE)], columns=100, NO_COLOR="1")
    assert code == 0, screen
    colour = re.compile(r"\x1b\[[0-9;]*(3[0-9]|9[0-7]|38;)")
    assert not colour.search(screen)


@pytest.mark.parametrize(
    "command", ["plan", "whatif", "sweep", "history", "show", "diff", "validate", "reference"]
)
def test_help_fits_80_columns(command: str) -> None:
    run = run_piped(command, "--help", COLUMNS="80")
    assert run.returncode == 0
    text = run.stdout.decode()
    assert max(len(line) for line in text.splitlines()) <= 80


def test_help_keeps_dotted_paths_whole() -> None:
    text = run_piped("plan", "--help", COLUMNS="80").stdout.decode()
    assert "economics.amortization_months=24" in text


# --- how much is listed ------------------------------------------------------------------


@pytest.fixture(scope="module")
def large_inventory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("large") / "inventory.csv"
    synthetic_inventory(400, seed=3).to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def large_plan(large_inventory: Path) -> Plan:
    result = invoke("plan", large_inventory, "--format", "json")
    assert result.exit_code in (0, 3), result.output
    return Plan.model_validate_json(result.stdout)


def test_a_large_plan_prints_a_screenful_of_its_costliest_workloads(
    large_inventory: Path, large_plan: Plan
) -> None:
    result = invoke("plan", large_inventory, env={"COLUMNS": "80"})
    out = result.stdout
    assert len(out.splitlines()) < 110  # 400 workloads; the sample's full listing is longer
    costliest = sorted(large_plan.assignments, key=lambda a: (-a.monthly_cost_usd, a.workload_id))
    for a in costliest[:10]:
        assert a.workload_id[:20] in out
    assert costliest[10].workload_id not in out
    assert f"the 10 costliest of {len(large_plan.assignments):,} planned workloads" in (
        " ".join(out.split())
    )
    assert "Why" not in out


def test_top_all_and_summary(large_inventory: Path, large_plan: Plan) -> None:
    wide = {"COLUMNS": "200"}
    top = invoke("plan", large_inventory, "--top", "3", env=wide).stdout
    ranked = sorted(large_plan.assignments, key=lambda a: (-a.monthly_cost_usd, a.workload_id))
    assert all(a.workload_id in top for a in ranked[:3])
    assert ranked[3].workload_id not in top
    assert "Why" in top and ranked[0].why[:40] in top

    everything = invoke("plan", large_inventory, "--all", env=wide).stdout
    assert all(a.workload_id in everything for a in large_plan.assignments)
    assert all(u.workload_id in everything for u in large_plan.unplaced)

    summary = invoke("plan", large_inventory, "--summary", env=wide).stdout
    assert "monthly cost" in summary
    assert not any(a.workload_id in summary for a in large_plan.assignments)

    clash = invoke("plan", large_inventory, "--top", "3", "--all")
    assert clash.exit_code == 2 and "only one of" in clash.stderr


def test_quiet_prints_nothing_but_still_writes_and_exits(tmp_path: Path) -> None:
    quiet = invoke("plan", SAMPLE, "--quiet")
    assert quiet.exit_code == 0 and quiet.stdout == "" and quiet.stderr == ""
    target = tmp_path / "plan.json"
    written = invoke("plan", SAMPLE, "-q", "--format", "json", "-o", target)
    assert written.exit_code == 0 and written.stdout == ""
    assert Plan.model_validate_json(target.read_text()).status == "optimal"
    bad = invoke("plan", tmp_path / "missing.csv", "--quiet")
    assert bad.exit_code == 2 and "missing.csv" in bad.stderr  # errors are never quiet


def test_progress_shows_on_a_terminals_stderr_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "plan.json"
    code, screen = run_on_terminal(
        ["plan", str(SAMPLE), "--format", "json", "-o", str(target)], columns=100
    )
    assert code == 0, screen
    shown = ANSI.sub("", screen)
    assert re.search(r"(starting|inventory|model|baselines|plan) 0:00:\d\d", shown), shown
    # transient: once done, no line of the screen still shows a stage
    assert not any(re.search(r"0:00:\d\d", line) for line in visible_lines(screen))
    assert Plan.model_validate_json(target.read_text()).status == "optimal"
    quiet_code, quiet_screen = run_on_terminal(
        ["plan", str(SAMPLE), "--format", "json", "-o", str(target), "--quiet"], columns=100
    )
    assert quiet_code == 0 and ANSI.sub("", quiet_screen).strip() == ""


# --- wording and stable text -------------------------------------------------------------


def _with_baseline(plan: Plan, greedy: float) -> Plan:
    objective = plan.objective_monthly_usd or 0.0
    baselines = plan.baselines.model_copy(
        update={"greedy_usd": greedy, "savings_vs_greedy_usd": greedy - objective}
    )
    return plan.model_copy(update={"baselines": baselines})


def test_savings_read_right_whatever_their_sign(large_plan: Plan) -> None:
    objective = large_plan.objective_monthly_usd or 0.0
    lines = dict(summary_lines(_with_baseline(large_plan, objective - 0.2)))
    assert lines["greedy cheapest options"].endswith("(the same)")  # not "saves $-0"
    lines = dict(summary_lines(_with_baseline(large_plan, objective - 1234)))
    assert "(the plan costs $1,234 more)" in lines["greedy cheapest options"]
    lines = dict(summary_lines(_with_baseline(large_plan, objective + 1234)))
    assert "(the plan saves $1,234)" in lines["greedy cheapest options"]
    for text in lines.values():
        assert "$-" not in text


def test_table_and_markdown_show_no_timing_unless_asked(large_plan: Plan) -> None:
    slow = large_plan.model_copy(
        update={"solver": large_plan.solver.model_copy(update={"time_s": 12.345})}
    )
    for fmt in ("table", "md"):
        assert "12.3" not in render_plan(slow, fmt)
        assert "12.35 s" in render_plan(slow, fmt, PlanView(None, True, timings=True))


def _without_timings(document: dict[str, object]) -> dict[str, object]:
    run = dict(document["run"])  # type: ignore[arg-type]
    run.pop("started_at")
    solver = dict(document["solver"])  # type: ignore[arg-type]
    solver.pop("time_s")
    return {**document, "run": run, "solver": solver}


def test_identical_runs_give_identical_outputs(tmp_path: Path) -> None:
    """JSON differs only in run.started_at and solver.time_s; the other formats not at all."""
    import json

    outputs: dict[str, list[str]] = {fmt: [] for fmt in ("json", "table", "md", "csv")}
    for _ in range(2):
        for fmt in outputs:
            result = invoke("plan", SAMPLE, "--format", fmt)
            assert result.exit_code == 0
            outputs[fmt].append(result.stdout)
    first, second = (json.loads(text) for text in outputs["json"])
    assert _without_timings(first) == _without_timings(second)
    for fmt in ("table", "md", "csv"):
        assert outputs[fmt][0] == outputs[fmt][1], fmt


def test_a_closed_pipe_ends_quietly() -> None:
    run = subprocess.run(
        f"{sys.executable} -m placement catalog show | head -n 1",
        shell=True,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert run.stdout.strip()
    assert b"Traceback" not in run.stderr and b"BrokenPipe" not in run.stderr


def test_plan_rows_keep_their_order_in_csv() -> None:
    result = invoke("plan", SAMPLE, "--format", "csv")
    first = result.stdout.split("\n# ")[0]
    rows = pd.read_csv(__import__("io").StringIO(first))
    sample = pd.read_csv(SAMPLE)
    assert rows["workload_id"].tolist() == sample["id"].tolist()


def test_names_are_text_never_markup(tmp_path: Path) -> None:
    """Ids, scenario names and cycle labels with brackets print as written, in every table."""
    ids = ["[prod] llama-70b", "llama[v2]", "x[/]y", "[bold]loud[/bold]"]
    inventory = tmp_path / "marked.csv"
    pd.DataFrame(
        {"id": ids, "kind": "training", "model_family": "llama", "params_b": [70, 8, 8, 8],
         "h100_gpu_hours": [6000, 800, 100, 50], "neuron_ready": True}
    ).to_csv(inventory, index=False)  # fmt: skip
    runner = CliRunner()
    table = runner.invoke(cli, ["plan", str(inventory), "--all"], catch_exceptions=False)
    assert table.exit_code == 0, table.output
    for workload in ids:
        assert workload in table.stdout
    db = str(tmp_path / "h.sqlite")
    for label in ("[/]", "[red]Q1[/red]"):
        saved = runner.invoke(cli, ["plan", str(inventory), "--save", "--cycle", label, "--db", db,
                                    "-q"], catch_exceptions=False)  # fmt: skip
        assert saved.exit_code == 0, saved.output
    listed = runner.invoke(cli, ["history", "--db", db], catch_exceptions=False)
    assert listed.exit_code == 0 and "[/]" in listed.stdout and "[red]Q1[/red]" in listed.stdout


def _children(pid: int) -> set[int]:
    """The live descendants of a process (from /proc)."""
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        parent = frontier.pop()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if ppid == parent and int(entry.name) not in found:
                    found.add(int(entry.name))
                    frontier.add(int(entry.name))
    return found


def test_sigterm_stops_a_batch_and_its_workers_and_leaves_no_file(tmp_path: Path) -> None:
    """SIGTERM to a running whatif ends it as Ctrl-C does: its worker processes stop with it
    (not minutes later), and the output file is not left half-written."""
    scenarios = sorted((ROOT / "inputs" / "scenarios").glob("*.yaml"))
    out = tmp_path / "whatif.txt"
    process = subprocess.Popen(
        [sys.executable, "-m", "placement", "whatif", str(SAMPLE), *map(str, scenarios),
         "--workers", "2", "-o", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while len(_children(process.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)  # the worker processes are up and solving
    workers = _children(process.pid)
    assert workers, "the batch never started its workers"
    process.terminate()
    process.wait(timeout=20)
    time.sleep(0.5)
    assert not _children(process.pid) & workers
    for pid in workers:
        assert (
            not Path(f"/proc/{pid}").exists()
            or "Z" in (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[:1])
        )
    assert not out.exists() and not list(tmp_path.glob(".whatif.txt.*"))


def test_sigterm_during_a_long_solve_ends_the_plan_within_seconds(tmp_path: Path) -> None:
    """One HiGHS solve can take minutes (services that keep the 48 slices over a 120-month
    horizon); SIGTERM then ends the command at once (HiGHS runs in a thread of its own, the
    main thread free to act on the signal), exit 143, no output file, no traceback. Before,
    the signal waited for the solve."""
    sample = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    online = sample[sample["serving"].eq("online")].head(2)
    training = sample[sample["kind"].eq("training")].head(1)
    frame = pd.concat([online, training])
    frame["load_profile"] = ["diurnal", "business_hours", "nights_and_weekends"]
    inventory = tmp_path / "inventory.csv"
    frame.to_csv(inventory, index=False)
    out = tmp_path / "plan.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "placement", "plan", str(inventory), "--horizon", "120",
         "-o", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(15)  # well into the roadmap's solves
    assert process.poll() is None, "the plan ended before the signal: find a longer solve"
    process.terminate()
    sent = time.monotonic()
    _, stderr = process.communicate(timeout=60)
    assert time.monotonic() - sent < 5
    assert process.returncode == 143
    assert "Interrupted (SIGTERM)" in stderr and "Traceback" not in stderr
    assert not out.exists() and not list(tmp_path.glob(".plan.json.*"))

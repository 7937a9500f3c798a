"""Output files on a real file system: atomic, permissions kept, links followed, FIFOs and
devices written in place, ``-`` for stdout, clear refusals (DESIGN.md, "Files written").
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from placement.cli.main import cli
from placement.writing.files import OutputError, TextParts, write_files, write_output

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_file_gets_the_umask(tmp_path: Path, mask: int, expected: int) -> None:
    target = tmp_path / "plan.json"
    with umask(mask):
        write_output(target, "{}\n")
    assert target.read_text() == "{}\n"
    assert mode(target) == expected
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("kept", [0o640, 0o664, 0o755, 0o600])
def test_an_existing_file_keeps_its_permissions(tmp_path: Path, kept: int) -> None:
    target = tmp_path / "plan.json"
    target.write_text("old")
    target.chmod(kept)
    with umask(0o077):  # a strict umask must not tighten an existing shared file
        write_output(target, "new")
    assert target.read_text() == "new"
    assert mode(target) == kept


def test_a_symlink_is_followed_not_replaced(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    real = shared / "plan.json"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "latest.json"
    link.symlink_to(Path("shared") / "plan.json")  # relative, as people make them
    chain = tmp_path / "current.json"
    chain.symlink_to(link)
    write_output(chain, "new")
    assert chain.is_symlink() and link.is_symlink()
    assert os.readlink(link) == os.path.join("shared", "plan.json")
    assert real.read_text() == "new"
    assert mode(real) == 0o640
    assert leftovers(shared) == [] and leftovers(tmp_path) == []


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "plan.json"
    link.symlink_to(tmp_path / "real.json")
    write_output(link, "new")
    assert link.is_symlink()
    assert (tmp_path / "real.json").read_text() == "new"


def test_a_fifo_is_written_to_its_reader_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, "through the pipe\n")
    reader.join(timeout=30)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert leftovers(tmp_path) == []


def test_a_device_is_written_in_place_never_replaced(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # the null device
    except PermissionError:
        device = Path(os.devnull)  # not allowed to make one: the system's own
    write_output(device, "discarded")
    assert stat.S_ISCHR(device.stat().st_mode)
    assert leftovers(device.parent) == [] if device.parent == tmp_path else True


def test_dev_stdout_is_written_directly(tmp_path: Path) -> None:
    """To a pipe, and to a shell's appending redirect, whose earlier content must survive."""
    command = [sys.executable, "-m", "placement", "catalog", "export", "-o", "/dev/stdout"]
    run = subprocess.run(
        command, capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    assert "accelerators:" in run.stdout
    assert list(tmp_path.iterdir()) == []
    log = tmp_path / "log.txt"
    log.write_text("earlier line\n")
    with log.open("a") as appending:
        run = subprocess.run(command, stdout=appending, cwd=tmp_path, timeout=120, check=False)
    assert run.returncode == 0
    text = log.read_text()
    assert text.startswith("earlier line\n") and "accelerators:" in text


def test_dash_is_stdout_and_creates_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["plan", str(SAMPLE), "--format", "json", "-o", "-"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "optimal"
    assert os.listdir(tmp_path) == []


def test_a_failed_writer_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    good = tmp_path / "plan.csv"
    good.write_text("old plan")
    folder_as_file = tmp_path / "folder"
    folder_as_file.mkdir()
    with pytest.raises(OutputError, match="it is a directory"):
        write_files({str(good): "new plan", str(folder_as_file): "x"})
    assert good.read_text() == "old plan"  # all or nothing: nothing was replaced
    assert leftovers(tmp_path) == []


KILLED_WRITER = """
import sys, time
from placement.writing.files import TextParts, write_output

def parts():
    yield "[" + " " * 1_000_000
    print("staging", flush=True)
    time.sleep(60)
    yield "]"

write_output(sys.argv[1], TextParts(parts()))
"""


def staged_name(target: str, pid: int, random: str = "k2x_9abq") -> str:
    """A temporary file's name as a writer with ``pid`` stages ``target``."""
    return f".{target}.{pid}.{random}.tmp"


def exited_pid() -> int:
    """The PID of a process that has exited and been reaped: no process has it now."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    with pytest.raises(ProcessLookupError):
        os.kill(process.pid, 0)
    return process.pid


def test_a_writer_killed_mid_write_leaves_a_temporary_the_next_write_removes(
    tmp_path: Path,
) -> None:
    target = tmp_path / "plan.json"
    target.write_text("old plan")
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(target)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "staging\n"
    finally:
        writer.kill()  # SIGKILL: no handler runs, the temporary file stays
        writer.communicate()
    left = leftovers(tmp_path)
    assert len(left) == 1 and left[0].startswith(f".plan.json.{writer.pid}."), left
    assert target.read_text() == "old plan"
    write_output(target, "new plan")
    assert target.read_text() == "new plan"
    assert leftovers(tmp_path) == []


def test_a_running_writers_temporary_is_kept(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        kept = [staged_name("plan.json", sleeper.pid), staged_name("plan.json", os.getpid())]
        for name in kept:
            (tmp_path / name).write_text("being written")
        write_output(tmp_path / "plan.json", "plan")
        assert (tmp_path / "plan.json").read_text() == "plan"
        assert leftovers(tmp_path) == sorted(kept)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_only_a_dead_writers_temporary_of_the_same_target_is_removed(tmp_path: Path) -> None:
    dead = exited_pid()
    stale = tmp_path / staged_name("plan.json", dead)
    stale.write_text("half a plan")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_text("not a temporary")
    lookalikes = [
        staged_name("other.json", dead),  # another target's
        staged_name("plan.json.5", dead),  # another target's, its name this one's and more
        staged_name("plan", dead),
        ".plan.json.k2x_9abq.tmp",  # no PID
        f"plan.json.{dead}.k2x_9abq.tmp",  # not hidden
        f".plan.json.{dead}.k2x_9abq.tmp.bak",
        f".plan.json.{dead}.k2x.tmp",  # not what mkstemp makes
        f".plan.json.{dead}x.k2x_9abq.tmp",
        staged_name("plan.json", 0),  # kill(0, ...) would mean this process's group
        staged_name("plan.json", 10**30),  # no PID at all
    ]
    for name in lookalikes:
        (tmp_path / name).write_text("kept")
    link = tmp_path / staged_name("plan.json", dead, "linked00")
    link.symlink_to(elsewhere)
    folder = tmp_path / staged_name("plan.json", dead, "folder00")
    folder.mkdir()
    write_output(tmp_path / "plan.json", "plan")
    assert not stale.exists()
    assert sorted(os.listdir(tmp_path)) == sorted(
        [*lookalikes, link.name, folder.name, "elsewhere", "plan.json"]
    )
    assert link.is_symlink() and elsewhere.read_text() == "not a temporary"


def test_a_temporary_that_cannot_be_removed_does_not_stop_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stale = tmp_path / staged_name("plan.json", exited_pid())
    stale.write_text("half a plan")
    unlink = os.unlink

    def refused(path: str | os.PathLike[str], *args: object, **kwargs: object) -> None:
        if Path(path).name == stale.name:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        unlink(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "unlink", refused)
    write_output(tmp_path / "plan.json", "plan")
    assert (tmp_path / "plan.json").read_text() == "plan" and stale.exists()
    monkeypatch.undo()

    def unlistable(path: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "scandir", unlistable)
    write_output(tmp_path / "plan.json", "plan again")
    assert (tmp_path / "plan.json").read_text() == "plan again" and stale.exists()


def test_text_in_parts_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "plan.json"
    target.write_text("old plan")
    write_files({str(target): TextParts(iter(["{", '"a": "é"', "}\n"]))})
    assert target.read_text(encoding="utf-8") == '{"a": "é"}\n'

    def failing() -> Iterator[str]:
        yield "{partial"
        raise RuntimeError("rendering failed")

    with pytest.raises(RuntimeError, match="rendering failed"):
        write_files({str(target): TextParts(failing())})
    assert target.read_text(encoding="utf-8") == '{"a": "é"}\n'  # the old file, whole
    assert leftovers(tmp_path) == []


def test_text_in_parts_reaches_stdout_whole(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    write_output("-", TextParts(iter(["one ", "two\n"])))
    assert capfdbinary.readouterr().out == b"one two\n"


def test_several_files_are_all_replaced(tmp_path: Path) -> None:
    files = {str(tmp_path / f"{name}.csv"): f"{name}\n" for name in ("a", "b", "c")}
    write_files(files)
    assert {Path(p).name: Path(p).read_text() for p in files} == {
        "a.csv": "a\n",
        "b.csv": "b\n",
        "c.csv": "c\n",
    }


def test_missing_folder_and_directory_targets_are_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    for target, message in (
        (tmp_path / "nowhere" / "plan.json", "no folder"),
        (tmp_path, "is a directory"),
    ):
        result = runner.invoke(cli, ["plan", str(SAMPLE), "-o", str(target)])
        assert result.exit_code == 2
        assert message in result.stderr
        assert "Traceback" not in result.stderr
    assert not (tmp_path / "nowhere").exists()


def export_without_privileges(target: Path) -> subprocess.CompletedProcess[str]:
    """``placement catalog export -o target`` as a process that file permissions bind.

    Root may write anywhere, so as root the process runs without the capabilities that let it
    ignore permissions (``setpriv`` from util-linux).
    """
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv to drop CAP_DAC_OVERRIDE")
        caps = "-dac_override,-dac_read_search"
        prefix = [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "placement", "catalog", "export", "-o", str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_read_only_file_is_refused_as_a_shell_would(tmp_path: Path) -> None:
    target = tmp_path / "plan.yaml"
    target.write_text("kept")
    target.chmod(0o444)
    run = export_without_privileges(target)
    assert run.returncode == 2, run.stderr
    assert "read-only" in run.stderr and str(target) in run.stderr
    assert target.read_text() == "kept" and mode(target) == 0o444
    assert leftovers(tmp_path) == []


def test_a_hard_linked_file_is_updated_under_every_name(tmp_path: Path) -> None:
    first = tmp_path / "plan.json"
    first.write_text("old")
    second = tmp_path / "shared-copy.json"
    os.link(first, second)
    inode = first.stat().st_ino
    write_output(second, "new and longer")
    assert first.read_text() == "new and longer" == second.read_text()
    assert first.stat().st_ino == inode == second.stat().st_ino
    write_output(first, "short")  # shrinking truncates
    assert second.read_text() == "short"
    assert leftovers(tmp_path) == []


def test_a_target_in_a_read_only_folder_is_refused_and_kept(tmp_path: Path) -> None:
    """The new content cannot be staged beside the old file: refuse, keep the old file intact."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    target = folder / "plan.json"
    target.write_text("old plan")
    target.chmod(0o666)  # the file itself is writable; only the folder is not
    folder.chmod(0o555)
    try:
        run = export_without_privileges(target)
        assert run.returncode == 2, run.stderr
        assert str(target) in run.stderr
        assert "must be writable" in run.stderr
        assert "Traceback" not in run.stderr
        assert target.read_text() == "old plan"
        assert sorted(os.listdir(folder)) == ["plan.json"]
    finally:
        folder.chmod(0o755)


def test_write_model_follows_the_same_rules(tmp_path: Path) -> None:
    shared = tmp_path / "model.lp"
    shared.write_text("old")
    shared.chmod(0o664)
    link = tmp_path / "latest.lp"
    link.symlink_to(shared)
    result = CliRunner().invoke(
        cli, ["plan", str(SAMPLE), "--write-model", str(link), "-o", str(tmp_path / "p.json")]
    )
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert shared.read_text().startswith("\\*")  # CPLEX LP starts with a comment line
    assert mode(shared) == 0o664
    assert leftovers(tmp_path) == []


def test_a_plans_json_in_parts_is_its_json(monkeypatch: pytest.MonkeyPatch) -> None:
    import placement.reporting.plan as plan_reporting
    from placement.pipeline import plan
    from placement.reporting import render_plan

    monkeypatch.setattr(plan_reporting, "ASSIGNMENTS_PER_PART", 7)  # several parts, a short last
    sample = plan(str(SAMPLE)).plan
    assert len(sample.assignments) % 7 != 0
    nothing_placed = sample.model_copy(update={"assignments": []})
    for planned in (sample, nothing_placed):
        parts = list(plan_reporting.plan_json_parts(planned))
        assert "".join(parts) == render_plan(planned, "json")
    assert len(list(plan_reporting.plan_json_parts(sample))) > 3


def test_made_evaluations_are_what_validation_makes() -> None:
    from pydantic import TypeAdapter

    from placement.analysing.evaluations import constructed, evaluations_of
    from placement.catalog import load_catalog
    from placement.estimating import estimate
    from placement.models.plan import OptionEvaluation
    from placement.reading import read_inventory

    catalog = load_catalog()
    inventory = read_inventory(
        str(SAMPLE), list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    made = evaluations_of(estimate(inventory.workloads, catalog).options)
    validated = TypeAdapter(list[OptionEvaluation]).validate_python([m.__dict__ for m in made])
    # The JSON tells an int from a float where equality would not (5 == 5.0).
    assert [m.model_dump_json() for m in made] == [v.model_dump_json() for v in validated]
    assert {m.reason is None for m in made} == {True, False}  # feasible and not, both made
    assert {m.ttft_ms is None for m in made} == {True, False}
    with pytest.raises(ValueError, match="every field given"):
        constructed(OptionEvaluation, [{"accelerator": "h100"}])

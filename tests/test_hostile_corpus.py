"""The hostile-input corpus (tests/corpus/hostile/cases.yaml), every case through the CLI.

Each case is a command line fed something hostile: malformed, absurd or malicious scenario
files, sweep ranges, horizons, history databases and URLs, cycle labels, Dask addresses,
counts and catalog files. For each, in-process with click's CliRunner: no traceback and no
uncaught exception, the expected exit code, the expected fragments in the message, no secret
echoed, no output file left by a failure, the database left byte for byte as it was, and an
answer within the case's time bound (a hang fails the case instead of the suite). Cases the tool
gets wrong today say what it should do and are marked ``xfail`` (strict) with what it does
instead: that list is the to-do list of defects.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from placement.cli.main import cli
from tests.test_cli import assert_clean_failure

CORPUS = Path(__file__).parent / "corpus" / "hostile"
CASES: list[dict[str, Any]] = yaml.safe_load((CORPUS / "cases.yaml").read_text(encoding="utf-8"))
CLASSES = {"scenario", "sweep", "horizon", "history", "labels", "dask", "counts", "catalog"}
MIN_CASES = 80
DEFAULT_TIMEOUT_S = 120.0
SAMPLE = Path(__file__).resolve().parent.parent / "inputs" / "sample_inventory.csv"
# The header and the first three workloads of the sample: plans in about a second.
INVENTORY = "".join(SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:4])
PLACEHOLDER = re.compile(r"\{(inv|tmp|file|out|db|port)\}")
GARBAGE = b"\xde\xad\xbe\xef" * 64 + b"HTTP/1.1 200 OK\r\n\r\n"


class Hung(BaseException):
    """Raised by the alarm in a command that outlives its bound (not caught as an Exception)."""


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hung(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _env(tmp: Path) -> dict[str, str | None]:
    """No database, catalog or debug setting leaks in from the caller's environment."""
    return {
        "PLACEMENT_DB": None,
        "PLACEMENT_CATALOG": None,
        "PLACEMENT_DEBUG": None,
        "XDG_DATA_HOME": str(tmp / "xdg"),
        "COLUMNS": "200",
        "NO_COLOR": "1",
    }


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


# ---------------------------------------------------------------- setups
Setup = Callable[[Path, dict[str, str], contextlib.ExitStack], dict[str, str]]


def _history_db(tmp: Path, values: dict[str, str], stack: contextlib.ExitStack) -> dict[str, str]:
    """A real history database at {tmp}/history.db with one run, cycle 'base'."""
    args = ["plan", values["inv"], "--save", "--cycle", "base", "--db", values["db"], "-q"]
    result = CliRunner().invoke(cli, args, env=_env(tmp), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for sidecar in tmp.glob("history.db-*"):
        sidecar.unlink()
    return {}


def _truncated_db(tmp: Path, values: dict[str, str], stack: contextlib.ExitStack) -> dict[str, str]:
    _history_db(tmp, values, stack)
    db = tmp / "history.db"
    db.write_bytes(db.read_bytes()[:100])
    return {}


def _other_app_db(tmp: Path, values: dict[str, str], stack: contextlib.ExitStack) -> dict[str, str]:
    with contextlib.closing(sqlite3.connect(tmp / "history.db")) as connection:
        connection.execute("CREATE TABLE foo (x INTEGER)")
        connection.execute("INSERT INTO foo VALUES (1)")
        connection.commit()
    return {}


def _newer_schema_db(
    tmp: Path, values: dict[str, str], stack: contextlib.ExitStack
) -> dict[str, str]:
    """A real database stamped with a schema revision this version does not know."""
    _history_db(tmp, values, stack)
    with contextlib.closing(sqlite3.connect(tmp / "history.db")) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
        connection.commit()
    return {}


def _readonly_db(tmp: Path, values: dict[str, str], stack: contextlib.ExitStack) -> dict[str, str]:
    if os.geteuid() == 0:
        pytest.skip("root writes read-only files: chmod cannot make the database read-only")
    _history_db(tmp, values, stack)
    (tmp / "history.db").chmod(0o444)
    return {}


def _fifo(tmp: Path, values: dict[str, str], stack: contextlib.ExitStack) -> dict[str, str]:
    os.mkfifo(tmp / "pipe.yaml")  # nothing ever writes to it
    return {}


def _closed_port(tmp: Path, values: dict[str, str], stack: contextlib.ExitStack) -> dict[str, str]:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    return {"port": str(port)}


def _server(reply: bytes | None, stack: contextlib.ExitStack) -> dict[str, str]:
    """A TCP server on loopback that accepts, sends ``reply`` (None: nothing) and holds on."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)
            if reply is not None:
                with contextlib.suppress(OSError):
                    connection.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def close() -> None:
        stop.set()
        thread.join(5)
        server.close()
        for connection in held:
            connection.close()

    stack.callback(close)
    return {"port": str(server.getsockname()[1])}


def _deep_scenario(
    tmp: Path, values: dict[str, str], stack: contextlib.ExitStack
) -> dict[str, str]:
    depth = 20_000
    (tmp / "s.yaml").write_text("name: x\ndescription: " + "[" * depth + "]" * depth + "\n")
    return {}


def _good_scenario(
    tmp: Path, values: dict[str, str], stack: contextlib.ExitStack
) -> dict[str, str]:
    (tmp / "good.yaml").write_text("name: good\n")
    return {}


SETUPS: dict[str, Setup] = {
    "history_db": _history_db,
    "truncated_db": _truncated_db,
    "other_app_db": _other_app_db,
    "newer_schema_db": _newer_schema_db,
    "readonly_db": _readonly_db,
    "fifo": _fifo,
    "closed_port": _closed_port,
    "non_dask_server": lambda tmp, values, stack: _server(GARBAGE, stack),
    "silent_server": lambda tmp, values, stack: _server(None, stack),
    "deep_scenario": _deep_scenario,
    "good_scenario": _good_scenario,
}


# ---------------------------------------------------------------- the checks
def _run(step: dict[str, Any], values: dict[str, str], env: dict[str, Any], limit: float) -> None:
    """Run one command line and check what ``step`` expects of it."""
    args = [_fill(str(a), values) for a in step["args"]]
    assert not [a for a in args if PLACEHOLDER.search(a)], f"a placeholder left in {args}"
    started = time.monotonic()
    try:
        with _deadline(limit):
            result: Result = CliRunner().invoke(cli, args, env=env, catch_exceptions=True)
    except Hung as hung:
        pytest.fail(f"placement {' '.join(args)[:200]}: {hung} (a hang)")
    elapsed = time.monotonic() - started
    assert elapsed <= limit, f"took {elapsed:.0f} s"
    shown = result.stdout + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in shown
    if step["exit"] == 2:
        assert_clean_failure(result)
    assert result.exit_code == step["exit"], result.stderr[-2000:]
    for fragment in step.get("expect", []):
        assert _fill(fragment, values) in result.stderr, (fragment, result.stderr[-2000:])
    for fragment in step.get("stdout", []):
        assert _fill(fragment, values) in result.stdout, (fragment, result.stdout[-2000:])
    for fragment in step.get("absent", []):
        assert fragment not in shown, f"{fragment!r} shown"


def _param(case: dict[str, Any]) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
    return pytest.param(case, id=case["name"], marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_hostile_case(
    case: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # whatever a command leaves beside a relative path stays here
    inventory = tmp_path / "inv.csv"
    inventory.write_text(INVENTORY, encoding="utf-8")
    values = {
        "inv": str(inventory),
        "tmp": str(tmp_path),
        "out": str(tmp_path / "result.out"),
        "db": f"sqlite:///{tmp_path}/history.db",
        "big_label": "x" * 10_240,
        "label_200": "L" * 200,
    }
    if "file" in case:
        path = tmp_path / case["file"]["filename"]
        if "hex" in case["file"]:
            path.write_bytes(bytes.fromhex(case["file"]["hex"]))
        else:
            path.write_text(case["file"]["text"], encoding="utf-8")
        values["file"] = str(path)
    env = _env(tmp_path)
    limit = float(case.get("timeout", DEFAULT_TIMEOUT_S))
    with contextlib.ExitStack() as stack:
        if "setup" in case:
            values.update(SETUPS[case["setup"]](tmp_path, values, stack))
        watched = Path(_fill(case["unchanged"], values)) if "unchanged" in case else None
        before = watched.read_bytes() if watched is not None else None
        _run(case, values, env, limit)
        if case["exit"] != 0:
            assert not Path(values["out"]).exists(), "an output file was left by a failure"
        if watched is not None:
            assert watched.read_bytes() == before, f"{watched.name} was changed"
        for step in case.get("then", []):
            _run(step, values, env, limit)


def test_the_corpus_covers_every_class() -> None:
    names = [case["name"] for case in CASES]
    assert len(names) >= MIN_CASES
    assert len(set(names)) == len(names), "case names are unique"
    assert {case["class"] for case in CASES} == CLASSES
    for case in CASES:
        assert case.get("setup", "history_db") in SETUPS, case["name"]
        assert isinstance(case["exit"], int), case["name"]
        assert case.get("xfail", "a reason") and isinstance(case.get("xfail", ""), str)

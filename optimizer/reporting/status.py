"""Say what a long run is doing, on standard error, never in a result.

On a terminal: a status line (spinner, stage, elapsed time) that disappears when the run is
done. Elsewhere (a log, CI, a pipe): nothing for a short run; for a long one, a plain line every
:data:`STATUS_INTERVAL_S` seconds naming the stage, so a 20-minute plan is never silent.
``PLACEMENT_STATUS_INTERVAL`` (seconds) changes the interval.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from placement.reporting.terminal import stderr_console

STATUS_INTERVAL_S = 30.0
"""Seconds between plain status lines when standard error is not a terminal."""
STATUS_INTERVAL_ENV = "PLACEMENT_STATUS_INTERVAL"

StageCallback = Callable[[str], None]


def _interval() -> float:
    try:
        value = float(os.environ.get(STATUS_INTERVAL_ENV, STATUS_INTERVAL_S))
    except ValueError:
        return STATUS_INTERVAL_S
    return value if value > 0 else STATUS_INTERVAL_S


@contextmanager
def stage_status(quiet: bool) -> Iterator[StageCallback]:
    """A callback to announce each stage as it starts (see the module's description)."""
    console = stderr_console()
    if quiet:
        yield lambda stage: None
    elif console.is_terminal:
        columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("starting", total=None)
            yield lambda stage: bar.update(task, description=stage)
    else:
        with _heartbeat(console.file.write, _interval()) as announce:
            yield announce


@contextmanager
def _heartbeat(write: Callable[[str], object], interval: float) -> Iterator[StageCallback]:
    """Every ``interval`` seconds, one line naming the current stage and the time so far."""
    started = time.monotonic()
    current = ["starting"]
    done = threading.Event()

    def beat() -> None:
        while not done.wait(interval):
            elapsed = time.monotonic() - started
            write(f"placement: {current[0]} ({elapsed:.0f} s so far)\n")

    thread = threading.Thread(target=beat, name="placement-status", daemon=True)
    thread.start()
    try:
        yield lambda stage: current.__setitem__(0, stage)
    finally:
        done.set()
        thread.join()

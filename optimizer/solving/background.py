"""A piece of a solve run in a thread of its own while the caller goes on.

HiGHS releases Python's lock while it solves, so a solve in another thread uses the second
core while this one builds and solves something else (a roadmap's stay-put pricing beside
its search). Python work in the two threads still takes turns.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from placement.solving.solver import WAIT_STEP_S

T = TypeVar("T")

RUNNING: set[InBackground[Any]] = set()
"""Pieces not finished: an interrupted command exits without waiting for them
(``placement.cli.main``), as it does for the HiGHS solves it leaves running."""


class InBackground(Generic[T]):
    """``function()`` started in a daemon thread, in a copy of the caller's context (its
    ``contextvars``: the solver's stall rule, for one); ``result()`` waits for it."""

    def __init__(self, function: Callable[[], T]):
        self._value: T | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        context = contextvars.copy_context()

        def run() -> None:
            try:
                self._value = context.run(function)
            except BaseException as error:  # handed to the thread that asks for the result
                self._error = error
            finally:
                RUNNING.discard(self)
                self._done.set()

        RUNNING.add(self)
        threading.Thread(target=run, daemon=True).start()

    def wait(self) -> None:
        """Wait until the function has ended, in short steps, so that a Ctrl-C or SIGTERM
        acts at once."""
        while not self._done.wait(WAIT_STEP_S):
            pass

    def finished(self) -> bool:
        """Whether the function has ended (returned or raised)."""
        return self._done.is_set()

    def result(self) -> T:
        """The function's value, or its exception raised here (``wait`` first)."""
        self.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set where no error was


class Handed(Generic[T]):
    """A value a piece in the background hands over before it ends (staying put's months,
    known seconds before their pricing, minutes at fleet scale, is done)."""

    def __init__(self) -> None:
        self._value: T | None = None
        self._given = threading.Event()

    def give(self, value: T) -> None:
        self._value = value
        self._given.set()

    def wait(self, giver: InBackground[Any]) -> T | None:
        """The value once given; None where ``giver`` ended without giving it."""
        while not self._given.wait(WAIT_STEP_S):
            if giver.finished() and not self._given.is_set():
                return None
        return self._value


def finish_running() -> None:
    """Wait for every piece still running (their values unused)."""
    for piece in list(RUNNING):
        piece.wait()


@contextlib.contextmanager
def all_ended() -> Iterator[None]:
    """Every piece still running when the block is left, by its end or an error, is waited
    for (``finish_running``): a process must not end with a HiGHS solve running in a thread
    of its own (HiGHS then aborts it at exit). Not on an interrupt: the command then exits at
    once instead (``placement.cli.main``)."""
    try:
        yield
    except KeyboardInterrupt:
        raise
    except BaseException:
        finish_running()
        raise
    finish_running()

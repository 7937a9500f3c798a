"""A piece of a solve run in the background (``solving.background.InBackground``)."""

from __future__ import annotations

import threading

import pytest

from placement.solving import background
from placement.solving.background import Handed, InBackground
from placement.solving.solver import STALL, Stall, run_highs
from tests.test_run_together import _lp


def test_a_solve_in_the_background_runs_beside_one_here() -> None:
    """Two HiGHS instances solve at once, one in each thread (highspy's own ``startSolve``
    would refuse the second: its locks are shared by every instance)."""
    there = _lp(4.0)
    started = threading.Event()

    def solve_there() -> float:
        started.set()
        run_highs(there)
        return float(there.getInfo().objective_function_value)

    pending = InBackground(solve_there)
    started.wait()
    here = _lp(2.0)
    run_highs(here)
    assert here.getInfo().objective_function_value == pytest.approx(5.0)
    assert pending.result() == pytest.approx(11.0)
    assert not background.RUNNING


def test_its_error_is_raised_where_its_result_is_asked() -> None:
    def fails() -> None:
        raise ValueError("no plan")

    pending = InBackground(fails)
    with pytest.raises(ValueError, match="no plan"):
        pending.result()
    assert not background.RUNNING


def test_it_runs_in_the_callers_context() -> None:
    """The stall rule (a context variable) the caller runs under holds in the background too."""
    rule = Stall(3.0, 1.0)
    token = STALL.set(rule)
    try:
        assert InBackground(STALL.get).result() is rule
    finally:
        STALL.reset(token)
    assert InBackground(STALL.get).result() is None


def test_finish_running_waits_for_every_piece() -> None:
    """Nothing started in the background outlives its caller (HiGHS aborts a process that
    ends with a solve running in a thread of its own)."""
    release = threading.Event()
    pieces = [InBackground(lambda: release.wait(5.0)) for _ in range(3)]
    assert set(pieces) <= background.RUNNING
    threading.Timer(0.2, release.set).start()
    background.finish_running()
    assert not background.RUNNING
    assert all(piece.result() is True for piece in pieces)


def test_an_error_leaving_the_block_waits_for_the_pieces_an_interrupt_does_not() -> None:
    release = threading.Event()
    with pytest.raises(ValueError, match="bad"), background.all_ended():
        piece = InBackground(lambda: release.wait(5.0))
        threading.Timer(0.2, release.set).start()
        raise ValueError("bad")
    assert piece.result() is True and not background.RUNNING
    release.clear()
    with pytest.raises(KeyboardInterrupt), background.all_ended():
        left = InBackground(lambda: release.wait(5.0))
        raise KeyboardInterrupt
    assert left in background.RUNNING  # the command exits past it
    release.set()
    left.wait()


def test_a_value_handed_over_before_the_piece_ends() -> None:
    """What a piece hands over arrives while it goes on (staying put's months, before their
    pricing); a piece that ends without handing anything over gives None, never a hang."""
    handed: Handed[int] = Handed()
    go_on = threading.Event()

    def gives_then_works() -> str:
        handed.give(7)
        go_on.wait()
        return "priced"

    giving = InBackground(gives_then_works)
    assert handed.wait(giving) == 7
    assert not giving.finished()
    go_on.set()
    assert giving.result() == "priced" and giving.finished()
    nothing: Handed[int] = Handed()
    silent = InBackground(lambda: None)
    assert nothing.wait(silent) is None

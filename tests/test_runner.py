"""Batches handed to a ``Runner`` without waiting (``submit``): this process goes on while the
workers run them, and each batch's results come back whole and in order, however many are
outstanding at once (``plan --robust`` prices each sample's optimum while it solves the
program)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pulp
import pytest

from placement.comparing.batch import Runner
from placement.pipeline import GC_ALLOCATIONS_PER_COLLECTION
from placement.solving import solver


def _square_of(job: int) -> tuple[int, int]:
    """The job's square and the process that worked it out."""
    time.sleep(0.05)
    return job * job, os.getpid()


def _fails_on_three(job: int) -> int:
    if job == 3:
        raise ValueError("job 3 failed")
    return job


@pytest.mark.parametrize("workers", [1, 2])
def test_two_batches_outstanding_come_back_whole_and_in_order(workers: int) -> None:
    with Runner(workers=workers) as runner:
        first = runner.submit(list(range(8)), task=_square_of)
        second = runner.run(list(range(8, 12)), task=_square_of)
        done: list[tuple[int, int]] = []
        results = first.results(lambda finished, total: done.append((finished, total)))
    assert [square for square, _ in results] == [k * k for k in range(8)]
    assert [square for square, _ in second] == [k * k for k in range(8, 12)]
    assert done == [(k, 8) for k in range(1, 9)]
    processes = {pid for _, pid in results + second}
    # In turn in this process with one worker; on the worker processes with two.
    assert (processes == {os.getpid()}) == (workers == 1)


def test_a_submitted_batch_runs_on_a_real_dask_cluster(dask_cluster: str) -> None:
    with Runner(scheduler=dask_cluster) as runner:
        pending = runner.submit(list(range(6)), task=_square_of)
        other = runner.run([7], task=_square_of)
        assert [square for square, _ in pending.results()] == [k * k for k in range(6)]
        assert other[0][0] == 49


def test_a_failed_job_is_raised_when_the_results_are_asked_for() -> None:
    with Runner(workers=2) as runner:
        pending = runner.submit(list(range(5)), task=_fails_on_three)
        with pytest.raises(ValueError, match="job 3 failed"):
            pending.results()


def _highs_threads(job: int) -> int | None:
    """The threads this process's HiGHS solvers ask for, once a small MILP has been solved."""
    problem = pulp.LpProblem("tiny", pulp.LpMinimize)
    x = problem.add_variable("x", 0, 10, cat="Integer")
    problem += x
    problem += x >= job + 0.5
    solver.solve_model(Holding(problem))
    assert x.varValue == job + 1
    threads: int | None = solver.make_solver("highs", None, 1e-3).threads
    return threads


@dataclass
class Holding:
    """A stand-in for a model: anything holding a problem is solved."""

    problem: pulp.LpProblem


def test_highs_runs_on_one_thread_in_this_process_and_every_worker(dask_cluster: str) -> None:
    # HiGHS's guidance where several instances run at once: one thread each. The same number
    # in every process keeps a seed's figures the same whoever runs them.
    assert solver.highs_threads() == solver.HIGHS_THREADS == 1
    with Runner(workers=2) as runner:
        assert runner.run([1, 2, 3], task=_highs_threads) == [1, 1, 1]
    with Runner(scheduler=dask_cluster) as runner:
        assert runner.run([1, 2], task=_highs_threads) == [1, 1]
    with Runner(workers=1) as runner:
        assert runner.run([4], task=_highs_threads) == [1]


def test_a_process_whose_highs_pool_is_sized_otherwise_keeps_it_and_solves() -> None:
    # HiGHS sizes its threads once per process and fails a later run asking for another
    # number: where a program ran HiGHS first at two threads, its runs keep HiGHS's choice.
    code = (
        "import highspy\n"
        "h = highspy.Highs(); h.setOptionValue('output_flag', False)\n"
        "h.setOptionValue('threads', 2); h.addVar(0.0, 1.0)\n"
        "assert h.run() == highspy.HighsStatus.kOk\n"
        "from tests.test_runner import _highs_threads\n"
        "print(_highs_threads(3))\n"
    )
    root = Path(__file__).resolve().parents[1]
    path = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "None"


def test_a_batch_collects_garbage_rarely_and_restores_the_threshold() -> None:
    """Results arrive in this process while earlier ones are held: the collector runs rarely
    meanwhile (``pipeline.GC_ALLOCATIONS_PER_COLLECTION``), and as before once it is done."""
    before = gc.get_threshold()
    with Runner(workers=1) as runner:
        assert gc.get_threshold()[0] >= GC_ALLOCATIONS_PER_COLLECTION
        assert runner.run([2, 3], task=_square_of)[1][0] == 9
    assert gc.get_threshold() == before

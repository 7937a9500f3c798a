"""Batches handed to a ``Runner`` without waiting (``submit``): this process goes on while the
workers run them, and each batch's results come back whole and in order, however many are
outstanding at once (``plan --robust`` prices each sample's optimum while it solves the
program)."""

from __future__ import annotations

import os
import time

import pytest

from placement.comparing.batch import Runner


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

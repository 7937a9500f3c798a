"""A Dask cluster failing under a batch: a worker lost costs a retry, not the batch; a job that
ends every worker it runs on, and a scheduler lost mid-batch, are clear errors (exit 1), with
no traceback and nothing written. Each test runs its own cluster, as each breaks it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from placement.comparing.batch import Runner
from placement.errors import ClusterError
from tests.conftest import running_dask_cluster

pytest.importorskip("distributed")

SAMPLE = Path(__file__).resolve().parents[1] / "inputs" / "sample_inventory.csv"


def _dies_once(job: tuple[int, str]) -> int:
    """Job 1 ends its worker process the first time it runs (a marker file says it has)."""
    number, marker = job
    if number == 1 and not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return number * number


def _always_dies(job: int) -> int:
    if job == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return job


def _slow(job: int) -> int:
    time.sleep(30)
    return job


def _missing_file(job: int) -> int:
    """Job 2 fails as a solve reading a file that is not there would: an OSError of its own."""
    if job == 2:
        raise FileNotFoundError(2, "No such file or directory", "missing-catalog.yaml")
    return job


def test_a_worker_lost_mid_batch_costs_a_retry_not_the_batch(tmp_path: Path) -> None:
    marker = str(tmp_path / "died")
    with running_dask_cluster() as (address, _), Runner(scheduler=address) as runner:
        results = runner.run([(i, marker) for i in range(6)], task=_dies_once)
    assert Path(marker).exists()  # a worker did die under job 1
    assert results == [i * i for i in range(6)]


def test_a_job_that_ends_every_worker_is_a_cluster_error() -> None:
    with (
        running_dask_cluster() as (address, _),
        Runner(scheduler=address) as runner,
        pytest.raises(ClusterError) as caught,
    ):
        runner.run(list(range(4)), task=_always_dies)
    message = str(caught.value)
    assert "every worker that ran one job died running it" in message
    assert "of 4 jobs had finished" in message and address in message


def test_the_scheduler_lost_mid_batch_is_a_cluster_error() -> None:
    with running_dask_cluster() as (address, scheduler), Runner(scheduler=address) as runner:
        threading.Timer(3.0, scheduler.kill).start()
        started = time.monotonic()
        with pytest.raises(ClusterError) as caught:
            runner.run(list(range(4)), task=_slow)
    assert time.monotonic() - started < 25  # not waiting for the 30 s jobs
    assert "the connection to the scheduler was lost" in str(caught.value)
    assert "0 of 4 jobs had finished" in str(caught.value)


def test_an_os_error_a_job_raises_is_the_jobs_error_not_a_lost_connection() -> None:
    """The job's own exception comes back as it would from a local worker process: an OSError
    it raises says nothing about the connection to the scheduler."""
    with running_dask_cluster() as (address, _), Runner(scheduler=address) as runner:
        with pytest.raises(FileNotFoundError) as caught:
            runner.run(list(range(4)), task=_missing_file)
        assert caught.value.filename == "missing-catalog.yaml"
        assert runner.run([5, 6], task=_missing_file) == [5, 6]  # the cluster is still there
    with Runner(workers=2) as local, pytest.raises(FileNotFoundError):
        local.run(list(range(4)), task=_missing_file)


def _scheduler_tasks(address: str) -> int:
    from distributed import Client

    with Client(address, timeout="5s") as client:
        return int(client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)))


def test_the_cli_says_the_cluster_failed_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    """A sweep on the cluster, its scheduler killed once the batch is on it."""
    out = tmp_path / "sweep.json"
    with running_dask_cluster() as (address, scheduler):
        command = [sys.executable, "-m", "placement", "sweep", str(SAMPLE),
                   "--param", "inventory.h100_gpu_hours", "--range", "1000:40000:60",
                   "--scheduler", address, "--format", "json", "-o", str(out)]  # fmt: skip
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 60
        while _scheduler_tasks(address) == 0 and process.poll() is None:
            assert time.monotonic() < deadline, "the sweep never reached the cluster"
            time.sleep(0.2)
        scheduler.kill()
        stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 1, stderr
    assert "Error: --scheduler" in stderr and "connection to the scheduler was lost" in stderr
    assert "Traceback" not in stderr and "bug" not in stderr
    assert '"error": "cluster failed"' in stdout
    assert not out.exists() and not list(tmp_path.glob("*.tmp"))

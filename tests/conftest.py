"""Shared fixtures: a hand-solvable catalog with round numbers, and inventory builders."""

from __future__ import annotations

import contextlib
import copy
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from placement.analysing.checks import check_plan
from placement.catalog import default_catalog_text
from placement.models.catalog import Catalog
from placement.pipeline import PlanResult, SolverOptions, plan
from placement.reading import read_inventory
from placement.solving.solver import highs_threads

EXACT = SolverOptions(solver="highs", gap=0.0)


@pytest.fixture(scope="session", autouse=True)
def highs_sized_as_in_a_command() -> None:
    """This process's HiGHS pool sized by placement's first run, as in a command's process:
    a test running HiGHS itself first (at HiGHS's own choice of threads) would leave this
    process's solves on another thread count than the worker processes' (``highs_threads``)."""
    highs_threads()


def default_catalog_dict() -> dict[str, Any]:
    return yaml.safe_load(default_catalog_text())


def _fix(node: dict[str, Any], value: float) -> None:
    node.update(low=value, high=value, point=value)


def simple_catalog_dict() -> dict[str, Any]:
    """Round numbers so optima can be computed by hand.

    100 h/month, 1-month amortization; H100 $2/chip-h, reserved units of 1 chip holding any
    replica, replicas of 1, 2, 4, 8 chips then whole nodes; Trainium2 $1/chip-h, 4-chip units,
    replicas of 1 or 4 chips then multiples of 4, same speed as H100; reserved 50% off, fully
    usable, no savings plan; no memory overheads; porting 2 weeks x $100; neuron migration $500
    with 10 weeks lead; support lag 4 weeks; online serving at mean traffic and full load (no
    queueing).
    """
    data = default_catalog_dict()
    econ = data["economics"]
    econ["hours_per_month"]["value"] = 100
    econ["amortization_months"]["value"] = 1
    _fix(econ["porting_engineer_usd_per_week"], 100)
    mem = data["memory"]
    _fix(mem["inference_overhead_fraction"], 0)
    _fix(mem["training_activation_overhead_fraction"], 0)
    _fix(mem["usable_memory_fraction"], 1)
    res = data["pricing_options"]["reserved_1yr"]
    _fix(res["discount_vs_on_demand"], 0.5)
    # Reservations and on demand only, so that hand optima need no savings-plan arithmetic.
    del data["pricing_options"]["savings_plan_1yr"]
    h100 = data["accelerators"]["h100"]
    _fix(h100["on_demand_usd_per_chip_hour"], 2)
    h100["reservation_units"] = [{"chips": 1, "source": "test: one-chip units"}]
    h100["replica_chip_counts"] = [1, 2, 4, 8]  # then whole 8-GPU nodes
    trn2 = data["accelerators"]["trn2"]
    _fix(trn2["on_demand_usd_per_chip_hour"], 1)
    trn2["replica_chip_counts"] = [1, 4]  # then multiples of 4
    for curve in trn2["training_throughput_vs_reference"].values():
        for anchor in curve:
            _fix(anchor["figure"], 1)
    _fix(trn2["inference_throughput_vs_reference"], 1)
    _fix(trn2["inference_serving_efficiency"], 1)
    # Serving as the hand computations assume it: mean traffic at full load, no queueing.
    workload_model = data["workload_model"]
    _fix(workload_model["online_peak_to_mean_ratio"], 1)
    del workload_model["online_target_utilization"]
    # A replica of s chips divides TTFT by s, with no loss of efficiency.
    _fix(data["latency"]["tensor_parallel_exponent"], 1)
    neuron = data["platforms"]["neuron"]
    _fix(neuron["porting_weeks_per_family"], 2)
    _fix(neuron["support_lag_weeks"], 4)
    _fix(neuron["migration_one_off_usd"], 500)
    _fix(neuron["migration_lead_weeks"], 10)
    return data


def make_catalog(
    data: dict[str, Any], edit: Callable[[dict[str, Any]], None] | None = None
) -> Catalog:
    data = copy.deepcopy(data)
    if edit is not None:
        edit(data)
    return Catalog.model_validate(data)


@pytest.fixture
def simple_catalog() -> Catalog:
    return make_catalog(simple_catalog_dict())


def workload(id: str, **fields: Any) -> dict[str, Any]:
    """A training workload of 1B llama with 100 H100 GPU-hours unless told otherwise."""
    row: dict[str, Any] = {
        "id": id,
        "kind": "training",
        "model_family": "llama",
        "params_b": 1,
        "h100_gpu_hours": 100,
    }
    row.update(fields)
    if "monthly_tokens_b" in fields and "h100_gpu_hours" not in fields:
        row.pop("h100_gpu_hours")
    return row


def frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows))


def run_plan(
    rows: Iterable[dict[str, Any]], catalog: Catalog, solver: SolverOptions = EXACT
) -> PlanResult:
    """Plan, then re-check every constraint from the plan alone and the total vs the objective."""
    inventory = read_inventory(
        frame(rows), list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    result = plan(inventory, catalog, solver)
    assert_consistent(result)
    return result


def assert_consistent(result: PlanResult) -> None:
    problems = check_plan(result.plan, result.inventory.workloads, result.catalog)
    assert problems == []
    p = result.plan
    if p.objective_monthly_usd is not None:
        assert result.solve.objective is not None
        # The total is the sum of four components each rounded to the cent.
        assert p.objective_monthly_usd == pytest.approx(result.solve.objective, abs=0.02)
        assert p.objective_monthly_usd == pytest.approx(p.cost_breakdown.total_usd, abs=0.01)
        # Every workload's share of the bill, to the cent, adds up to the bill.
        if p.assignments:
            shares = sum(round(a.showback_monthly_usd or 0.0, 2) * 100 for a in p.assignments)
            assert round(shares) == round(p.objective_monthly_usd * 100)


def placement_of(result: PlanResult) -> dict[str, tuple[str, str]]:
    return {a.workload_id: (a.accelerator, a.pricing) for a in result.plan.assignments}


def free_port() -> int:
    """A TCP port on loopback that nothing listens on (just now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[str]:
    """A real Dask cluster: a scheduler and a worker, each its own process, on loopback."""
    pytest.importorskip("distributed")
    with running_dask_cluster() as (address, _):
        yield address


@contextlib.contextmanager
def running_dask_cluster() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A scheduler and a worker process running two workers (under a nanny, which restarts
    a worker that dies), on loopback: the scheduler's address and its process."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    bin_dir = Path(sys.executable).parent
    # The tests' own jobs (module-level functions, sent by reference) import on the cluster.
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    scheduler = subprocess.Popen(
        [
            str(bin_dir / "dask"),
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-dashboard",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    worker = subprocess.Popen(
        [
            str(bin_dir / "dask"),
            "worker",
            address,
            "--nworkers",
            "2",
            "--nthreads",
            "1",
            "--no-dashboard",
            "--host",
            "127.0.0.1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        from distributed import Client

        deadline = time.monotonic() + 60
        while True:
            try:
                with Client(address, timeout="5s") as client:
                    client.wait_for_workers(2, timeout=30)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        yield address, scheduler
    finally:
        for process in (worker, scheduler):
            process.terminate()
        for process in (worker, scheduler):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

"""Run many plans at once: in this process, on local worker processes, or on a Dask cluster.

Every batch job is a plain description of one plan (the inventory read once, the catalog as its
path and overrides, a scenario), so it can travel to another process or machine; each returns
the plan. The results are the same whatever runs them (HiGHS's search is deterministic), and
they come back in the order the jobs were given.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from placement.catalog import CatalogSource, read_catalog
from placement.errors import PlacementInputError
from placement.models.plan import Plan
from placement.pipeline import SolverOptions, plan
from placement.reading import Inventory, read_inventory
from placement.scenarios import Scenario

Progress = Callable[[int, int], None]
"""Called with (jobs done, jobs in all) as results arrive."""


@dataclass(frozen=True)
class CatalogSpec:
    """Where a catalog comes from, small enough to send anywhere: re-read by each job."""

    path: str | None = None
    overrides: tuple[str, ...] = ()
    via: str | None = None

    @classmethod
    def of(cls, source: CatalogSource | None) -> CatalogSpec:
        if source is None:
            return cls()
        origin = source.origin
        return cls(origin.path, tuple(origin.overrides), origin.via)

    def read(self) -> CatalogSource:
        return read_catalog(self.path, self.overrides, via=self.via)


@dataclass(frozen=True)
class PlanJob:
    """One plan of a batch: the inventory, the catalog, the scenario applied (None: the base)."""

    inventory: Inventory
    catalog: CatalogSpec
    scenario: Scenario | None
    solver: SolverOptions
    horizon: int | None = None  # months of a roadmap (plan --horizon); None: steady state


def planned_inventory(
    inventory: str | Inventory,
    catalog: CatalogSource,
    input_format: str | None = None,
    sheet: str | None = None,
) -> Inventory:
    """The inventory of a batch, read once (a path, ``-`` for stdin) or as given."""
    if isinstance(inventory, Inventory):
        return inventory
    return read_inventory(
        inventory,
        list(catalog.catalog.accelerators),
        input_format=input_format,
        sheet=sheet,
        load_profiles=catalog.catalog.profile_kinds(),
    )


def run_job(job: PlanJob) -> Plan:
    """Plan one job (a module-level function, so worker processes and Dask can call it)."""
    return plan(
        job.inventory, job.catalog.read(), job.solver, scenario=job.scenario, horizon=job.horizon
    ).plan


def default_workers() -> int:
    """All the cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def run_jobs(
    jobs: Sequence[PlanJob],
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Progress | None = None,
) -> list[Plan]:
    """Every job's plan, in the order given: on the Dask cluster at ``scheduler`` if given,
    else on ``workers`` local processes (default: all cores; 1 runs in this process)."""
    if scheduler is not None:
        return _on_dask(jobs, scheduler, progress)
    workers = default_workers() if workers is None else workers
    if workers <= 1 or len(jobs) <= 1:
        plans = []
        for done, job in enumerate(jobs, start=1):
            plans.append(run_job(job))
            if progress:
                progress(done, len(jobs))
        return plans
    # forkserver: workers start from a clean process, never from a copy of this one's threads.
    with ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)), mp_context=get_context("forkserver")
    ) as pool:
        futures = [pool.submit(run_job, job) for job in jobs]
        return _in_order(futures, as_completed(futures), progress)


def _in_order(
    futures: Sequence[Any], completed: Iterable[Any], progress: Progress | None
) -> list[Plan]:
    """The futures' results in submission order, reporting progress as each completes."""
    position = {id(future): i for i, future in enumerate(futures)}
    results: list[Plan | None] = [None] * len(futures)
    for done, future in enumerate(completed, start=1):
        results[position[id(future)]] = future.result()
        if progress:
            progress(done, len(futures))
    return [r for r in results if r is not None]


def _on_dask(jobs: Sequence[PlanJob], scheduler: str, progress: Progress | None) -> list[Plan]:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise PlacementInputError(
            [
                f"--scheduler {scheduler}: Dask is not installed; "
                "install the extra: pip install 'placement[dask]'"
            ],
            title="invalid option",
        ) from None
    try:
        client = Client(scheduler, timeout="5s")
    except OSError as err:
        raise PlacementInputError(
            [f"--scheduler {scheduler}: no Dask scheduler answers there ({err})"],
            title="invalid option",
        ) from None
    with client:
        # pure=False: two equal jobs are still two runs (Dask would otherwise merge them).
        futures = client.map(run_job, list(jobs), pure=False)
        return _in_order(futures, dask_completed(futures), progress)

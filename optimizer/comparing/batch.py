"""Run many plans at once: in this process, on local worker processes, or on a Dask cluster.

Every batch job is a plain description of one plan (the inventory read once, the catalog as its
path and overrides, a scenario), so it can travel to another process or machine; each returns
the plan. The results are the same whatever runs them (HiGHS's search is deterministic), and
they come back in the order the jobs were given.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

from placement.catalog import CatalogSource, read_catalog
from placement.errors import ClusterError, PlacementInputError
from placement.models.catalog import Catalog
from placement.models.plan import Plan
from placement.pipeline import SolverOptions, collecting_rarely, plan
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


def progress_after(progress: Progress | None, done: int, total: int) -> Progress | None:
    """``progress`` of a batch that follows ``done`` solves, out of ``total`` in all (a search
    that runs batch after batch: a sweep's bisection, a flip point's)."""
    if progress is None:
        return None
    report = progress
    return lambda finished, _batch: report(done + finished, total)


def planned_inventory(
    inventory: str | os.PathLike[str] | Inventory,
    catalog: Catalog | CatalogSource,
    input_format: str | None = None,
    sheet: str | None = None,
) -> Inventory:
    """The inventory of a batch, read once (a path, ``-`` for stdin) or as given."""
    if isinstance(inventory, Inventory):
        return inventory
    model = catalog.catalog if isinstance(catalog, CatalogSource) else catalog
    return read_inventory(
        inventory,
        list(model.accelerators),
        input_format=input_format,
        sheet=sheet,
        load_profiles=model.profile_kinds(),
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
    task: Callable[[PlanJob], Any] = run_job,
) -> list[Any]:
    """Every job's plan (or what ``task``, a module-level function, makes of it), in the order
    given: on the Dask cluster at ``scheduler`` if given, else on ``workers`` local processes
    (default: all cores; 1 runs in this process)."""
    with Runner(workers, scheduler) as runner:
        return runner.run(jobs, progress, task)


class Runner:
    """Where batches of jobs run, kept for several batches (a sweep's grid, then each round of
    its bisection): local worker processes started once, or one Dask client. Use as a
    context manager; the processes or the client are closed on leaving it."""

    def __init__(self, workers: int | None = None, scheduler: str | None = None) -> None:
        self.scheduler = scheduler
        self.workers = default_workers() if workers is None else workers
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None
        self._held = contextlib.ExitStack()

    def __enter__(self) -> Runner:
        # The results are unpickled here while earlier ones are held: at the default
        # threshold the collector walks them all every 700 allocations (100 plans of 1,000
        # workloads: 3.7 s of this process's time instead of 1.6 s, taken from the workers).
        self._held.enter_context(collecting_rarely())
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if self._pool is not None:
            if kind is not None:
                # Interrupted (Ctrl-C, SIGTERM) or failed: stop the solves under way now
                # rather than wait minutes for them.
                for process in list(getattr(self._pool, "_processes", {}).values()):
                    process.terminate()
            self._pool.shutdown(wait=kind is None, cancel_futures=True)
        if self._client is not None:
            self._client.close()
        self._held.close()

    def run(
        self,
        jobs: Sequence[Any],
        progress: Progress | None = None,
        task: Callable[[Any], Any] = run_job,
    ) -> list[Any]:
        """Every job's result (``task`` of it: a plan by default), in the order given. A job
        is anything ``task``, a module-level function, takes: it is sent to the worker."""
        return self.submit(jobs, task).results(progress)

    def submit(self, jobs: Sequence[Any], task: Callable[[Any], Any] = run_job) -> Pending:
        """The jobs handed to the workers now (``run`` without waiting): this process goes on
        while they run, and ``results()`` collects them. Run in this process (one worker),
        they run when their results are asked for."""
        jobs = list(jobs)
        if self.scheduler is not None:
            scheduler = self.scheduler
            if self._client is None:
                self._held.enter_context(_dask_logs_held())
                self._client = _dask_client(scheduler)
            client = self._client
            # pure=False: two equal jobs are still two runs (Dask would otherwise merge them).
            futures = client.map(task, jobs, pure=False)

            def collected(progress: Progress | None) -> list[Any]:
                from distributed import as_completed as dask_completed

                with _dask_failures(scheduler, client, futures):
                    return _in_order(futures, dask_completed(futures), progress)

            return Pending(collected)
        if self.workers <= 1 or (len(jobs) <= 1 and self._pool is None):

            def in_turn(progress: Progress | None) -> list[Any]:
                results = []
                for done, job in enumerate(jobs, start=1):
                    results.append(task(job))
                    if progress:
                        progress(done, len(jobs))
                return results

            return Pending(in_turn)
        if self._pool is None:
            # forkserver: workers start from a clean process, never from a copy of this
            # one's threads.
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=get_context("forkserver")
            )
        pooled = [self._pool.submit(task, job) for job in jobs]
        return Pending(lambda progress: _in_order(pooled, as_completed(pooled), progress))


@dataclass(frozen=True)
class Pending:
    """Jobs handed to a ``Runner``, their results not collected yet."""

    collect: Callable[[Progress | None], list[Any]]

    def results(self, progress: Progress | None = None) -> list[Any]:
        """Every job's result, in the order given, reporting progress as each arrives."""
        return self.collect(progress)


def _in_order(
    futures: Sequence[Any], completed: Iterable[Any], progress: Progress | None
) -> list[Any]:
    """The futures' results in submission order, reporting progress as each completes."""
    position = {id(future): i for i, future in enumerate(futures)}
    results: list[Any] = [None] * len(futures)
    for done, future in enumerate(completed, start=1):
        results[position[id(future)]] = future.result()
        if progress:
            progress(done, len(futures))
    return results


@contextlib.contextmanager
def _dask_failures(scheduler: str, client: Any, futures: Sequence[Any]) -> Iterator[None]:
    """A batch the cluster fails as a ``ClusterError`` saying how far it got, its other jobs
    cancelled. A worker lost mid-batch is not one: the scheduler gives its jobs to another
    worker (or the one its nanny restarts), and the batch goes on. Nor is a job's own
    exception, which a future's ``result()`` re-raises, even an ``OSError`` (a solve's
    missing file): it goes up unchanged, as from a local worker process, the other jobs
    cancelled."""
    from distributed.comm import CommClosedError
    from distributed.scheduler import KilledWorker

    try:
        yield
    except KilledWorker as err:
        reason = (
            f"every worker that ran one job died running it ({err.task}): Dask retries a job "
            "whose worker dies, up to the scheduler's allowed failures; a job that ends its "
            "worker each time (out of memory?) stops the batch"
        )
        raise ClusterError(_failed(scheduler, client, futures, reason)) from None
    except (CancelledError, CommClosedError, OSError) as err:
        if _raised_by_a_job(err, futures):
            with contextlib.suppress(Exception):  # the scheduler may be gone
                client.cancel([future for future in futures if not future.done()])
            raise
        reason = f"the connection to the scheduler was lost ({type(err).__name__})"
        raise ClusterError(_failed(scheduler, client, futures, reason)) from None


def _raised_by_a_job(err: BaseException, futures: Sequence[Any]) -> bool:
    """Whether ``err`` is the exception a job raised: a future that finished with an error
    re-raises that very object from ``result()``. A lost connection's error belongs to no
    future, even if some job happens to have failed by then."""
    for future in futures:
        if future.status == "error":
            with contextlib.suppress(Exception):  # held by the future; the scheduler is not asked
                if future.exception(timeout=SCHEDULER_WAIT_S) is err:
                    return True
    return False


@contextlib.contextmanager
def _dask_logs_held() -> Iterator[None]:
    """Dask's own log held back (below CRITICAL) while a client is open: a lost scheduler
    logs tracebacks on stderr as the client tries to reconnect and closes, and the command's
    error already says what failed."""
    with contextlib.suppress(ImportError):  # its loggers exist once it is imported
        import distributed  # noqa: F401
    # Dask's configuration gives its loggers their own levels: each is raised, not the parent.
    names = ["distributed"] + [
        name for name in logging.root.manager.loggerDict if name.startswith("distributed.")
    ]
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _failed(scheduler: str, client: Any, futures: Sequence[Any], reason: str) -> str:
    """The message of a failed batch, its unfinished jobs cancelled."""
    finished = sum(1 for future in futures if future.status == "finished")
    with contextlib.suppress(Exception):  # the scheduler may be gone
        client.cancel([future for future in futures if not future.done()])
    return (
        f"--scheduler {scheduler}: {reason}; {finished} of {len(futures)} jobs had finished, "
        "and nothing was written"
    )


SCHEDULER_WAIT_S = 5
"""Seconds to wait for a Dask scheduler to answer, and again for its first worker."""


def _dask_client(scheduler: str) -> Any:
    """A client of the Dask scheduler at ``scheduler``; a usage error if none answers."""
    try:
        from distributed import Client
    except ImportError:
        raise PlacementInputError(
            [
                f"--scheduler {scheduler}: Dask is not installed; "
                "install the extra: pip install 'placement[dask]'"
            ],
            title="invalid option",
        ) from None
    # Connected from a daemon thread, waited for at most SCHEDULER_WAIT_S: a server that
    # accepts the connection but is not Dask never answers its handshake, and a thread stuck
    # there must not keep the command from exiting.
    made: dict[str, Any] = {}

    def connect() -> None:
        try:
            client = Client(scheduler, timeout=f"{SCHEDULER_WAIT_S}s")
            client.wait_for_workers(1, timeout=SCHEDULER_WAIT_S)
            made["client"] = client
        except Exception as err:  # reported below, in the command's words
            made["error"] = err

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(2 * SCHEDULER_WAIT_S + 1)
    if "client" in made:
        return made["client"]
    err = made.get("error")
    if isinstance(err, TimeoutError) and "worker" in str(err).lower():
        reason = f"the scheduler answers but has no worker (waited {SCHEDULER_WAIT_S} s)"
    elif err is None:
        reason = f"nothing answered as a Dask scheduler within {2 * SCHEDULER_WAIT_S} s"
    else:
        reason = f"no Dask scheduler answers there ({type(err).__name__}: {err})"
    raise PlacementInputError([f"--scheduler {scheduler}: {reason}"], title="invalid option")

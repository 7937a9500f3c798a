"""``whatif --samples``: every plan of a comparison with its risk over the same futures.

Each plan (the base and every scenario) is run through ``placement risk`` with its scenario
applied first. Sample ``i`` of a seed is drawn from the same random numbers in every plan
(``sampling.draw_values`` seeds each sample with ``(seed, i)`` alone): common random numbers,
so two plans are compared on the same futures and their difference is not sampling noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from placement.catalog import CatalogSource
from placement.comparing.whatif import WhatIfResult
from placement.reading import Inventory
from placement.solving.solver import SolverOptions
from placement.uncertainty.risk import risk


def with_risk(
    result: WhatIfResult,
    inventory: str | Inventory,
    catalog: CatalogSource,
    samples: int,
    seed: int = 0,
    solver: SolverOptions | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    horizon: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> WhatIfResult:
    """``result`` with each outcome's ``risk``: ``samples`` futures drawn with ``seed`` (in
    parallel on ``workers`` processes or the Dask cluster at ``scheduler``), around that
    plan's figures; with ``horizon``, its roadmap held fixed too. ``progress`` is told (plans
    done, plans) as each is sampled."""
    outcomes = []
    for o in result.outcomes:
        sampled = risk(
            inventory,
            catalog,
            samples,
            seed,
            solver,
            workers,
            scheduler,
            scenario=o.scenario,
            horizon=horizon,
        )
        outcomes.append(replace(o, risk=sampled))
        if progress:
            progress(len(outcomes), len(result.outcomes))
    return WhatIfResult(outcomes)

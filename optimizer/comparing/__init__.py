"""Comparing plans: batches of solves (local or on Dask), plan diffs, what-if and sweeps.

Imported eagerly, unlike the stages below it (``placement.exports``): ``whatif`` is both a
module and the function users import, and only an import here keeps the name the function.
Nothing imports this package for ``--help``."""

from placement.comparing.batch import CatalogSpec, PlanJob, run_jobs
from placement.comparing.diff import Move, PlanDiff, plan_diff
from placement.comparing.whatif import Outcome, WhatIfResult, summary_row, whatif

__all__ = [
    "CatalogSpec",
    "Move",
    "Outcome",
    "PlanDiff",
    "PlanJob",
    "WhatIfResult",
    "plan_diff",
    "run_jobs",
    "summary_row",
    "whatif",
]

"""Comparing plans: batches of solves (local or on Dask), plan diffs, what-if and sweeps."""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CatalogSpec": "placement.comparing.batch",
        "Move": "placement.comparing.diff",
        "Outcome": "placement.comparing.whatif",
        "PlanDiff": "placement.comparing.diff",
        "PlanJob": "placement.comparing.batch",
        "WhatIfResult": "placement.comparing.whatif",
        "plan_diff": "placement.comparing.diff",
        "run_jobs": "placement.comparing.batch",
        "summary_row": "placement.comparing.whatif",
        "whatif": "placement.comparing.whatif",
    },
)

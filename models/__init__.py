"""Pydantic domain models: workloads, the catalog and the plan."""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
    from placement.models.catalog import Catalog, Range
    from placement.models.plan import Plan
    from placement.models.workload import FEATURES, PRECISIONS, Workload

__all__ = [
    "FEATURES",
    "PRECISIONS",
    "Catalog",
    "Plan",
    "Range",
    "Workload",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Catalog": "placement.models.catalog",
        "FEATURES": "placement.models.workload",
        "PRECISIONS": "placement.models.workload",
        "Plan": "placement.models.plan",
        "Range": "placement.models.catalog",
        "Workload": "placement.models.workload",
    },
)

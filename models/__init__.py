"""Pydantic domain models: workloads, the catalog and the plan."""

from placement.models.catalog import Catalog, Range
from placement.models.plan import Plan
from placement.models.workload import FEATURES, PRECISIONS, Workload

__all__ = ["FEATURES", "PRECISIONS", "Catalog", "Plan", "Range", "Workload"]

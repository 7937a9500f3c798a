"""Pydantic domain models: workloads, the catalog and the plan."""

from models.catalog import Catalog, Range
from models.plan import Plan
from models.workload import FEATURES, PRECISIONS, Workload

__all__ = ["FEATURES", "PRECISIONS", "Catalog", "Plan", "Range", "Workload"]

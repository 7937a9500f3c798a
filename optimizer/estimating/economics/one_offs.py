"""One-off costs from the catalog: porting a model family to a platform, a platform's migration
programme, and switching a workload off the accelerator it runs on today.

The objective amortises each over ``economics.amortization_months`` (a roadmap pays them in the
month they happen).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from placement.models.catalog import Catalog


def porting_one_off_usd(catalog: Catalog, platform: str) -> float:
    """One-off cost of porting one family: weeks per family x engineer cost per week."""
    return (
        catalog.platforms[platform].porting_weeks_per_family.value
        * catalog.economics.porting_engineer_usd_per_week.value
    )


def migration_one_off_usd(catalog: Catalog, platform: str) -> float:
    """One-off cost of a platform's migration programme (the reference's $50k-200k)."""
    return catalog.platforms[platform].migration_one_off_usd.value


def switching_one_off_usd(catalog: Catalog) -> float:
    """One-off cost of moving one workload off the accelerator it runs on today (0 where the
    catalog gives none)."""
    price = catalog.economics.switching_usd_per_workload
    return price.value if price is not None else 0.0


def move_one_off_usd(catalog: Catalog, current: object, accelerator: str) -> float:
    """What running a workload on ``accelerator`` costs once, from ``current`` (None or NaN: it
    runs nowhere yet): nothing if it stays or is new."""
    if current is None or pd.isna(current) or current == accelerator:
        return 0.0
    return switching_one_off_usd(catalog)


def switching_usd(workloads: pd.DataFrame, catalog: Catalog, accelerator: str) -> np.ndarray:
    """The one-off cost of each workload running on ``accelerator``: the catalog's switching
    cost where it runs elsewhere today, nothing where it runs there or nowhere yet."""
    if "current_accelerator" not in workloads:
        return np.zeros(len(workloads))
    current = workloads["current_accelerator"]
    moves = current.notna() & current.ne(accelerator)
    return np.where(moves.to_numpy(), switching_one_off_usd(catalog), 0.0)

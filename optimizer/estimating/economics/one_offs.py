"""One-off costs from the catalog: porting a model family to a platform, migrating to a platform,
switching a workload off the accelerator it runs on today."""

from __future__ import annotations

from placement.models.catalog import Catalog


def porting_one_off_usd(catalog: Catalog, platform: str) -> float:
    """One-off cost of porting one family: weeks per family x engineer cost per week."""
    return (
        catalog.platforms[platform].porting_weeks_per_family.value
        * catalog.economics.porting_engineer_usd_per_week.value
    )

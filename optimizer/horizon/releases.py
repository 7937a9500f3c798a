"""The SDK's dated features over a horizon: the catalog in force each month.

A platform's ``feature_roadmap`` lists features a future SDK version brings and the month of
the horizon each is usable from. Month by month the catalog in force is the catalog with every
release of that month or earlier applied (its rule replaces the platform's current one for that
feature). The months where the catalog changes cut the horizon into **epochs**; each epoch's
options are estimated once. Releases are taken to only add: an option feasible in one epoch is
feasible in every later one (a release that made one infeasible again is refused).
"""

from __future__ import annotations

from placement.models.catalog import Catalog


def epoch_starts(catalog: Catalog, months: int) -> list[int]:
    """The first month of each epoch within the horizon: 1, then every release month."""
    dated = {
        release.from_month
        for platform in catalog.platforms.values()
        for release in platform.feature_roadmap
        if release.from_month <= months
    }
    return sorted({1} | dated)


def catalog_in(catalog: Catalog, month: int) -> Catalog:
    """The catalog in force in ``month``: every release of that month or earlier applied."""
    platforms = {}
    changed = False
    for name, platform in catalog.platforms.items():
        released = [r for r in platform.feature_roadmap if r.from_month <= month]
        if not released:
            platforms[name] = platform
            continue
        features = dict(platform.features)
        for release in sorted(released, key=lambda r: r.from_month):
            features[release.feature] = release.rule
        platforms[name] = platform.model_copy(update={"features": features})
        changed = True
    return catalog.model_copy(update={"platforms": platforms}) if changed else catalog

"""Where the team is today, from the inventory's ``current_accelerator`` column.

A workload that runs on an accelerator today needs no port and no migration lead time to stay
there, and what it shows about the team holds for everyone:

* a platform any workload runs on today is adopted (its migration programme is done), whatever
  the catalog's ``adopted`` says;
* a model family any workload runs on today on a platform that needs porting is ported there,
  for every workload of that family (as ``neuron_ready`` says for one workload).

Moving a workload off its current accelerator costs the catalog's one-off
``economics.switching_usd_per_workload`` (``economics.one_offs``); a workload without a current
accelerator is new and moves nowhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from placement.models.catalog import Catalog


@dataclass(frozen=True)
class CurrentState:
    """What the inventory says runs where today: platforms adopted by use, (family, platform)
    pairs ported by use."""

    adopted_platforms: frozenset[str]
    ported: frozenset[tuple[str, str]]

    def adopted(self, catalog: Catalog, platform: str) -> bool:
        """Adopted in the catalog or by a workload running there today."""
        return catalog.platforms[platform].adopted or platform in self.adopted_platforms


def current_state(workloads: pd.DataFrame, catalog: Catalog) -> CurrentState:
    """The platforms and (family, platform) ports the inventory's current placements imply."""
    if "current_accelerator" not in workloads:
        return CurrentState(frozenset(), frozenset())
    current = workloads["current_accelerator"]
    running = current.notna()
    platforms = current[running].map(lambda a: catalog.accelerators[str(a)].platform)
    ported = {
        (str(family), str(platform))
        for family, platform in zip(workloads.loc[running, "model_family"], platforms, strict=True)
        if catalog.platforms[str(platform)].porting_required
    }
    return CurrentState(frozenset(map(str, platforms)), frozenset(ported))

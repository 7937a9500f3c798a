"""How a platform's feature support slows a workload down or rules it out."""

from __future__ import annotations

import numpy as np
import pandas as pd

from placement.models.catalog import Catalog
from placement.models.workload import FEATURES


def feature_effects(
    workloads: pd.DataFrame, moe: pd.Series, catalog: Catalog, platform: str
) -> tuple[np.ndarray, pd.Series]:
    """Throughput factor (product over slowed features) and the unsupported-feature reason."""
    rules = catalog.platforms[platform].features
    factor = np.ones(len(workloads))
    unsupported = pd.Series("", index=workloads.index)
    for feature in FEATURES:
        rule = rules.get(feature)
        if rule is None or rule.support == "supported":
            continue
        needed = moe if feature == "moe" else workloads[f"needs_{feature}"]
        if rule.support == "slower":
            assert rule.throughput_factor is not None  # guaranteed by FeatureRule
            factor = np.where(needed, factor * rule.throughput_factor.value, factor)
        else:
            unsupported = unsupported.where(~needed, unsupported + f", {feature}")
    return factor, unsupported.str.removeprefix(", ")

"""How a platform's feature support slows a workload down or rules it out.

A feature the platform runs ``slower`` multiplies the workload's speed on it by either

* a ``throughput_factor`` (the MoE kernels Trainium2 lacks), or
* for a missing attention kernel (flash attention), a factor of the context ``x = L / L_0``:
  with ``a`` the attention's share of a step at the benchmark context and ``k`` the slowdown of
  attention without the kernel, a platform with the kernel spends ``h(x) = (1 - a) + a x`` of its
  benchmark step time, one without ``t(x) = ((1 - a) + k a x) / ((1 - a) + k a)`` of its own.
  The reference's figures were measured without the kernel, at ``L_0``, so the factor is
  ``min(1, h(x) / t(x))``: none at the benchmark context, growing with the attention's share.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from placement.models.catalog import Catalog, FeatureRule
from placement.models.workload import FEATURES


def attention_factor(
    rule: FeatureRule, attention_share: np.ndarray, context_ratio: np.ndarray
) -> np.ndarray:
    """Speed kept without an attention kernel, at ``context_ratio = L / L_0`` (see above)."""
    assert rule.attention_slowdown is not None  # guaranteed by FeatureRule
    k, a = rule.attention_slowdown.value, attention_share
    with_kernel = (1 - a) + a * context_ratio
    without = ((1 - a) + k * a * context_ratio) / ((1 - a) + k * a)
    return np.asarray(np.minimum(1.0, with_kernel / without))


def feature_effects(
    workloads: pd.DataFrame,
    moe: pd.Series,
    catalog: Catalog,
    platform: str,
    context_ratio: pd.Series,
    attention_share: pd.Series,
) -> tuple[np.ndarray, pd.Series]:
    """Throughput factor (product over slowed features) and the unsupported-feature reason."""
    rules = catalog.platforms[platform].features
    factor = np.ones(len(workloads))
    unsupported = pd.Series("", index=workloads.index)
    for feature in FEATURES:
        rule = rules.get(feature)
        if rule is None or rule.support == "supported":
            continue
        needed = (moe if feature == "moe" else workloads[f"needs_{feature}"]).to_numpy()
        if rule.support == "slower":
            if rule.attention_slowdown is not None:
                slower = attention_factor(
                    rule, attention_share.to_numpy(), context_ratio.to_numpy()
                )
            else:
                assert rule.throughput_factor is not None  # guaranteed by FeatureRule
                slower = np.full(len(workloads), rule.throughput_factor.value)
            factor = np.where(needed, factor * slower, factor)
        else:
            unsupported = unsupported.where(~needed, unsupported + f", {feature}")
    return factor, unsupported.str.removeprefix(", ")

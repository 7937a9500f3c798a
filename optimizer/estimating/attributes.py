"""Per-workload figures that do not depend on the accelerator: memory need, model class, MoE,
and the work in reference-accelerator chip-hours."""

from __future__ import annotations

import numpy as np
import pandas as pd

from placement.models.catalog import Catalog, ThroughputAnchor


def _interp_log(
    anchors: list[ThroughputAnchor], params_b: np.ndarray, elasticity: float | None
) -> np.ndarray:
    """Interpolate a figure in log(params); beyond the anchors clamp, or extrapolate as params^e."""
    xs = np.log([a.params_b for a in anchors])
    ys = np.array([a.figure.value for a in anchors])
    order = np.argsort(xs)
    xs, ys = xs[order], ys[order]
    logp = np.log(params_b)
    if elasticity is None:
        return np.interp(logp, xs, ys)
    # Log-log inside the anchors; outside, scale from the nearest anchor by (P / P_anchor)^e.
    inside = np.exp(np.interp(logp, xs, np.log(ys)))
    below = ys[0] * np.exp(elasticity * (logp - xs[0]))
    above = ys[-1] * np.exp(elasticity * (logp - xs[-1]))
    return np.where(logp < xs[0], below, np.where(logp > xs[-1], above, inside))


def by_class(
    curves: dict[str, list[ThroughputAnchor]],
    model_class: pd.Series,
    params_b: pd.Series,
    elasticity: float | None,
) -> np.ndarray:
    out = np.empty(len(params_b))
    for cls, idx in model_class.groupby(model_class, sort=False).groups.items():
        pos = model_class.index.get_indexer(idx)
        anchors = curves.get(str(cls), curves["default"])
        out[pos] = _interp_log(anchors, params_b.to_numpy()[pos], elasticity)
    return out


def workload_attributes(workloads: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """Per-workload figures that do not depend on the accelerator.

    Returns memory need (GB), model class, MoE flag and the work in reference chip-hours.
    """
    mem = catalog.memory
    wm = catalog.workload_model
    families = workloads["model_family"]
    family_table = pd.DataFrame(
        {
            name: {"model_class": catalog.family(name).model_class, "moe": catalog.family(name).moe}
            for name in families.unique()
        }
    ).T
    model_class = families.map(family_table["model_class"]).astype(str)
    moe = families.map(family_table["moe"]).astype(bool) | workloads["needs_moe"]
    bytes_pp = workloads["precision"].map(mem.bytes_per_param).astype(float)
    params = workloads["params_b"].astype(float)
    training = workloads["kind"].eq("training")

    inference_gb = params * bytes_pp * (1 + mem.inference_overhead_fraction.value)
    training_gb = (
        params
        * (2 * bytes_pp + mem.training_optimizer_bytes_per_param.value)
        * (1 + mem.training_activation_overhead_fraction.value)
    )
    memory_gb = np.where(training, training_gb, inference_gb)

    train_rate = by_class(
        wm.training_tokens_per_reference_chip_hour,
        model_class,
        params,
        wm.size_elasticity_outside_anchors.value,
    )
    anchor = wm.inference_tokens_per_s_per_reference_chip
    anchor_bytes = anchor.params_b * mem.bytes_per_param[wm.inference_anchor_precision]
    # Decoding is memory-bandwidth bound: tokens/s scale inversely with the bytes of weights read.
    infer_rate = anchor.figure.value * anchor_bytes / (params * bytes_pp) * 3600.0
    tokens = workloads["monthly_tokens_b"].astype(float) * 1e9
    rate = np.where(training, train_rate, infer_rate)
    reference_chip_hours = workloads["h100_gpu_hours"].astype(float).fillna(tokens / rate)
    return pd.DataFrame(
        {
            "model_class": model_class,
            "moe": moe,
            "memory_gb": memory_gb,
            "reference_chip_hours": reference_chip_hours,
        },
        index=workloads.index,
    )

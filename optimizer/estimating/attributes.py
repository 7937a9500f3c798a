"""Per-workload figures that do not depend on the accelerator.

For workload j (P its parameters in billions, P_a the active ones, b the bytes per parameter of
its precision; figures at the catalog's points):

* active parameters ``P_a``: the ``active_params_b`` column, else the family's published ratio
  at the nearest listed size (``families.<f>.active_params``), else ``P``. Compute, decode
  throughput and TTFT scale with ``P_a``; memory with ``P``.
* memory need (GB): inference ``P b (1 + kv)``; full training ``P (2b + opt)(1 + act)``;
  adapter training (``lora``, ``lora_multi_rank``, ``qlora``) the frozen base plus the adapters
  with their gradients and optimizer state, ``(P b + f P (2 b_bf16 + opt))(1 + act)``;
* work ``W_j`` in reference-accelerator chip-hours: the measured ``h100_gpu_hours``, or
  - training: tokens / the class curve's tokens per chip-hour at ``P_a``, times the adapters'
    compute share of a full fine-tune;
  - inference: output tokens / decode tokens per chip-hour, decode being memory-bound
    (``decode(70B int4) * bytes(70B int4) / (P_a b)``), plus input tokens / prefill tokens per
    chip-hour, prefill being compute-bound (``prefill(70B) * 70 / P_a``). Without
    ``input_token_share`` every token is priced at decode, as the reference's figures are;
* context ``L``: the ``context_tokens`` column, else the benchmark context ``L_0`` of its kind;
  ``x = L / L_0``. Attention's share of a step grows linearly with the context, so a token at
  context ``x`` costs ``c(x) = (1 - a) + a x`` of a benchmark token (``a``: attention's share at
  ``L_0``, of a training step or of a prompt's prefill). Training work and prefill work are
  multiplied by ``c(x)``; decode is priced at its benchmark rate (its KV-cache reads are not
  modelled).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from placement.models.catalog import Catalog, Family, ThroughputAnchor

ADAPTER_FEATURES = ("lora", "lora_multi_rank", "qlora")
SECONDS_PER_HOUR = 3600.0


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


def _active_ratio(family: Family, params: np.ndarray) -> np.ndarray:
    """The share of parameters active per token: the published ratio nearest in log size."""
    if not family.moe or not family.active_params:
        return np.ones(len(params))
    sizes = np.log([a.params_b for a in family.active_params])
    ratios = np.array([a.active_params_b / a.params_b for a in family.active_params])
    nearest = np.abs(np.log(params)[:, None] - sizes[None, :]).argmin(axis=1)
    return np.asarray(ratios[nearest])


def active_params(workloads: pd.DataFrame, catalog: Catalog) -> pd.Series:
    """``P_a`` per workload (see the module's description)."""
    params = workloads["params_b"].astype(float)
    ratio = np.ones(len(workloads))
    families = workloads["model_family"]
    for name, idx in families.groupby(families, sort=False).groups.items():
        pos = families.index.get_indexer(idx)
        ratio[pos] = _active_ratio(catalog.family(str(name)), params.to_numpy()[pos])
    given = workloads["active_params_b"].astype(float)
    return given.fillna(params * ratio)


def _adapter_compute_share(workloads: pd.DataFrame, catalog: Catalog) -> np.ndarray:
    """The compute of an adapter fine-tune as a share of a full fine-tune (1 without one)."""
    adapters = catalog.workload_model.adapters
    if adapters is None:
        return np.ones(len(workloads))
    lora = workloads["needs_lora"] | workloads["needs_lora_multi_rank"]
    return np.where(
        workloads["needs_qlora"],
        adapters.qlora_compute_vs_full.value,
        np.where(lora, adapters.lora_compute_vs_full.value, 1.0),
    )


def _memory_gb(workloads: pd.DataFrame, catalog: Catalog, adapter: pd.Series) -> np.ndarray:
    mem = catalog.memory
    params = workloads["params_b"].astype(float)
    bytes_pp = workloads["precision"].map(mem.bytes_per_param).astype(float)
    optimizer = mem.training_optimizer_bytes_per_param.value
    activations = 1 + mem.training_activation_overhead_fraction.value
    inference_gb = params * bytes_pp * (1 + mem.inference_overhead_fraction.value)
    full_gb = params * (2 * bytes_pp + optimizer) * activations
    adapters = catalog.workload_model.adapters
    if adapters is None:
        adapter_gb = full_gb
    else:
        state = 2 * mem.bytes_per_param[adapters.adapter_precision] + optimizer
        trainable = params * adapters.trainable_param_fraction.value
        adapter_gb = (params * bytes_pp + trainable * state) * activations
    training_gb = np.where(adapter, adapter_gb, full_gb)
    return np.asarray(np.where(workloads["kind"].eq("training"), training_gb, inference_gb))


def _inference_rates(
    workloads: pd.DataFrame, catalog: Catalog, active: pd.Series
) -> tuple[np.ndarray, np.ndarray | None]:
    """Decode and prefill tokens per reference chip-hour (prefill None if not in the catalog)."""
    wm = catalog.workload_model
    mem = catalog.memory
    bytes_pp = workloads["precision"].map(mem.bytes_per_param).astype(float)
    anchor = wm.inference_tokens_per_s_per_reference_chip
    anchor_bytes = anchor.params_b * mem.bytes_per_param[wm.inference_anchor_precision]
    # Decoding is memory-bandwidth bound: tokens/s scale inversely with the bytes read per token.
    decode = anchor.figure.value * anchor_bytes / (active * bytes_pp) * SECONDS_PER_HOUR
    prefill_anchor = wm.inference_prefill_tokens_per_s_per_reference_chip
    if prefill_anchor is None:
        return decode.to_numpy(), None
    # Prefill is compute-bound: tokens/s scale inversely with the active parameters.
    prefill = prefill_anchor.figure.value * prefill_anchor.params_b / active * SECONDS_PER_HOUR
    return decode.to_numpy(), prefill.to_numpy()


def workload_attributes(workloads: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """Per-workload figures that do not depend on the accelerator (see the module's text).

    Returns the model class, MoE and adapter flags, total and active parameters, memory need
    (GB), the work in reference chip-hours, the context relative to the benchmark's ``x`` and
    the cost of a token at that context ``c(x)``.
    """
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
    training = workloads["kind"].eq("training")
    adapter = training & workloads[[f"needs_{f}" for f in ADAPTER_FEATURES]].any(axis=1)
    active = active_params(workloads, catalog)

    train_rate = by_class(
        wm.training_tokens_per_reference_chip_hour,
        model_class,
        active,
        wm.size_elasticity_outside_anchors.value,
    )
    context_ratio = _context_ratio(workloads, catalog, training)
    attention_share = _attention_share(catalog, training)
    context_cost = _context_cost(context_ratio, attention_share).to_numpy()
    decode, prefill = _inference_rates(workloads, catalog, active)
    tokens = workloads["monthly_tokens_b"].astype(float).to_numpy() * 1e9
    share = workloads["input_token_share"].astype(float).fillna(0.0).to_numpy()
    if prefill is None:
        inference_work = tokens / decode
    else:
        inference_work = tokens * (1 - share) / decode + tokens * share * context_cost / prefill
    training_work = tokens / train_rate * context_cost * _adapter_compute_share(workloads, catalog)
    from_tokens = np.where(training, training_work, inference_work)
    reference_chip_hours = (
        workloads["h100_gpu_hours"]
        .astype(float)
        .fillna(pd.Series(from_tokens, index=workloads.index))
    )

    return pd.DataFrame(
        {
            "model_class": model_class,
            "moe": moe,
            "adapter": adapter,
            "active_params_b": active,
            "memory_gb": _memory_gb(workloads, catalog, adapter),
            "reference_chip_hours": reference_chip_hours,
            "context_ratio": context_ratio,
            "attention_share": attention_share,
            "context_cost": context_cost,
        },
        index=workloads.index,
    )


def _context_ratio(workloads: pd.DataFrame, catalog: Catalog, training: pd.Series) -> pd.Series:
    """``L / L_0``: the workload's context over the benchmark context of its kind (1 where it
    gives none, or where the catalog records no benchmark context)."""
    wm = catalog.workload_model
    train_l0, infer_l0 = wm.training_benchmark_context_tokens, wm.inference_benchmark_context_tokens
    if train_l0 is None or infer_l0 is None:
        return pd.Series(1.0, index=workloads.index)
    benchmark = np.where(training, train_l0.value, infer_l0.value)
    return (workloads["context_tokens"].astype(float) / benchmark).fillna(1.0)


def _attention_share(catalog: Catalog, training: pd.Series) -> pd.Series:
    """``a``: attention's share of a step at the benchmark context of the workload's kind (0
    where the catalog records none: the context then changes nothing)."""
    wm = catalog.workload_model
    train_a = wm.training_attention_share_at_benchmark_context
    infer_a = wm.inference_attention_share_at_benchmark_context
    if train_a is None or infer_a is None:
        return pd.Series(0.0, index=training.index)
    return pd.Series(np.where(training, train_a.value, infer_a.value), index=training.index)


def _context_cost(context_ratio: pd.Series, share: pd.Series) -> pd.Series:
    """``c(x) = (1 - a) + a x``: a token's compute at context ``x`` relative to a benchmark
    token's."""
    return (1 - share) + share * context_ratio

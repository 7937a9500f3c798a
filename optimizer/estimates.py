"""Estimates per (workload, accelerator, pricing) option, vectorised with pandas.

This is the only place that turns workloads and the catalog into numbers. The model builder reads
the ``options`` frame alone, and explanations read the same frame, so what the solver optimised and
what the plan explains cannot disagree.

For workload j on accelerator a (all figures at the catalog's point estimates):

* memory need (GB): inference ``P * b(prec) * (1 + kv)``; training
  ``P * (2 b(prec) + optimizer) * (1 + act)``, with P in billions of parameters;
* fit chips ``ceil(need / (mem_a * usable))``; deployment chips: fit chips rounded up to the
  deployment unit, and to whole nodes beyond one node;
* work W_j in reference-accelerator chip-hours: the measured ``h100_gpu_hours``, or tokens divided
  by the reference throughput at the model's class and size;
* speed ``s_ja``: training or inference throughput relative to the reference accelerator, times the
  serving efficiency (inference), times the throughput factor of every feature the platform runs
  slower; chip-hours ``W_j / s_ja``; online inference instead keeps enough whole deployments up all
  month: ``chips = d * max(1, ceil(W_j * peak / (H * d * s_ja)))``, ``chip_hours = chips * H``;
* TTFT ``ttft7b_a * (P / 7)^e / fit^t / factor`` (inference only);
* porting readiness: weeks until the family runs on the platform (support lag + porting + migration
  lead if the platform is not adopted yet).

An option is infeasible when memory cannot be met within the catalog, a feature is unsupported,
TTFT misses the SLO, the family is not ready by ``needed_in_weeks``, a pin excludes it, or it
would keep more chips busy all month (``chip_hours / H``) than
``economics.max_busy_chips_per_workload``; each infeasible option carries a sentence saying why.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from placement.models.catalog import Catalog, ThroughputAnchor
from placement.models.workload import FEATURES

OPTION_COLUMNS: tuple[str, ...] = (
    "workload",
    "workload_id",
    "family",
    "kind",
    "accelerator",
    "platform",
    "pricing",
    "pricing_kind",
    "feasible",
    "reason",
    "chips",
    "chip_hours",
    "rate_usd_per_chip_hour",
    "monthly_cost_usd",
    "ttft_ms",
    "needs_port",
    "needs_migration",
    "ready_weeks",
    "memory_gb",
    "fit_chips",
    "sizing",
)


@dataclass(frozen=True)
class Estimates:
    """Per-option numbers for every workload.

    ``options`` has one row per (workload, accelerator, pricing) with ``OPTION_COLUMNS``;
    ``workloads`` is the inventory frame the estimates came from (not modified).
    """

    workloads: pd.DataFrame
    options: pd.DataFrame


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


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


def _by_class(
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

    train_rate = _by_class(
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


def _feature_effects(
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


def _ttft_7b_ms(catalog: Catalog, accelerator: str) -> float:
    """The accelerator's 7B TTFT at the catalog's start mode, after SDK graph caching if any."""
    acc = catalog.accelerators[accelerator]
    platform = catalog.platforms[acc.platform]
    mode = catalog.latency.start_mode
    caching = platform.graph_caching
    if (
        caching is not None
        and platform.sdk_version is not None
        and _version_tuple(platform.sdk_version) >= _version_tuple(caching.from_sdk_version)
    ):
        reference = catalog.accelerators[catalog.reference_accelerator]
        ref_ms = reference.ttft_7b_ms_warm if mode == "warm" else reference.ttft_7b_ms_cold
        return caching.ttft_ratio_to_reference.value * ref_ms.value
    return (acc.ttft_7b_ms_warm if mode == "warm" else acc.ttft_7b_ms_cold).value


def _fmt(values: pd.Series | np.ndarray, digits: int = 0) -> pd.Series:
    series = pd.Series(values)
    if digits == 0:
        return series.round(0).astype("int64").astype(str)
    return series.round(digits).astype(str)


def _sizing(
    memory_gb: pd.Series,
    fit_chips: np.ndarray,
    deploy: np.ndarray,
    replicas: np.ndarray,
    online: pd.Series,
    chip_gb: float,
    usable_gb: float,
    unit: int,
    node: int,
) -> pd.Series:
    """The memory-fit sentence, e.g. "needs 812 GB: 15 chips of 64 GB (57.6 usable), rounded to
    16 for 4-chip deployments"."""
    index = memory_gb.index
    fit = pd.Series(fit_chips, index=index)
    deployed = pd.Series(deploy, index=index)
    text = (
        "needs "
        + _fmt(memory_gb.to_numpy()).set_axis(index)
        + " GB: "
        + fit.astype(str)
        + f" chips of {chip_gb:g} GB ({usable_gb:g} usable)"
    )
    rounded = deployed.ne(fit)
    whole_nodes = (deployed > node) & (node != unit)
    text = text.where(
        ~rounded,
        text
        + ", rounded to "
        + deployed.astype(str)
        + (
            pd.Series(f" for {unit}-chip instances" if unit > 1 else "", index=index).where(
                ~whole_nodes, f" for whole {node}-chip nodes"
            )
        ),
    )
    many = online & (pd.Series(replicas, index=index) > 1)
    return text.where(
        ~many,
        text
        + ", x "
        + pd.Series(replicas, index=index).astype("int64").astype(str)
        + " replicas for the traffic",
    )


def accelerator_estimates(
    workloads: pd.DataFrame, attrs: pd.DataFrame, catalog: Catalog, accelerator: str
) -> pd.DataFrame:
    """Chips, chip-hours, TTFT and feasibility of every workload on one accelerator."""
    acc = catalog.accelerators[accelerator]
    platform = catalog.platforms[acc.platform]
    econ = catalog.economics
    hours = econ.hours_per_month.value
    params = workloads["params_b"].astype(float)
    inference = workloads["kind"].eq("inference")
    online = inference & workloads["serving"].eq("online")

    usable_gb = acc.memory_gb_per_chip.value * catalog.memory.usable_memory_fraction.value
    fit_chips = np.maximum(1, np.ceil(attrs["memory_gb"] / usable_gb - 1e-9)).astype("int64")
    unit = acc.deployment_unit_chips
    node = acc.node_chips
    deploy = np.ceil(fit_chips / unit).astype("int64") * unit
    deploy = np.where(deploy > node, np.ceil(deploy / node).astype("int64") * node, deploy)

    factor, unsupported = _feature_effects(workloads, attrs["moe"], catalog, acc.platform)
    train_speed = _by_class(
        acc.training_throughput_vs_reference, attrs["model_class"], params, None
    )
    infer_speed = (
        acc.inference_throughput_vs_reference.value * acc.inference_serving_efficiency.value
    )
    speed = np.where(inference, infer_speed, train_speed) * factor
    work_chip_hours = attrs["reference_chip_hours"].to_numpy() / speed

    peak = catalog.workload_model.online_peak_to_mean_ratio.value
    replicas = np.maximum(1, np.ceil(work_chip_hours * peak / (hours * deploy) - 1e-9))
    online_chips = (replicas * deploy).astype("int64")
    chips = np.where(online, online_chips, deploy)
    chip_hours = np.where(online, online_chips * hours, work_chip_hours)
    sizing = _sizing(
        attrs["memory_gb"],
        fit_chips,
        deploy,
        replicas,
        online,
        acc.memory_gb_per_chip.value,
        usable_gb,
        unit,
        node,
    )

    lat = catalog.latency
    ttft = (
        _ttft_7b_ms(catalog, accelerator)
        * (params / lat.reference_params_b.value) ** lat.params_exponent.value
        / fit_chips**lat.tensor_parallel_exponent.value
        / factor
    )
    ttft = pd.Series(np.where(inference, ttft, np.nan), index=workloads.index)

    # Porting readiness on platforms that need each family ported.
    families = workloads["model_family"]
    pending = {f: catalog.family_support(f, acc.platform) == "pending" for f in families.unique()}
    family_pending = families.map(pending).astype(bool)
    needs_port = platform.porting_required & ~workloads["neuron_ready"].astype(bool)
    lag = np.where(family_pending & needs_port, platform.support_lag_weeks.value, 0.0)
    porting = np.where(needs_port, platform.porting_weeks_per_family.value, 0.0)
    lead = 0.0 if platform.adopted else platform.migration_lead_weeks.value
    ready_weeks = lag + porting + lead

    reasons: list[pd.Series] = []
    reasons.append(
        pd.Series(
            "unsupported on " + acc.platform + ": " + unsupported, index=workloads.index
        ).where(unsupported.ne(""), "")
    )
    slo = workloads["ttft_slo_ms"].astype(float)
    late_ttft = inference & slo.notna() & (ttft > slo)
    reasons.append(
        ("TTFT " + _fmt(ttft, 1) + " ms exceeds the " + _fmt(slo.fillna(0), 1) + " ms SLO").where(
            late_ttft, ""
        )
    )
    needed = workloads["needed_in_weeks"].astype(float)
    late = needed.notna() & (ready_weeks > needed + 1e-9)
    reasons.append(
        (
            "ready on "
            + acc.platform
            + " in "
            + _fmt(ready_weeks, 1)
            + " weeks (support lag "
            + _fmt(lag, 1)
            + " + porting "
            + _fmt(porting, 1)
            + " + migration lead "
            + _fmt(np.full(len(workloads), lead), 1)
            + ") but needed in "
            + _fmt(needed.fillna(0), 1)
        ).where(late, "")
    )
    limit = catalog.economics.max_busy_chips_per_workload
    if limit is not None:
        busy = pd.Series(chip_hours / hours, index=workloads.index)
        reasons.append(
            (
                "needs "
                + _fmt(busy, 0)
                + f" chips busy all month, beyond the plausible {limit.value:,} "
                "(economics.max_busy_chips_per_workload): check its volume and size"
            ).where(busy > limit.value, "")
        )
    pinned = workloads["pinned_accelerator"]
    pin_other = pinned.notna() & pinned.ne(accelerator)
    reasons.append(("pinned to " + pinned.fillna("") + " by policy").where(pin_other, ""))
    # Join the non-empty reasons with "; " without a per-row Python call.
    reason = reasons[0]
    for more in reasons[1:]:
        reason = reason + "; " + more
    reason = reason.str.replace(r"(?:; )+", "; ", regex=True).str.strip("; ")

    return pd.DataFrame(
        {
            "workload": workloads.index,
            "workload_id": workloads["id"],
            "family": workloads["model_family"],
            "kind": workloads["kind"],
            "accelerator": accelerator,
            "platform": acc.platform,
            "feasible": reason.eq(""),
            "reason": reason.where(reason.ne(""), None),
            "chips": chips,
            "chip_hours": chip_hours,
            "ttft_ms": ttft,
            "needs_port": needs_port,
            "needs_migration": not platform.adopted,
            "ready_weeks": ready_weeks,
            "memory_gb": attrs["memory_gb"],
            "fit_chips": fit_chips,
            "sizing": sizing,
        },
        index=workloads.index,
    )


def estimate(workloads: pd.DataFrame, catalog: Catalog) -> Estimates:
    """Every (workload, accelerator, pricing) option with its numbers and feasibility."""
    attrs = workload_attributes(workloads, catalog)
    frames = []
    for accelerator, acc in catalog.accelerators.items():
        per_acc = accelerator_estimates(workloads, attrs, catalog, accelerator)
        on_demand_rate = acc.on_demand_usd_per_chip_hour.value
        for pricing in catalog.pricing_for(accelerator):
            option = catalog.pricing_options[pricing]
            rate = on_demand_rate * (1 - option.discount_vs_on_demand.value)
            frames.append(
                per_acc.assign(
                    pricing=pricing,
                    pricing_kind=option.kind,
                    rate_usd_per_chip_hour=rate,
                    monthly_cost_usd=per_acc["chip_hours"] * rate,
                )
            )
    options = pd.concat(frames, ignore_index=True)
    options = options.sort_values(["workload", "accelerator", "pricing"], kind="stable")
    options = options.reset_index(drop=True)[list(OPTION_COLUMNS)]
    return Estimates(workloads=workloads, options=options)


def least_busy_chips(options: pd.DataFrame, hours_per_month: float) -> float:
    """The chips the inventory keeps busy at the least: each placeable workload on its
    feasible option with the fewest chip-hours, over the hours of a month."""
    feasible = options[options["feasible"]]
    if feasible.empty:
        return 0.0
    return float(feasible.groupby("workload")["chip_hours"].min().sum() / hours_per_month)

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

from placement.estimating.attributes import by_class, workload_attributes
from placement.estimating.features import feature_effects
from placement.estimating.latency import ttft_7b_ms
from placement.models.catalog import Catalog

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

    factor, unsupported = feature_effects(workloads, attrs["moe"], catalog, acc.platform)
    train_speed = by_class(
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
        ttft_7b_ms(catalog, accelerator)
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

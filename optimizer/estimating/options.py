"""Estimates per (workload, accelerator, pricing) option, vectorised with pandas.

This is the only place that turns workloads and the catalog into numbers. The model builder reads
the ``options`` frame alone, and explanations read the same frame, so what the solver optimised and
what the plan explains cannot disagree.

For workload j on accelerator a (all figures at the catalog's point estimates), from the
per-workload attributes (``attributes``: memory need, active parameters, work ``W_j`` in
reference chip-hours, context):

* fit chips ``ceil(need / (mem_a * usable))``;
* speed ``s_ja``: training or inference throughput relative to the reference accelerator, times the
  serving efficiency (online inference only: batch jobs fill their chips without continuous
  batching), times the factor of every feature the platform runs slower
  (``features``; a missing attention kernel only beyond the benchmark context); work on ``a``:
  ``W_j / s_ja`` chip-hours;
* the deployment shape (``shapes``): replicas of a valid replica size that hold the model, the
  cheapest that meets the SLO (under load, for online serving: ``latency``);
* porting readiness: weeks until the family runs on the platform (support lag + porting + migration
  lead if the platform is not adopted yet); a platform or family in use today (``current``) needs
  neither;
* switching: the one-off cost of moving the workload off the accelerator it runs on today.

An option is infeasible when a feature is unsupported, no shape meets the TTFT SLO, the family is
not ready by ``needed_in_weeks``, a pin excludes it, or it would keep more chips busy all month
(``chip_hours / H``) than ``economics.max_busy_chips_per_workload``; each infeasible option
carries a sentence saying why.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from placement.estimating.attributes import by_class, workload_attributes
from placement.estimating.current import CurrentState, current_state
from placement.estimating.economics.one_offs import switching_usd
from placement.estimating.economics.rates import discounted_rate
from placement.estimating.features import feature_effects
from placement.estimating.instances import InstanceMenu, instance_menu, instance_mix
from placement.estimating.latency import ttft_per_chip_power
from placement.estimating.profiles import LoadFigures, load_figures, workload_profiles
from placement.estimating.shapes import ShapeChoice, ShapeInputs, choose_shapes
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
    "switching_usd",
    "memory_gb",
    "fit_chips",
    "sizing",
    "replica_chips",
    "replicas",
    "utilization",
    "ttft_unloaded_ms",
    "load_profile",
    "base_fraction",
    "run_hours",
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


def _replica_words(replicas: pd.Series, size: pd.Series, name: str, node: int) -> pd.Series:
    """``2 replicas of 8 h100 (tensor-parallel 8)``; beyond a node, pipeline stages too."""
    count = replicas.astype(str) + np.where(replicas.eq(1), " replica of ", " replicas of ")
    tp = size.clip(upper=node)
    stages = (size // node).clip(lower=1)
    parallel = pd.Series(
        np.where(
            size > node,
            "tensor-parallel " + tp.astype(str) + " x " + stages.astype(str) + " pipeline stages",
            "tensor-parallel " + size.astype(str),
        ),
        index=size.index,
    )
    return count + size.astype(str) + f" {name} (" + parallel + ")"


def _memory_basis(workloads: pd.DataFrame, attrs: pd.DataFrame) -> pd.Series:
    """What the memory need holds, where it is not simply the whole model: `` (frozen bf16 base
    + adapters)`` for LoRA/QLoRA, `` (46.7B parameters, 12.9B active)`` for a sparse model."""
    params = workloads["params_b"].astype(float)
    active = attrs["active_params_b"].astype(float)
    adapters = " (frozen " + workloads["precision"].astype(str) + " base + adapters)"
    sparse = (
        " (" + params.map("{:g}B parameters".format) + ", " + active.map("{:.3g}B active)".format)
    )
    basis = pd.Series("", index=workloads.index)
    basis = basis.where(~(active < params), sparse)
    return basis.where(~attrs["adapter"].astype(bool), adapters)


def _load_words(profiles: pd.Series, load: LoadFigures, hours: float) -> pd.Series:
    """How the chips are busy over the month: ``; diurnal, 64% of the peak chips on average``
    for serving that scales with traffic, ``; flexible: runs on 192 chips for 3.2 h a month`` for
    work; nothing for a deployment that holds its chips all month."""
    index = profiles.index
    serving = ~np.isnan(load.base_fraction)
    share = load.chip_hours / (np.maximum(load.chips, 1) * hours)
    scaled = pd.Series(serving & (share < 1 - 1e-9), index=index)
    words = pd.Series("", index=index).where(
        ~scaled,
        "; "
        + profiles
        + ", "
        + _fmt(share * 100).set_axis(index)
        + "% of the peak chips on average",
    )
    work = pd.Series(~serving, index=index)
    return words.where(
        ~work,
        "; "
        + profiles
        + ": runs on "
        + pd.Series(load.chips, index=index).astype(str)
        + pd.Series(np.where(load.chips == 1, " chip for ", " chips for "), index=index)
        + _fmt(np.nan_to_num(load.run_hours), 1).set_axis(index)
        + " h a month",
    )


def _instance_words(mix: dict[str, int], menu: InstanceMenu) -> str:
    """``{"p5.48xlarge": 2}`` as "2 x p5.48xlarge (8 chips each)"."""
    chips = dict(menu.sizes)
    return " + ".join(f"{n} x {name} ({chips[name]} chips each)" for name, n in mix.items())


def _sizing(
    memory_gb: pd.Series,
    basis: pd.Series,
    fit_chips: np.ndarray,
    choice: ShapeChoice,
    online: pd.Series,
    name: str,
    chip_gb: float,
    usable_gb: float,
    menu: InstanceMenu,
    node: int,
    target: float | None,
) -> pd.Series:
    """The sizing sentence, e.g. "needs 168 GB: 3 chips of 80 GB (72 usable); 2 replicas of 8
    h100 (tensor-parallel 8), at 61% of capacity at peak (target 70%)"."""
    index = memory_gb.index
    fit = pd.Series(fit_chips, index=index)
    replicas = pd.Series(choice.replicas, index=index)
    size = pd.Series(choice.replica_chips, index=index)
    billed = pd.Series(choice.chips, index=index)
    text = (
        "needs "
        + _fmt(memory_gb.to_numpy()).set_axis(index)
        + " GB"
        + basis
        + ": "
        + fit.astype(str)
        + np.where(fit.eq(1), " chip", " chips")
        + f" of {chip_gb:g} GB ({usable_gb:g} usable); "
        + _replica_words(replicas, size, name, node)
    )
    rounded = billed.ne(replicas * size)
    bought = {
        (r, s): _instance_words(instance_mix(r, s, menu), menu)
        for r, s in set(zip(replicas[rounded], size[rounded], strict=True))
    }
    words = pd.Series(
        [bought.get((r, s), "") for r, s in zip(replicas, size, strict=True)], index=index
    )
    text = text.where(~rounded, text + ", billed as " + billed.astype(str) + " chips: " + words)
    utilization = pd.Series(choice.utilization, index=index)
    loaded = online & utilization.notna()
    at = (
        ", at "
        + (utilization * 100).round(0).astype("Int64").astype(str)
        + "% of capacity at peak"
        + (f" (target {target:.0%})" if target is not None else "")
    )
    return text.where(~loaded, text + at)


def accelerator_estimates(
    workloads: pd.DataFrame,
    attrs: pd.DataFrame,
    catalog: Catalog,
    accelerator: str,
    state: CurrentState | None = None,
) -> pd.DataFrame:
    """Chips, chip-hours, TTFT and feasibility of every workload on one accelerator.

    ``state`` (where the team runs today; by default read from the workloads): a platform in
    use is adopted, a family in use on a porting platform is ported there."""
    state = state or current_state(workloads, catalog)
    acc = catalog.accelerators[accelerator]
    platform = catalog.platforms[acc.platform]
    econ = catalog.economics
    wm = catalog.workload_model
    hours = econ.hours_per_month.value
    inference = workloads["kind"].eq("inference")
    online = inference & workloads["serving"].eq("online")

    usable_gb = acc.memory_gb_per_chip.value * catalog.memory.usable_memory_fraction.value
    fit_chips = np.maximum(1, np.ceil(attrs["memory_gb"] / usable_gb - 1e-9)).astype("int64")

    factor, unsupported = _feature_effects(workloads, attrs, catalog, accelerator)
    train_speed = by_class(
        acc.training_throughput_vs_reference, attrs["model_class"], attrs["active_params_b"], None
    )
    # Continuous batching is a serving-stack matter: offline batch jobs fill the chips
    # themselves, so only online serving pays the serving efficiency.
    infer_speed = acc.inference_throughput_vs_reference.value * np.where(
        online, acc.inference_serving_efficiency.value, 1.0
    )
    speed = np.where(inference, infer_speed, train_speed) * factor
    work_chip_hours = attrs["reference_chip_hours"].to_numpy() / speed

    target = wm.online_target_utilization.value if wm.online_target_utilization else None
    peak = workloads["peak_to_mean"].astype(float).fillna(wm.online_peak_to_mean_ratio.value)
    one_chip = _one_chip_ttft(attrs, catalog, accelerator, factor)
    slo = workloads["ttft_slo_ms"].astype(float)
    choice = choose_shapes(
        ShapeInputs(
            fit_chips=fit_chips.to_numpy(),
            work_chip_hours=work_chip_hours,
            online=online.to_numpy(),
            inference=inference.to_numpy(),
            slo_ms=np.where(inference, slo, np.nan),
            peak_to_mean=peak.to_numpy(),
            ttft_one_chip_ms=np.where(inference, one_chip, np.nan),
            shapes=acc.replica_shapes(),
            menu=instance_menu(acc),
            hours=hours,
            tensor_parallel_exponent=catalog.latency.tensor_parallel_exponent.value,
            target_utilization=target,
        )
    )
    profiles = workload_profiles(workloads, catalog)
    load = load_figures(
        profiles,
        catalog,
        choice.chips,
        choice.chip_hours,
        choice.replica_chips,
        choice.replicas,
        peak.to_numpy(),
        instance_menu(acc),
    )
    chip_hours = load.chip_hours
    sizing = _sizing(
        attrs["memory_gb"],
        _memory_basis(workloads, attrs),
        fit_chips.to_numpy(),
        choice,
        online,
        accelerator,
        acc.memory_gb_per_chip.value,
        usable_gb,
        instance_menu(acc),
        acc.node_chips,
        target,
    ) + _load_words(profiles, load, hours)
    ttft = pd.Series(choice.ttft_ms, index=workloads.index)

    # Porting readiness on platforms that need each family ported.
    families = workloads["model_family"]
    pending = {f: catalog.family_support(f, acc.platform) == "pending" for f in families.unique()}
    family_pending = families.map(pending).astype(bool)
    in_use = families.map(lambda f: (f, acc.platform) in state.ported).astype(bool)
    needs_port = platform.porting_required & ~workloads["neuron_ready"].astype(bool) & ~in_use
    lag = np.where(family_pending & needs_port, platform.support_lag_weeks.value, 0.0)
    porting = np.where(needs_port, platform.porting_weeks_per_family.value, 0.0)
    adopted = state.adopted(catalog, acc.platform)
    lead = 0.0 if adopted else platform.migration_lead_weeks.value
    ready_weeks = lag + porting + lead

    reasons: list[pd.Series] = []
    reasons.append(
        pd.Series(
            "unsupported on " + acc.platform + ": " + unsupported, index=workloads.index
        ).where(unsupported.ne(""), "")
    )
    late_ttft = pd.Series(inference & slo.notna() & ~choice.meets_slo, index=workloads.index)
    reasons.append(
        (
            "TTFT "
            + _fmt(choice.best_ttft_ms, 1).set_axis(workloads.index)
            + " ms even unloaded on "
            + pd.Series(choice.best_replica_chips, index=workloads.index).astype(str)
            + " chips per replica exceeds the "
            + _fmt(slo.fillna(0), 1)
            + " ms SLO"
        ).where(late_ttft, "")
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
    if acc.max_chips is not None:
        over = pd.Series(load.chips > acc.max_chips, index=workloads.index)
        reasons.append(
            (
                "needs "
                + pd.Series(load.chips, index=workloads.index).astype(str)
                + f" chips at once, beyond the limit of {acc.max_chips} "
                f"(accelerators.{accelerator}.max_chips)"
            ).where(over, "")
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
            "chips": load.chips,
            "chip_hours": chip_hours,
            "ttft_ms": ttft,
            "needs_port": needs_port,
            "needs_migration": not adopted,
            "ready_weeks": ready_weeks,
            "switching_usd": switching_usd(workloads, catalog, accelerator),
            "memory_gb": attrs["memory_gb"],
            "fit_chips": fit_chips,
            "sizing": sizing,
            "replica_chips": choice.replica_chips,
            "replicas": load.replicas,
            "utilization": choice.utilization,
            "ttft_unloaded_ms": choice.ttft_unloaded_ms,
            "load_profile": profiles,
            "base_fraction": load.base_fraction,
            "run_hours": load.run_hours,
        },
        index=workloads.index,
    )


def estimate(workloads: pd.DataFrame, catalog: Catalog) -> Estimates:
    """Every (workload, accelerator, pricing) option with its numbers and feasibility."""
    attrs = workload_attributes(workloads, catalog)
    state = current_state(workloads, catalog)
    frames = []
    for accelerator in catalog.accelerators:
        per_acc = accelerator_estimates(workloads, attrs, catalog, accelerator, state)
        for pricing in catalog.payable_options(accelerator):
            option = catalog.pricing_options[pricing]
            rate = discounted_rate(catalog, pricing, accelerator)
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


def _feature_effects(
    workloads: pd.DataFrame, attrs: pd.DataFrame, catalog: Catalog, accelerator: str
) -> tuple[np.ndarray, pd.Series]:
    platform = catalog.accelerators[accelerator].platform
    return feature_effects(
        workloads,
        attrs["moe"],
        catalog,
        platform,
        attrs["context_ratio"],
        attrs["attention_share"],
    )


def _one_chip_ttft(
    attrs: pd.DataFrame, catalog: Catalog, accelerator: str, factor: np.ndarray
) -> np.ndarray:
    return ttft_per_chip_power(
        catalog,
        accelerator,
        attrs["active_params_b"].to_numpy(),
        (attrs["context_ratio"] * attrs["context_cost"]).to_numpy(),
        factor,
    )


def one_chip_ttft_ms(workloads: pd.DataFrame, catalog: Catalog, accelerator: str) -> np.ndarray:
    """The unloaded TTFT (ms) of each inference workload on a one-chip replica of the
    accelerator: the figure the reference's single-chip latencies describe."""
    attrs = workload_attributes(workloads, catalog)
    factor, _ = _feature_effects(workloads, attrs, catalog, accelerator)
    return _one_chip_ttft(attrs, catalog, accelerator, factor)

"""Re-check a plan from its own content, the inventory and the catalog alone.

Nothing here reads the solver or the model: memory need, readiness and capacity are recomputed
independently, so a bug in the estimates or the formulation shows up as a violation. Tests run it
after every solve; ``placement plan`` users can call it from Python.
"""

from __future__ import annotations

import math

import pandas as pd

from placement.models.catalog import Catalog
from placement.models.plan import OptionEvaluation, Plan

TOLERANCE_USD = 0.05  # plan figures are rounded to cents
RELATIVE = 1e-6


def _close(a: float, b: float, tol: float = TOLERANCE_USD) -> bool:
    return abs(a - b) <= max(tol, RELATIVE * max(abs(a), abs(b)))


def _memory_need(w: pd.Series, catalog: Catalog) -> float:
    """GB one replica must hold: weights (+ KV) to serve; weights, gradients, optimizer state
    and activations to train, or for LoRA/QLoRA the frozen base plus the adapters' state."""
    mem = catalog.memory
    b = mem.bytes_per_param[str(w["precision"])]
    params = float(w["params_b"])
    if w["kind"] != "training":
        return params * b * (1 + mem.inference_overhead_fraction.value)
    optimizer = mem.training_optimizer_bytes_per_param.value
    activations = 1 + mem.training_activation_overhead_fraction.value
    features = set(str(w["features"]).split(";")) if w["features"] else set()
    adapters = catalog.workload_model.adapters
    if adapters is not None and features & {"lora", "lora_multi_rank", "qlora"}:
        state = 2 * mem.bytes_per_param[adapters.adapter_precision] + optimizer
        trainable = params * adapters.trainable_param_fraction.value
        return (params * b + trainable * state) * activations
    return params * (2 * b + optimizer) * activations


def _load_problems(where: str, option: OptionEvaluation, target: float) -> list[str]:
    """Online serving: at or below the target utilisation at peak, and the TTFT under that load
    (M/D/1: unloaded x (1 + u / (2 (1 - u)))) is the one reported."""
    u = option.utilization
    if u is None or u > target + 1e-4:
        return [f"load: {where}: utilisation {u} at peak is above the {target:.0%} target"]
    if option.ttft_unloaded_ms is None or option.ttft_ms is None:
        return []
    loaded = option.ttft_unloaded_ms * (1 + u / (2 * (1 - u)))
    if abs(loaded - option.ttft_ms) > 0.02 + 1e-3 * loaded:
        return [f"load: {where}: TTFT {option.ttft_ms} ms is not the loaded {loaded:.2f} ms"]
    return []


def check_plan(plan: Plan, workloads: pd.DataFrame, catalog: Catalog) -> list[str]:
    """Every violated constraint or inconsistent figure, as sentences (empty when all hold)."""
    problems: list[str] = []
    by_id = workloads.set_index("id", drop=False)
    placed = [a.workload_id for a in plan.assignments]
    unplaced = [u.workload_id for u in plan.unplaced]
    seen = placed + unplaced
    if plan.status in ("optimal", "feasible") and sorted(seen) != sorted(by_id.index):
        problems.append("assignment: every workload must be assigned once or listed unplaced")
    if len(set(placed)) != len(placed):
        problems.append("assignment: a workload is assigned more than once")
    mem = catalog.memory
    target_range = catalog.workload_model.online_target_utilization
    target = target_range.value if target_range is not None else None
    months = catalog.economics.amortization_months.value
    hours = catalog.economics.hours_per_month.value
    ported = {(p.family, p.platform) for p in plan.ported_families}
    migrated = {m.platform for m in plan.migrations}
    pool_use: dict[tuple[str, str], float] = {}

    for a in plan.assignments:
        w = by_id.loc[a.workload_id]
        acc = catalog.accelerators[a.accelerator]
        platform = catalog.platforms[acc.platform]
        option = next(
            (o for o in a.options if o.accelerator == a.accelerator and o.pricing == a.pricing),
            None,
        )
        where = f"{a.workload_id} on {a.accelerator} {a.pricing}"
        if option is None or not option.feasible:
            problems.append(f"domain: {where} is not a feasible evaluated option")
        # Memory fit: one replica holds the model (the catalog's memory model, recomputed).
        need = _memory_need(w, catalog)
        replica = a.replica_chips or a.chips
        replicas = a.replicas or 1
        have = replica * acc.memory_gb_per_chip.value * mem.usable_memory_fraction.value
        if have + 1e-6 < need:
            problems.append(
                f"memory fit: {where}: a replica of {replica} chips holds {have:.0f} GB "
                f"< {need:.0f} GB"
            )
        shapes = acc.replica_shapes()
        if replica not in shapes and replica % shapes[-1]:
            problems.append(f"shape: {where}: {replica} chips is not a valid replica size")
        unit = acc.deployment_unit_chips
        if a.chips != math.ceil(replicas * replica / unit) * unit:
            problems.append(
                f"shape: {where}: {a.chips} chips are not {replicas} replicas of {replica} "
                f"in whole {unit}-chip units"
            )
        # Latency, under the planned load for online serving.
        slo = w["ttft_slo_ms"]
        slo_set = w["kind"] == "inference" and not pd.isna(slo)
        if slo_set and (option is None or option.ttft_ms is None or option.ttft_ms > slo + 1e-6):
            problems.append(f"latency: {where}: TTFT above the {slo} ms SLO")
        online = w["kind"] == "inference" and w["serving"] == "online"
        if online and target is not None and option is not None:
            problems += _load_problems(where, option, target)
        # Features.
        for feature in str(w["features"]).split(";") if w["features"] else []:
            rule = platform.features.get(feature)
            if rule is not None and rule.support == "unsupported":
                problems.append(f"feature: {where}: {feature} is unsupported on {acc.platform}")
        # Pins.
        pin = w["pinned_accelerator"]
        if pin is not None and not pd.isna(pin) and pin != a.accelerator:
            problems.append(f"pin: {where}: pinned to {pin}")
        # Porting, migration and readiness.
        needs_port = platform.porting_required and not bool(w["neuron_ready"])
        if needs_port and (w["model_family"], acc.platform) not in ported:
            problems.append(f"porting: {where}: family {w['model_family']} is not ported")
        if not platform.adopted and acc.platform not in migrated:
            problems.append(f"migration: {where}: {acc.platform} migration not started")
        needed = w["needed_in_weeks"]
        if not pd.isna(needed):
            pending = catalog.family_support(str(w["model_family"]), acc.platform) == "pending"
            ready = (
                (platform.support_lag_weeks.value if pending and needs_port else 0.0)
                + (platform.porting_weeks_per_family.value if needs_port else 0.0)
                + (0.0 if platform.adopted else platform.migration_lead_weeks.value)
            )
            if ready > needed + 1e-9:
                problems.append(f"porting time: {where}: ready in {ready} weeks > {needed}")
        kind = catalog.pricing_options[a.pricing].kind
        if kind == "reserved":
            key = (a.accelerator, a.pricing)
            pool_use[key] = pool_use.get(key, 0.0) + a.chip_hours
        rate = acc.on_demand_usd_per_chip_hour.value * (
            1 - catalog.pricing_options[a.pricing].discount_vs_on_demand.value
        )
        if not _close(a.monthly_cost_usd, a.chip_hours * rate, 0.05 + 0.001 * a.chip_hours):
            problems.append(f"cost: {where}: {a.monthly_cost_usd} != chip-hours x rate")

    # Reserved capacity.
    bought = {(r.accelerator, r.pricing): r for r in plan.reserved_purchases}
    for key, used in pool_use.items():
        r = bought.get(key)
        usable = catalog.pricing_options[key[1]].usable_fraction
        frac = usable.value if usable else 1.0
        capacity = (
            0.0
            if r is None
            else r.units * catalog.accelerators[key[0]].reservation_unit_chips * hours * frac
        )
        if used > capacity + 1e-3 + 1e-9 * used:
            problems.append(
                f"reserved capacity: {key}: {used:.1f} chip-hours > capacity {capacity:.1f}"
            )

    # Porting capacity.
    cap = catalog.economics.porting_capacity_weeks_per_cycle
    weeks = sum(p.porting_weeks for p in plan.ported_families)
    if cap is not None and weeks > cap + 1e-9:
        problems.append(f"porting capacity: {weeks} weeks > cap {cap}")
    for p in plan.ported_families:
        if not catalog.platforms[p.platform].adopted and p.platform not in migrated:
            problems.append(f"migration: {p.family} ported to {p.platform} without its migration")

    # Costs: the breakdown from the plan's items, and the total.
    cb = plan.cost_breakdown
    on_demand = sum(
        a.monthly_cost_usd
        for a in plan.assignments
        if catalog.pricing_options[a.pricing].kind == "on_demand"
    )
    reserved = sum(r.monthly_cost_usd for r in plan.reserved_purchases)
    porting = sum(p.one_off_usd for p in plan.ported_families) / months
    migration = sum(m.one_off_usd for m in plan.migrations) / months
    n = max(1, len(plan.assignments))
    for label, expected, got in (
        ("on_demand_usd", on_demand, cb.on_demand_usd),
        ("reserved_usd", reserved, cb.reserved_usd),
        ("porting_amortized_usd", porting, cb.porting_amortized_usd),
        ("migration_amortized_usd", migration, cb.migration_amortized_usd),
    ):
        if not _close(expected, got, 0.01 * n + TOLERANCE_USD):
            problems.append(f"cost breakdown: {label} is {got} but its items add to {expected:.2f}")
    if plan.objective_monthly_usd is not None and not _close(
        plan.objective_monthly_usd, cb.total_usd, 0.05
    ):
        problems.append(
            f"objective: {plan.objective_monthly_usd} != breakdown total {cb.total_usd:.2f}"
        )
    if plan.objective_monthly_usd is not None and math.isnan(plan.objective_monthly_usd):
        problems.append("objective: NaN")
    return problems

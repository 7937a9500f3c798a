"""Re-check a plan from its own content, the inventory and the catalog alone.

Nothing here reads the solver or the model: memory need, readiness and capacity are recomputed
independently, so a bug in the estimates or the formulation shows up as a violation. Tests run it
after every solve; ``placement plan`` users can call it from Python.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from placement.estimating.economics.commitments import commitment_book, reservation_key
from placement.estimating.economics.one_offs import move_one_off_usd
from placement.estimating.economics.rates import covered_rate, on_demand_rates
from placement.estimating.instances import billed_chips, instance_menu
from placement.estimating.profiles import offered_hours
from placement.formulating.model import SHORT_WORK_SLACK
from placement.formulating.month import WHOLE_CHIP_TOLERANCE, whole_chip_cover
from placement.models.catalog import Catalog
from placement.models.plan import Assignment, OptionEvaluation, Plan
from placement.solving.choices import DEFAULT_GAP
from placement.solving.whole_chips import WHOLE_CHIP_SHARE_OF_GAP

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


def in_use_today(
    workloads: pd.DataFrame, catalog: Catalog
) -> tuple[set[str], set[tuple[str, str]]]:
    """Where the team runs today (``current_accelerator``), recomputed from the inventory: the
    platforms in use (adopted) and the (family, platform) pairs in use (ported)."""
    current = workloads.get("current_accelerator", pd.Series(None, index=workloads.index))
    running = current.dropna()
    platforms = {catalog.accelerators[str(a)].platform for a in running}
    families = workloads.loc[running.index, "model_family"]
    ported = {
        (str(f), catalog.accelerators[str(a)].platform)
        for f, a in zip(families, running, strict=True)
    }
    return platforms, ported


def check_plan(plan: Plan, workloads: pd.DataFrame, catalog: Catalog) -> list[str]:
    """Every violated constraint or inconsistent figure, as sentences (empty when all hold).

    A roadmap's plan (``plan --horizon N``) is its end state with the horizon's costs: its
    assignments are checked against ``catalog`` as in force in the horizon's last month, and
    its breakdown against the roadmap's months (``check_roadmap`` checks the months)."""
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
    in_use, ported_by_use = in_use_today(workloads, catalog)
    migrated |= in_use

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
        menu = instance_menu(acc)
        if a.chips != billed_chips(np.array([replicas]), np.array([replica]), menu)[0]:
            problems.append(
                f"shape: {where}: {a.chips} chips are not the fewest whole instances of "
                f"{' or '.join(str(c) for _, c in menu.sizes)} chips holding {replicas} "
                f"replicas of {replica}"
            )
        sizes = dict(menu.sizes)
        if a.instances and (
            set(a.instances) - set(sizes)
            or sum(n * sizes[t] for t, n in a.instances.items() if t in sizes) != a.chips
        ):
            problems.append(
                f"shape: {where}: instances {a.instances} are not {a.chips} chips of "
                f"{a.accelerator}'s instance_types"
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
        needs_port = (
            platform.porting_required
            and not bool(w["neuron_ready"])
            and (w["model_family"], acc.platform) not in ported_by_use
        )
        if needs_port and (w["model_family"], acc.platform) not in ported:
            problems.append(f"porting: {where}: family {w['model_family']} is not ported")
        if not platform.adopted and acc.platform not in migrated:
            problems.append(f"migration: {where}: {acc.platform} migration not started")
        needed = w["needed_in_weeks"]
        if not pd.isna(needed):
            adopted = platform.adopted or acc.platform in in_use
            pending = catalog.family_support(str(w["model_family"]), acc.platform) == "pending"
            ready = (
                (platform.support_lag_weeks.value if pending and needs_port else 0.0)
                + (platform.porting_weeks_per_family.value if needs_port else 0.0)
                + (0.0 if adopted else platform.migration_lead_weeks.value)
            )
            if ready > needed + 1e-9:
                problems.append(f"porting time: {where}: ready in {ready} weeks > {needed}")
        switching = move_one_off_usd(catalog, w["current_accelerator"], a.accelerator)
        if not _close(a.switching_one_off_usd, switching):
            problems.append(
                f"switching: {where}: one-off {a.switching_one_off_usd} but moving from "
                f"{w['current_accelerator']} costs {switching}"
            )
        problems += _coverage_problems(where, a, catalog, hours)

    problems += _slice_problems(plan, catalog)
    problems += _whole_chip_problems(plan, catalog)
    problems += _commitment_problems(plan, catalog)

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
    if plan.roadmap is not None:
        problems.extend(_roadmap_breakdown_problems(plan))
    else:
        problems.extend(_breakdown_problems(plan, catalog, by_id, months))
    if plan.objective_monthly_usd is not None and not _close(
        plan.objective_monthly_usd, cb.total_usd, 0.05
    ):
        problems.append(
            f"objective: {plan.objective_monthly_usd} != breakdown total {cb.total_usd:.2f}"
        )
    if plan.objective_monthly_usd is not None and math.isnan(plan.objective_monthly_usd):
        problems.append("objective: NaN")
    if plan.objective_monthly_usd is not None and plan.assignments:
        shown = round(sum(a.showback_monthly_usd or 0.0 for a in plan.assignments), 2)
        if abs(shown - plan.objective_monthly_usd) > 0.005:
            problems.append(
                f"showback: shares add to {shown} != total {plan.objective_monthly_usd}"
            )
    return problems


def _breakdown_problems(
    plan: Plan, catalog: Catalog, by_id: pd.DataFrame, months: float
) -> list[str]:
    """The steady state's breakdown from the plan's items: on demand from each assignment's
    coverage, commitments, and the one-offs amortized."""
    problems = []
    cb = plan.cost_breakdown
    on_demand = sum(
        h * covered_rate(catalog, option, a.accelerator)
        for a in plan.assignments
        for option, h in a.coverage.items()
        if catalog.pricing_options[option].kind == "on_demand"
    )
    reserved = sum(c.monthly_cost_usd for c in plan.commitments)
    porting = sum(p.one_off_usd for p in plan.ported_families) / months
    migration = sum(m.one_off_usd for m in plan.migrations) / months
    switching = (
        sum(
            move_one_off_usd(
                catalog, by_id.loc[a.workload_id, "current_accelerator"], a.accelerator
            )
            for a in plan.assignments
        )
        / months
    )
    n = max(1, len(plan.assignments))
    for label, expected, got in (
        ("on_demand_usd", on_demand, cb.on_demand_usd),
        ("reserved_usd", reserved, cb.reserved_usd),
        ("porting_amortized_usd", porting, cb.porting_amortized_usd),
        ("migration_amortized_usd", migration, cb.migration_amortized_usd),
        ("switching_amortized_usd", switching, cb.switching_amortized_usd),
    ):
        if not _close(expected, got, 0.01 * n + TOLERANCE_USD):
            problems.append(f"cost breakdown: {label} is {got} but its items add to {expected:.2f}")
    return problems


def _roadmap_breakdown_problems(plan: Plan) -> list[str]:
    """A roadmap's breakdown is the horizon's monthly average of its months' components (its
    assignments and commitments describe the end state, not what the horizon paid)."""
    assert plan.roadmap is not None
    roadmap, cb = plan.roadmap, plan.cost_breakdown
    n = roadmap.horizon_months
    months = roadmap.months
    problems = []
    for label, expected, got in (
        ("on_demand_usd", sum(m.on_demand_usd for m in months) / n, cb.on_demand_usd),
        (
            "reserved_usd",
            (sum(m.commitments_usd for m in months) + roadmap.after_horizon_charged_usd) / n,
            cb.reserved_usd,
        ),
        ("porting_amortized_usd", sum(m.porting_usd for m in months) / n, cb.porting_amortized_usd),
        (
            "migration_amortized_usd",
            sum(m.migration_usd for m in months) / n,
            cb.migration_amortized_usd,
        ),
        (
            "switching_amortized_usd",
            sum(m.switching_usd for m in months) / n,
            cb.switching_amortized_usd,
        ),
    ):
        if not _close(expected, got, 0.01 + TOLERANCE_USD):
            problems.append(
                f"cost breakdown: {label} is {got} but the roadmap's months average {expected:.2f}"
            )
    return problems


def _coverage_problems(where: str, a: Assignment, catalog: Catalog, hours: float) -> list[str]:
    """Its chip-hours are paid for once, under options of its accelerator, at their rates; its
    pricing is the option covering most; work holds its chips for ``run_hours``."""
    problems = []
    payable = set(catalog.payable_options(a.accelerator))
    if set(a.coverage) - payable:
        problems.append(f"coverage: {where}: {sorted(set(a.coverage) - payable)} cannot pay")
    if not _close(sum(a.coverage.values()), a.chip_hours, 0.01 + 1e-6 * a.chip_hours):
        problems.append(f"coverage: {where}: covers {sum(a.coverage.values()):.3f} chip-hours")
    if a.coverage and a.coverage.get(a.pricing, 0.0) < max(a.coverage.values()) - 1e-3:
        problems.append(f"coverage: {where}: pricing is not the option covering most")
    cost = sum(h * covered_rate(catalog, k, a.accelerator) for k, h in a.coverage.items())
    if not _close(a.monthly_cost_usd, cost, 0.05 + 1e-4 * a.chip_hours):
        problems.append(f"cost: {where}: {a.monthly_cost_usd} != its coverage at its rates")
    if a.run_hours is not None:
        # run_hours is reported to 3 decimals: allow half a thousandth of an hour per chip.
        if not _close(a.run_hours * a.chips, a.chip_hours, 0.01 + 5e-4 * a.chips):
            problems.append(f"concurrency: {where}: {a.chips} chips x {a.run_hours} h")
        if a.run_hours > hours + 1e-6:
            problems.append(f"concurrency: {where}: runs {a.run_hours} h > a month")
    return problems


def _profile_shapes(
    plan: Plan, catalog: Catalog
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Slice hours by name (from the plan) and each profile's 48 levels in that order."""
    slice_hours: dict[str, float] = {}
    for s in plan.slices:
        slice_hours.setdefault(s.slice, s.hours)
    return slice_hours, {k: p.levels() for k, p in catalog.profiles().items()}


def _slice_problems(plan: Plan, catalog: Catalog) -> list[str]:
    """Per (accelerator, slice): the chips in use recomputed from the assignments (serving at
    its level, fixed work spread by its level, flexible work only where its profile runs and
    adding up to its chip-hours), covered within it, and within the chip limit."""
    problems: list[str] = []
    if not plan.slices or not plan.assignments:
        return problems
    slice_hours, levels = _profile_shapes(plan, catalog)
    names = list(slice_hours)
    weights = [slice_hours[n] for n in names]
    month = sum(weights)
    specs = catalog.profiles()
    serving: dict[str, list[float]] = {}
    fixed: dict[str, list[float]] = {}
    flexible_hours: dict[str, float] = {}
    may_flex: dict[str, list[bool]] = {}
    for a in plan.assignments:
        zero = [0.0] * len(names)
        g = levels[str(a.load_profile)]
        spec = specs[str(a.load_profile)]
        if spec.kind == "serving":
            mean = sum(w * x for w, x in zip(weights, g, strict=True)) / month
            b = 1.0 if mean >= 1 else (a.chip_hours / (a.chips * month) - mean) / (1 - mean)
            row = serving.setdefault(a.accelerator, list(zero))
            for t, x in enumerate(g):
                row[t] += a.chips * (b + (1 - b) * x)
        elif spec.placement == "fixed":
            spread = sum(w * x for w, x in zip(weights, g, strict=True))
            row = fixed.setdefault(a.accelerator, list(zero))
            for t, x in enumerate(g):
                row[t] += a.chip_hours * x / spread
        else:
            flexible_hours[a.accelerator] = flexible_hours.get(a.accelerator, 0.0) + a.chip_hours
            allowed = may_flex.setdefault(a.accelerator, [False] * len(names))
            for t, x in enumerate(g):
                allowed[t] = allowed[t] or x > 0
    capacity = _product_capacity(plan, catalog)
    placed: dict[str, float] = {}
    for s in plan.slices:
        t = names.index(s.slice)
        where = f"slice {s.accelerator} {s.slice}"
        tol = 1e-3 + 1e-6 * (s.serving_chips + s.work_chips)
        want = serving.get(s.accelerator, [0.0] * len(names))[t]
        if abs(s.serving_chips - want) > tol + 1e-6 * want:
            problems.append(
                f"{where}: {s.serving_chips} serving chips, assignments give {want:.4f}"
            )
        fixed_work = fixed.get(s.accelerator, [0.0] * len(names))[t]
        if abs(s.work_chips - s.flexible_chips - fixed_work) > tol + 1e-6 * fixed_work:
            problems.append(
                f"{where}: {s.work_chips} work chips, assignments give {fixed_work:.4f}"
            )
        if s.flexible_chips > tol and not may_flex.get(s.accelerator, [False] * len(names))[t]:
            problems.append(f"{where}: flexible work placed where no flexible profile runs")
        placed[s.accelerator] = placed.get(s.accelerator, 0.0) + s.flexible_chips * s.hours
        in_use = s.serving_chips + s.work_chips
        if abs(s.committed_chips - sum(s.covered_by.values())) > tol:
            problems.append(f"{where}: committed chips are not the sum of covered_by")
        if s.committed_chips > in_use + tol:
            problems.append(f"{where}: {s.committed_chips} chips covered > {in_use:.4f} in use")
        if abs(s.on_demand_chips - (in_use - s.committed_chips)) > tol:
            problems.append(f"{where}: on-demand chips are not in use minus covered")
        limit = catalog.accelerators[s.accelerator].max_chips
        if limit is not None and in_use > limit + tol:
            problems.append(f"chip limit: {where}: {in_use:.2f} chips > {limit}")
        for product, chips in s.covered_by.items():
            # Reservations hold whole units of chips (savings plans: _plan_spend, below).
            if product in capacity and chips > capacity[product] + tol:
                problems.append(
                    f"{where}: {product} covers {chips} chips > its {capacity[product]:.4g}"
                )
    plans = _plan_usd_per_hour(plan)
    for (product, slice_name), usd in _plan_spend(plan, catalog, capacity).items():
        if usd > plans.get(product, 0.0) + 1e-3 + 1e-6 * usd:
            problems.append(
                f"slice {slice_name}: {product} spends {usd:.2f} USD/h > "
                f"{plans.get(product, 0.0):.2f} committed"
            )
    for acc, hours_ in flexible_hours.items():
        # Slice chips are reported to 4 decimals: up to 0.00005 x the month's hours apart.
        if abs(placed.get(acc, 0.0) - hours_) > 0.01 + 5e-5 * month + 1e-5 * hours_:
            problems.append(
                f"slices {acc}: flexible work placed {placed.get(acc, 0.0):.2f} "
                f"chip-hours of {hours_:.2f}"
            )
    return problems


def _whole_chip_problems(plan: Plan, catalog: Catalog) -> list[str]:
    """Chips run whole: a slice using ``phi = k + p`` chips on average (``k`` whole) runs ``k``
    chips in ``1 - p`` of its hours and ``k + 1`` in the rest, so commitments able to cover
    ``C`` chips an hour cover at most ``min(C, k) + p min(1, (C - k)^+)`` there. ``C`` is the
    reservations held on the accelerator and what savings plans spend on it in the slice or
    leave unspent, at its rate. The plan may state more only where what it overstates, paid
    on demand, is within the share of the gap its solver leaves it
    (``placement.solving.whole_chips``), and its solver's message then says so."""
    if not plan.slices or plan.status not in ("optimal", "feasible"):
        return []
    capacity = _product_capacity(plan, catalog)
    reserved: dict[str, float] = {}
    for c in plan.commitments:
        if c.kind == "reserved" and c.accelerator is not None and c.unit_chips is not None:
            key = reservation_key(c.pricing, c.accelerator, c.unit_chips)
            reserved[c.accelerator] = reserved.get(c.accelerator, 0.0) + capacity.get(key, 0.0)
    plans = _plan_usd_per_hour(plan)
    spent = _plan_spend(plan, catalog, capacity)
    book = commitment_book(catalog)
    rates = on_demand_rates(catalog)
    overstated: list[tuple[float, str]] = []
    for s in plan.slices:
        phi = s.serving_chips + s.work_chips
        whole = math.floor(phi + WHOLE_CHIP_TOLERANCE)
        if phi - whole <= WHOLE_CHIP_TOLERANCE or s.committed_chips <= whole + WHOLE_CHIP_TOLERANCE:
            continue
        able = reserved.get(s.accelerator, 0.0)
        for savings in book.plans_for(s.accelerator):
            if savings.key in plans:
                unspent = max(0.0, plans[savings.key] - spent.get((savings.key, s.slice), 0.0))
                rate = savings.rates[s.accelerator]
                able += s.covered_by.get(savings.key, 0.0) + unspent / rate
        most = whole_chip_cover(phi, able)
        beyond = s.committed_chips - most
        if beyond > WHOLE_CHIP_SLICE_TOLERANCE:
            usd = beyond * s.hours * rates[s.accelerator]
            overstated.append(
                (
                    usd,
                    f"{s.accelerator} {s.slice}: {s.committed_chips:.4f} chips "
                    f"covered > {most:.4f} whole chips get",
                )
            )
    total = sum(usd for usd, _ in overstated)
    # A roadmap's slices are its end state's, solved as a steady-state plan of its own.
    cost = plan.roadmap.end_state_monthly_usd if plan.roadmap else plan.objective_monthly_usd
    allowed = WHOLE_CHIP_SHARE_OF_GAP * plan.gap_asked(default=DEFAULT_GAP) * abs(cost or 0.0)
    if total <= allowed + 0.01:
        return []
    worst = [text for _, text in sorted(overstated, reverse=True)[:3]]
    return [
        f"whole chips: the cover stated in {len(overstated)} slices is more than whole chips "
        f"get, worth ${total:,.2f}/month > ${allowed:,.2f} (the share of the gap allowed): "
        + "; ".join(worst)
    ]


WHOLE_CHIP_SLICE_TOLERANCE = 1e-3
"""Chips a slice's stated cover may exceed what whole chips get (figures are reported to four
decimals)."""


def _plan_spend(
    plan: Plan, catalog: Catalog, capacity: dict[str, float]
) -> dict[tuple[str, str], float]:
    """USD per hour each savings plan spends in each slice (product, slice name), summed over
    the accelerators it covers there: every ``covered_by`` entry that is not a reservation."""
    spent: dict[tuple[str, str], float] = {}
    for s in plan.slices:
        for product, chips in s.covered_by.items():
            if product not in capacity:
                key = (product, s.slice)
                rate = covered_rate(catalog, product, s.accelerator)
                spent[key] = spent.get(key, 0.0) + chips * rate
    return spent


def _product_capacity(plan: Plan, catalog: Catalog) -> dict[str, float]:
    """Chips each reservation product covers in any hour: its units (owned and bought) x the
    unit's chips (x the legacy usable fraction)."""
    capacity: dict[str, float] = {}
    for c in plan.commitments:
        if c.kind != "reserved" or c.accelerator is None or c.unit_chips is None:
            continue
        usable = catalog.pricing_options[c.pricing].usable_fraction
        key = reservation_key(c.pricing, c.accelerator, c.unit_chips)
        chips = (c.units or 0) * c.unit_chips * (usable.value if usable else 1.0)
        capacity[key] = capacity.get(key, 0.0) + chips
    return capacity


def _plan_usd_per_hour(plan: Plan) -> dict[str, float]:
    usd: dict[str, float] = {}
    for c in plan.commitments:
        if c.kind == "savings_plan":
            usd[c.pricing] = usd.get(c.pricing, 0.0) + (c.usd_per_hour or 0.0)
    return usd


def _short_work_problems(plan: Plan, catalog: Catalog) -> list[str]:
    """A job's chips run together: part-month work is covered by at most what commitments hold
    free while it runs. Per accelerator and slice, free for class ``c`` is what is held for the
    class less the steady cover past what narrower units hold, and less what savings plans
    spend on other accelerators then; a job running ``r`` hours spread like its profile can
    have at most ``r sum_t s_t max(0, F_t)`` chip-hours covered. The steady cover the plan
    reports per slice adds up to what its serving and full-time work are covered."""
    problems: list[str] = []
    if not plan.slices:
        return problems
    slice_hours, levels = _profile_shapes(plan, catalog)
    names = list(slice_hours)
    hours = np.array([slice_hours[n] for n in names])
    book = commitment_book(catalog)
    specs = catalog.profiles()
    offered = offered_hours(catalog)
    held_units: dict[str, float] = {}
    plan_usd: dict[str, float] = {}
    for c in plan.commitments:
        if c.kind == "reserved" and c.accelerator is not None and c.unit_chips is not None:
            key = reservation_key(c.pricing, c.accelerator, c.unit_chips)
            held_units[key] = held_units.get(key, 0.0) + (c.units or 0)
        elif c.kind == "savings_plan":
            plan_usd[c.pricing] = plan_usd.get(c.pricing, 0.0) + (c.usd_per_hour or 0.0)
    steady = {(s.accelerator, names.index(s.slice)): s.steady_committed_chips for s in plan.slices}
    # Savings-plan USD per hour spent, by (plan, slice), and of it on each accelerator.
    spend = {product: np.zeros(len(names)) for product in plan_usd}
    spend_on: dict[tuple[str, str], np.ndarray] = {}
    for s in plan.slices:
        t = names.index(s.slice)
        for product, chips in s.covered_by.items():
            if product in plan_usd:
                usd = chips * covered_rate(catalog, product, s.accelerator)
                spend[product][t] += usd
                spend_on.setdefault((product, s.accelerator), np.zeros(len(names)))[t] += usd
        if s.steady_committed_chips > s.committed_chips + 1e-3:
            problems.append(f"slice {s.accelerator} {s.slice}: steady cover > committed chips")

    def kind(a: Assignment) -> str:
        """steady, short, or either: run_hours is rounded to 3 decimals, so work within
        rounding of the model's threshold may have been counted either way."""
        if a.run_hours is None:
            return "steady"
        threshold = offered[str(a.load_profile)] * (1 - SHORT_WORK_SLACK)
        if a.run_hours < threshold - 5e-4:
            return "short"
        return "steady" if a.run_hours > threshold + 5e-4 else "either"

    def committed_of(a: Assignment) -> float:
        return sum(
            h for k, h in a.coverage.items() if catalog.pricing_options[k].kind != "on_demand"
        )

    claimed: dict[tuple[str, str], float] = {}
    for a in plan.assignments:
        by = (a.accelerator, kind(a))
        claimed[by] = claimed.get(by, 0.0) + committed_of(a)
    for acc in sorted({s.accelerator for s in plan.slices}):
        reported = sum(hours[t] * steady.get((acc, t), 0.0) for t in range(len(names)))
        low = claimed.get((acc, "steady"), 0.0)
        high = low + claimed.get((acc, "either"), 0.0)
        if not low - 0.05 - 1e-4 * low <= reported <= high + 0.05 + 1e-4 * high:
            problems.append(
                f"concurrency: {acc}: slices report {reported:.1f} chip-hours of steady cover, "
                f"its serving and full-time work claim {low:.1f}"
            )

    @functools.cache
    def free(acc: str, cls: float) -> np.ndarray:
        held, narrow = 0.0, 0.0
        for q in book.on(acc):
            chips = held_units.get(q.key, 0.0) * q.unit_capacity_chips
            if (q.max_replica_chips or math.inf) >= cls:
                held += chips
            else:
                narrow += chips
        out = np.zeros(len(names))
        for sp in book.plans_for(acc):
            usd = plan_usd.get(sp.pricing, 0.0)
            if usd <= 0:
                continue
            here = spend_on.get((sp.pricing, acc), np.zeros(len(names)))
            out += (usd - (spend[sp.pricing] - here)) / sp.rates[acc]
        steady_here = np.array([steady.get((acc, t), 0.0) for t in range(len(names))])
        out += held - np.maximum(0.0, steady_here - narrow)
        return np.maximum(out, 0.0)

    for a in plan.assignments:
        if kind(a) != "short":
            continue
        assert a.run_hours is not None
        committed = committed_of(a)
        if committed <= 0.01:
            continue
        g = np.asarray(levels[str(a.load_profile)], dtype=float)
        runs = (g > 0).astype(float) if specs[str(a.load_profile)].placement == "flexible" else g
        share = hours * runs / float(hours @ runs)
        cls = book.class_of(a.accelerator, a.replica_chips or a.chips)
        bound = a.run_hours * float(share @ free(a.accelerator, cls))
        if committed > bound + 0.05 + 1e-5 * committed:
            problems.append(
                f"concurrency: {a.workload_id}: {committed:.1f} committed chip-hours > "
                f"{a.run_hours} h x {bound / a.run_hours:.1f} chips free while it runs"
            )
    return problems


def _commitment_problems(plan: Plan, catalog: Catalog) -> list[str]:
    """Commitments: what they covered over the month matches the assignments' coverage; each
    workload's committed chip-hours fit in what was held while it ran; nothing bought beyond a
    product's limit."""
    problems: list[str] = []
    hours_of = {s.slice: s.hours for s in plan.slices}
    by_option: dict[tuple[str, str], float] = {}
    for s in plan.slices:
        for product, chips in s.covered_by.items():
            option = product.split("/")[0]
            key = (s.accelerator, option)
            by_option[key] = by_option.get(key, 0.0) + chips * hours_of[s.slice]
    claimed: dict[tuple[str, str], float] = {}
    for a in plan.assignments:
        for option, h in a.coverage.items():
            if catalog.pricing_options[option].kind != "on_demand":
                key = (a.accelerator, option)
                claimed[key] = claimed.get(key, 0.0) + h
    for key in sorted(set(by_option) | set(claimed)):
        got, want = claimed.get(key, 0.0), by_option.get(key, 0.0)
        if abs(got - want) > 0.05 + 1e-5 * want:
            problems.append(f"coverage: {key}: workloads claim {got:.2f} of {want:.2f} chip-hours")
    problems += _short_work_problems(plan, catalog)
    for c in plan.commitments:
        if c.capacity_chip_hours is not None and c.used_chip_hours > c.capacity_chip_hours + 0.01:
            problems.append(f"commitment {c.pricing}: used beyond its capacity")
        if c.utilization > 1 + 1e-4:
            problems.append(f"commitment {c.pricing}: utilisation {c.utilization} > 1")
    bought: dict[str, int] = {}
    for c in plan.commitments:
        if c.kind == "reserved" and not c.owned and c.accelerator and c.unit_chips:
            name = reservation_key(c.pricing, c.accelerator, c.unit_chips)
            bought[name] = bought.get(name, 0) + (c.units or 0)
    for acc_name, spec in catalog.accelerators.items():
        for unit in spec.units():
            for pricing in catalog.commitment_options(acc_name):
                product = reservation_key(pricing, acc_name, unit.chips)
                if unit.max_units is not None and bought.get(product, 0) > unit.max_units:
                    problems.append(f"limit: {product}: {bought[product]} units > {unit.max_units}")
    return problems

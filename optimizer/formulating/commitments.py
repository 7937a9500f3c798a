"""Commitments and their pools: reservations and savings plans cover the chips in use slice
by slice, a reservation unit only the replicas it is eligible for (its class), and work that
runs fewer hours than its profile offers only what is held while it runs."""

from __future__ import annotations

import math

import pulp

from placement.estimating.profiles import offered_hours
from placement.formulating.model import (
    SHORT_WORK_SLACK,
    PlacementModel,
    ShortCoverGroup,
    class_key,
    slice_key,
)
from placement.formulating.naming import name
from placement.models.catalog import Catalog


def add_commitment_coverage_constraints(model: PlacementModel) -> None:
    """Commitments cover chips in use, slice by slice, within what they hold.

    For reservation product ``q = (p, a, u)`` with ``o_q`` units owned and ``z_q`` bought
    (integer), unit capacity ``U_q`` chips, and savings plan ``q`` with ``O_q + Z_q`` USD per
    hour (``Z_q`` bought, continuous) paying ``r_{q,a}`` per covered chip-hour:

    .. math:: y_{q,t} \\le U_q (o_q + z_q) \\qquad
        \\sum_a r_{q,a} v_{q,a,t} \\le O_q + Z_q

    What is covered on accelerator ``a`` in slice ``t`` is chips in use there, served or
    worked, class by class:

    .. math:: \\sum_{q \\ni a} y_{q,t} + v_{q,a,t} = \\sum_c (\\sigma_{a,c,t} + \\omega_{a,c,t}),
        \\quad \\sigma_{a,c,t} \\le D^S_{a,c}(t), \\quad \\omega_{a,c,t} \\le D^W_{a,c}(t)

    and a unit that holds replicas of at most ``m`` chips covers only the classes ``<= m``:

    .. math:: \\sum_{q:\\ m_q \\le m} y_{q,t} \\le \\sum_{c \\le m} (\\sigma_{a,c,t} +
        \\omega_{a,c,t}) \\quad \\forall \\text{ finite } m
    """
    book, n = model.book, model.names
    slices = range(len(model.grid.hours))
    accelerators = sorted({a for a, _ in model.serving})
    for q in book.reservations:
        if q.accelerator not in accelerators:
            continue
        key = (n.keys[q.pricing], n.keys[q.accelerator], str(q.unit_chips))
        units = model.problem.add_variable(
            name("units", *key),
            lowBound=0,
            upBound=book.useful_units(q) if model.may_buy(q.pricing) else 0,
            cat=pulp.LpInteger,
        )
        model.units[q.key] = units
        for t in slices:
            y = model.problem.add_variable(name("reserved_cover", *key, slice_key(t)), 0)
            model.reserved_cover[(q.key, t)] = y
            model.problem.addConstraint(
                y - q.unit_capacity_chips * units <= q.unit_capacity_chips * q.owned_units,
                name("reserved_capacity", *key, slice_key(t)),
            )
    for plan in book.savings_plans:
        covered = [a for a in plan.rates if a in accelerators]
        if not covered:
            continue
        usd = model.problem.add_variable(
            name("plan_usd", n.keys[plan.pricing]),
            lowBound=0,
            upBound=plan.max_usd_per_hour if model.may_buy(plan.pricing) else 0,
        )
        model.plan_usd[plan.key] = usd
        for t in slices:
            spend = pulp.LpAffineExpression()
            for a in covered:
                v = model.problem.add_variable(
                    name("plan_cover", n.keys[plan.pricing], n.keys[a], slice_key(t)), 0
                )
                model.plan_cover[(plan.key, a, t)] = v
                spend.addInPlace(v, plan.rates[a])
            spend.addInPlace(usd, -1.0)
            model.problem.addConstraint(
                spend <= plan.owned_usd_per_hour,
                name("plan_capacity", n.keys[plan.pricing], slice_key(t)),
            )
    for acc in accelerators:
        classes = sorted(c for a, c in model.serving if a == acc)
        for t in slices:
            by_class: dict[float, pulp.LpAffineExpression] = {}
            for c in classes:
                ck = (n.keys[acc], class_key(c), slice_key(t))
                s = model.problem.add_variable(name("serving_cover", *ck), 0)
                w = model.problem.add_variable(name("work_cover", *ck), 0)
                model.serving_cover[(acc, c, t)] = s
                model.work_cover[(acc, c, t)] = w
                model.problem.addConstraint(
                    s - model.serving[(acc, c)][t] <= 0, name("serving_cover_limit", *ck)
                )
                model.problem.addConstraint(
                    w - model.work[(acc, c)][t] <= 0, name("work_cover_limit", *ck)
                )
                by_class[c] = s + w
            supplied = pulp.LpAffineExpression()
            for q in book.on(acc):
                supplied.addInPlace(model.reserved_cover[(q.key, t)], 1.0)
            for plan in book.plans_for(acc):
                if (plan.key, acc, t) in model.plan_cover:
                    supplied.addInPlace(model.plan_cover[(plan.key, acc, t)], 1.0)
            used = pulp.LpAffineExpression()
            for expr in by_class.values():
                used.addInPlace(expr)
            model.problem.addConstraint(
                supplied - used == 0, name("cover_balance", n.keys[acc], slice_key(t))
            )
            for limit in {q.max_replica_chips for q in book.on(acc)} - {None}:
                assert limit is not None
                narrow = pulp.LpAffineExpression(
                    [
                        (model.reserved_cover[(q.key, t)], 1.0)
                        for q in book.on(acc)
                        if q.max_replica_chips is not None and q.max_replica_chips <= limit
                    ]
                )
                for c, expr in by_class.items():
                    if c <= limit:
                        narrow.addInPlace(expr, -1.0)
                model.problem.addConstraint(
                    narrow <= 0,
                    name("cover_eligible", n.keys[acc], f"le{limit}", slice_key(t)),
                )


def add_work_concurrency_constraints(model: PlacementModel, catalog: Catalog) -> None:
    """A job's chips run together: work that runs fewer hours than its profile offers (``r_j``
    hours at ``n_j`` chips, ``r_j < H_{eff}``) can be covered only by the commitments that
    exist while it runs, ``K_{a,c}`` chips of its class (reservation units, and savings plans
    at their rate):

    .. math:: \\kappa_j \\le h_j x_{j,a}, \\qquad \\kappa_j \\le r_j K_{a,c}

    Short work whose placement is fixed (``x = 1``) is grouped by the chips it holds, ``n_j =
    h_j / r_j``: ``\\sum_{j \\in g} \\min(h_j, r_j K) = \\min(\\sum_g h_j, K \\sum_g r_j)``, so one
    ``\\kappa_g`` per group of the same (accelerator, class, chips) is exact:

    .. math:: \\kappa_g \\le \\sum_{j \\in g} h_j, \\qquad
        \\kappa_g \\le K_{a,c} \\sum_{j \\in g} r_j

    .. math:: \\sum_t w_t \\omega_{a,c,t} \\le \\sum_{j \\text{ long}} h_j x_{j,a}
        + \\sum_{j \\text{ short}} \\kappa_j + \\sum_g \\kappa_g
    """
    book, n = model.book, model.names
    opts = model.options
    work = opts[opts["run_hours"].notna()]
    if work.empty or not (model.units or model.plan_usd):
        return
    grid = model.grid
    offered = work["load_profile"].map(offered_hours(catalog)).astype(float)
    short = work["run_hours"] < offered * (1 - SHORT_WORK_SLACK)
    for (acc, cls), group in work.groupby(["accelerator", "eligibility"], sort=True).groups.items():
        acc, cls = str(acc), float(cls)
        rows = work.loc[group]
        if not short.loc[group].any():
            continue
        held = pulp.LpAffineExpression()
        for q in book.on(acc):
            limit = math.inf if q.max_replica_chips is None else q.max_replica_chips
            if q.key in model.units and limit >= cls:
                held.addInPlace(model.units[q.key], q.unit_capacity_chips)
                held.constant += q.unit_capacity_chips * q.owned_units
        for plan in book.plans_for(acc):
            if plan.key in model.plan_usd:
                held.addInPlace(model.plan_usd[plan.key], 1 / plan.rates[acc])
                held.constant += plan.owned_usd_per_hour / plan.rates[acc]
        total = pulp.LpAffineExpression()
        held_terms = list(held.items())
        fixed_short: dict[float, dict[int, tuple[float, float]]] = {}
        for oid, w, h, r, is_short in zip(
            rows.index,
            rows["workload"],
            rows["chip_hours"],
            rows["run_hours"],
            short.loc[group],
            strict=True,
        ):
            if not is_short:
                total.addInPlace(model.placed([(int(oid), float(h))]))
                continue
            if int(oid) in model.fixed:
                if float(h) <= 0:
                    continue  # no work this month (zero volume): nothing to cover
                # Same chips held (h / r): min(h_j, r_j K) adds up to min(sum h, K sum r).
                chips = round(float(h) / float(r), 6)
                fixed_short.setdefault(chips, {})[int(oid)] = (float(h), float(r))
                continue
            pair = (n.workloads[int(w)], n.keys[acc])
            kappa = model.problem.add_variable(name("short_cover", *pair), 0)
            model.short_cover[int(oid)] = kappa
            model.problem.addConstraint(
                pulp.LpAffineExpression([(kappa, 1.0), (model.assign[oid], -float(h))]) <= 0,
                name("short_cover_work", *pair),
            )
            # kappa <= r K, K = what is held (variables and the owned constant).
            total.addInPlace(kappa, 1.0)
            _bound_by_held(model, kappa, float(r), held_terms, held.constant, pair)
        for i, (chips, members) in enumerate(sorted(fixed_short.items())):
            key = (n.keys[acc], class_key(cls), f"g{i}")
            kappa = model.problem.add_variable(
                name("short_cover_fixed", *key), 0, sum(h for h, _ in members.values())
            )
            model.short_cover_groups[(acc, cls, chips)] = ShortCoverGroup(
                kappa, {oid: r for oid, (_, r) in members.items()}
            )
            total.addInPlace(kappa, 1.0)
            _bound_by_held(
                model, kappa, sum(r for _, r in members.values()), held_terms, held.constant, key
            )
        covered = pulp.LpAffineExpression(
            [
                (model.work_cover[(acc, cls, t)], float(grid.hours[t]))
                for t in range(len(grid.hours))
            ]
        )
        model.problem.addConstraint(
            covered - total <= 0, name("work_cover_total", n.keys[acc], class_key(cls))
        )


def _bound_by_held(
    model: PlacementModel,
    kappa: pulp.LpVariable,
    run_hours: float,
    held_terms: list[tuple[pulp.LpVariable, float]],
    held_constant: float,
    key: tuple[str, ...],
) -> None:
    """``kappa <= r K``: work running ``r`` hours is covered by at most what is held then."""
    bound = pulp.LpAffineExpression([(v, -run_hours * c) for v, c in held_terms])
    bound.addInPlace(kappa, 1.0)
    model.problem.addConstraint(bound <= run_hours * held_constant, name("short_cover_held", *key))

"""Commitments and their pools: reservations and savings plans cover the chips in use slice
by slice, a reservation unit only the replicas it is eligible for (its class), and work that
runs fewer hours than its profile offers only what is held while it runs."""

from __future__ import annotations

import math

import pulp

from placement.estimating.profiles import profile_levels
from placement.formulating.model import (
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

    What is covered on accelerator ``a`` in slice ``t`` is chips in use there, served,
    worked steadily or worked short (``D^{WS}``, bounded job by job in
    ``add_work_concurrency_constraints``), class by class:

    .. math:: \\sum_{q \\ni a} y_{q,t} + v_{q,a,t} = \\sum_c (\\sigma_{a,c,t} + \\omega_{a,c,t}
        + \\omega^S_{a,c,t}), \\quad \\sigma_{a,c,t} \\le D^S_{a,c}(t), \\quad
        \\omega_{a,c,t} \\le D^W_{a,c}(t) - D^{WS}_{a,c}(t), \\quad
        \\omega^S_{a,c,t} \\le D^{WS}_{a,c}(t)

    and a unit that holds replicas of at most ``m`` chips covers only the classes ``<= m``:

    .. math:: \\sum_{q:\\ m_q \\le m} y_{q,t} \\le \\sum_{c \\le m} (\\sigma_{a,c,t} +
        \\omega_{a,c,t} + \\omega^S_{a,c,t}) \\quad \\forall \\text{ finite } m
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
                steady_work = model.work[(acc, c)][t]
                by_class[c] = s + w
                if (acc, c) in model.short_work:
                    short = model.short_work[(acc, c)][t]
                    steady_work = steady_work - short
                    ws = model.problem.add_variable(name("short_work_cover", *ck), 0)
                    model.short_work_cover[(acc, c, t)] = ws
                    model.problem.addConstraint(
                        ws - short <= 0, name("short_work_cover_limit", *ck)
                    )
                    by_class[c] += ws
                model.problem.addConstraint(w - steady_work <= 0, name("work_cover_limit", *ck))
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
    """A job's chips run together: short work (``r_j`` hours at ``n_j`` chips, fewer hours than
    its profile offers) is covered only by what commitments hold free **while it runs**. Its
    hours fall across its profile's slices in proportion to the profile, ``s_{k,t} = w_t
    g_k(t) / \\sum_t w_t g_k(t)`` (a flexible profile: evenly over the hours it offers); in
    slice ``t`` what is free for class ``c`` on accelerator ``a`` is what is held for the class,
    ``K_{a,c}`` chips (reservation units eligible for it, savings plans at their rate), net of
    the steady cover (serving and work that runs all its hours) of the classes it shares units
    with, of what narrower classes spill past their own units (``u``), and of what savings
    plans spend on other accelerators then:

    .. math:: F_{a,c,t} = K_{a,c} - \\sum_{c' \\ge c} (\\sigma_{a,c',t} + \\omega_{a,c',t})
        - u_{a,c,t} - \\sum_{q} \\sum_{a' \\ne a} \\frac{r_{q,a'}}{r_{q,a}} v_{q,a',t}

    .. math:: u_{a,c,t} \\ge \\sum_{c' < c} (\\sigma_{a,c',t} + \\omega_{a,c',t})
        - \\sum_{q:\\ m_q < c} U_q (o_q + z_q), \\quad u_{a,c,t} \\ge 0

    .. math:: \\bar F_{a,c,k} = \\sum_t s_{k,t} F_{a,c,t}, \\qquad
        \\kappa_j \\le h_j x_{j,a}, \\qquad \\kappa_j \\le r_j \\bar F_{a,c,k}, \\qquad
        \\sum_t w_t \\omega^S_{a,c,t} \\le \\sum_j \\kappa_j

    Covering steady work first is what happens in every hour (a commitment applies to whatever
    runs), and it is what the solver prefers: a chip of steady cover given up frees at most
    ``e_t \\le w_t`` hours of a job's cover. The bound is what the proportional schedule
    achieves, ``\\sum_t e_{j,t} \\min(n_j, F_{a,c,t})``, when ``F`` is at least ``n_j`` or at
    most it in all of a job's slices (otherwise a little above: a job usually runs when most
    is free). Short work whose placement is fixed (``x = 1``) is grouped by the chips it holds,
    ``n_j = h_j / r_j``: ``\\sum_{j \\in g} \\min(h_j, r_j \\bar F) = \\min(\\sum_g h_j,
    \\bar F \\sum_g r_j)``, so one ``\\kappa_g`` per (accelerator, class, profile, chips) is
    exact.
    """
    n = model.names
    opts = model.options
    work = opts[opts["short_work"]]
    if work.empty or not (model.units or model.plan_usd):
        return
    grid = model.grid
    levels = profile_levels(catalog)
    specs = catalog.profiles()
    for (acc, cls), group in work.groupby(["accelerator", "eligibility"], sort=True).groups.items():
        acc, cls = str(acc), float(cls)
        rows = work.loc[group]
        free_by_slice = _free_for_short(model, acc, cls)
        for profile in sorted(set(rows["load_profile"].astype(str))):
            g = levels[profile]
            runs = g > 0 if specs[profile].placement == "flexible" else g
            share = grid.hours * runs / float(grid.hours @ runs)
            key = (n.keys[acc], class_key(cls), n.keys[profile])
            free = model.problem.add_variable(name("free_for_short", *key), 0)
            model.free_for_short[(acc, cls, profile)] = free
            mean = pulp.LpAffineExpression()
            for t, expr in enumerate(free_by_slice):
                if share[t] > 0:
                    mean.addInPlace(expr, float(share[t]))
            mean.addInPlace(free, -1.0)
            model.problem.addConstraint(mean == 0, name("free_for_short_mean", *key))
        total = pulp.LpAffineExpression()
        fixed_short: dict[tuple[str, float], dict[int, tuple[float, float]]] = {}
        for oid, w, h, r, profile in zip(
            rows.index,
            rows["workload"],
            rows["chip_hours"],
            rows["run_hours"],
            rows["load_profile"].astype(str),
            strict=True,
        ):
            if int(oid) in model.fixed:
                if float(h) <= 0:
                    continue  # no work this month (zero volume): nothing to cover
                # Same chips held (h / r): min(h_j, r_j F) adds up to min(sum h, F sum r).
                chips = round(float(h) / float(r), 6)
                fixed_short.setdefault((profile, chips), {})[int(oid)] = (float(h), float(r))
                continue
            pair = (n.workloads[int(w)], n.keys[acc])
            kappa = model.problem.add_variable(name("short_cover", *pair), 0)
            model.short_cover[int(oid)] = kappa
            model.problem.addConstraint(
                pulp.LpAffineExpression([(kappa, 1.0), (model.assign[oid], -float(h))]) <= 0,
                name("short_cover_work", *pair),
            )
            total.addInPlace(kappa, 1.0)
            _bound_by_free(model, kappa, float(r), model.free_for_short[(acc, cls, profile)], pair)
        for i, ((profile, chips), members) in enumerate(sorted(fixed_short.items())):
            key = (n.keys[acc], class_key(cls), f"g{i}")
            kappa = model.problem.add_variable(
                name("short_cover_fixed", *key), 0, sum(h for h, _ in members.values())
            )
            model.short_cover_groups[(acc, cls, profile, chips)] = ShortCoverGroup(
                kappa, {oid: r for oid, (_, r) in members.items()}
            )
            total.addInPlace(kappa, 1.0)
            _bound_by_free(
                model,
                kappa,
                sum(r for _, r in members.values()),
                model.free_for_short[(acc, cls, profile)],
                key,
            )
        covered = pulp.LpAffineExpression(
            [
                (model.short_work_cover[(acc, cls, t)], float(grid.hours[t]))
                for t in range(len(grid.hours))
            ]
        )
        model.problem.addConstraint(
            covered - total <= 0, name("short_work_cover_total", n.keys[acc], class_key(cls))
        )


def _free_for_short(model: PlacementModel, acc: str, cls: float) -> list[pulp.LpAffineExpression]:
    """``F_{a,c,t}`` for every slice: what is held for class ``cls`` net of the steady cover
    that shares it, narrower classes' spill and savings-plan spend elsewhere."""
    book, n = model.book, model.names
    held = pulp.LpAffineExpression()
    narrow = pulp.LpAffineExpression()  # units too small for the class
    for q in book.on(acc):
        if q.key not in model.units:
            continue
        limit = math.inf if q.max_replica_chips is None else q.max_replica_chips
        into = held if limit >= cls else narrow
        into.addInPlace(model.units[q.key], q.unit_capacity_chips)
        into.constant += q.unit_capacity_chips * q.owned_units
    plans = [plan for plan in book.plans_for(acc) if plan.key in model.plan_usd]
    for plan in plans:
        held.addInPlace(model.plan_usd[plan.key], 1 / plan.rates[acc])
        held.constant += plan.owned_usd_per_hour / plan.rates[acc]
    classes = sorted(c for a, c in model.serving if a == acc)
    free: list[pulp.LpAffineExpression] = []
    for t in range(len(model.grid.hours)):
        f = pulp.LpAffineExpression(held)
        spill = pulp.LpAffineExpression()
        for c in classes:
            steady = [model.serving_cover[(acc, c, t)], model.work_cover[(acc, c, t)]]
            for var in steady:
                (f if c >= cls else spill).addInPlace(var, -1.0 if c >= cls else 1.0)
        if len(spill):
            if len(narrow):
                # u >= spill - narrow capacity, u >= 0: the solver keeps u at the larger.
                key = (n.keys[acc], class_key(cls), slice_key(t))
                u = model.problem.add_variable(name("short_spill", *key), 0)
                model.problem.addConstraint(spill - narrow - u <= 0, name("short_spill", *key))
                f.addInPlace(u, -1.0)
            else:
                f.addInPlace(spill, -1.0)
        for plan in plans:
            for other, rate in plan.rates.items():
                if other != acc and (plan.key, other, t) in model.plan_cover:
                    f.addInPlace(model.plan_cover[(plan.key, other, t)], -rate / plan.rates[acc])
        free.append(f)
    return free


def _bound_by_free(
    model: PlacementModel,
    kappa: pulp.LpVariable,
    run_hours: float,
    free: pulp.LpVariable,
    key: tuple[str, ...],
) -> None:
    """``kappa <= r F``: work running ``r`` hours is covered by at most what is free then."""
    model.problem.addConstraint(
        pulp.LpAffineExpression([(kappa, 1.0), (free, -run_hours)]) <= 0,
        name("short_cover_held", *key),
    )

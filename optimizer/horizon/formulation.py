"""The roadmap MILP: where every workload runs, month by month, over a horizon of N months.

Sets as in the steady-state model (``placement.formulating.model``), plus months ``m = 1..N`` and
readiness groups ``G``: a (family, platform) port, or a platform's migration programme for
workloads that need no port there. Readiness is indexed by the month it holds from:
``R_{G,k} = 1`` means ready by the start of month ``k`` (``k = 1..N+1``; ``N+1``: within the
horizon).

Decisions:

* ``x_{j,a}`` binary: workload j's target accelerator (one per placeable workload, as in the
  steady state). A target that needs no port and no migration is reached in month 1; one in a
  readiness group G from the month ``G`` is ready; until then the workload runs on its interim
  accelerator ``b_j`` (``placement.horizon.timeline``).
* ``A_{s,k}`` binary, non-decreasing in k: platform s's migration programme done by month k.
  It takes ``L_s`` months: ``A_{s,k} = 0`` for ``k <= L_s``. Adopted platforms: ``A = 1``.
* ``P_{f,s,k}`` binary, non-decreasing: family f ported to s by month k. A port takes ``d_f``
  months and starts once the programme is done: ``P_{f,s,k} <= A_{s,k-d}``, ``P = 0`` for
  ``k <= d``. Ports in progress in month m, ``P_{f,s,min(m+d,N+1)} - P_{f,s,m}``, number at
  most the catalog's ``porting_engineers``.
* ``z_{q,m}`` integer: reservation units of product q bought in month m, held for its term
  ``T_q``: ``held_{q,m} = o_q(m) + sum_{m-T_q < m' <= m} z_{q,m'}`` (``o_q(m)`` owned units
  whose ``months_left >= m``); savings plans likewise in USD per hour (continuous).

Demand (``placement.horizon.demand``). Workload j runs on its interim place b until it moves
to its target a, in a month of the plan's choosing once a's readiness group is ready (and the
SDK makes the pair feasible): ``y_{j,k}`` non-decreasing, ``y_{j,k} <= R_{G,k}``, on it by
the last month if usable and by its deadline; its figures times ``phi_j(m)`` enter once per
month for the workloads of a group whose demand changes alike. Per accelerator, month and
weekly slice t, the chips in use ``D_{a,m,t}`` follow the profiles as in the steady state
(flexible work spread over its offered hours); commitments cover up to what is held,
``y_{q,m,t} <= U_q held_{q,m}`` and ``sum_a r_{q,a} v_{q,a,m,t} <= held^{USD}_{q,m}``, and no
more than is in use.

Objective: the horizon's cost,

.. math:: \\sum_m \\Big[\\sum_a c_a \\sum_t w_t (D_{a,m,t} - \\mathit{cov}_{a,m,t})
    + \\sum_q P_q \\mathit{held}^{bought}_{q,m} + C^{owned}_m\\Big]
    + \\sum_{q \\notin Q^{run}} P_q \\sum_m z_{q,m} \\max(0, m + T_q - 1 - N)
    + \\sum_{f,s} E_s P_{f,s,N+1} + \\sum_s G_s A_{s,N+1} + K \\cdot \\text{moves}

A commitment bought in the horizon counts every payment inside it. Its payments after the last
month count too (a contract is signed whole) unless a workload it could cover runs on after the
horizon (no ``end_month``, or a later one): then the team uses it after the horizon, and those
payments are reported (``after_horizon``) but not charged, so that where the horizon ends does
not decide what is bought inside it. One-offs count in full, once. Reservation units cover
only the replicas they hold, as in the steady state (``add_eligible_cover``, with each class's
chips in use for its cover). Short work is covered at most by what steady cover leaves free,
per accelerator and month (``add_short_work_bound``), not job by job; flexible work is spread
over the hours its profile offers. Once the timeline is decided, every month is priced again in
the steady state's month model (``placement.horizon.pricing``), and those are the figures the
roadmap reports.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd
import pulp

from placement.analysing.durations import port_months_of, programme_months
from placement.estimating import Estimates, estimate
from placement.estimating.economics.commitments import CommitmentBook, commitment_book
from placement.estimating.economics.one_offs import (
    migration_one_off_usd,
    porting_one_off_usd,
    switching_one_off_usd,
)
from placement.estimating.economics.rates import on_demand_rates
from placement.estimating.profiles import merged_slices, slice_grid
from placement.formulating.model import FormulationSettings, model_options, rows_by
from placement.formulating.month import Held, add_eligible_cover, reserved_chips_held
from placement.formulating.naming import name, name_map, unique_clean
from placement.horizon.demand import Steps, add_demand, as_variable
from placement.horizon.model import COMPONENTS, HorizonModel, Ready, readiness_of
from placement.horizon.releases import catalog_in, epoch_starts
from placement.horizon.timeline import (
    interim_accelerators,
    month_factors,
    month_of_week,
    outlives,
    start_months,
)
from placement.models.catalog import Catalog


def build_horizon_model(
    estimates: Estimates,
    catalog: Catalog,
    months: int,
    settings: FormulationSettings | None = None,
    epochs: dict[int, pd.DataFrame] | None = None,
) -> HorizonModel:
    """Create the roadmap MILP over ``months`` months (see the module for the formulation);
    ``epochs`` (from ``epoch_options``) saves re-estimating them for each model built."""
    settings = settings or FormulationSettings()
    workloads = estimates.workloads
    epochs = epochs or epoch_options(estimates, catalog, months)
    rows = _available_rows(epochs, catalog, settings)
    interim = interim_accelerators(estimates.options, workloads)
    rows = rows.assign(
        readiness=[
            readiness_of(bool(p), bool(g), str(f), str(s))
            for p, g, f, s in zip(
                rows["needs_port"],
                rows["needs_migration"],
                rows["family"],
                rows["platform"],
                strict=True,
            )
        ]
    )
    model = HorizonModel(
        problem=pulp.LpProblem("roadmap", pulp.LpMinimize),
        months=months,
        rows=rows,
        factors=month_factors(workloads, months),
        outlives=outlives(workloads, months),
        interim=interim,
        book=commitment_book(catalog),
        grid=merged_slices(slice_grid(catalog), rows["load_profile"]),
        purchasable=settings.purchasable,
        epochs=epochs,
    )
    names = unique_clean(workloads["id"].astype(str).tolist())
    keys = name_map([*catalog.accelerators, *catalog.pricing_options, *catalog.platforms])
    families = name_map(rows["family"].astype(str))
    add_assignment(model, names, keys)
    add_readiness(model, catalog, keys, families)
    add_readiness_deadlines(model, workloads, catalog, names)
    moves = add_demand(model, estimates, catalog)
    add_commitments(model, catalog, keys)
    add_short_work_bound(model, catalog, keys)
    add_costs(model, catalog, moves)
    return model


def epoch_options(estimates: Estimates, catalog: Catalog, months: int) -> dict[int, pd.DataFrame]:
    """Each epoch's option frame, by its first month (``placement.horizon.releases``)."""
    epochs = {1: estimates.options}
    for start in epoch_starts(catalog, months)[1:]:
        later = estimate(estimates.workloads, catalog_in(catalog, start)).options
        same = ["workload", "accelerator", "pricing"]
        if not later[same].equals(estimates.options[same]):
            raise AssertionError("epoch option frames must list the same options in order")
        epochs[start] = later
    return epochs


def _available_rows(
    epochs: dict[int, pd.DataFrame], catalog: Catalog, settings: FormulationSettings
) -> pd.DataFrame:
    """The model's rows: every pair feasible in some epoch, with the first month it is
    (``available``), its figures those of that epoch (the month's own are read per month)."""
    found: list[pd.DataFrame] = []
    seen: set[int] = set()
    for start, options in sorted(epochs.items()):
        rows = model_options(options, catalog, settings)
        new = rows.loc[[oid for oid in rows.index if int(oid) not in seen]]
        found.append(new.assign(available=start))
        seen.update(int(oid) for oid in rows.index)
    return pd.concat(found).sort_index() if len(found) > 1 else found[0]


def epoch_of(model: HorizonModel, month: int) -> pd.DataFrame:
    """The option frame in force in ``month``."""
    return model.epochs[max(s for s in model.epochs if s <= month)]


def add_assignment(model: HorizonModel, names: list[str], keys: dict[str, str]) -> None:
    """One target per placeable workload: ``sum_a x_{j,a} = 1`` (a workload's only row is the
    constant 1)."""
    rows = model.rows
    for w, group in rows_by(rows, "workload").items():
        if len(group) == 1:
            model.fixed.add(int(group[0]))
            continue
        for oid in group:
            acc = str(rows.at[oid, "accelerator"])
            model.assign[int(oid)] = model.problem.add_variable(
                name("target", names[int(w)], keys[acc]), 0, 1, cat=pulp.LpBinary
            )
        expr = pulp.LpAffineExpression([(model.assign[int(oid)], 1.0) for oid in group])
        model.problem.addConstraint(expr == 1, name("target_one", names[int(w)]))


def add_readiness(
    model: HorizonModel, catalog: Catalog, keys: dict[str, str], families: dict[str, str]
) -> None:
    """Migration programmes and ports over time (see the module): monotone binaries, leads,
    ports after their programme, and at most ``porting_engineers`` ports at once."""
    last = model.months + 1
    groups = {g for g in model.rows["readiness"] if g is not None}
    platforms = {g[-1] for g in groups if g[0] == "adopt"} | {
        g[2] for g in groups if g[0] == "port" and not _adopted(model, catalog, g[2])
    }
    for s in sorted(platforms):
        lead = programme_months(catalog, s)
        model.lead_months[s] = lead
        previous: Ready = 0.0
        for k in range(1, last + 1):
            if k <= lead:
                model.adopt[(s, k)] = 0.0
                continue
            var = model.problem.add_variable(
                name("adopted", keys[s], f"m{k:03d}"), 0, 1, pulp.LpBinary
            )
            model.adopt[(s, k)] = var
            if not isinstance(previous, float):
                model.problem.addConstraint(
                    previous - var <= 0, name("adopted_stays", keys[s], f"m{k:03d}")
                )
            previous = var
    for s in {g[2] for g in groups if g[0] == "port"} - platforms:
        for k in range(1, last + 1):
            model.adopt[(s, k)] = 1.0
    ports = sorted({(g[1], g[2]) for g in groups if g[0] == "port"})
    for f, s in ports:
        d = port_months_of(catalog, f, s)
        model.port_months[(f, s)] = d
        previous = 0.0
        for k in range(1, last + 1):
            programme = model.adopt[(s, k - d)] if k - d >= 1 else 0.0
            if k <= d or (isinstance(programme, float) and programme == 0.0):
                model.port[(f, s, k)] = 0.0
                continue
            key = (families[f], keys[s], f"m{k:03d}")
            var = model.problem.add_variable(name("ported", *key), 0, 1, pulp.LpBinary)
            model.port[(f, s, k)] = var
            if not isinstance(previous, float):
                model.problem.addConstraint(previous - var <= 0, name("ported_stays", *key))
            if not isinstance(programme, float):
                model.problem.addConstraint(var - programme <= 0, name("ported_after", *key))
            previous = var
    engineers = catalog.economics.porting_engineers
    if engineers is None or not ports:
        return
    for m in range(1, model.months + 1):
        busy = pulp.LpAffineExpression()
        for f, s in ports:
            d = model.port_months[(f, s)]
            done_later, done_now = model.port[(f, s, min(m + d, last))], model.port[(f, s, m)]
            for value, sign in ((done_later, 1.0), (done_now, -1.0)):
                if isinstance(value, float):
                    busy.constant += sign * value
                else:
                    busy.addInPlace(value, sign)
        if len(busy):
            model.problem.addConstraint(busy <= engineers, name("porting_engineers", f"m{m:03d}"))


def _adopted(model: HorizonModel, catalog: Catalog, platform: str) -> bool:
    """Adopted in the catalog or by use today: the estimates say so through needs_migration."""
    rows = model.rows[model.rows["platform"].eq(platform)]
    return bool(len(rows)) and not bool(rows["needs_migration"].any())


def add_readiness_deadlines(
    model: HorizonModel, workloads: pd.DataFrame, catalog: Catalog, names: list[str]
) -> None:
    """A target must be ready when the workload needs it: by its ``needed_in_weeks`` month,
    and by its start month where it has no interim place to wait on (and the workload on it
    by then: ``placement.horizon.demand``).

    .. math:: x_{j,a} \\le R_{G(a), k_j}
    """
    starts = start_months(workloads)
    needed = workloads["needed_in_weeks"].astype(float)
    for oid, w, readiness, available in zip(
        model.rows.index,
        model.rows["workload"],
        model.rows["readiness"],
        model.rows["available"].astype(int),
        strict=True,
    ):
        if readiness is None and available == 1:
            continue
        deadlines = []
        if int(w) not in model.interim and starts[int(w)] <= model.months:
            deadlines.append(int(starts[int(w)]))
        if not math.isnan(needed.iat[int(w)]):
            month = month_of_week(float(needed.iat[int(w)]), catalog)
            if month <= model.months:
                deadlines.append(month)
        if not deadlines:
            continue
        model.deadline[int(oid)] = min(deadlines)
        # Not feasible until a later SDK brings what it needs: then it is not ready at all.
        ready = model.ready(readiness, min(deadlines)) if available <= min(deadlines) else 0.0
        expr = model.x(int(oid))
        if isinstance(ready, float):
            expr.constant -= ready
        else:
            expr.addInPlace(ready, -1.0)
        model.problem.addConstraint(
            expr <= 0, name("ready_in_time", names[int(w)], str(model.rows.at[oid, "accelerator"]))
        )


def owned_in_month(book: CommitmentBook, product: str, month: int) -> tuple[float, float]:
    """Owned units (or USD per hour) of a product still held in ``month``, and their cost."""
    held = cost = 0.0
    for entry in book.owned:
        if entry.product == product and entry.months_left >= month:
            held += entry.units if entry.units is not None else entry.usd_per_hour or 0.0
            cost += entry.monthly_usd
    return held, cost


def add_purchases(
    model: HorizonModel, catalog: Catalog, keys: dict[str, str], accelerators: Iterable[str]
) -> None:
    """Commitments bought month by month, ``z_{q,m}`` units or USD per hour, each held for its
    term (``held_in_month``) and at most what is worth holding at once, for the products that
    cover one of ``accelerators``."""
    p = model.problem
    accelerators = set(accelerators)
    for q in model.book.reservations:
        if q.accelerator not in accelerators:
            continue
        term = int(catalog.pricing_options[q.pricing].term_months or 1)
        key = (keys[q.pricing], keys[q.accelerator], str(q.unit_chips))
        cap = model.book.useful_units(q) if model.may_buy(q.pricing) else 0
        for m in range(1, model.months + 1):
            model.units[(q.key, m)] = p.add_variable(
                name("buy_units", *key, f"m{m:03d}"), 0, cap, cat=pulp.LpInteger
            )
        for m in range(1, model.months + 1):
            held_bought = _held(model.units, q.key, m, term)
            if cap is not None and len(held_bought):
                p.addConstraint(held_bought <= cap, name("held_cap", *key, f"m{m:03d}"))
    for plan in model.book.savings_plans:
        if not any(a in accelerators for a in plan.rates):
            continue
        term = int(catalog.pricing_options[plan.pricing].term_months or 1)
        plan_cap = plan.max_usd_per_hour if model.may_buy(plan.pricing) else 0.0
        for m in range(1, model.months + 1):
            model.plan_usd[(plan.key, m)] = p.add_variable(
                name("buy_plan_usd", keys[plan.pricing], f"m{m:03d}"), 0, plan_cap
            )
        for m in range(1, model.months + 1):
            held_bought = _held(model.plan_usd, plan.key, m, term)
            if plan_cap is not None and len(held_bought):
                p.addConstraint(
                    held_bought <= plan_cap, name("plan_cap", keys[plan.pricing], f"m{m:03d}")
                )


Holding = tuple[pulp.LpAffineExpression, float]
"""What is held of one product: bought (an expression of purchases) and owned (a constant)."""


def held_in_month(model: HorizonModel, catalog: Catalog, month: int) -> Held:
    """What commitments hold in ``month``: purchases of the last term months (variables) and
    what is owned still (a constant)."""

    def holding(bought: dict[tuple[str, int], pulp.LpVariable], key: str, pricing: str) -> Holding:
        term = int(catalog.pricing_options[pricing].term_months or 1)
        return _held(bought, key, month, term), owned_in_month(model.book, key, month)[0]

    return Held(
        units={
            q.key: holding(model.units, q.key, q.pricing)
            for q in model.book.reservations
            if (q.key, month) in model.units
        },
        usd={
            p.key: holding(model.plan_usd, p.key, p.pricing)
            for p in model.book.savings_plans
            if (p.key, month) in model.plan_usd
        },
    )


def held_as_variables(model: HorizonModel, held: Held, month: int) -> Held:
    """What is held, each product's purchases still running as one variable: the month's
    slices then each read one column, not the purchases of every month of a term."""
    tag = f"m{month:03d}"
    return Held(
        units={
            q: (as_variable(model, bought, name("held_units", f"q{i}", tag)), owned)
            for i, (q, (bought, owned)) in enumerate(sorted(held.units.items()))
        },
        usd={
            q: (as_variable(model, bought, name("held_usd", f"q{i}", tag)), owned)
            for i, (q, (bought, owned)) in enumerate(sorted(held.usd.items()))
        },
    )


def add_commitments(model: HorizonModel, catalog: Catalog, keys: dict[str, str]) -> None:
    """Commitments bought month by month with their terms (``add_purchases``), covering chips
    in use slice by slice within what is held (see the module)."""
    p = model.problem
    hours = model.grid.hours
    accelerators = sorted({a for a, _, _ in model.in_use})
    add_purchases(model, catalog, keys, accelerators)
    for m in range(1, model.months + 1):
        for acc in accelerators:
            for t in range(len(hours)):
                model.covered[(acc, m, t)] = pulp.LpAffineExpression()
    for m in range(1, model.months + 1):
        held = held_as_variables(model, held_in_month(model, catalog, m), m)
        for q in model.book.reservations:
            if q.key not in held.units:
                continue
            bought, owned = held.units[q.key]
            key = (keys[q.pricing], keys[q.accelerator], str(q.unit_chips))
            for t in range(len(hours)):
                y = p.add_variable(name("reserved_cover", *key, f"m{m:03d}", f"t{t:02d}"), 0)
                model.reserved_cover[(q.key, m, t)] = y
                model.covered[(q.accelerator, m, t)].addInPlace(y, 1.0)
                p.addConstraint(
                    y - q.unit_capacity_chips * bought <= q.unit_capacity_chips * owned,
                    name("reserved_capacity", *key, f"m{m:03d}", f"t{t:02d}"),
                )
        for plan in model.book.savings_plans:
            if plan.key not in held.usd:
                continue
            covered = [a for a in plan.rates if a in accelerators]
            bought, owned = held.usd[plan.key]
            for t in range(len(hours)):
                spend = pulp.LpAffineExpression()
                for a in covered:
                    v = p.add_variable(
                        name("plan_cover", keys[plan.pricing], keys[a], f"m{m:03d}", f"t{t:02d}"), 0
                    )
                    model.covered[(a, m, t)].addInPlace(v, 1.0)
                    spend.addInPlace(v, plan.rates[a])
                spend.addInPlace(bought, -1.0)
                p.addConstraint(
                    spend <= owned,
                    name("plan_capacity", keys[plan.pricing], f"m{m:03d}", f"t{t:02d}"),
                )
    for (acc, m, t), cover in model.covered.items():
        use = model.in_use.get((acc, m, t), pulp.LpAffineExpression())
        if len(cover):
            p.addConstraint(
                cover - use <= 0, name("cover_in_use", keys[acc], f"m{m:03d}", f"t{t:02d}")
            )
        # Units that hold only small replicas cover only those, as in the steady state.
        reserved = {
            q.key: model.reserved_cover[(q.key, m, t)]
            for q in model.book.on(acc)
            if (q.key, m, t) in model.reserved_cover
        }
        by_class = {
            c: model.in_use_by_class.get((acc, m, t, c), pulp.LpAffineExpression())
            for c in model.book.classes[acc]
        }
        add_eligible_cover(
            p, model.book, acc, reserved, by_class, (keys[acc], f"m{m:03d}", f"t{t:02d}")
        )
        limit = catalog.accelerators[acc].max_chips
        if limit is not None and len(use):
            p.addConstraint(use <= limit, name("chip_limit", keys[acc], f"m{m:03d}", f"t{t:02d}"))


def add_short_work_bound(model: HorizonModel, catalog: Catalog, keys: dict[str, str]) -> None:
    """Short work (a gang of ``n_j`` chips for ``r_j`` hours, fewer than its profile offers) is
    covered only by what is held free while it runs: ``kappa_j <= r_j F`` job by job in the
    steady state's month (``add_short_work_cover``), rows that would number jobs x months here,
    and a product of placement and holdings summed. The roadmap MILP bounds it per accelerator
    and month instead, with ``SH_{a,m}`` the short work's chip-hours there (scaled by ``phi``
    and summed over the placement as the demand is), ``\\bar R_{a,m}`` the run hours of all
    the short work that could run there (a constant), ``K_{a,m}`` the chips the commitments held
    then hold there (owned and bought; a savings plan's dollars at its rate there) and ``H``
    the month's hours: the cover of short work ``s_{a,m}`` is what the cover exceeds the steady
    work's chip-hours by, and at most what steady cover leaves of ``K`` on average, in each hour
    any short work there could run:

    .. math:: \\sum_t w_t \\mathit{cov}_{a,m,t} - s_{a,m} \\le \\sum_t w_t D_{a,m,t}
        - SH_{a,m}, \\qquad
        s_{a,m} \\le \\bar R_{a,m} \\Big(K_{a,m} - \\frac{1}{H}\\big(\\sum_t w_t
        \\mathit{cov}_{a,m,t} - s_{a,m}\\big)\\Big)

    A 128-GPU job running 145.5 hours beside a service on 50 of 64 owned GPUs is covered at most
    14 x 145.5 = 2,037 of its 18,624 GPU-hours, as in the steady state (spread over the month
    it looked covered 10,220). Where the short work that could run on an accelerator runs the
    month's hours or more (``\\bar R \\ge H``) the bound is no tighter than the cover's own
    (at most ``K`` chips each hour) and is left out, with the short work's own figure; the
    pricing (``placement.horizon.pricing``) covers short work exactly either way."""
    hours = model.grid.hours
    month_hours = float(hours.sum())
    for (acc, m, figure), chip_hours in sorted(model.short_work.items()):
        most = model.short_run_most.get((acc, m), 0.0)
        if figure != "short_hours" or not 0 < most < month_hours:
            continue  # where short work could run all month, the cover's own bounds hold it
        covered = pulp.LpAffineExpression()
        steady = pulp.LpAffineExpression()
        for t in range(len(hours)):
            if (acc, m, t) in model.covered:
                covered.addInPlace(model.covered[(acc, m, t)], float(hours[t]))
                steady.addInPlace(model.in_use[(acc, m, t)], float(hours[t]))
        if not len(covered):
            continue  # nothing can cover it
        label = (keys[acc], f"m{m:03d}")
        p = model.problem
        short = p.add_variable(name("short_work_cover", *label), 0)
        steady.addInPlace(chip_hours, -1.0)
        p.addConstraint(covered - short - steady <= 0, name("steady_work_cover", *label))
        free = _chips_held(model, catalog, acc, m)
        free.addInPlace(covered - short, -1.0 / month_hours)
        p.addConstraint(short - most * free <= 0, name("short_work_cover_free", *label))


def _chips_held(
    model: HorizonModel, catalog: Catalog, accelerator: str, month: int
) -> pulp.LpAffineExpression:
    """``K_{a,m}``: the chips the reservations held in a month hold on an accelerator, and the
    savings plans held then at their rate there."""
    held = held_in_month(model, catalog, month)
    chips = reserved_chips_held(model.book, held, accelerator)
    for plan in model.book.plans_for(accelerator):
        if plan.key in held.usd:
            bought, owned = held.usd[plan.key]
            chips.addInPlace(bought, 1.0 / plan.rates[accelerator])
            chips.constant += owned / plan.rates[accelerator]
    return chips


def _held(
    bought: dict[tuple[str, int], pulp.LpVariable], key: str, month: int, term: int
) -> pulp.LpAffineExpression:
    """What purchases of ``key`` still run in ``month``: those of the last ``term`` months."""
    return pulp.LpAffineExpression(
        [(bought[(key, b)], 1.0) for b in range(max(1, month - term + 1), month + 1)]
    )


def add_costs(model: HorizonModel, catalog: Catalog, moves: list[Steps]) -> None:
    """Each month's cost by component, the commitment payments that fall after the horizon
    (charged only where their workloads end within it), and the objective."""
    rates = on_demand_rates(catalog)
    hours = model.grid.hours
    K = switching_one_off_usd(catalog)
    N = model.months
    monthly = [{c: pulp.LpAffineExpression() for c in COMPONENTS} for _ in range(N)]
    for (acc, m, t), use in model.in_use.items():
        monthly[m - 1]["on_demand_usd"].addInPlace(use, rates[acc] * float(hours[t]))
    for (acc, m, t), cover in model.covered.items():
        monthly[m - 1]["on_demand_usd"].addInPlace(cover, -rates[acc] * float(hours[t]))
    add_commitment_payments(model, catalog, monthly)
    # One-offs in the month they start: a port done by month k started in k - d.
    for (f, s), d in model.port_months.items():
        cost = porting_one_off_usd(catalog, s)
        for k in range(2, N + 2):
            start = k - d
            if start >= 1:
                _add_step(
                    monthly[start - 1]["porting_usd"],
                    model.port[(f, s, k)],
                    model.port[(f, s, k - 1)],
                    cost,
                )
    for s, lead in model.lead_months.items():
        cost = migration_one_off_usd(catalog, s)
        for k in range(2, N + 2):
            start = k - lead
            if start >= 1:
                _add_step(
                    monthly[start - 1]["migration_usd"],
                    model.adopt[(s, k)],
                    model.adopt[(s, k - 1)],
                    cost,
                )
    for moved in moves:
        for k, count in moved.items():
            monthly[k - 1]["switching_usd"].addInPlace(count, K)
    model.monthly = monthly
    objective = pulp.LpAffineExpression()
    for month in monthly:
        for expr in month.values():
            objective.addInPlace(expr)
    objective.addInPlace(model.after_horizon_charged)
    model.problem.setObjective(objective)


def add_commitment_payments(
    model: HorizonModel, catalog: Catalog, monthly: list[dict[str, pulp.LpAffineExpression]]
) -> None:
    """Each month's commitment payments (owned ones while they last, bought ones while held
    within the horizon) into ``monthly``, and the payments after the horizon into
    ``after_horizon`` (all) and ``after_horizon_charged`` (those charged: see the module)."""
    month_hours = catalog.economics.hours_per_month.value
    N = model.months
    products = [
        (q.key, q.pricing, model.units, q.unit_monthly_usd, [q.accelerator])
        for q in model.book.reservations
    ] + [
        (p.key, p.pricing, model.plan_usd, month_hours, list(p.rates))
        for p in model.book.savings_plans
    ]
    for key, pricing, bought, price, accelerators in products:
        # Owned ones cost what they cost while they last; bought ones while held within the
        # horizon. The payments a term binds the team to after the last month are recorded
        # (``after_horizon``); they are charged only where no workload the product could cover
        # runs on after the horizon (it would lie idle then). Where workloads run on, they use it
        # after the horizon, and charging those payments would let where the horizon ends
        # decide purchases inside it.
        charged_after = not runs_on(model, accelerators)
        term = int(catalog.pricing_options[pricing].term_months or 1)
        for m in range(1, N + 1):
            monthly[m - 1]["commitments_usd"].constant += owned_in_month(model.book, key, m)[1]
            if (key, m) not in bought:
                continue
            monthly[m - 1]["commitments_usd"].addInPlace(_held(bought, key, m, term), price)
            beyond = max(0, m + term - 1 - N)
            if beyond:
                model.after_horizon.addInPlace(bought[(key, m)], price * beyond)
                if charged_after:
                    model.after_horizon_charged.addInPlace(bought[(key, m)], price * beyond)


def runs_on(model: HorizonModel, accelerators: list[str]) -> bool:
    """Whether a workload that may run on one of ``accelerators`` runs on after the horizon
    (so a commitment there is used after it too)."""
    rows = model.rows[model.rows["accelerator"].isin(accelerators)]
    return bool(model.outlives[rows["workload"].to_numpy(dtype=int)].any())


def _add_step(into: pulp.LpAffineExpression, now: Ready, before: Ready, cost: float) -> None:
    """``cost x (now - before)``: the one-off of what became ready between two months."""
    for value, sign in ((now, 1.0), (before, -1.0)):
        if isinstance(value, float):
            into.constant += sign * cost * value
        else:
            into.addInPlace(value, sign * cost)


def month_values(model: HorizonModel) -> list[dict[str, float]]:
    """Each month's cost components at the solution."""
    return [
        {c: float(pulp.value(expr) or 0.0) for c, expr in month.items()} for month in model.monthly
    ]


def ready_month(
    model: HorizonModel, readiness: tuple[str, ...] | None, after_horizon: bool = False
) -> int | None:
    """The first month a readiness group is at least half done at the solution (ready, in an
    integer solution; None: not within the horizon; with ``after_horizon``, month N+1 counts
    too: done with the horizon's last month)."""
    for m in range(1, model.months + (2 if after_horizon else 1)):
        if model.ready_value(readiness, m) >= 0.5:
            return m
    return None


def is_target(model: HorizonModel, oid: int) -> bool:
    """Whether the solution makes the row's accelerator its workload's target."""
    if oid in model.fixed:
        return True
    value = model.assign[oid].varValue
    return value is not None and value > 0.5


def iter_purchases(model: HorizonModel) -> Iterable[tuple[str, int, float]]:
    """(product, month, amount) of every purchase at the solution."""
    for (key, m), var in sorted(model.units.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if (var.varValue or 0) > 0.5:
            yield key, m, float(round(var.varValue or 0))
    for (key, m), var in sorted(model.plan_usd.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if (var.varValue or 0) > 1e-6:
            yield key, m, float(var.varValue or 0)

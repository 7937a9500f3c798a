"""Commitments: what the steady state may buy, and their cover of the chips in use (the month
model's ``add_cover``); work that runs fewer hours than its profile offers is covered only by
what is held free while it runs (``add_short_work_cover``)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import pulp

from placement.formulating.model import PlacementModel
from placement.formulating.month import Held, ShortJob, add_cover, add_short_work_cover
from placement.formulating.naming import name
from placement.models.catalog import Catalog


def add_commitment_coverage_constraints(model: PlacementModel) -> None:
    """What the steady state may commit to, and its cover (``add_cover`` in
    ``placement.formulating.month``): ``z_q`` integer units bought of each reservation product
    (at most ``useful_units``, none where the option may not be bought) beside the ``o_q``
    owned, ``Z_q`` USD per hour of each savings plan beside the ``O_q`` owned."""
    book, n = model.book, model.names
    accelerators = model.month.accelerators
    for q in book.reservations:
        if q.accelerator not in accelerators:
            continue
        key = (n.keys[q.pricing], n.keys[q.accelerator], str(q.unit_chips))
        model.units[q.key] = model.problem.add_variable(
            name("units", *key),
            lowBound=0,
            upBound=book.useful_units(q) if model.may_buy(q.pricing) else 0,
            cat=pulp.LpInteger,
        )
    for plan in book.savings_plans:
        if not any(a in accelerators for a in plan.rates):
            continue
        model.plan_usd[plan.key] = model.problem.add_variable(
            name("plan_usd", n.keys[plan.pricing]),
            lowBound=0,
            upBound=plan.max_usd_per_hour if model.may_buy(plan.pricing) else 0,
        )
    add_cover(model.problem, model.month, book, n.keys, held_by(model))


def held_by(model: PlacementModel) -> Held:
    """What the steady state's commitments hold: bought (variables) and owned."""
    return Held(
        units={
            q.key: (pulp.LpAffineExpression([(model.units[q.key], 1.0)]), q.owned_units)
            for q in model.book.reservations
            if q.key in model.units
        },
        usd={
            p.key: (pulp.LpAffineExpression([(model.plan_usd[p.key], 1.0)]), p.owned_usd_per_hour)
            for p in model.book.savings_plans
            if p.key in model.plan_usd
        },
    )


def add_work_concurrency_constraints(
    model: PlacementModel, catalog: Catalog, aggregate: bool = False
) -> None:
    """Short work is covered only by what is free while it runs (``add_short_work_cover``):
    one ``kappa_j`` per short pair with a choice, bounded by ``h_j x_{j,a}``; pairs with a single
    possible accelerator (``x = 1``) grouped by the chips they hold. ``aggregate``: pairs with a
    choice pooled by group too, a relaxation (for a bound)."""
    n = model.names
    opts = model.options
    work = opts[opts["short_work"]]
    ons = [model.placed([(int(oid), 1.0)]) for oid in work.index]
    add_short_work_cover(
        model.problem,
        model.month,
        model.book,
        model.grid,
        catalog,
        n.keys,
        held_by(model),
        short_jobs(work, n.workloads, n.keys, ons),
        aggregate,
    )


def short_jobs(
    work: pd.DataFrame,
    workload_names: Sequence[str],
    keys: dict[str, str],
    ons: Sequence[pulp.LpAffineExpression],
) -> list[ShortJob]:
    """The short work of option rows (``short_work``), keyed by row, each labelled by its
    workload's and accelerator's names, with whether it runs there (``on``)."""
    labels = [
        (workload_names[int(w)], keys[str(a)])
        for w, a in zip(work["workload"], work["accelerator"], strict=True)
    ]
    return [
        ShortJob(
            key=int(oid),
            label=label,
            accelerator=str(acc),
            eligibility=float(cls),
            profile=str(profile),
            chip_hours=float(h),
            run_hours=float(r),
            on=on,
        )
        for oid, acc, cls, profile, h, r, label, on in zip(
            work.index,
            work["accelerator"],
            work["eligibility"],
            work["load_profile"],
            work["chip_hours"],
            work["run_hours"],
            labels,
            ons,
            strict=True,
        )
    ]

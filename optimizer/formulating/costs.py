"""Costs: the objective, monthly cost of compute on demand and under commitments plus the
amortised one-offs of porting, migrating and switching."""

from __future__ import annotations

import pulp

from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.estimating.economics.rates import on_demand_rates
from placement.formulating.model import (
    PlacementModel,
)
from placement.models.catalog import Catalog


def set_objective(model: PlacementModel, catalog: Catalog) -> None:
    """Minimise monthly cost: compute on demand and under commitments, plus amortised one-off
    costs.

    .. math:: \\min \\underbrace{\\sum_{(j,a)} c_a h_{j,a} x_{j,a}
        - \\sum_{a,t} w_t c_a \\sum_c (\\sigma_{a,c,t} + \\omega_{a,c,t}
        + \\omega^S_{a,c,t})}_{\\text{on demand}}
        + \\underbrace{\\sum_q P_q z_q + \\sum_q H Z_q + C^{owned}}_{\\text{commitments}}
        + \\sum_{(f,s)} \\frac{w_s E}{M} \\mathit{port}_{f,s}
        + \\sum_s \\frac{G_s}{M} \\mathit{adopt}_s
        + \\sum_{(j,a)} \\frac{K_{j,a}}{M} x_{j,a}

    ``K_{j,a}`` is the one-off cost of moving workload j off the accelerator it runs on today
    (``switching_usd``: the catalog's switching cost for every accelerator but its current one),
    ``c_a`` the on-demand rate, ``P_q`` a reservation unit's monthly price, ``Z_q`` a savings
    plan's USD per hour (paid ``H`` hours a month), ``C^{owned}`` what owned commitments cost.
    """
    econ = catalog.economics
    months = econ.amortization_months.value
    hours = econ.hours_per_month.value
    rates = on_demand_rates(catalog)
    opts = model.options
    on_demand = model.placed(
        (int(oid), rates[str(a)] * float(h))
        for oid, a, h in zip(opts.index, opts["accelerator"], opts["chip_hours"], strict=True)
    )
    for acc, t, var in model.month.covers():
        on_demand.addInPlace(var, -rates[acc] * float(model.grid.hours[t]))
    model.costs["on_demand_usd"] = on_demand
    commitments = pulp.LpAffineExpression()
    # What is owned is paid whatever the plan does, even where no work can use it.
    for q in model.book.reservations:
        commitments.constant += q.owned_monthly_usd
        if q.key in model.units:
            commitments.addInPlace(model.units[q.key], q.unit_monthly_usd)
    for plan in model.book.savings_plans:
        commitments.constant += plan.owned_monthly_usd
        if plan.key in model.plan_usd:
            commitments.addInPlace(model.plan_usd[plan.key], hours)
    model.costs["reserved_usd"] = commitments
    model.costs["porting_amortized_usd"] = pulp.LpAffineExpression(
        [(var, porting_one_off_usd(catalog, s) / months) for (_, s), var in model.port.items()]
    )
    model.costs["migration_amortized_usd"] = pulp.LpAffineExpression(
        [(var, migration_one_off_usd(catalog, s) / months) for s, var in model.adopt.items()]
    )
    model.costs["switching_amortized_usd"] = model.placed(
        (int(oid), float(k) / months)
        for oid, k in zip(opts.index, opts["switching_usd"], strict=True)
        if k > 0
    )
    objective = pulp.LpAffineExpression()
    for expr in model.costs.values():
        objective.addInPlace(expr)
    model.problem.setObjective(objective)

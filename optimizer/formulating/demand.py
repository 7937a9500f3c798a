"""Demand: the steady state's figures per part of the demand (accelerator, profile, class,
short work or not), spread over the slices of the week by the month model, and the
accelerators' limits on them."""

from __future__ import annotations

import pandas as pd
import pulp

from placement.formulating.model import PlacementModel
from placement.formulating.month import (
    DemandKey,
    Figures,
    add_chip_limits,
    class_key,
    spread_demand,
)
from placement.formulating.naming import name
from placement.models.catalog import Catalog


def add_demand_constraints(model: PlacementModel, catalog: Catalog) -> None:
    """The chips in use in every slice (``spread_demand`` in ``placement.formulating.month``)
    from one aggregate per part, each a sum over the placement:

    .. math:: S^{base}_{a,k,c} = \\sum_j n_j b_j x_{j,a}, \\quad
        S^{var}_{a,k,c} = \\sum_j n_j (1 - b_j) x_{j,a}, \\quad
        V_{a,k,c} = \\sum_j h_j x_{j,a}, \\quad N_{a,k,c} = \\sum_j n_j x_{j,a}

    (peak chips ``n_j``, base share ``b_j``, chip-hours ``h_j``; ``N`` for flexible work only).
    """
    specs = catalog.profiles()
    n = model.names
    opts = model.options
    figures: dict[DemandKey, Figures] = {}
    for (acc, profile, cls, is_short), group in opts.groupby(
        ["accelerator", "load_profile", "eligibility", "short_work"], sort=True
    ).groups.items():
        part = DemandKey(str(acc), str(profile), float(cls), bool(is_short))
        rows = opts.loc[group]
        key = (n.keys[part.accelerator], n.keys[part.profile], class_key(part.eligibility))
        key = (*key, *(("short",) if part.short else ()))
        f = Figures()
        spec = specs[part.profile]
        if spec.kind == "serving":
            base = rows["chips"] * rows["base_fraction"]
            scaled = rows["chips"] * (1 - rows["base_fraction"])
            f.serving_scaled = _aggregate(model, "serving_scaled", key, scaled)
            if (base > 0).any():
                f.serving_base = _aggregate(model, "serving_base", key, base)
        else:
            f.work_hours = _aggregate(model, "work_hours", key, rows["chip_hours"])
            if spec.placement == "flexible":
                f.work_chips = _aggregate(model, "work_chips", key, rows["chips"])
        figures[part] = f
    spread_demand(model.problem, model.month, model.grid, catalog, n.keys, figures)


def _aggregate(
    model: PlacementModel, family: str, key: tuple[str, ...], weights: pd.Series
) -> pulp.LpAffineExpression:
    """A variable equal to ``sum_j weight_j x_j`` over the rows of ``weights`` (the constant
    itself where every row is fixed)."""
    expr = model.placed((int(oid), float(v)) for oid, v in weights.items() if v)
    if not len(expr):
        return expr
    var = model.problem.add_variable(name(family, *key), lowBound=0)
    expr.addInPlace(var, -1.0)
    model.problem.addConstraint(expr == 0, name(f"{family}_sum", *key))
    return pulp.LpAffineExpression([(var, 1.0)])


def add_chip_limit_constraints(model: PlacementModel, catalog: Catalog) -> None:
    """No more chips in use at once than an accelerator's limit (``add_chip_limits``)."""
    add_chip_limits(model.problem, model.month, catalog, model.names.keys)

"""Demand: the steady state's figures per part of the demand (accelerator, profile, class,
short work or not), spread over the slices of the week by the month model, and the
accelerators' limits on them."""

from __future__ import annotations

from collections.abc import Callable

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

Aggregate = Callable[[str, tuple[str, ...], pd.Series], pulp.LpAffineExpression]
"""Turns one figure of a part's rows (its family, the part's name, a weight per row) into
the expression of their sum."""


def add_demand_constraints(model: PlacementModel, catalog: Catalog) -> None:
    """The chips in use in every slice (``spread_demand`` in ``placement.formulating.month``)
    from one aggregate per part, each a sum over the placement:

    .. math:: S^{base}_{a,k,c} = \\sum_j n_j b_j x_{j,a}, \\quad
        S^{var}_{a,k,c} = \\sum_j n_j (1 - b_j) x_{j,a}, \\quad
        V_{a,k,c} = \\sum_j h_j x_{j,a}, \\quad N_{a,k,c} = \\sum_j n_j x_{j,a}

    (peak chips ``n_j``, base share ``b_j``, chip-hours ``h_j``; ``N`` for flexible work only).
    """

    def aggregate(family: str, key: tuple[str, ...], weights: pd.Series) -> pulp.LpAffineExpression:
        return _aggregate(model, family, key, weights)

    figures = part_figures(model.options, catalog, model.names.keys, aggregate)
    spread_demand(model.problem, model.month, model.grid, catalog, model.names.keys, figures)


def part_figures(
    rows: pd.DataFrame, catalog: Catalog, keys: dict[str, str], aggregate: Aggregate
) -> dict[DemandKey, Figures]:
    """Each part's figures (see ``add_demand_constraints``) from option rows with their class
    and short-work flag (``with_classes``), summed by ``aggregate``."""
    specs = catalog.profiles()
    figures: dict[DemandKey, Figures] = {}
    for (acc, profile, cls, is_short), members in rows.groupby(
        ["accelerator", "load_profile", "eligibility", "short_work"], sort=True
    ):
        part = DemandKey(str(acc), str(profile), float(cls), bool(is_short))
        key = (keys[part.accelerator], keys[part.profile], class_key(part.eligibility))
        key = (*key, *(("short",) if part.short else ()))
        f = Figures()
        spec = specs[part.profile]
        if spec.kind == "serving":
            base = members["chips"] * members["base_fraction"]
            scaled = members["chips"] * (1 - members["base_fraction"])
            f.serving_scaled = aggregate("serving_scaled", key, scaled)
            if (base > 0).any():
                f.serving_base = aggregate("serving_base", key, base)
        else:
            f.work_hours = aggregate("work_hours", key, members["chip_hours"])
            if spec.placement == "flexible":
                f.work_chips = aggregate("work_chips", key, members["chips"])
        figures[part] = f
    return figures


def constant_sum(family: str, key: tuple[str, ...], weights: pd.Series) -> pulp.LpAffineExpression:
    """The sum of rows whose placement is given: a constant."""
    return pulp.LpAffineExpression(constant=float(weights.sum()))


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

"""Demand: the chips in use in every time slice of the week, by accelerator and eligibility
class, and the accelerator's limit on them."""

from __future__ import annotations

import pandas as pd
import pulp

from placement.estimating.profiles import profile_levels
from placement.formulating.model import (
    PlacementModel,
    class_key,
    slice_key,
)
from placement.formulating.naming import name
from placement.models.catalog import Catalog


def add_demand_constraints(model: PlacementModel, catalog: Catalog) -> None:
    """The chips in use in every slice, by accelerator and class, through one aggregate per
    (accelerator, profile, class) so that the model grows with the inventory, not with
    inventory x slices.

    Serving (peak chips ``n_j``, base share ``b_j``, profile levels ``g_k``):

    .. math:: S^{base}_{a,k,c} = \\sum_j n_j b_j x_{j,a}, \\quad
        S^{var}_{a,k,c} = \\sum_j n_j (1 - b_j) x_{j,a}, \\quad
        D^S_{a,c}(t) = \\sum_k S^{base}_{a,k,c} + S^{var}_{a,k,c} g_k(t)

    Work (chip-hours ``h_j``), short work (``D^{WS}``, see ``add_work_concurrency_constraints``)
    aggregated apart from the rest: a fixed profile spreads ``V_{a,k,c} = \\sum_j h_j x_{j,a}`` as
    ``V g_k(t) / \\sum_t w_t g_k(t)``; a flexible one places it with ``\\phi_{a,k,c,t} \\ge 0``
    in the slices where ``g_k(t) > 0``, never more chips at once than its jobs hold together
    (``N_{a,k,c} = \\sum_j n_j x_{j,a}``):

    .. math:: \\sum_t w_t \\phi_{a,k,c,t} = V_{a,k,c}, \\qquad \\phi_{a,k,c,t} \\le N_{a,k,c}
    """
    grid = model.grid
    levels = profile_levels(catalog)
    specs = catalog.profiles()
    n = model.names
    slices = range(len(grid.hours))
    opts = model.options
    for (acc, profile, cls, is_short), group in opts.groupby(
        ["accelerator", "load_profile", "eligibility", "short_work"], sort=True
    ).groups.items():
        acc, profile, cls, is_short = str(acc), str(profile), float(cls), bool(is_short)
        g = levels[profile]
        rows = opts.loc[group]
        key = (n.keys[acc], n.keys[profile], class_key(cls), *(("short",) if is_short else ()))
        serving = model.serving.setdefault((acc, cls), [pulp.LpAffineExpression() for _ in slices])
        work = model.work.setdefault((acc, cls), [pulp.LpAffineExpression() for _ in slices])
        short = (
            model.short_work.setdefault((acc, cls), [pulp.LpAffineExpression() for _ in slices])
            if is_short
            else None
        )
        if specs[profile].kind == "serving":
            base = rows["chips"] * rows["base_fraction"]
            scaled = rows["chips"] * (1 - rows["base_fraction"])
            var_scaled = _aggregate(model, "serving_scaled", key, scaled)
            for t in slices:
                if g[t] > 0:
                    serving[t].addInPlace(var_scaled, float(g[t]))
            if (base > 0).any():
                var_base = _aggregate(model, "serving_base", key, base)
                for t in slices:
                    serving[t].addInPlace(var_base, 1.0)
            continue
        hours = _aggregate(model, "work_hours", key, rows["chip_hours"])
        if specs[profile].placement == "fixed":
            spread = float(grid.hours @ g)
            for t in slices:
                if g[t] > 0:
                    work[t].addInPlace(hours, float(g[t]) / spread)
                    if short is not None:
                        short[t].addInPlace(hours, float(g[t]) / spread)
            continue
        placed = pulp.LpAffineExpression()
        at_once = _aggregate(model, "work_chips", key, rows["chips"])
        for t in slices:
            if g[t] <= 0:
                continue
            phi = model.problem.add_variable(name("flexible", *key, slice_key(t)), lowBound=0)
            model.flexible[(acc, profile, cls, is_short, t)] = phi
            work[t].addInPlace(phi, 1.0)
            if short is not None:
                short[t].addInPlace(phi, 1.0)
            placed.addInPlace(phi, float(grid.hours[t]))
            model.problem.addConstraint(
                phi - at_once <= 0, name("flexible_at_once", *key, slice_key(t))
            )
        placed.addInPlace(hours, -1.0)
        model.problem.addConstraint(placed == 0, name("flexible_placed", *key))


def _aggregate(
    model: PlacementModel, family: str, key: tuple[str, ...], weights: pd.Series
) -> pulp.LpVariable | pulp.LpAffineExpression:
    """A variable equal to ``sum_j weight_j x_j`` over the rows of ``weights`` (the constant
    itself where every row is fixed)."""
    expr = model.placed((int(oid), float(v)) for oid, v in weights.items() if v)
    if not len(expr):
        return expr
    var = model.problem.add_variable(name(family, *key), lowBound=0)
    expr.addInPlace(var, -1.0)
    model.problem.addConstraint(expr == 0, name(f"{family}_sum", *key))
    return var


def add_chip_limit_constraints(model: PlacementModel, catalog: Catalog) -> None:
    """No more chips in use at once than an accelerator's limit (a quota), in any slice:

    .. math:: \\sum_c D^S_{a,c}(t) + D^W_{a,c}(t) \\le L_a \\quad \\forall t
    """
    for acc in sorted({a for a, _ in model.serving}):
        limit = catalog.accelerators[acc].max_chips
        if limit is None:
            continue
        for t in range(len(model.grid.hours)):
            expr = pulp.LpAffineExpression()
            for (a, c), per_slice in model.serving.items():
                if a == acc:
                    expr.addInPlace(per_slice[t])
                    expr.addInPlace(model.work[(a, c)][t])
            model.problem.addConstraint(
                expr <= limit, name("chip_limit", model.names.keys[acc], slice_key(t))
            )

"""Demand over a horizon: which workloads run where each month, and the chips they hold.

**When a workload reaches its target.** A row (workload j, accelerator a) whose target needs a
readiness group G (a port, or a platform's programme) runs there from the month G is ready,
and not before the month ``X`` the SDK in force makes the pair feasible: with ``R'_m = R_{G,m}
[m >= X]`` and ``delta_k = R'_k - R'_{k-1}`` (1 in exactly the month G becomes usable, if it
does within the horizon), the workload moves in month k with

.. math:: w_{j,k} = x_{j,a} \\delta_k, \\qquad
    w_{j,k} \\le \\delta_k, \\quad \\sum_k w_{j,k} \\le x_{j,a}, \\quad
    x_{j,a} - \\sum_k w_{j,k} \\le 1 - R'_N

and runs on its target in month m iff ``y_{j,m} = sum_{k<=m} w_{j,k} = x_{j,a} R'_m``. This
disaggregation by the month of the move is the convex hull of each product of the binary
``x`` with the one-hot ``delta`` (one row per workload and month, where the McCormick product
per month takes three and lets ``y`` dip back down in the LP relaxation). A row that needs no
readiness moves in month X: ``w_{j,X} = x_{j,a}``. A workload's only row (``x = 1``) moves with
``delta`` itself.

**Demand.** Workload j's figures (serving chips at base and scaled with its profile, work
chip-hours) on its target, ``F_{j,a}``, and on its interim place b, ``F_{j,b}``, are scaled
each month by ``phi_j(m)`` (start, end, growth). Workloads of one group (same target,
readiness, interim, profile, move and first feasible month) with the same ``phi`` form a class
c, so each figure enters the model once per move month rather than once per month:

.. math:: S_{c,k} = \\sum_{j \\in c} F_{j,a} w_{j,k}, \\qquad
    B_c = \\sum_{j \\in c} F_{j,b} x_{j,a}, \\qquad
    S^b_{c,k} = \\sum_{j \\in c} F_{j,b} w_{j,k}

    \\text{on } a \\text{ in month } m: \\ \\phi_c(m) \\sum_{k \\le m} S_{c,k}, \\qquad
    \\text{on } b: \\ \\phi_c(m) \\Big(B_c - \\sum_{k \\le m} S^b_{c,k}\\Big)

(with the figures of the SDK's epoch in force in month m). Per accelerator, month and weekly
slice t, the chips in use ``D_{a,m,t}`` add these up with each profile's level in slice t, as
in the steady state (flexible work spread over the hours its profile offers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pulp

from placement.estimating import Estimates
from placement.estimating.profiles import profile_levels
from placement.models.catalog import Catalog
from placement.naming import name

if TYPE_CHECKING:
    from placement.horizon.formulation import HorizonModel, Ready

FIGURES = {"serving": ("serving_base", "serving_scaled"), "work": ("work_hours",)}
"""The demand figures of each profile kind (see the module)."""

Steps = dict[int, pulp.LpAffineExpression]
"""Per month k: ``w_{j,k}`` of a row, or, summed over a group, how many of its workloads
move to their target in month k."""


@dataclass(frozen=True)
class Group:
    """Workloads sharing a target, a readiness group, an interim place and a profile."""

    target: str
    readiness: tuple[str, ...] | None  # ("port", family, platform) | ("adopt", platform)
    interim: str | None
    profile: str
    moving: bool  # they run on their interim today, so reaching the target is a move
    available: int = 1  # the first month the SDK in force makes the target feasible


def add_demand(model: HorizonModel, estimates: Estimates, catalog: Catalog) -> list[Steps]:
    """The chips in use per accelerator, month and slice (see the module); returns, per group
    of workloads that move, how many move in each month."""
    rows = model.rows
    figures_in = {start: _figures(frame, catalog) for start, frame in model.epochs.items()}
    epoch_at = {m: max(s for s in figures_in if s <= m) for m in range(1, model.months + 1)}
    specs = catalog.profiles()
    parts: dict[tuple[str, int, str, str], pulp.LpAffineExpression] = {}
    moves: list[Steps] = []
    groups = _groups(model, estimates.workloads)
    for gi, (group, oids) in enumerate(sorted(groups.items(), key=lambda kv: repr(kv[0]))):
        members = rows.loc[oids, "workload"].astype(int).to_numpy()
        steps = [_move_steps(model, oid, group.readiness, group.available) for oid in oids]
        classes = _phi_classes(model.factors[members])
        for figure in FIGURES[specs[group.profile].kind]:
            by_epoch = {
                start: _member_figures(frame, members, group, figure)
                for start, frame in figures_in.items()
            }
            for ci, (phi, idx) in enumerate(classes):
                label = (f"g{gi}", f"c{ci}", figure)
                for start, (on_target, on_interim) in by_epoch.items():
                    months = [m for m in range(1, model.months + 1) if phi[m - 1] > 0]
                    months = [m for m in months if epoch_at[m] == start]
                    if not months:
                        continue
                    lab = (*label, f"e{start:03d}")
                    moved = _class_steps(model, steps, idx, on_target, ("moved", *lab))
                    for m in months:
                        _add(parts, (group.target, m, group.profile, figure), moved, m, phi)
                    if on_interim is None or group.interim is None:
                        continue
                    left = _class_steps(model, steps, idx, on_interim, ("left", *lab))
                    base = _class_total(model, oids, idx, on_interim, ("waiting", *lab))
                    for m in months:
                        key = (group.interim, m, group.profile, figure)
                        parts.setdefault(key, pulp.LpAffineExpression()).addInPlace(
                            base, float(phi[m - 1])
                        )
                        _add(parts, key, left, m, phi, sign=-1.0)
        if group.moving:
            moves.append(_count(steps))
    _add_in_use(model, parts, catalog)
    return moves


def _groups(model: HorizonModel, workloads: pd.DataFrame) -> dict[Group, list[int]]:
    """The model's rows by group (see the module)."""
    rows = model.rows
    moving: set[int] = set()
    if "current_accelerator" in workloads:
        moving = {
            int(w)
            for w, a in workloads["current_accelerator"].items()
            if a is not None and not pd.isna(a)
        }
    groups: dict[Group, list[int]] = {}
    for oid, w, acc, readiness, profile, available in zip(
        rows.index,
        rows["workload"],
        rows["accelerator"],
        rows["readiness"],
        rows["load_profile"],
        rows["available"].astype(int),
        strict=True,
    ):
        w = int(w)
        waits = readiness is not None or available > 1
        interim = model.interim.get(w) if waits else None
        is_move = w in moving and model.interim.get(w) != acc
        key = Group(str(acc), readiness, interim, str(profile), is_move, int(available))
        groups.setdefault(key, []).append(int(oid))
    return groups


def _move_steps(
    model: HorizonModel, oid: int, readiness: tuple[str, ...] | None, available: int
) -> Steps:
    """``w_{j,k}`` of a row for each month k it may move in (see the module)."""
    N = model.months
    x = model.x(oid)
    if readiness is None:
        return {available: x} if available <= N else {}
    deltas: dict[int, pulp.LpAffineExpression] = {}
    before: Ready = 0.0
    for k in range(available, N + 1):
        now = model.ready(readiness, k)
        delta = _affine(now) - _affine(before)
        before = now
        if len(delta) or delta.constant:
            deltas[k] = delta
    if oid in model.fixed or not deltas:
        return deltas
    p = model.problem
    steps: Steps = {}
    total = pulp.LpAffineExpression()
    for k, delta in deltas.items():
        label = (str(oid), f"m{k:03d}")
        w = p.add_variable(name("moves_in", *label), 0, 1)
        if len(delta):
            p.addConstraint(w - delta <= 0, name("moves_once_ready", *label))
        steps[k] = pulp.LpAffineExpression([(w, 1.0)])
        total.addterm(w, 1.0)
    p.addConstraint(total - x <= 0, name("moves_if_target", str(oid)))
    # Once usable within the horizon, a workload that targets it has moved.
    last = _affine(model.ready(readiness, N) if available <= N else 0.0)
    if len(last) or last.constant:
        p.addConstraint(x - total + last <= 1, name("moves_when_ready", str(oid)))
    return steps


def _affine(value: Ready) -> pulp.LpAffineExpression:
    if isinstance(value, float):
        return pulp.LpAffineExpression(constant=value)
    return pulp.LpAffineExpression([(value, 1.0)])


def _phi_classes(phi: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The members' distinct ``phi`` rows and the positions of the members having each."""
    if not len(phi):
        return []
    distinct, inverse = np.unique(phi, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    return [(distinct[c], np.flatnonzero(inverse == c)) for c in range(len(distinct))]


def _class_steps(
    model: HorizonModel,
    steps: list[Steps],
    idx: np.ndarray,
    figures: np.ndarray,
    label: tuple[str, ...],
) -> Steps:
    """``S_{c,k} = sum_{j in c} F_j w_{j,k}`` per month k, each one variable."""
    sums: Steps = {}
    for i in idx:
        weight = float(figures[i])
        if not weight:
            continue
        for k, w in steps[i].items():
            sums.setdefault(k, pulp.LpAffineExpression()).addInPlace(w, weight)
    return {
        k: _as_variable(model, expr, name(*label, f"m{k:03d}")) for k, expr in sorted(sums.items())
    }


def _class_total(
    model: HorizonModel,
    oids: list[int],
    idx: np.ndarray,
    figures: np.ndarray,
    label: tuple[str, ...],
) -> pulp.LpAffineExpression:
    """``B_c = sum_{j in c} F_j x_j`` as one variable (a constant where every row is fixed)."""
    expr = pulp.LpAffineExpression()
    for i in idx:
        weight = float(figures[i])
        if weight:
            expr.addInPlace(model.x(oids[i]), weight)
    return _as_variable(model, expr, name(*label))


def _add(
    parts: dict[tuple[str, int, str, str], pulp.LpAffineExpression],
    key: tuple[str, int, str, str],
    steps: Steps,
    month: int,
    phi: np.ndarray,
    sign: float = 1.0,
) -> None:
    """Add ``sign phi(month) sum_{k <= month} S_k`` to a part of the demand."""
    into = parts.setdefault(key, pulp.LpAffineExpression())
    factor = sign * float(phi[month - 1])
    for k, expr in steps.items():
        if k <= month:
            into.addInPlace(expr, factor)


def _count(steps: list[Steps]) -> Steps:
    """Per month, how many of the rows move in it."""
    moved: Steps = {}
    for row in steps:
        for k, w in row.items():
            moved.setdefault(k, pulp.LpAffineExpression()).addInPlace(w)
    return moved


def _figures(options: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """Per (workload, accelerator): the demand figures of its on-demand option."""
    on_demand = {a: catalog.on_demand_option(a) for a in catalog.accelerators}
    rows = options[options["pricing"].eq(options["accelerator"].map(on_demand))]
    frame = pd.DataFrame(
        {
            "serving_base": rows["chips"] * rows["base_fraction"],
            "serving_scaled": rows["chips"] * (1 - rows["base_fraction"]),
            "work_hours": rows["chip_hours"],
        }
    ).fillna(0.0)
    frame.index = pd.MultiIndex.from_arrays([rows["workload"].astype(int), rows["accelerator"]])
    return frame


def _member_figures(
    figures: pd.DataFrame, members: np.ndarray, group: Group, figure: str
) -> tuple[np.ndarray, np.ndarray | None]:
    """The members' figure on the group's target and on its interim place (None without)."""
    on_target = figures.loc[
        list(zip(members, [group.target] * len(members), strict=True)), figure
    ].to_numpy()
    if group.interim is None:
        return on_target, None
    on_interim = figures.loc[
        list(zip(members, [group.interim] * len(members), strict=True)), figure
    ].to_numpy()
    return on_target, on_interim


def _add_in_use(
    model: HorizonModel,
    parts: dict[tuple[str, int, str, str], pulp.LpAffineExpression],
    catalog: Catalog,
) -> None:
    """``D_{a,m,t}``: each part as one variable, at its profile's level in each slice."""
    levels = profile_levels(catalog)
    hours = model.grid.hours
    for key, expr in sorted(parts.items()):
        acc, m, profile, figure = key
        var = _as_variable(model, expr, name("demand", *map(str, key)))
        g = levels[profile]
        spread = float(hours @ g)
        for t in range(len(hours)):
            if figure == "serving_base":
                level = 1.0
            elif figure == "serving_scaled":
                level = float(g[t])
            else:
                level = float(g[t]) / spread if spread > 0 else 0.0
            if level:
                model.in_use.setdefault((acc, m, t), pulp.LpAffineExpression()).addInPlace(
                    var, level
                )


def _as_variable(
    model: HorizonModel, expr: pulp.LpAffineExpression, label: str
) -> pulp.LpAffineExpression:
    """A variable equal to ``expr`` (``expr`` itself when it has at most one term)."""
    if len(expr) <= 1:
        return expr
    var = model.problem.add_variable(label, lowBound=0)
    model.problem.addConstraint(expr - var == 0, name(label, "def"))
    return pulp.LpAffineExpression([(var, 1.0)])

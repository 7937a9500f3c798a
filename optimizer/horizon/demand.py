"""Demand over a horizon: which workloads run where each month, and the chips they hold.

**When a workload reaches its target.** A row (workload j, accelerator a) whose target needs a
readiness group G (a port, or a platform's programme), or that the SDK makes feasible only from
a later month X, may run there from the month G is ready and not before X; it waits on its
interim place b until it moves, in a month of the plan's choosing (at once, unless waiting
pays: an owned commitment running on b, say). ``y_{j,k}`` (on the target in month k,
``k >= X``) is non-decreasing (continuous here; the search makes every move whole, in one
month: ``placement.horizon.solve``):

.. math:: y_{j,k-1} \\le y_{j,k} \\le R_{G,k}, \\qquad y_{j,N} \\le x_{j,a}, \\qquad
    x_{j,a} - y_{j,N} \\le 1 - R_{G,N}, \\qquad x_{j,a} \\le y_{j,k_j}

(a workload targeting a usable target is on it by the last month, and by the month ``k_j`` it
is needed where it has a deadline). It moves in month k if ``y_{j,k} - y_{j,k-1} = 1``. A row
that needs nothing runs on its target from month 1 (``y_{j,m} = x_{j,a}``). Letting each
workload choose its month is what a team does, and it keeps the LP relaxation tight: where
every workload had to move in the month its group became ready, the relaxation made a port
"partly ready" over several months so that each workload used it when it suited it, 0.11-0.17%
below the optimum on 1,000 workloads; with the month a workload's own, 0.004-0.06%.

**Demand.** Workload j's figures (serving chips at base and scaled with its profile, work
chip-hours) on its target, ``F_{j,a}``, and on its interim place b, ``F_{j,b}``, are scaled
each month by ``phi_j(m)`` (start, end, growth). Workloads of one group (same target,
readiness, interim, profile, move and first feasible month) with the same ``phi`` form a class
c, and each figure enters the model once per month in which its rows may move (once, for rows
that need nothing):

.. math:: T_{c,k} = \\sum_{j \\in c} F_{j,a} y_{j,k}, \\qquad
    B_c = \\sum_{j \\in c} F_{j,b} x_{j,a}, \\qquad
    T^b_{c,k} = \\sum_{j \\in c} F_{j,b} y_{j,k}

    \\text{on } a \\text{ in month } m: \\ \\phi_c(m) T_{c,m}, \\qquad
    \\text{on } b: \\ \\phi_c(m) (B_c - T^b_{c,m})

(with the figures of the SDK's epoch in force in month m). Per accelerator, month and weekly
slice t, the chips in use ``D_{a,m,t}`` add these up with each profile's level in slice t, as
in the steady state (flexible work spread over the hours its profile offers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pulp

from placement.estimating import Estimates
from placement.formulating.model import with_classes
from placement.formulating.month import class_key
from placement.formulating.naming import name
from placement.horizon.model import HorizonModel, Ready
from placement.models.catalog import Catalog

FIGURES = {
    "serving": ("serving_base", "serving_scaled"),
    "work": ("work_hours", "short_hours"),
}
"""The demand figures of each profile kind (see the module): short work's chip-hours again,
apart, for what commitments can cover of it (``SHORT_FIGURES``)."""

SHORT_FIGURES = ("short_hours",)
"""Figures that bound the cover of short work (``add_short_work_bound``), not chips in use."""

Part = tuple[str, int, str, str, float]
"""A part of a month's demand: (accelerator, month, profile, figure, eligibility class)."""

Steps = dict[int, pulp.LpAffineExpression]
"""Expressions by month: whether a row runs on its target from month k on, their sums, or
how many of a group's workloads move in month k."""


@dataclass(frozen=True)
class Group:
    """Workloads sharing a target, a readiness group, an interim place and a profile."""

    target: str
    readiness: tuple[str, ...] | None  # ("port", family, platform) | ("adopt", platform)
    interim: str | None
    profile: str
    moving: bool  # they run on their interim today, so reaching the target is a move
    available: int = 1  # the first month the SDK in force makes the target feasible
    # The eligibility class of their replicas on the target and on the interim place.
    target_class: float = math.inf
    interim_class: float = math.inf


def add_demand(model: HorizonModel, estimates: Estimates, catalog: Catalog) -> list[Steps]:
    """The chips in use per accelerator, month and slice (see the module); returns, per group
    of workloads that move, how many move in each month."""
    rows = model.rows
    figures_in = {start: _figures(frame, catalog) for start, frame in model.epochs.items()}
    epoch_at = {m: max(s for s in figures_in if s <= m) for m in range(1, model.months + 1)}
    specs = catalog.profiles()
    parts: dict[Part, pulp.LpAffineExpression] = {}
    moves: list[Steps] = []
    groups = _groups(model, estimates.workloads, figures_in[1])
    model.short_run_most = _short_run_most(model, figures_in, epoch_at)
    # Short work's own chip-hours only where its cover can be bounded (add_short_work_bound).
    bounded = {
        acc for (acc, _), run in model.short_run_most.items() if run < model.grid.hours.sum()
    }
    for gi, (group, oids) in enumerate(sorted(groups.items(), key=lambda kv: repr(kv[0]))):
        members = rows.loc[oids, "workload"].astype(int).to_numpy()
        ons = [_on_target(model, oid, group.readiness, group.available) for oid in oids]
        classes = _phi_classes(model.factors[members])
        for figure in FIGURES[specs[group.profile].kind]:
            if figure in SHORT_FIGURES and not {group.target, group.interim} & bounded:
                continue
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
                    moved = _class_sums(model, ons, idx, on_target, ("moved", *lab))
                    for m in months:
                        key = (group.target, m, group.profile, figure, group.target_class)
                        _add(parts, key, moved, m, phi)
                    if on_interim is None or group.interim is None:
                        continue
                    left = _class_sums(model, ons, idx, on_interim, ("left", *lab))
                    base = _class_total(model, oids, idx, on_interim, ("waiting", *lab))
                    for m in months:
                        key = (group.interim, m, group.profile, figure, group.interim_class)
                        parts.setdefault(key, pulp.LpAffineExpression()).addInPlace(
                            base, float(phi[m - 1])
                        )
                        _add(parts, key, left, m, phi, sign=-1.0)
        if group.moving:
            moves.append(_count(ons))
    _add_in_use(model, parts, catalog)
    return moves


def _short_run_most(
    model: HorizonModel, figures_in: dict[int, pd.DataFrame], epoch_at: dict[int, int]
) -> dict[tuple[str, int], float]:
    """Per (accelerator, month): the run hours of the short work that could run there then,
    every workload that may (a target or the place it waits on) counted once, at ``phi``."""
    rows = model.rows
    pairs = set(zip(rows["workload"].astype(int), rows["accelerator"].astype(str), strict=True))
    pairs |= {(int(w), str(a)) for w, a in model.interim.items()}
    index = pd.MultiIndex.from_tuples(sorted(pairs), names=["workload", "accelerator"])
    workloads = index.get_level_values(0).to_numpy(dtype=int)
    accelerators = index.get_level_values(1).astype(str)
    most: dict[tuple[str, int], float] = {}
    for m in range(1, model.months + 1):
        run = figures_in[epoch_at[m]]["short_run_hours"].reindex(index).fillna(0.0).to_numpy()
        at = pd.Series(run * model.factors[workloads, m - 1]).groupby(accelerators).sum()
        most.update({(str(a), m): float(v) for a, v in at.items() if v > 0})
    return most


def _groups(
    model: HorizonModel, workloads: pd.DataFrame, figures: pd.DataFrame
) -> dict[Group, list[int]]:
    """The model's rows by group (see the module); the interim place's class from the
    catalog's figures now (``figures``)."""
    rows = model.rows
    moving: set[int] = set()
    if "current_accelerator" in workloads:
        moving = {
            int(w)
            for w, a in workloads["current_accelerator"].items()
            if a is not None and not pd.isna(a)
        }
    groups: dict[Group, list[int]] = {}
    for oid, w, acc, readiness, profile, available, cls in zip(
        rows.index,
        rows["workload"],
        rows["accelerator"],
        rows["readiness"],
        rows["load_profile"],
        rows["available"].astype(int),
        rows["eligibility"].astype(float),
        strict=True,
    ):
        w = int(w)
        waits = readiness is not None or available > 1
        interim = model.interim.get(w) if waits else None
        is_move = w in moving and model.interim.get(w) != acc
        there = math.inf if interim is None else float(figures.at[(w, interim), "eligibility"])
        key = Group(
            str(acc), readiness, interim, str(profile), is_move, int(available), float(cls), there
        )
        groups.setdefault(key, []).append(int(oid))
    return groups


def _on_target(
    model: HorizonModel, oid: int, readiness: tuple[str, ...] | None, available: int
) -> Steps:
    """Whether a row's workload runs on its target, from each month k on until the next one
    listed: ``y_{j,k}`` where it may wait (see the module), else ``x_{j,a}`` from month 1."""
    N = model.months
    x = model.x(oid)
    if readiness is None and available == 1:
        return {1: x}
    # The months in which the target may be usable: from the first the SDK allows, where
    # the readiness group is not still certainly not ready.
    months = {k: model.ready(readiness, k) for k in range(available, N + 1)}
    months = {k: r for k, r in months.items() if not (isinstance(r, float) and r == 0.0)}
    if not months:
        return {}
    p = model.problem
    on: Steps = {}
    on_target: dict[int, pulp.LpVariable] = {}
    previous: pulp.LpVariable | None = None
    for k, ready in months.items():
        label = (str(oid), f"m{k:03d}")
        y = p.add_variable(name("on_target", *label), 0, 1)
        if not isinstance(ready, float):
            p.addConstraint(y - ready <= 0, name("on_target_once_ready", *label))
        if previous is not None:
            p.addConstraint(previous - y <= 0, name("stays_on_target", *label))
        on[k] = pulp.LpAffineExpression([(y, 1.0)])
        on_target[k] = y
        previous = y
    assert previous is not None
    model.on_target[oid] = on_target
    p.addConstraint(previous - x <= 0, name("on_target_if_target", str(oid)))
    # Usable by the last month: a workload that targets it is on it by then, and by the month
    # it is needed.
    last = _affine(model.ready(readiness, N))
    if len(last) or last.constant:
        p.addConstraint(x - previous + last <= 1, name("on_target_when_ready", str(oid)))
    due = model.deadline.get(oid)
    if due is not None and due in on_target:
        p.addConstraint(x - on_target[due] <= 0, name("on_target_when_needed", str(oid)))
    return on


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


def _class_sums(
    model: HorizonModel,
    ons: list[Steps],
    idx: np.ndarray,
    figures: np.ndarray,
    label: tuple[str, ...],
) -> Steps:
    """``sum_{j in c} F_j y_{j,k}`` from each month k listed on, each one variable (the rows of
    a group list the same months)."""
    sums: Steps = {}
    for i in idx:
        weight = float(figures[i])
        if not weight:
            continue
        for k, on in ons[i].items():
            sums.setdefault(k, pulp.LpAffineExpression()).addInPlace(on, weight)
    return {
        k: as_variable(model, expr, name(*label, f"m{k:03d}")) for k, expr in sorted(sums.items())
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
    return as_variable(model, expr, name(*label))


def _add(
    parts: dict[Part, pulp.LpAffineExpression],
    key: Part,
    sums: Steps,
    month: int,
    phi: np.ndarray,
    sign: float = 1.0,
) -> None:
    """Add ``sign phi(month)`` times the sum in force in ``month`` to a part of the demand."""
    listed = [k for k in sums if k <= month]
    if listed:
        into = parts.setdefault(key, pulp.LpAffineExpression())
        into.addInPlace(sums[max(listed)], sign * float(phi[month - 1]))


def _count(ons: list[Steps]) -> Steps:
    """Per month, how many of the rows move in it: the increase of those on their target."""
    totals: Steps = {}
    for row in ons:
        for k, on in row.items():
            totals.setdefault(k, pulp.LpAffineExpression()).addInPlace(on)
    moved: Steps = {}
    previous = pulp.LpAffineExpression()
    for k, total in sorted(totals.items()):
        moved[k] = total - previous
        previous = total
    return moved


def _figures(options: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """Per (workload, accelerator): the demand figures of its on-demand option."""
    on_demand = {a: catalog.on_demand_option(a) for a in catalog.accelerators}
    rows = options[options["pricing"].eq(options["accelerator"].map(on_demand))]
    rows = with_classes(rows, catalog)
    frame = pd.DataFrame(
        {
            "serving_base": rows["chips"] * rows["base_fraction"],
            "serving_scaled": rows["chips"] * (1 - rows["base_fraction"]),
            "work_hours": rows["chip_hours"],
            "short_hours": rows["chip_hours"].where(rows["short_work"], 0.0),
            "short_run_hours": rows["run_hours"].where(rows["short_work"], 0.0),
        }
    ).fillna(0.0)
    frame["eligibility"] = rows["eligibility"].astype(float)
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
    model: HorizonModel, parts: dict[Part, pulp.LpAffineExpression], catalog: Catalog
) -> None:
    """``D_{a,m,t}``: each part as one variable, at its profile's level in each slice, in all
    and by eligibility class (``D_{a,m,t,c}``)."""
    levels = model.grid.levels
    hours = model.grid.hours
    for key, expr in sorted(parts.items()):
        acc, m, profile, figure, cls = key
        if figure in SHORT_FIGURES:
            model.short_work.setdefault((acc, m, figure), pulp.LpAffineExpression()).addInPlace(
                expr
            )
            continue
        label = (acc, str(m), profile, figure, class_key(cls))
        var = as_variable(model, expr, name("demand", *label))
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
                model.in_use_by_class.setdefault(
                    (acc, m, t, cls), pulp.LpAffineExpression()
                ).addInPlace(var, level)


def as_variable(
    model: HorizonModel, expr: pulp.LpAffineExpression, label: str
) -> pulp.LpAffineExpression:
    """A variable equal to ``expr`` (``expr`` itself when it has at most one term)."""
    if len(expr) <= 1:
        return expr
    var = model.problem.add_variable(label, lowBound=0)
    model.problem.addConstraint(expr - var == 0, name(label, "def"))
    return pulp.LpAffineExpression([(var, 1.0)])

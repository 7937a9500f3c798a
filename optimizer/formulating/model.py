"""The mixed-integer program, built from the estimates' option frame alone.

Sets: workloads j; feasible (workload, accelerator) pairs (j, a); 48 time slices t (each hour of
a weekday and of a weekend day, ``w_t`` hours of the month each); load profiles k; eligibility
classes c (the largest replica a reservation unit holds); commitment products (reservations
(p, a, u) and savings plans q); porting pairs (f, s); platforms s not yet adopted. Domain
constraints (latency, memory fit, features, porting time, pins) are enforced by the option set
itself: ``x[j,a]`` exists only for pairs the estimates found feasible (optimizer/estimating).

Pricing is an outcome: in every slice, commitments cover up to their capacity of the chips in
use on their accelerator and on-demand pays for the rest.

Every ``add_<family>_constraints`` function below adds one constraint family and states it
(docs/formulation.md gives each its section).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd
import pulp

from placement.estimating.economics.commitments import (
    CommitmentBook,
    commitment_book,
    on_demand_rates,
)
from placement.estimating.profiles import (
    SliceGrid,
    offered_hours,
    profile_levels,
    slice_grid,
)
from placement.formulating.naming import name, name_map, unique_clean
from placement.models.catalog import Catalog

SHORT_WORK_SLACK = 1e-6
"""Relative margin under which work counts as running all the hours its profile offers."""


@dataclass(frozen=True)
class FormulationSettings:
    """Switches that change the model without changing the catalog (baselines use them):
    ``allowed_accelerators`` restricts where work may go; ``fixed_accelerators`` (workload ->
    accelerator) fixes the placement, leaving only what to commit to; ``purchasable`` limits
    the pricing options new commitments may be bought under (owned ones still count)."""

    allowed_accelerators: frozenset[str] | None = None
    fixed_accelerators: dict[int, str] | None = None
    purchasable: frozenset[str] | None = None


@dataclass(frozen=True)
class ModelNames:
    """Solver-safe unique names for every id that appears in a variable or constraint name."""

    workloads: list[str]  # by workload position
    families: dict[str, str]
    keys: dict[str, str]  # accelerators, pricing options, platforms and profiles

    @classmethod
    def build(cls, workload_ids: list[str], options: pd.DataFrame, catalog: Catalog) -> ModelNames:
        catalog_keys = [
            *catalog.accelerators,
            *catalog.pricing_options,
            *catalog.platforms,
            *catalog.profiles(),
        ]
        return cls(
            workloads=unique_clean(workload_ids),
            families=name_map(options["family"].astype(str)),
            keys=name_map(catalog_keys),
        )


@dataclass
class PlacementModel:
    """The PuLP problem and its variables, keyed by the rows of ``options``.

    ``options`` holds one row per feasible (workload, accelerator) pair, the pair's on-demand
    option (its index is that option's id in the estimates). Slice-level variables are keyed
    by accelerator, class and slice index.
    """

    problem: pulp.LpProblem
    options: pd.DataFrame
    names: ModelNames
    book: CommitmentBook
    grid: SliceGrid
    purchasable: frozenset[str] | None = None
    assign: dict[int, pulp.LpVariable] = field(default_factory=dict)
    # Rows of workloads with a single possible accelerator: placed there, a constant 1.
    fixed: set[int] = field(default_factory=set)
    port: dict[tuple[str, str], pulp.LpVariable] = field(default_factory=dict)
    adopt: dict[str, pulp.LpVariable] = field(default_factory=dict)
    placeable: list[int] = field(default_factory=list)
    costs: dict[str, pulp.LpAffineExpression] = field(default_factory=dict)
    # Demand per slice (expressions), by (accelerator, class): serving chips and work chips.
    serving: dict[tuple[str, float], list[pulp.LpAffineExpression]] = field(default_factory=dict)
    work: dict[tuple[str, float], list[pulp.LpAffineExpression]] = field(default_factory=dict)
    flexible: dict[tuple[str, str, float, int], pulp.LpVariable] = field(default_factory=dict)
    units: dict[str, pulp.LpVariable] = field(default_factory=dict)
    plan_usd: dict[str, pulp.LpVariable] = field(default_factory=dict)
    reserved_cover: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    plan_cover: dict[tuple[str, str, int], pulp.LpVariable] = field(default_factory=dict)
    serving_cover: dict[tuple[str, float, int], pulp.LpVariable] = field(default_factory=dict)
    work_cover: dict[tuple[str, float, int], pulp.LpVariable] = field(default_factory=dict)
    short_cover: dict[int, pulp.LpVariable] = field(default_factory=dict)
    # Fixed short work, one variable per (accelerator, class, chips held): its rows and hours.
    short_cover_groups: dict[tuple[str, float, float], ShortCoverGroup] = field(
        default_factory=dict
    )

    def may_buy(self, pricing: str) -> bool:
        """Whether new commitments may be bought under this pricing option."""
        return self.purchasable is None or pricing in self.purchasable

    def placed(self, terms: Iterable[tuple[int, float]]) -> pulp.LpAffineExpression:
        """``sum coef x[oid]`` over ``(oid, coef)`` pairs, fixed rows entering as constants."""
        expr = pulp.LpAffineExpression()
        for oid, coef in terms:
            if oid in self.fixed:
                expr.constant += coef
            else:
                expr.addterm(self.assign[oid], coef)
        return expr

    def is_placed(self, oid: int) -> bool:
        """Whether the solution places the row's workload on the row's accelerator."""
        if oid in self.fixed:
            return True
        value = self.assign[oid].varValue
        # Binary values come back as floats near 0 or 1; never compare them to 1 exactly.
        return value is not None and value > 0.5


@dataclass(frozen=True)
class ShortCoverGroup:
    """Short work fixed on one accelerator and class, all holding ``chips`` chips when it
    runs: covered at most ``min(h, r K)`` each, so ``min(chips, K)`` x their run hours."""

    variable: pulp.LpVariable
    run_hours: dict[int, float]  # option row -> r_j


def model_options(
    options: pd.DataFrame, catalog: Catalog, settings: FormulationSettings
) -> pd.DataFrame:
    """The (workload, accelerator) pairs the model may choose: feasible, allowed, and fixed
    where a placement is given; one row each (its on-demand option), with its class."""
    on_demand = {a: catalog.on_demand_option(a) for a in catalog.accelerators}
    keep = options["feasible"] & options["pricing"].eq(options["accelerator"].map(on_demand))
    if settings.allowed_accelerators is not None:
        keep &= options["accelerator"].isin(settings.allowed_accelerators)
    if settings.fixed_accelerators is not None:
        fixed = options["workload"].map(settings.fixed_accelerators)
        keep &= options["accelerator"].eq(fixed)
    rows = options[keep]
    book = commitment_book(catalog)
    classes = [
        book.class_of(str(a), int(s))
        for a, s in zip(rows["accelerator"], rows["replica_chips"], strict=True)
    ]
    return rows.assign(eligibility=classes)


def _slice_key(t: int) -> str:
    return f"t{t:02d}"


def _class_key(c: float) -> str:
    return "any" if math.isinf(c) else f"le{int(c)}"


def add_assignment_variables(model: PlacementModel) -> None:
    """Binary ``assign(j,a)`` for every (workload, accelerator) pair the workload may take,
    except where the workload has only one: there ``x[j,a] = 1`` is a constant, so that the
    baselines, where every placement is given, leave only what to commit to."""
    opts = model.options
    n = model.names
    choices = opts["workload"].map(opts["workload"].value_counts())
    for oid, w, acc, k in zip(
        opts.index, opts["workload"], opts["accelerator"], choices, strict=True
    ):
        if k == 1:
            model.fixed.add(int(oid))
            continue
        model.assign[oid] = model.problem.add_variable(
            name("assign", n.workloads[w], n.keys[acc]), 0, 1, cat=pulp.LpBinary
        )


def add_assignment_constraints(model: PlacementModel) -> None:
    """Each placeable workload runs on exactly one accelerator.

    .. math:: \\sum_{a \\in A_j} x_{j,a} = 1 \\quad \\forall j \\text{ with } A_j \\neq \\emptyset
    """
    for w, group in model.options.groupby("workload", sort=True).groups.items():
        model.placeable.append(int(w))
        if len(group) == 1:
            continue  # a constant: see add_assignment_variables
        expr = pulp.LpAffineExpression([(model.assign[oid], 1.0) for oid in group])
        model.problem.addConstraint(expr == 1, name("assign_one", model.names.workloads[int(w)]))


def add_demand_constraints(model: PlacementModel, catalog: Catalog) -> None:
    """The chips in use in every slice, by accelerator and class, through one aggregate per
    (accelerator, profile, class) so that the model grows with the inventory, not with
    inventory x slices.

    Serving (peak chips ``n_j``, base share ``b_j``, profile levels ``g_k``):

    .. math:: S^{base}_{a,k,c} = \\sum_j n_j b_j x_{j,a}, \\quad
        S^{var}_{a,k,c} = \\sum_j n_j (1 - b_j) x_{j,a}, \\quad
        D^S_{a,c}(t) = \\sum_k S^{base}_{a,k,c} + S^{var}_{a,k,c} g_k(t)

    Work (chip-hours ``h_j``): a fixed profile spreads ``V_{a,k,c} = \\sum_j h_j x_{j,a}`` as
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
    for (acc, profile, cls), group in opts.groupby(
        ["accelerator", "load_profile", "eligibility"], sort=True
    ).groups.items():
        acc, profile, cls = str(acc), str(profile), float(cls)
        g = levels[profile]
        rows = opts.loc[group]
        key = (n.keys[acc], n.keys[profile], _class_key(cls))
        serving = model.serving.setdefault((acc, cls), [pulp.LpAffineExpression() for _ in slices])
        work = model.work.setdefault((acc, cls), [pulp.LpAffineExpression() for _ in slices])
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
            continue
        placed = pulp.LpAffineExpression()
        at_once = _aggregate(model, "work_chips", key, rows["chips"])
        for t in slices:
            if g[t] <= 0:
                continue
            phi = model.problem.add_variable(name("flexible", *key, _slice_key(t)), lowBound=0)
            model.flexible[(acc, profile, cls, t)] = phi
            work[t].addInPlace(phi, 1.0)
            placed.addInPlace(phi, float(grid.hours[t]))
            model.problem.addConstraint(
                phi - at_once <= 0, name("flexible_at_once", *key, _slice_key(t))
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
            y = model.problem.add_variable(name("reserved_cover", *key, _slice_key(t)), 0)
            model.reserved_cover[(q.key, t)] = y
            model.problem.addConstraint(
                y - q.unit_capacity_chips * units <= q.unit_capacity_chips * q.owned_units,
                name("reserved_capacity", *key, _slice_key(t)),
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
                    name("plan_cover", n.keys[plan.pricing], n.keys[a], _slice_key(t)), 0
                )
                model.plan_cover[(plan.key, a, t)] = v
                spend.addInPlace(v, plan.rates[a])
            spend.addInPlace(usd, -1.0)
            model.problem.addConstraint(
                spend <= plan.owned_usd_per_hour,
                name("plan_capacity", n.keys[plan.pricing], _slice_key(t)),
            )
    for acc in accelerators:
        classes = sorted(c for a, c in model.serving if a == acc)
        for t in slices:
            by_class: dict[float, pulp.LpAffineExpression] = {}
            for c in classes:
                ck = (n.keys[acc], _class_key(c), _slice_key(t))
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
                supplied - used == 0, name("cover_balance", n.keys[acc], _slice_key(t))
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
                    name("cover_eligible", n.keys[acc], f"le{limit}", _slice_key(t)),
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
            key = (n.keys[acc], _class_key(cls), f"g{i}")
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
            covered - total <= 0, name("work_cover_total", n.keys[acc], _class_key(cls))
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
                expr <= limit, name("chip_limit", model.names.keys[acc], _slice_key(t))
            )


def add_porting_link_constraints(model: PlacementModel) -> None:
    """A workload runs on a porting platform only if its family is ported there.

    .. math:: \\sum_{a \\in A_s} x_{j,a} \\le \\mathit{port}_{f(j),s}
        \\quad \\forall j \\text{ not neuron\\_ready},\\ s \\text{ requiring porting}
    """
    opts = model.options[model.options["needs_port"]]
    family_of = dict(zip(opts.index, opts["family"], strict=True))
    for (w, platform), group in opts.groupby(["workload", "platform"], sort=True).groups.items():
        family = str(family_of[group[0]])
        key = (family, str(platform))
        if key not in model.port:
            model.port[key] = model.problem.add_variable(
                name("port", model.names.families[family], model.names.keys[key[1]]),
                0,
                1,
                pulp.LpBinary,
            )
        expr = model.placed((int(oid), 1.0) for oid in group)
        if not len(expr):  # placed there for certain: the family is ported
            model.port[key].lowBound = 1
            continue
        expr.addInPlace(model.port[key], -1.0)
        model.problem.addConstraint(
            expr <= 0,
            name("port_link", model.names.workloads[int(w)], model.names.keys[str(platform)]),
        )


def add_migration_link_constraints(model: PlacementModel) -> None:
    """Nothing runs on, and nothing is ported to, a platform whose migration is not adopted.

    .. math:: \\mathit{port}_{f,s} \\le \\mathit{adopt}_s \\quad \\forall (f,s)

    .. math:: \\sum_{a \\in A_s} x_{j,a} \\le \\mathit{adopt}_s
        \\quad \\forall j \\text{ needing no port on } s,\\ s \\text{ not adopted}

    (``neuron_ready`` workloads, or any workload on a platform that needs no porting; a workload
    that needs porting reaches ``adopt`` through its ``port`` variable.)
    """
    migrating = model.options[model.options["needs_migration"]]
    for platform in sorted(migrating["platform"].unique()):
        model.adopt[str(platform)] = model.problem.add_variable(
            name("adopt", model.names.keys[str(platform)]), 0, 1, pulp.LpBinary
        )
    for (family, platform), port in model.port.items():
        if platform in model.adopt:
            model.problem.addConstraint(
                port - model.adopt[platform] <= 0,
                name("adopt_link", model.names.families[family], model.names.keys[platform]),
            )
    ready = migrating[~migrating["needs_port"]]
    for (w, platform), group in ready.groupby(["workload", "platform"], sort=True).groups.items():
        expr = model.placed((int(oid), 1.0) for oid in group)
        if not len(expr):  # placed there for certain: the platform is adopted
            model.adopt[str(platform)].lowBound = 1
            continue
        expr.addInPlace(model.adopt[str(platform)], -1.0)
        model.problem.addConstraint(
            expr <= 0,
            name(
                "adopt_ready_link", model.names.workloads[int(w)], model.names.keys[str(platform)]
            ),
        )


def add_porting_capacity_constraints(
    model: PlacementModel, catalog: Catalog, capacity_weeks: float | None
) -> None:
    """Porting engineer-weeks started this planning cycle stay within the cap (if one is set).

    .. math:: \\sum_{(f,s)} w_s \\cdot \\mathit{port}_{f,s} \\le W
    """
    if capacity_weeks is None or not model.port:
        return
    expr = pulp.LpAffineExpression(
        [
            (var, catalog.platforms[s].porting_weeks_per_family.value)
            for (_, s), var in model.port.items()
        ]
    )
    model.problem.addConstraint(expr <= capacity_weeks, "porting_capacity")


def set_objective(model: PlacementModel, catalog: Catalog) -> None:
    """Minimise monthly cost: compute on demand and under commitments, plus amortised one-off
    costs.

    .. math:: \\min \\underbrace{\\sum_{(j,a)} c_a h_{j,a} x_{j,a}
        - \\sum_{a,t} w_t c_a \\sum_c (\\sigma_{a,c,t} + \\omega_{a,c,t})}_{\\text{on demand}}
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
    for (acc, _, t), var in [*model.serving_cover.items(), *model.work_cover.items()]:
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
        [
            (var, catalog.platforms[s].migration_one_off_usd.value / months)
            for s, var in model.adopt.items()
        ]
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


def porting_one_off_usd(catalog: Catalog, platform: str) -> float:
    """One-off cost of porting one family: weeks per family x engineer cost per week."""
    return (
        catalog.platforms[platform].porting_weeks_per_family.value
        * catalog.economics.porting_engineer_usd_per_week.value
    )


def build_model(
    options: pd.DataFrame,
    workload_ids: list[str],
    catalog: Catalog,
    settings: FormulationSettings | None = None,
) -> PlacementModel:
    """Create the MILP from the option frame (does not modify it)."""
    settings = settings or FormulationSettings()
    rows = model_options(options, catalog, settings)
    model = PlacementModel(
        problem=pulp.LpProblem("placement", pulp.LpMinimize),
        options=rows,
        names=ModelNames.build(workload_ids, rows, catalog),
        book=commitment_book(catalog),
        grid=slice_grid(catalog),
        purchasable=settings.purchasable,
    )
    add_assignment_variables(model)
    add_assignment_constraints(model)
    add_demand_constraints(model, catalog)
    add_commitment_coverage_constraints(model)
    add_work_concurrency_constraints(model, catalog)
    add_chip_limit_constraints(model, catalog)
    add_porting_link_constraints(model)
    add_migration_link_constraints(model)
    add_porting_capacity_constraints(
        model, catalog, catalog.economics.porting_capacity_weeks_per_cycle
    )
    set_objective(model, catalog)
    return model


def model_file_text(model: PlacementModel, path: str | os.PathLike[str]) -> str:
    """The MILP as MPS (``path`` ending ``.mps``) or CPLEX LP (anything else), for inspection.

    PuLP writes only to a path, so it writes into a private folder and the text is returned
    for the caller to write by the safe-file rules (placement.writing.files).
    """
    with tempfile.TemporaryDirectory() as folder:
        if str(path).lower().endswith(".mps"):
            scratch = os.path.join(folder, "model.mps")
            model.problem.writeMPS(scratch)
        else:
            scratch = os.path.join(folder, "model.lp")
            model.problem.writeLP(scratch)
        with open(scratch, encoding="utf-8") as handle:
            return handle.read()

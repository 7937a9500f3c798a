"""The model every constraint family adds to: the PuLP problem, its variables by key, the
settings that restrict it, and the option rows it chooses among.

The mixed-integer program is built from the estimates' option frame alone (``build``). Sets:
workloads j; feasible (workload, accelerator) pairs (j, a); 48 time slices t (each hour of a
weekday and of a weekend day, ``w_t`` hours of the month each); load profiles k; eligibility
classes c (the largest replica a reservation unit holds); commitment products (reservations (p,
a, u) and savings plans q); porting pairs (f, s); platforms s not yet adopted. Domain
constraints (latency, memory fit, features, porting time, pins) are enforced by the option set
itself: ``x[j,a]`` exists only for pairs the estimates found feasible (optimizer/estimating).

Pricing is an outcome: in every slice, commitments cover up to their capacity of the chips in
use on their accelerator and on-demand pays for the rest.

Every ``add_<family>_constraints`` function (one module per family group beside this one) adds
one constraint family and states it (docs/formulation.md gives each its section).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import pulp

from placement.estimating.economics.commitments import (
    CommitmentBook,
    commitment_book,
)
from placement.estimating.profiles import SliceGrid, offered_hours
from placement.formulating.month import Month
from placement.formulating.naming import name_map, unique_clean
from placement.models.catalog import Catalog

SHORT_WORK_SLACK = 1e-6
"""Relative margin under which work counts as running all the hours its profile offers."""


@dataclass(frozen=True)
class FormulationSettings:
    """Switches that change the model without changing the catalog (baselines use them):
    ``allowed_accelerators`` restricts where work may go; ``fixed_accelerators`` (workload ->
    accelerator) fixes the placement, leaving only what to commit to; ``purchasable`` limits
    the pricing options new commitments may be bought under (owned ones still count);
    ``aggregate_short_work`` bounds short work's cover by group sums, a relaxation whose optimum
    bounds the exact model's from below (``add_short_work_cover``; for ``solving.proof``)."""

    allowed_accelerators: frozenset[str] | None = None
    fixed_accelerators: dict[int, str] | None = None
    purchasable: frozenset[str] | None = None
    aggregate_short_work: bool = False


@dataclass(frozen=True)
class ModelNames:
    """Solver-safe unique names for every id that appears in a variable or constraint name."""

    workloads: list[str]  # by workload position
    families: dict[str, str]
    keys: dict[str, str]  # accelerators, pricing options, platforms and profiles

    @classmethod
    def build(cls, workload_ids: list[str], options: pd.DataFrame, catalog: Catalog) -> ModelNames:
        return cls(
            workloads=unique_clean(workload_ids),
            families=name_map(options["family"].astype(str)),
            keys=catalog_keys(catalog),
        )


def catalog_keys(catalog: Catalog) -> dict[str, str]:
    """Solver-safe names of the catalog's accelerators, pricing options, platforms and
    profiles, as every month model names them (``ModelNames.keys``)."""
    return name_map(
        [*catalog.accelerators, *catalog.pricing_options, *catalog.platforms, *catalog.profiles()]
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
    units: dict[str, pulp.LpVariable] = field(default_factory=dict)
    plan_usd: dict[str, pulp.LpVariable] = field(default_factory=dict)
    # The month's chips in use and cover variables (placement.formulating.month).
    month: Month = field(default_factory=lambda: Month(tag=()))

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


def rows_by(frame: pd.DataFrame, *columns: str) -> dict[Any, list[int]]:
    """The frame's index labels grouped by the values of ``columns`` (a tuple key for more
    than one), keys sorted, labels in frame order: ``groupby(columns, sort=True).groups`` as
    plain lists, which pandas builds an ``Index`` per group for (a second at 50,000
    workloads, in every model built)."""
    values = [frame[c].tolist() for c in columns]
    keys = values[0] if len(columns) == 1 else list(zip(*values, strict=True))
    grouped: dict[Any, list[int]] = {}
    for label, key in zip(frame.index.tolist(), keys, strict=True):
        grouped.setdefault(key, []).append(label)
    return {key: grouped[key] for key in sorted(grouped)}


def model_options(
    options: pd.DataFrame, catalog: Catalog, settings: FormulationSettings
) -> pd.DataFrame:
    """The (workload, accelerator) pairs the model may choose: feasible, allowed, and fixed
    where a placement is given; one row each (its on-demand option), with its class and
    whether it is short work (runs fewer hours than its profile offers: its chips are held
    together only part of the time)."""
    on_demand = {a: catalog.on_demand_option(a) for a in catalog.accelerators}
    keep = options["feasible"] & options["pricing"].eq(options["accelerator"].map(on_demand))
    if settings.allowed_accelerators is not None:
        keep &= options["accelerator"].isin(settings.allowed_accelerators)
    if settings.fixed_accelerators is not None:
        fixed = options["workload"].map(settings.fixed_accelerators)
        keep &= options["accelerator"].eq(fixed)
    return with_classes(options[keep], catalog)


def with_classes(rows: pd.DataFrame, catalog: Catalog) -> pd.DataFrame:
    """Option rows with their eligibility class (the smallest reservation units that hold
    their replicas) and whether they are short work (fewer run hours than the profile
    offers)."""
    book = commitment_book(catalog)
    # No replica (an infeasible place a workload waits on): no chips, any class will do.
    pairs = list(
        zip(
            rows["accelerator"].astype(object).tolist(),
            rows["replica_chips"].fillna(0).astype(int).tolist(),
            strict=True,
        )
    )
    # A few distinct (accelerator, chips) pairs among thousands of rows: each looked up once.
    of_pair = {pair: book.class_of(str(pair[0]), pair[1]) for pair in set(pairs)}
    classes = [of_pair[pair] for pair in pairs]
    return rows.assign(eligibility=classes, short_work=short_work(rows, catalog))


def short_work(rows: pd.DataFrame, catalog: Catalog) -> pd.Series:
    """Whether each row's work runs fewer hours than its profile offers (its chips are held
    together only part of the time)."""
    offered = rows["load_profile"].map(offered_hours(catalog)).astype(float)
    short = rows["run_hours"].notna() & (rows["run_hours"] < offered * (1 - SHORT_WORK_SLACK))
    return short.astype(bool)

"""A roadmap held fixed, priced month by month at other figures (``placement risk --horizon``).

The roadmap's decisions stay as it made them: where each workload runs each month (its interim
place, then its target from the month it moves), each port and migration programme from the
month it starts, each commitment it buys for its term. What the figures change is what they
cost: a month's chips in use (volumes, throughputs, the month's growth ``phi_j(m)``), the rates,
the commitments' prices and the one-offs.

With every purchase fixed no variable links two months, so each month is priced alone: the
steady state's month model with its placement given and its commitments held as constants
(``placement.horizon.pricing.add_month``, as the roadmap's own pricing builds it),

.. math:: \\mathit{cost}_m = \\min \\sum_{a,t} w_t c_a (D_{a,m,t} - \\mathit{cov}_{a,m,t})
    + \\sum_q P_q (\\bar z_{q,m} + o_{q,m}) + \\sum_p H (\\bar Z_{p,m} + O_{p,m})
    + \\mathit{one\\text{-}offs}_m

an LP (the cover chosen within what is held, whole chips where part chips overstate it,
``placement.solving.whole_chips``), ``bar z_{q,m}`` the units the roadmap bought and still holds
in month ``m``, ``o_{q,m}`` those owned then, and the one-offs those of the ports and programmes
the roadmap starts in month ``m`` and of the workloads it moves off where they run today then.
At the figures the roadmap was planned with, the months cost what the roadmap reports.

A month whose placement the figures make impossible (a workload's place no longer feasible:
its memory, latency or a feature) has no cost: :class:`RoadmapBroken` says which.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pulp

from placement.estimating import Estimates
from placement.estimating.economics.commitments import CommitmentBook, commitment_book
from placement.estimating.economics.one_offs import (
    migration_one_off_usd,
    porting_one_off_usd,
    switching_one_off_usd,
)
from placement.estimating.economics.rates import on_demand_rates
from placement.estimating.profiles import SliceGrid
from placement.formulating.model import catalog_keys
from placement.formulating.month import Held, Month
from placement.horizon.formulation import epoch_options, owned_in_month
from placement.horizon.pricing import (
    add_month,
    month_grid,
    month_on_demand,
    on_demand_rows,
    placement_by_month,
    rows_in_month,
)
from placement.horizon.timeline import month_factors
from placement.models.catalog import Catalog
from placement.models.plan import Roadmap
from placement.solving.solver import SolverOptions
from placement.solving.whole_chips import Months, solve_in_whole_chips


class RoadmapBroken(Exception):
    """The figures leave a workload of the roadmap unable to run where the roadmap has it."""


@dataclass(frozen=True)
class HeldMonth:
    """One month of a held roadmap at some figures (USD)."""

    month: int
    on_demand_usd: float
    commitments_usd: float
    one_offs_usd: float

    @property
    def cost_usd(self) -> float:
        return self.on_demand_usd + self.commitments_usd + self.one_offs_usd


def held_roadmap_months(
    roadmap: Roadmap, estimates: Estimates, catalog: Catalog, solver: SolverOptions
) -> list[HeldMonth]:
    """Every month of ``roadmap`` priced at the figures of ``estimates`` and ``catalog`` (see
    the module). Raises :class:`RoadmapBroken` where a month's placement cannot run."""
    months = roadmap.horizon_months
    workloads = estimates.workloads
    ids = workloads["id"].astype(str).tolist()
    factors = month_factors(workloads, months)
    placement = placement_by_month(roadmap.workloads, ids, factors, months)
    on_demand = on_demand_rows(epoch_options(estimates, catalog, months), catalog)
    book = commitment_book(catalog)
    grid = month_grid(estimates.options["load_profile"], catalog)
    keys = catalog_keys(catalog)
    rates = on_demand_rates(catalog)
    one_offs = _one_offs(roadmap, catalog, factors, ids)
    priced = []
    # A month alike another in all it is priced from (its epoch's options, placement, demand
    # and holdings) costs what that one does: flat demand prices once, not once a month.
    paid_by_month: dict[tuple[object, ...], float] = {}
    for m, pairs in enumerate(placement, start=1):
        epoch = max(s for s in on_demand if s <= m)
        _check_runs(on_demand[epoch], pairs, m, ids)
        bought = _bought(roadmap, m)
        owned = {key: owned_in_month(book, key, m) for key in _product_keys(book)}
        alike = (
            epoch,
            tuple(pairs),
            tuple(float(factors[j, m - 1]) for j, _ in pairs),
            tuple(sorted(bought.items())),
            tuple((key, held) for key, (held, _) in sorted(owned.items())),
        )
        if alike not in paid_by_month:
            frame = rows_in_month(factors, pairs, on_demand, catalog, m)
            held = _held(bought, owned, book)
            paid_by_month[alike] = _on_demand_usd(
                m, frame, held, (book, grid, keys, rates), catalog, solver
            )
        priced.append(
            HeldMonth(
                month=m,
                on_demand_usd=paid_by_month[alike],
                commitments_usd=_commitments_usd(bought, owned, book, catalog),
                one_offs_usd=one_offs.get(m, 0.0),
            )
        )
    return priced


def _on_demand_usd(
    m: int,
    frame: pd.DataFrame,
    held: Held,
    figures: tuple[CommitmentBook, SliceGrid, dict[str, str], dict[str, float]],
    catalog: Catalog,
    solver: SolverOptions,
) -> float:
    """What month ``m`` pays on demand with its placement (``frame``) and holdings given: the
    month model's LP, cover counted in whole chips."""
    book, grid, keys, rates = figures
    problem = pulp.LpProblem(f"held_m{m:03d}", pulp.LpMinimize)
    month = Month(tag=(f"m{m:03d}",))
    add_month(problem, book, grid, month, held, frame, catalog, keys)
    paid = month_on_demand(month, grid, rates)
    problem.setObjective(paid)
    rounds = Months(problem, [(month, held)], list(month.flexible.values()), book, grid, keys)
    result = solve_in_whole_chips(rounds, rates, solver.solver, solver.time_limit_s, solver.gap)
    if not result.has_solution:
        raise RoadmapBroken(f"month {m}: {result.termination}")
    return float(pulp.value(paid) or 0.0)


def _check_runs(
    rows: tuple[pd.DataFrame, dict[tuple[int, str], int]],
    pairs: list[tuple[int, str]],
    m: int,
    ids: list[str],
) -> None:
    """Raise :class:`RoadmapBroken` where a (workload, accelerator) of month ``m`` is not a
    feasible option at these figures (``rows``: the on-demand rows of its epoch)."""
    options, position = rows
    feasible = options["feasible"].to_numpy(dtype=bool)  # a column looked up once, not a pair
    broken = [
        f"{ids[j]} on {acc}"
        for j, acc in pairs
        if (j, acc) not in position or not feasible[position[(j, acc)]]
    ]
    if broken:
        raise RoadmapBroken(f"month {m}: {', '.join(broken[:3])} can no longer run there")


def _bought(roadmap: Roadmap, m: int) -> dict[str, float]:
    """What the roadmap's purchases hold in month ``m`` (within their term), by product:
    reservation units, or a savings plan's USD per hour."""
    bought: dict[str, float] = {}
    for p in roadmap.purchases:
        if p.month <= m < p.month + p.term_months:
            amount = p.units if p.units is not None else p.usd_per_hour or 0.0
            bought[p.product] = bought.get(p.product, 0.0) + float(amount)
    return bought


def _product_keys(book: CommitmentBook) -> list[str]:
    return [q.key for q in book.reservations] + [p.key for p in book.savings_plans]


def _held(
    bought: dict[str, float], owned: dict[str, tuple[float, float]], book: CommitmentBook
) -> Held:
    """What the month's commitments hold: ``bought`` (constants) and what is owned still
    (``owned``: per product, held and its cost, ``owned_in_month``)."""

    def holding(key: str) -> tuple[pulp.LpAffineExpression, float]:
        return pulp.LpAffineExpression(constant=bought.get(key, 0.0)), owned[key][0]

    return Held(
        units={q.key: holding(q.key) for q in book.reservations},
        usd={p.key: holding(p.key) for p in book.savings_plans},
    )


def _commitments_usd(
    bought: dict[str, float],
    owned: dict[str, tuple[float, float]],
    book: CommitmentBook,
    catalog: Catalog,
) -> float:
    """The month's commitment payments at these figures: owned ones while they last, the
    roadmap's purchases while held (``add_commitment_payments``'s months): ``P_q`` a
    reservation unit, ``H`` hours a savings plan's USD per hour."""
    hours = catalog.economics.hours_per_month.value
    price = {q.key: q.unit_monthly_usd for q in book.reservations}
    price.update({p.key: hours for p in book.savings_plans})
    return sum(cost for _, cost in owned.values()) + sum(
        amount * price[key] for key, amount in bought.items()
    )


def _one_offs(
    roadmap: Roadmap, catalog: Catalog, factors: np.ndarray, ids: list[str]
) -> dict[int, float]:
    """The one-offs each month pays at these figures: the ports and programmes the roadmap
    starts then, and its moves off where workloads run today (``placement.horizon.checks``
    counts them the same way)."""
    paid: dict[int, float] = {}
    for step in roadmap.steps:
        usd = (
            porting_one_off_usd(catalog, step.platform)
            if step.item == "port"
            else migration_one_off_usd(catalog, step.platform)
        )
        paid[step.start_month] = paid.get(step.start_month, 0.0) + usd
    switching = switching_one_off_usd(catalog)
    runs = {w: bool(factors[j].any()) for j, w in enumerate(ids)}
    for w in roadmap.workloads:
        moves = w.current_accelerator and w.current_accelerator != w.target_accelerator
        if moves and runs[w.workload_id] and w.ready_month is not None:
            paid[w.ready_month] = paid.get(w.ready_month, 0.0) + switching
    return paid

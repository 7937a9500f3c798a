"""Pricing a roadmap's months in the steady state's month model.

The roadmap MILP (``placement.horizon.formulation``) decides what is ported, migrated and moved
when, with every month's demand as variables; to stay fast at 10,000 workloads it models a
month more coarsely than the steady state: flexible work spread evenly over the hours its
profile offers (not placed by the optimizer inside the week), short work's cover bounded per
accelerator and month (``add_short_work_bound``, not job by job), cover counted in fractions
of a chip.
Once the timeline is decided, every workload's place in every month is known, and each month
is a steady-state month with the placement given: this stage builds each from the same
functions as the steady-state plan (``placement.formulating.month``: ``spread_demand``,
``add_cover``, ``add_short_work_cover``, ``add_chip_limits``), with workload j's figures on its
place that month scaled by ``phi_j(m)``, and chooses the commitments again over the whole
horizon (``z_{q,m}``, held for their terms, ``add_purchases``; payments as in the roadmap MILP,
``add_commitment_payments``):

.. math:: \\min \\sum_m \\Big[\\sum_{a,t} w_t c_a \\big(D_{a,m,t} - \\mathit{cov}_{a,m,t}\\big)
    + \\mathit{commitments}_m\\Big] + \\mathit{after}^{charged}

then counts cover in whole chips where part chips overstate it, as every steady-state plan
is solved (``placement.solving.whole_chips``). The only integers are the reservation units
bought; a large fleet's are proven in seconds, but over long horizons of varied workloads
proving them can take minutes (``QUICK_PRICING_S``, ``placement.horizon.budget``). The
roadmap reports these months' on-demand and commitment costs and these purchases: a schedule
of whole chips achieves them, month by month, as the steady state's plan does. The one-offs
(ports, programmes, moves) are the roadmap MILP's, unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pulp

from placement.estimating.economics.commitments import CommitmentBook
from placement.estimating.economics.rates import on_demand_rates
from placement.estimating.profiles import SliceGrid, merged_slices, slice_grid
from placement.formulating.demand import constant_sum, part_figures
from placement.formulating.model import catalog_keys, short_work, with_classes
from placement.formulating.month import (
    Held,
    Month,
    ShortJob,
    add_chip_limits,
    add_cover,
    add_short_work_cover,
    spread_demand,
)
from placement.horizon.budget import until
from placement.horizon.formulation import (
    add_commitment_payments,
    add_purchases,
    held_as_variables,
    held_in_month,
    month_values,
)
from placement.horizon.model import COMPONENTS, HorizonModel
from placement.horizon.roadmap import roadmap_workloads
from placement.horizon.units import ByBlocks, units_largest_first
from placement.models.catalog import Catalog
from placement.models.plan import RoadmapWorkload
from placement.solving.block_relaxation import BlockRelaxation, block_relaxation
from placement.solving.fixing import fixed_values
from placement.solving.proof import proving_cost
from placement.solving.solver import SolveResult, SolveStatus, relative_gap, solve_model
from placement.solving.whole_chips import Months, solve_in_whole_chips

SCALED = ("chips", "chip_hours", "run_hours")
"""The figures of a workload's row that scale with its volume factor ``phi_j(m)`` (its base
share does not): chips held, chip-hours and, for short work, the hours its chips run."""


FEW_INTEGERS = {
    "mip_heuristic_run_rins": False,
    "mip_heuristic_run_rens": False,
    "mip_heuristic_run_root_reduced_cost": False,
}
"""HiGHS options for the pricing MILP: its only integers are the reservation units bought (a
few dozen, per product and month) among thousands of continuous columns, and HiGHS's sub-MIP
heuristics spend seconds on it where branching proves it in a few nodes (the sample's 12
months: 6.6 s with them, 1.1 s without, the same optimum)."""


QUICK_PRICING_S = 10.0
"""Seconds the pricing is first given from the roadmap MILP's purchases, where the roadmap
search rounded its own units within the gap (staying put: where its relaxation's units rounded
down cost within the gap of it): a large fleet, whose pricing this proves in
seconds (10,000 workloads over 24 months: about 3 s). A small inventory's units do not round
so (the sample's first 5 workloads over 120 months: 3.3% above the search's bound rounded
down, 5% to the nearest), and there these seconds proved nothing (12 s spent, a plan 11%
above the pricing's bound): its pricing starts from the relaxation's units made whole
largest first instead (``_from_whole_units``)."""


ROOT_TO_RELAXATION = 3.0
"""How many times the relaxation's time the pricing MILP needs before its search can improve
on its start: on the sample's first 5 workloads over 120 months the relaxation took 12 s,
HiGHS's root LP 28 s and its first better plan came at 61 s; given 30 s it returned its
start, as it did on the first 10 workloads (relaxation 23 s), and given 120 s no cheaper a
plan. Where its time limit is shorter than this, the start is costed as an LP instead of
searched from. So the whole relaxation is given that share of the MILP's time limit: past
it, its LPs are solved by months (``placement.solving.block_relaxation``), its MILP being
no longer searched from its start anyway."""


@dataclass(frozen=True)
class PricedRoadmap:
    """A solved roadmap model with its months priced in the month model: ``model`` is a copy
    of it whose commitments (``units``, ``plan_usd``), month costs (``monthly``) and payments
    after the horizon are the pricing's; ``result`` is the pricing's solve."""

    model: HorizonModel
    result: SolveResult


def price_roadmap(
    model: HorizonModel,
    workloads: pd.DataFrame,
    catalog: Catalog,
    solver: str,
    time_limit_s: float | None,
    gap: float,
    placement: Placement | None = None,
    purchases_first: bool = True,
    relaxation_limit_s: float | None = None,
    deadline: float | None = None,
) -> PricedRoadmap:
    """Price a solved roadmap model's months (see the module); ``placement``, if known, saves
    reading it from the model again (``month_placement``). ``purchases_first``: first try
    the MILP from the roadmap MILP's purchases for ``QUICK_PRICING_S`` (where its own units
    rounded within the gap: a large fleet, where this proves the pricing in seconds), else
    start from the relaxation's units made whole (``_from_whole_units``), its LPs each within
    ``relaxation_limit_s`` (default: ``time_limit_s``). ``deadline``: the roadmap's
    (``placement.horizon.budget.roadmap_deadline``), which each MILP's time limit is cut to
    when it starts (``until``)."""
    keys = catalog_keys(catalog)
    priced = replace(
        model,
        problem=pulp.LpProblem("roadmap_months", pulp.LpMinimize),
        units={},
        plan_usd={},
        monthly=[],
        after_horizon=pulp.LpAffineExpression(),
        after_horizon_charged=pulp.LpAffineExpression(),
        in_use={},
        covered={},
        in_use_by_class={},
        reserved_cover={},
        grid=month_grid(model.rows["load_profile"], catalog),
    )
    placement = placement or month_placement(model, workloads)
    on_demand = on_demand_rows(model.epochs, catalog)
    rows = [
        rows_in_month(model.factors, pairs, on_demand, catalog, m)
        for m, pairs in enumerate(placement, 1)
    ]
    accelerators = {str(a) for frame in rows for a in frame["accelerator"]}
    add_purchases(priced, catalog, keys, accelerators)
    rounds = Months(priced.problem, [], [], model.book, priced.grid, keys)
    rates = on_demand_rates(catalog)
    priced.monthly = [
        {"on_demand_usd": pulp.LpAffineExpression(), "commitments_usd": pulp.LpAffineExpression()}
        for _ in rows
    ]
    spans = []  # each month's rows, by position: the blocks of its relaxation
    for m, frame in enumerate(rows, start=1):
        month = Month(tag=(f"m{m:03d}",))
        held = held_as_variables(priced, held_in_month(priced, catalog, m), m)
        first_row = len(priced.problem._constraints)
        add_month(priced.problem, priced.book, priced.grid, month, held, frame, catalog, keys)
        spans.append((first_row, len(priced.problem._constraints)))
        priced.monthly[m - 1]["on_demand_usd"].addInPlace(
            month_on_demand(month, priced.grid, rates)
        )
        rounds.months.append((month, held))
        rounds.placement.extend(month.flexible.values())
    add_commitment_payments(priced, catalog, priced.monthly)
    objective = pulp.LpAffineExpression()
    for costs in priced.monthly:
        for expr in costs.values():
            objective.addInPlace(expr)
    objective.addInPlace(priced.after_horizon_charged)
    priced.problem.setObjective(objective)
    lp_limit = time_limit_s if relaxation_limit_s is None else relaxation_limit_s
    first = None
    if purchases_first:
        first = _from_purchases(priced, model, solver, until(deadline, time_limit_s), gap)
    if first is None or (
        first.status is not SolveStatus.OPTIMAL and (time_limit_s or math.inf) > QUICK_PRICING_S
    ):
        limits = (time_limit_s, lp_limit)
        first = _from_whole_units(priced, model, solver, limits, gap, first, deadline, spans)
    # A plan HiGHS did not prove keeps its units through the rounds: LPs, with an LP's limit.
    result = solve_in_whole_chips(
        rounds,
        rates,
        solver,
        until(deadline, time_limit_s),
        gap,
        highs_options=FEW_INTEGERS,
        solved=first,
        keep_integers=True,
        kept_time_limit=lp_limit,
    )
    return PricedRoadmap(with_priced_months(model, priced), result)


def _from_purchases(
    priced: HorizonModel,
    model: HorizonModel,
    solver: str,
    time_limit_s: float | None,
    gap: float,
    seconds: float = QUICK_PRICING_S,
) -> SolveResult:
    """The pricing MILP solved for ``seconds`` at most (or the run's shorter time limit) from
    the roadmap MILP's purchases (feasible: any holding is)."""
    start = {
        priced.units[key]: float(round(var.varValue or 0.0))
        for key, var in model.units.items()
        if key in priced.units
    }
    quick = min(seconds, time_limit_s or seconds)
    return solve_model(priced, solver, quick, gap, start=start, highs_options=FEW_INTEGERS)


def _from_whole_units(
    priced: HorizonModel,
    model: HorizonModel,
    solver: str,
    limits: tuple[float | None, float | None],
    gap: float,
    tried: SolveResult | None,
    deadline: float | None = None,
    months: list[tuple[int, int]] | None = None,
) -> SolveResult:
    """The pricing MILP solved from the relaxation's units made whole largest first
    (``units_largest_first``), stopping at the first plan the relaxation's bound ``L`` proves
    within the gap (``proving_cost``): where the start is one, the MILP ends as soon as it has
    costed it. Where its root could not be solved within the time limit (the relaxation took
    more than ``1 / ROOT_TO_RELAXATION`` of it), the start is only costed, an LP with the
    units fixed. The result's gap is measured from the larger of ``L`` and HiGHS's own bound.
    ``limits``: the MILP's time limit and each LP's. ``tried``: an earlier solve of the same
    MILP, whose plan stands (its values put back on the variables) where this one finds none
    cheaper. Where a relaxation does not finish within its limit (no plan: an LP stopped
    early is no plan), the MILP is solved from the roadmap MILP's purchases instead. The MILP's
    time limit is cut to ``deadline`` once the relaxation is done (``until``). ``months``:
    each month's rows, by position. The whole relaxation is given ``1 / ROOT_TO_RELAXATION``
    of the MILP's time limit at most: past that the MILP could not search from the start in
    time, so its LPs are solved by months instead (``_by_months``; the sample's 30 workloads
    over 120 months: about 5 s, against 35-65 s whole) and the start is costed as an LP.
    Where the start is costed, the roadmap MILP's purchases are costed too and the cheaper
    kept (``_cheapest_costed``)."""
    time_limit_s, lp_limit_s = limits
    # The earlier solve's values, to put back should its plan stand.
    found = {} if tried is None else {v: v.varValue for v in priced.problem.variables()}
    by_months = None
    if months is not None and solver == "highs":
        milp_s = until(deadline, time_limit_s) or math.inf
        by_months = ByBlocks(lambda: _by_months(priced, months), milp_s / ROOT_TO_RELAXATION)
    whole = units_largest_first(
        priced, priced.units, model.book, solver, lp_limit_s, gap, by_blocks=by_months
    )
    time_limit_s = until(deadline, time_limit_s)
    if whole is None:  # only under a time limit
        if tried is not None:
            return tried
        return _from_purchases(priced, model, solver, time_limit_s, gap, math.inf)
    if whole.by_blocks or whole.relaxation_s * ROOT_TO_RELAXATION > (time_limit_s or math.inf):
        starts = [_roadmap_purchases(priced, model), whole.values]
        again = _cheapest_costed(priced, starts, solver, lp_limit_s, gap)
    else:
        again = solve_model(
            priced,
            solver,
            time_limit_s,
            gap,
            start=whole.values,
            target=proving_cost(whole.bound, gap),
            highs_options=FEW_INTEGERS,
        )
    if (
        tried is not None
        and tried.objective is not None
        and (again.objective is None or again.objective > tried.objective)
    ):
        for var, value in found.items():
            var.varValue = value
        again = tried
    return _bounded_by(again, whole.bound)


def _roadmap_purchases(priced: HorizonModel, model: HorizonModel) -> dict[pulp.LpVariable, float]:
    """The roadmap MILP's purchases as the pricing's units, every one of them (none bought
    where the roadmap MILP has no such product): a plan of the pricing, as any holding is."""
    return {
        var: float(round(model.units[key].varValue or 0.0)) if key in model.units else 0.0
        for key, var in priced.units.items()
    }


def _cheapest_costed(
    priced: HorizonModel,
    starts: list[dict[pulp.LpVariable, float]],
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> SolveResult:
    """Each of ``starts`` (every unit fixed) costed as an LP, the cheapest kept (``feasible``,
    its values on the variables: the last is solved again where another was cheaper). A
    start only costed is the rounding's luck: two optimal vertices of one relaxation can round
    to units 1.5% apart (five workloads over 120 months), and the roadmap MILP's own purchases
    are a second plan at the price of one more LP."""
    costed = []
    for units in starts:
        with fixed_values(units):
            costed.append(solve_model(priced, solver, time_limit_s, gap, relax=True))
    found = [k for k, result in enumerate(costed) if result.objective is not None]
    if not found:
        return costed[-1]
    best = min(found, key=lambda k: (costed[k].objective, -k))
    if best != len(starts) - 1:
        with fixed_values(starts[best]):
            costed[best] = solve_model(priced, solver, time_limit_s, gap, relax=True)
    result = costed[best]
    return replace(result, status=SolveStatus.FEASIBLE, gap=None) if result.has_solution else result


def _by_months(priced: HorizonModel, spans: list[tuple[int, int]]) -> BlockRelaxation | None:
    """The pricing's relaxation split into its months (``spans``: each month's rows, by
    position), its purchases and commitments held shared (``block_relaxation``)."""
    every = list(priced.problem._constraints.values())
    shared = [*priced.units.values(), *priced.plan_usd.values()]
    return block_relaxation(priced.problem, [every[a:b] for a, b in spans], shared)


def _bounded_by(result: SolveResult, bound: float) -> SolveResult:
    """``result`` with its gap measured from ``bound`` where that is tighter than its own,
    ``(U - L) / |U|``. A plan HiGHS did not prove (stopped at the objective target or its time
    limit, or a start costed as an LP) stays ``feasible``: its whole-chip rounds then keep its
    units (LPs, not a MILP from no start, which a time limit can stop at a far worse plan), and
    ``solve_in_whole_chips`` reports it optimal where the rounds' cost is within the gap of
    this bound."""
    if result.objective is None or result.status is not SolveStatus.FEASIBLE:
        return result
    own = result.bound
    tighter = bound if own is None else max(own, bound)
    return replace(result, gap=relative_gap(result.objective, tighter))


def month_grid(profiles: Iterable[str], catalog: Catalog) -> SliceGrid:
    """The slices months are priced over: the alike slices of ``profiles`` (the load profiles
    of the workloads priced) merged, but for those flexible work is placed in
    (``merged_slices``), where whole chips can differ."""
    used = {str(k) for k in profiles}
    specs = catalog.profiles()
    flexible = {k for k in used if specs[k].placement == "flexible"}
    return merged_slices(slice_grid(catalog), used, apart=flexible)


def add_month(
    problem: pulp.LpProblem,
    book: CommitmentBook,
    grid: SliceGrid,
    month: Month,
    held: Held,
    rows: pd.DataFrame,
    catalog: Catalog,
    keys: dict[str, str],
) -> None:
    """One month of the steady state's month model in ``problem``, its placement given by
    ``rows`` and its commitments by ``held``."""
    spread_demand(
        problem, month, grid, catalog, keys, part_figures(rows, catalog, keys, constant_sum)
    )
    add_cover(problem, month, book, keys, held)
    add_short_work_cover(problem, month, book, grid, catalog, keys, held, _short_groups(rows))
    add_chip_limits(problem, month, catalog, keys)


def month_on_demand(
    month: Month, grid: SliceGrid, rates: dict[str, float]
) -> pulp.LpAffineExpression:
    """What a month pays on demand: ``sum_{a,t} w_t c_a (D_{a,t} - cov_{a,t})``."""
    paid = pulp.LpAffineExpression()
    for acc in month.accelerators:
        for t in month.slices:
            paid.addInPlace(month.in_use(acc, t), rates[acc] * float(grid.hours[t]))
    for acc, t, cover in month.covers():
        paid.addInPlace(cover, -rates[acc] * float(grid.hours[t]))
    return paid


def _short_groups(rows: pd.DataFrame) -> list[ShortJob]:
    """The month's short work, placed, as one job per (accelerator, class, profile, chips
    held): ``add_short_work_cover`` covers placed jobs holding the same chips as one,
    ``min(sum h, F sum r)``, so summing them first is the same model, built faster."""
    work = rows[rows["short_work"] & rows["chip_hours"].gt(0)]
    chips = (work["chip_hours"] / work["run_hours"]).round(6)
    groups = work.assign(held_chips=chips).groupby(
        ["accelerator", "eligibility", "load_profile", "held_chips"], sort=True
    )
    sums = groups[["chip_hours", "run_hours"]].sum()
    return [
        ShortJob(
            key=(str(acc), float(cls), str(profile), float(held)),
            label=(),
            accelerator=str(acc),
            eligibility=float(cls),
            profile=str(profile),
            chip_hours=float(h),
            run_hours=float(r),
            on=pulp.LpAffineExpression(constant=1.0),
        )
        for (acc, cls, profile, held), h, r in zip(
            sums.index, sums["chip_hours"], sums["run_hours"], strict=True
        )
    ]


PRICED = ("on_demand_usd", "commitments_usd")
"""The cost components the pricing sets; the one-offs are the roadmap MILP's."""


def with_priced_months(model: HorizonModel, priced: HorizonModel) -> HorizonModel:
    """A copy of a solved roadmap model with the commitments, payments after the horizon and
    on-demand and commitment costs of ``priced`` (a pricing of the same months), its one-offs
    its own, as constants."""
    decided = month_values(model)
    monthly = [
        {
            c: priced.monthly[m][c] if c in PRICED else pulp.LpAffineExpression(constant=v[c])
            for c in COMPONENTS
        }
        for m, v in enumerate(decided)
    ]
    return replace(
        model,
        problem=priced.problem,
        units=priced.units,
        plan_usd=priced.plan_usd,
        after_horizon=priced.after_horizon,
        after_horizon_charged=priced.after_horizon_charged,
        monthly=monthly,
    )


Placement = list[list[tuple[int, str]]]
"""Per month, (workload position, accelerator) of every workload running then."""


def month_placement(model: HorizonModel, workloads: pd.DataFrame) -> Placement:
    """Where each workload runs in each month of a solved roadmap model, as the roadmap
    reports it (``placement_by_month``)."""
    placed = roadmap_workloads(model, workloads)
    ids = workloads["id"].astype(str).tolist()
    return placement_by_month(placed, ids, model.factors, model.months)


def placement_by_month(
    placed: list[RoadmapWorkload], ids: list[str], factors: np.ndarray, months: int
) -> Placement:
    """Where each of ``placed`` runs in each month: on its target from the month it moves,
    before on its interim place (none: a new workload waiting for its target does not run
    yet); only months it is active in (``factors``, by position in ``ids``)."""
    position = {str(i): k for k, i in enumerate(ids)}
    by_month: Placement = []
    for month in range(1, months + 1):
        pairs = []
        for w in placed:
            j = position[w.workload_id]
            if factors[j, month - 1] <= 0:
                continue
            moved = w.ready_month is not None and month >= w.ready_month
            where = w.target_accelerator if moved else w.interim_accelerator
            if where is not None:
                pairs.append((j, where))
        by_month.append(pairs)
    return by_month


def rows_in_month(
    factors: np.ndarray,
    pairs: list[tuple[int, str]],
    on_demand: OnDemandRows,
    catalog: Catalog,
    month: int,
) -> pd.DataFrame:
    """The on-demand option rows of ``pairs`` in the SDK's epoch in force in ``month``, with
    their class, short-work flag and figures scaled by ``phi_j(month)``."""
    rows, position = on_demand[max(s for s in on_demand if s <= month)]
    frame = rows.iloc[[position[pair] for pair in pairs]].reset_index(drop=True)
    phi = factors[frame["workload"].to_numpy(dtype=int), month - 1]
    # No figure on a place a workload waits on but cannot run on: nothing runs there. Run
    # hours stay missing where the work runs all its profile's hours (not short work).
    scaled = {c: frame[c].astype(float) * phi for c in SCALED}
    frame = frame.assign(**scaled).fillna({"chips": 0.0, "chip_hours": 0.0, "base_fraction": 0.0})
    # A part month runs part of the hours: short work, as the steady state would see it.
    return frame.assign(short_work=short_work(frame, catalog))


OnDemandRows = dict[int, tuple[pd.DataFrame, dict[tuple[int, str], int]]]
"""Per epoch (its first month): the on-demand option rows, and each (workload, accelerator)
pair's position among them."""


def on_demand_rows(epochs: dict[int, pd.DataFrame], catalog: Catalog) -> OnDemandRows:
    """Each epoch's on-demand option rows (``OnDemandRows``), from its option frame by its
    first month."""
    on_demand = {a: catalog.on_demand_option(a) for a in catalog.accelerators}
    found: OnDemandRows = {}
    for start, options in epochs.items():
        rows = options[options["pricing"].eq(options["accelerator"].map(on_demand))]
        rows = with_classes(rows, catalog)
        pairs = zip(rows["workload"].astype(int), rows["accelerator"].astype(str), strict=True)
        found[start] = (rows, {pair: i for i, pair in enumerate(pairs)})
    return found

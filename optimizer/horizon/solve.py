"""Plan a horizon: the roadmap MILP, the stay-put comparison, and the end state it leads to.

The search:

1. Staying put (every workload on its interim place), priced month by month
   (``_stay_put``), gives each month's cost of staying and a first feasible roadmap.
2. The LP relaxation of the roadmap model gives a lower bound ``L`` on its optimum. The
   migration programmes and ports are rounded from it (``rounded_readiness``: ready from the
   first month the relaxation has them at least half done, the ports queued by their start
   within the engineers; under an engineer cap also the ports it gives half a month or more,
   as early as they can be, the most months first) and fixed. Each way is tried first with
   the reservation units continuous, then rounded whole with that timeline fixed
   (``_units_rounded``), proven where that is within the gap of ``L``; otherwise the rest
   (targets, moves, commitments) is solved as a MILP to the gap, each way in turn; the
   cheapest, if not yet proven, again to a fifth of the gap from itself: a roadmap costing
   ``U``. Each solve stops at the first roadmap the bound proves. Where ``U - L <= gap |U|``
   it is optimal within the gap, proven by the relaxation's bound, and the search ends there.
   The few readiness binaries are where the relaxation is weak (ports partly done); the
   thousands of target binaries are nearly integral in it.
3. Otherwise HiGHS solves the whole MILP from the cheapest of the rounded roadmap, the
   stay-put plan and the early roadmap (``placement.horizon.start``), stopping within its own
   gap or at the first roadmap the relaxation's bound proves. Where the search's budget
   (``placement.horizon.budget``) is spent by then, the cheaper of the rounded roadmap and
   staying put stands instead, costed with its integers held (``_start_held``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

import pandas as pd
import pulp

from placement.estimating import Estimates
from placement.formulating.model import FormulationSettings
from placement.horizon.budget import (
    SEARCH_BUDGET_S,
    SearchClock,
    pricing_limit,
    relaxation_limit,
    roadmap_deadline,
    search_clock,
    stall_rule,
)
from placement.horizon.formulation import build_horizon_model, epoch_options
from placement.horizon.model import HorizonModel
from placement.horizon.pricing import (
    Placement,
    PricedRoadmap,
    month_placement,
    price_roadmap,
    with_priced_months,
)
from placement.horizon.roadmap import build_roadmap, horizon_total_usd
from placement.horizon.start import (
    Priced,
    Start,
    early_start,
    priced,
    readiness_variables,
    rounded_readiness,
    stay_put_start,
)
from placement.horizon.timeline import interim_accelerators
from placement.horizon.units import rounded_units, unit_rows, units_largest_first, within
from placement.models.catalog import Catalog
from placement.models.plan import Roadmap
from placement.solving.background import Handed, InBackground, all_ended
from placement.solving.fixing import fixed_values
from placement.solving.proof import proven_by, proving_cost
from placement.solving.solver import (
    SolveResult,
    SolveStatus,
    relative_gap,
    solve_model,
    stopped_when_stalled,
)

CENT_USD = 0.01
"""Staying put replaces a roadmap priced dearer by more than this (below rounding)."""

UNIT_ROUNDING_SHARES: tuple[float | None, ...] = (0.5, None, 0.0, 1.0)
"""The roundings of a relaxation's units tried (``_units_rounded``): a part unit of at
least this share becomes a whole one: to the nearest, then (None) the largest units first
(``placement.horizon.units``), then up (everything covered), then down (the parts on
demand)."""

TIGHTER_GAP_SHARE = 0.2
"""The share of the gap the best rounded roadmap's MILP is solved to again, from itself, where
the bound does not prove it at the whole gap (each solve stops at the first roadmap the
relaxation's bound proves, HiGHS's ``objective_target``): at the whole gap HiGHS stops that
MILP within a second or two at 1,000 workloads, mostly close enough; a fifth of it takes
longer and leaves the bound the rest of the gap."""


@dataclass(frozen=True)
class HorizonResult:
    """The roadmap (None without a solution), its solve, and where each workload ends up
    (workload position -> accelerator in the horizon's last month)."""

    result: SolveResult
    roadmap: Roadmap | None
    end_placement: dict[int, str]


def solve_horizon(
    estimates: Estimates,
    catalog: Catalog,
    months: int,
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> HorizonResult:
    """Solve the stay-put model, then the roadmap (see the module), and build the roadmap;
    each solve within ``time_limit_s``, else within the budgets of ``placement.horizon.budget``.
    Nothing it starts in the background outlives it (``background.all_ended``; a pricing made
    ahead for months the roadmap did not keep is waited for), but on an interrupt."""
    with all_ended():
        epochs = epoch_options(estimates, catalog, months)  # estimated once for both models
        each, lp_limit = pricing_limit(time_limit_s), relaxation_limit(time_limit_s)
        deadline = roadmap_deadline(time_limit_s)
        # Staying put is priced on the second core while the search runs on this one; the
        # search waits for it only where it weighs staying put as a start, so its pricing MILP
        # stops by the end of the search's budget (five workloads over 120 months: 30 s from
        # 11 s held the search until 42 s).
        by_search = roadmap_deadline(time_limit_s, SEARCH_BUDGET_S)
        stay_months: Handed[Placement] = Handed()
        staying = InBackground(
            lambda: _stay_put(
                estimates,
                catalog,
                months,
                epochs,
                solver,
                (each, lp_limit),
                gap,
                by_search,
                stay_months.give,
            )
        )
        model = build_horizon_model(estimates, catalog, months, epochs=epochs)
        pricing = _Pricing(estimates.workloads, catalog, solver, (each, lp_limit), gap, deadline)
        with stopped_when_stalled(stall_rule(time_limit_s)):
            result, units_round, ahead = _search(model, staying, estimates, pricing, time_limit_s)
        if not result.has_solution:
            staying.result()  # its error, if any, is this one's too
            return HorizonResult(result, None, {})
        placed = month_placement(model, estimates.workloads)
        early = _priced_beside(model, placed, staying, stay_months, pricing, units_round, ahead)
        stay = staying.result()
        result, model, stayed = _priced(
            model, placed, stay, result, pricing, units_round, ahead, early
        )
        roadmap = build_roadmap(model, stayed, estimates.workloads, catalog)
        all_base = _all_on_baseline(estimates, catalog, months, epochs, solver, each, gap)
        roadmap = roadmap.model_copy(
            update={
                "all_h100_on_demand_total_usd": all_base,
                "all_h100_on_demand_monthly_usd": None
                if all_base is None
                else round(all_base / months, 2),
            }
        )
        # A target never ready within the horizon is reported as its interim place already.
        position = {str(i): k for k, i in enumerate(estimates.workloads["id"].astype(str))}
        end = {position[w.workload_id]: w.target_accelerator for w in roadmap.workloads}
        return HorizonResult(result, roadmap, end)


@dataclass(frozen=True)
class _Pricing:
    """How a roadmap's months are priced (``price_roadmap``): for these workloads and catalog,
    with this solver, each pricing MILP's and LP's time limit (``placement.horizon.budget``),
    the gap, and the roadmap's deadline (``roadmap_deadline``)."""

    workloads: pd.DataFrame
    catalog: Catalog
    solver: str
    limits: tuple[float, float]
    gap: float
    deadline: float | None = None

    def price(self, model: HorizonModel, placed: Placement, purchases_first: bool) -> PricedRoadmap:
        """The months of ``model``'s roadmap, which runs as ``placed`` says, priced."""
        milp_s, lp_s = self.limits
        return price_roadmap(
            model,
            self.workloads,
            self.catalog,
            self.solver,
            milp_s,
            self.gap,
            placed,
            purchases_first=purchases_first,
            relaxation_limit_s=lp_s,
            deadline=self.deadline,
        )


@dataclass(frozen=True)
class _PricedAhead:
    """A roadmap's months (``placement``) being priced in the background (``pricing``)."""

    placement: Placement
    pricing: InBackground[PricedRoadmap]


def _search(
    model: HorizonModel,
    staying: InBackground[PricedRoadmap | None],
    estimates: Estimates,
    pricing: _Pricing,
    time_limit_s: float | None,
) -> tuple[SolveResult, bool, _PricedAhead | None]:
    """The roadmap search (see the module), its solves sharing ``SEARCH_BUDGET_S`` where the
    run sets no time limit: the roadmap's solve, whether it is the one with its units rounded
    (``_rounded_relaxation``), and the rounded roadmap's months priced ahead where the search
    goes on from it (``_price_ahead``). ``staying``: staying put being priced (``_stay_put``).
    """
    catalog, solver, gap = pricing.catalog, pricing.solver, pricing.gap
    engineers = catalog.economics.porting_engineers
    clock = search_clock(time_limit_s)
    bound, rounded, units_round = _rounded_relaxation(model, engineers, solver, clock, gap)
    ahead = None
    if rounded is not None and bound is not None and proven_by(rounded.cost, bound, gap):
        result = _proven(solver, rounded.cost, bound, rounded.time_s)
    else:
        ahead = None if rounded is None else _price_ahead(model, rounded, pricing)
        spent = clock.spent()
        start = _cheaper_start(
            model, staying, rounded, estimates, catalog, solver, clock, gap, early=not spent
        )
        target = None if bound is None else proving_cost(bound, gap)
        held = (
            None
            if not spent or start is None
            else _start_held(model, start, bound, solver, clock, gap)
        )
        if held is not None:
            result = held
        else:
            result = solve_model(model, solver, clock.left(), gap, start=start, target=target)
        found = result.objective
        if found is not None and bound is not None and proven_by(found, bound, gap):
            result = _proven(solver, found, bound, result.time_s)
    if not result.has_solution:
        return result, units_round, ahead
    return _whole_moves(model, result, bound, solver, clock, gap), units_round, ahead


def _start_held(
    model: HorizonModel,
    start: Start,
    bound: float | None,
    solver: str,
    clock: SearchClock,
    gap: float,
) -> SolveResult | None:
    """The search's start as its roadmap, its integers held (an LP), where the search's budget
    is spent by the time the start is chosen: the whole MILP would have the floor's seconds
    (``SEARCH_SOLVE_FLOOR_S``), in which it returned its start on five workloads over 120
    months, and the early roadmap's MILP, a candidate start, found one 3.5% dearer in its 5 s.
    Its moves are made whole after, as any roadmap's (``_whole_moves``). None where the start
    cannot be costed so (the whole MILP is then solved from it)."""
    held = priced(model, start, solver, clock.left(), gap)
    if held is None:
        return None
    return _feasible(solver, held.cost, bound, held.time_s, "its start, the search's budget spent")


def _price_ahead(model: HorizonModel, rounded: Priced, pricing: _Pricing) -> _PricedAhead:
    """The rounded roadmap's months priced in the background while the search goes on from
    it: the search most often ends on the same months (it did on every small inventory tried
    over 120 months), and a pricing MILP can take its whole budget (30 s), so the pricing
    is done by the time the search is. The pricing's MILPs are never stopped as stalled.
    (Where the pricing's whole units fail, its start is the purchases the model holds at the
    time: a start only, read while the search goes on.)"""
    values = {**rounded.start, **rounded.steps}
    kept = {var: var.varValue for var in values}
    for var, value in values.items():
        var.varValue = value
    placed = month_placement(model, pricing.workloads)
    for var, kept_value in kept.items():
        var.varValue = kept_value
    with stopped_when_stalled(None):
        later = InBackground(lambda: pricing.price(model, placed, purchases_first=False))
    return _PricedAhead(placed, later)


def _priced_beside(
    model: HorizonModel,
    placed: Placement,
    staying: InBackground[PricedRoadmap | None],
    stay_months: Handed[Placement],
    pricing: _Pricing,
    units_round: bool,
    ahead: _PricedAhead | None,
) -> PricedRoadmap | None:
    """The roadmap's months priced while staying put's pricing is still under way (on the
    other core), where they are not staying put's months nor priced ahead: ``_priced``
    would price them after it. At 10,000 workloads over 120 months staying put's pricing
    takes about four minutes (its LPs over the months' slices), and the roadmap's two more
    after it. ``placed``: the roadmap's months. None where there is nothing to price here."""
    if staying.finished():
        return None  # priced by ``_priced`` as before: nothing to overlap
    if ahead is not None and ahead.placement == placed:
        return None
    stay_placed = stay_months.wait(staying)
    if stay_placed is None or stay_placed == placed:
        return None
    return pricing.price(model, placed, purchases_first=units_round)


def _priced(
    model: HorizonModel,
    placed: Placement,
    stay: PricedRoadmap | None,
    result: SolveResult,
    pricing: _Pricing,
    units_round: bool,
    ahead: _PricedAhead | None,
    early: PricedRoadmap | None = None,
) -> tuple[SolveResult, HorizonModel, HorizonModel | None]:
    """The roadmap's months priced in the month model (``placement.horizon.pricing``), as
    staying put's are (``_stay_put``; a roadmap running every month where staying put does
    takes that pricing); where staying put then costs less, it is the roadmap.
    ``units_round``: the search proved its roadmap with its units rounded, so the pricing
    first tries the MILP's purchases (``price_roadmap``'s ``purchases_first``). ``ahead``:
    months priced while the search went on, taken where they are the roadmap's; ``early``:
    the roadmap's months priced while staying put's pricing went on (``_priced_beside``).
    ``placed``: the roadmap's months (``month_placement`` of ``model``)."""
    workloads = pricing.workloads
    stays_put = stay is not None and month_placement(stay.model, workloads) == placed
    if stay is not None and stays_put:
        # The same months as staying put, so the same pricing problem (the month model sees
        # only where work runs): staying put's pricing is the roadmap's, not solved again
        # (on one growing training job over 120 months, a 31 s MILP).
        plan = replace(stay, model=with_priced_months(model, stay.model))
    elif ahead is not None and ahead.placement == placed:
        # Its one-offs (moves, ports, programmes) are read again from the roadmap found: the
        # pricing read them from the model while the search was still changing it.
        made_ahead = ahead.pricing.result()
        plan = replace(made_ahead, model=with_priced_months(model, made_ahead.model))
    elif early is not None:
        plan = early
    else:
        plan = pricing.price(model, placed, purchases_first=units_round)
    spent = result.time_s + plan.result.time_s
    if not plan.result.has_solution:
        # Only under a time limit: the MILP's own figures stand.
        return result, model, None if stay is None else stay.model
    stayed = None
    if stay is not None:
        if stays_put:
            # The roadmap stays put: the same months, priced once, so that both read the same.
            stayed = replace(plan, model=with_priced_months(stay.model, plan.model))
        else:
            stayed = stay
            spent += stay.result.time_s
    decided = horizon_total_usd(model)
    total = horizon_total_usd(plan.model)
    note = (
        f"{result.termination}; months priced in the steady state's month model: "
        f"${total:,.2f} over the horizon (the roadmap MILP's: ${decided:,.2f})"
    )
    _, _, pricing_notes = plan.result.termination.partition("; ")
    if pricing_notes:  # cover in whole chips, as the pricing says
        note += f"; pricing: {pricing_notes}"
    result = replace(result, termination=note)
    result = _with_pricing_gap(result, plan.result, "the months")
    if stay is not None and stayed is stay:
        result = _with_pricing_gap(result, stay.result, "staying put")
    note = result.termination
    chosen = plan.model
    if stayed is not None and horizon_total_usd(stayed.model) < total - CENT_USD:
        chosen, total = stayed.model, horizon_total_usd(stayed.model)
        note += f"; staying put costs less priced so (${total:,.2f}) and is the roadmap"
    # The solve stays the roadmap MILP's (its objective, bound and gap); its message gives both.
    return (
        replace(result, time_s=spent, termination=note),
        chosen,
        None if stayed is None else stayed.model,
    )


def _with_pricing_gap(result: SolveResult, pricing: SolveResult, what: str) -> SolveResult:
    """``result`` feasible, not optimal, where a pricing did not prove its gap (stopped at its
    time limit, ``placement.horizon.budget``, or its plan further from the relaxation's bound
    than the gap: ``placement.horizon.pricing``): the reported gap is the larger of the two,
    and the message says what was priced within what."""
    if pricing.status is not SolveStatus.FEASIBLE:
        return result
    within = "an unknown gap" if pricing.gap is None else f"{pricing.gap:.3%}"
    note = (
        f"{result.termination}; {what} priced within {within} of the bound "
        "(not proven within the gap)"
    )
    gaps = [g for g in (result.gap, pricing.gap) if g is not None]
    return replace(
        result,
        status=SolveStatus.FEASIBLE,
        gap=max(gaps) if len(gaps) == 2 else None,
        termination=note,
    )


def _rounded_relaxation(
    model: HorizonModel,
    engineers: int | None,
    solver: str,
    clock: SearchClock,
    gap: float,
) -> tuple[float | None, Priced | None, bool]:
    """The LP relaxation's bound, the roadmap with its readiness rounded (see the module),
    and whether that roadmap is the one with its units rounded (``_units_rounded``, the bound
    proving it); the time reported is both solves'. None where either has no solution.

    No start is given: staying put with the rounding's readiness took this MILP from 30 s
    to 21 s on 3 workloads over 120 months, but the 12-month roadmaps of 1,000 and 10,000
    workloads from 19.8 s to 21.5 s and 16.3 s to 18.0 s (HiGHS completing the start)."""
    relaxed = solve_model(model, solver, clock.left(), gap, relax=True)
    clock.relaxation_s = relaxed.time_s  # each later solve gets past its root
    if relaxed.status is not SolveStatus.OPTIMAL or relaxed.objective is None:
        return None, None, False
    bound = relaxed.objective
    best: Priced | None = None
    chosen: Start = {}
    spent = relaxed.time_s
    # Each way of rounding at the whole gap until the bound proves one (the model's variables
    # then hold its values), else the cheapest again to a fifth of the gap, from itself.
    for ready in rounded_readiness(model, engineers):
        quick = _units_rounded(model, ready, solver, clock, gap, proving_cost(bound, gap))
        spent += quick.time_s
        if quick.cost is not None:
            return bound, Priced(quick.cost, quick.start, spent), True
        found = priced(model, ready, solver, clock.left(), gap, None, proving_cost(bound, gap))
        if found is None:
            continue
        spent += found.time_s
        if best is None or found.cost < best.cost:
            best, chosen = replace(found, time_s=spent), ready
        if proven_by(found.cost, bound, gap):
            return bound, replace(found, time_s=spent), False
    if best is None:
        return bound, None, False
    tighter, target = TIGHTER_GAP_SHARE * gap, proving_cost(bound, gap)
    found = priced(model, chosen, solver, clock.left(), tighter, best.start, target)
    if found is None:
        return bound, best, False  # not proven, and the search goes on from it
    return bound, replace(found, time_s=spent + found.time_s), False


@dataclass(frozen=True)
class _Attempt:
    """A roadmap tried: its cost where it is proven (else None), its values, the time taken."""

    cost: float | None
    start: Start
    time_s: float


def _units_rounded(
    model: HorizonModel,
    ready: Start,
    solver: str,
    clock: SearchClock,
    gap: float,
    target: float,
) -> _Attempt:
    """The roadmap with ``ready`` fixed and the reservation units continuous (a MILP of the
    targets alone: the timeline), then with that timeline fixed and each month's units
    bought rounded, within their bounds, to the nearest, largest first, up or down
    (``UNIT_ROUNDING_SHARES``; the units of a row of units alone it breaks, what may be held at
    once, rounded down: ``within``), each costed as an LP (a rounding the rows refuse is
    passed over). Proven where one costs no more than ``target``: a roadmap of whole units the
    relaxation's bound proves.

    Where the fleet is large, rounding a few units up costs a sliver of the whole, and this is
    seconds where the MILP of whole units takes minutes (10,000 workloads over 36 months:
    about 6 s against 172 s), its LP relaxation as weak as its units are few (a service of 18
    GPUs: 2.25 eight-GPU units in the relaxation, 1.8% below whole ones)."""
    units = list(model.units.values())
    with _category(units, pulp.LpContinuous):
        timeline = priced(model, ready, solver, clock.left(), gap, None, target)
    if timeline is None or timeline.cost > target:
        return _Attempt(None, {}, 0.0 if timeline is None else timeline.time_s)
    bought = set(units)
    fixed = {var: value for var, value in timeline.start.items() if var not in bought}
    fixed.update({y: y.varValue or 0.0 for y in _steps(model)})
    relaxed = {var: var.varValue or 0.0 for var in units}
    caps: list[pulp.LpConstraint] | None = None  # the rows of units alone, found once
    spent = timeline.time_s
    for share in UNIT_ROUNDING_SHARES:
        if share is None:
            with fixed_values(fixed):
                whole_units = units_largest_first(
                    model, model.units, model.book, solver, clock.left(), gap
                )
            if whole_units is None:
                continue
            fixed.update(whole_units.values)
        else:
            rounded = {var: rounded_units(var, value, share) for var, value in relaxed.items()}
            caps = caps if caps is not None else unit_rows(model.problem, units)
            fixed.update(within(caps, rounded, relaxed))
        whole = priced(model, fixed, solver, clock.left(), gap)
        spent += 0.0 if whole is None else whole.time_s
        if whole is not None and whole.cost <= target:
            return _Attempt(whole.cost, {**whole.start, **fixed}, spent)
    return _Attempt(None, {}, spent)


def _whole_moves(
    model: HorizonModel,
    result: SolveResult,
    bound: float | None,
    solver: str,
    clock: SearchClock,
    gap: float,
) -> SolveResult:
    """The roadmap with every workload moving whole, in one month.

    The search keeps ``y_{j,k}`` continuous (binary, HiGHS takes five times as long on 1,000
    workloads), so a few workloads may come back moving in parts over several months. Their
    ``y`` become binary and the roadmap is solved again with everything else fixed (targets,
    readiness, every other workload's moves; commitments chosen anew), starting from each of
    them moving in the first month it is at least half on its target (``y`` is non-decreasing,
    and a month where ``y > 0`` is one its target is ready in, so those steps keep every
    constraint). The relaxation's bound still bounds the whole-move optimum: the result is
    proven within the gap where it is within the gap of the bound, and otherwise reported
    ``feasible`` with its distance from the bound as its gap."""
    every = _steps(model)
    split = {
        y
        for on_target in model.on_target.values()
        if any(min(v.varValue or 0.0, 1.0 - (v.varValue or 0.0)) > 1e-6 for v in on_target.values())
        for y in on_target.values()
    }
    if not split:
        return result
    moves = {y: float((y.varValue or 0.0) >= 0.5) for y in every}
    fixed = {y: value for y, value in moves.items() if y not in split}
    for var in [*model.assign.values(), *readiness_variables(model)]:
        fixed[var] = float(round(var.varValue or 0.0))
    # From the rounded moves and the commitments held before, stopping at the first plan the
    # bound proves.
    held = {var: float(round(var.varValue or 0.0)) for var in model.units.values()}
    target = None if bound is None else proving_cost(bound, gap)
    with _category(split, pulp.LpInteger):
        found = priced(model, fixed, solver, clock.left(), gap, {**moves, **fixed, **held}, target)
    if found is None:  # only under a time limit: the rounded steps keep every constraint
        return result
    spent = result.time_s + found.time_s
    if bound is not None and proven_by(found.cost, bound, gap):
        return _proven(solver, found.cost, bound, spent)
    # Proving it would take the roadmap MILP with every move binary (30 s where this took 3 on
    # 120 workloads): the plan says how far from the bound it is instead.
    return _feasible(solver, found.cost, bound, spent, "whole moves")


def _steps(model: HorizonModel) -> list[pulp.LpVariable]:
    """Every ``y_{j,k}`` (on its target in month k) of the model."""
    return [y for on_target in model.on_target.values() for y in on_target.values()]


@contextlib.contextmanager
def _category(variables: Iterable[pulp.LpVariable], category: str) -> Iterator[None]:
    """``variables`` of ``category`` (``pulp.LpInteger`` or ``pulp.LpContinuous``) for the
    duration of the block, each of its own again after it."""
    saved = {var: var.cat for var in variables}
    for var in saved:
        var.cat = category
    try:
        yield
    finally:
        for var, cat in saved.items():
            var.cat = cat


def _feasible(
    solver: str, cost: float, bound: float | None, time_s: float, how: str
) -> SolveResult:
    """A roadmap found ``how``, not proven within the gap asked: ``feasible``, its gap its
    distance from the relaxation's bound (unknown without one)."""
    return SolveResult(
        status=SolveStatus.FEASIBLE,
        solver=solver,
        time_s=time_s,
        objective=cost,
        gap=None if bound is None else relative_gap(cost, bound),
        termination=f"{how}: within the gap shown of the LP relaxation's bound, not proven "
        "within the gap asked",
    )


def _proven(solver: str, cost: float, bound: float, time_s: float) -> SolveResult:
    """A roadmap proven optimal within the gap by the relaxation's bound."""
    return SolveResult(
        status=SolveStatus.OPTIMAL,
        solver=solver,
        time_s=time_s,
        objective=cost,
        gap=relative_gap(cost, bound),
        termination="optimal within the gap of the LP relaxation's bound",
    )


def _cheaper_start(
    model: HorizonModel,
    staying: InBackground[PricedRoadmap | None],
    rounded: Priced | None,
    estimates: Estimates,
    catalog: Catalog,
    solver: str,
    clock: SearchClock,
    gap: float,
    early: bool = True,
) -> dict[pulp.LpVariable, float] | None:
    """The cheapest of the rounded roadmap, the stay-put plan and the early roadmap
    (``placement.horizon.start``; only where ``early``), as the search's start (staying put
    costed as priced, the others in the roadmap MILP: close enough to choose a start by).
    Staying put is waited for last, so that its pricing has the early roadmap's solve to
    finish in."""
    candidates: list[tuple[float, dict[pulp.LpVariable, float]]] = []
    if rounded is not None:
        candidates.append((rounded.cost, rounded.start))
    soon = early_start(model, estimates, catalog) if early else None
    early_found = None if soon is None else priced(model, soon, solver, clock.left(), gap)
    stay = staying.result()
    if stay is not None:
        candidates.append((horizon_total_usd(stay.model), stay_put_start(model, stay.model)))
    if early_found is not None:
        candidates.append((early_found.cost, early_found.start))
    if not candidates:
        return None
    return min(candidates, key=lambda c: c[0])[1]


def _stay_put(
    estimates: Estimates,
    catalog: Catalog,
    months: int,
    epochs: dict[int, pd.DataFrame],
    solver: str,
    limits: tuple[float, float],
    gap: float,
    deadline: float | None = None,
    placed: Callable[[Placement], None] | None = None,
) -> PricedRoadmap | None:
    """Staying put: every workload on its interim place (a new workload with nowhere to wait
    on its cheapest feasible option), its months priced in the month model; None where it has
    no solution.

    Its timeline is fixed, so the horizon model solved with nothing bought (an LP but for
    any programme or port a new workload needs) gives where each workload runs, month by
    month, and the pricing chooses the commitments, as it does the roadmap's (the figures
    reported are the pricing's either way). Choosing them in the horizon model instead is a
    MILP of whole units over every month that HiGHS cannot prove within the gap at long
    horizons: 3 workloads over 120 months were still 3% from its bound after minutes, where
    the pricing proves its own within a second. ``deadline``: when its pricing MILPs stop
    (``placement.horizon.budget.until``). ``placed`` is handed its months once they are
    known, before they are priced."""
    time_limit_s, lp_s = limits
    options = estimates.options
    feasible = options[options["feasible"]]
    cheapest = feasible.loc[feasible.groupby("workload")["monthly_cost_usd"].idxmin()]
    fixed = dict(
        zip(cheapest["workload"].astype(int), cheapest["accelerator"].astype(str), strict=True)
    )
    fixed.update(interim_accelerators(options, estimates.workloads))
    settings = FormulationSettings(fixed_accelerators=fixed)
    model = build_horizon_model(estimates, catalog, months, settings, epochs)
    # The relaxation's purchases rounded down (a holding any month allows) are the pricing's
    # start. Whether it beats starting from none is not measured: 0.9 s either way on 3
    # workloads over 120 months.
    relaxed = solve_model(model, solver, time_limit_s, gap, relax=True)
    if relaxed.objective is None or relaxed.status is not SolveStatus.OPTIMAL:
        return None
    start = {u: rounded_units(u, u.varValue or 0.0, 1.0) for u in model.units.values()}
    # Whether those units round within the gap (a large fleet's do): only then is the
    # pricing's quick try from them worth its seconds, as for the roadmap (``_priced``).
    with fixed_values(start):
        costed = solve_model(model, solver, lp_s, gap, relax=True)
    units_round = costed.objective is not None and proven_by(
        costed.objective, relaxed.objective, gap
    )
    # The timeline with nothing bought: its programmes and ports whole, unlike the relaxation's.
    bounds = {u: u.upBound for u in start}
    for units in start:
        units.upBound = 0
    solved = solve_model(model, solver, time_limit_s, gap)
    for units, value in start.items():
        units.upBound, units.varValue = bounds[units], value
    if not solved.has_solution:
        return None
    if placed is not None:
        placed(month_placement(model, estimates.workloads))
    priced = price_roadmap(
        model,
        estimates.workloads,
        catalog,
        solver,
        time_limit_s,
        gap,
        purchases_first=units_round,
        relaxation_limit_s=lp_s,
        deadline=deadline,
    )
    return priced if priced.result.has_solution else None


def _all_on_baseline(
    estimates: Estimates,
    catalog: Catalog,
    months: int,
    epochs: dict[int, pd.DataFrame],
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> float | None:
    """The horizon's total with every workload on the catalog's baseline accelerator and only
    its baseline option bought (H100 on demand): the same months, growth and owned commitments
    as the roadmap, so that its monthly average compares like with like. None where a
    placeable workload cannot run there, or the model has no solution."""
    options = estimates.options
    base = catalog.baseline
    placeable = set(options.loc[options["feasible"], "workload"].astype(int))
    there = options[
        options["feasible"]
        & options["accelerator"].eq(base.accelerator)
        & options["pricing"].eq(base.pricing)
    ]
    if not placeable or set(there["workload"].astype(int)) != placeable:
        return None
    settings = FormulationSettings(
        fixed_accelerators={w: base.accelerator for w in placeable},
        purchasable=frozenset({base.pricing}),
    )
    model = _solved(estimates, catalog, months, settings, epochs, solver, time_limit_s, gap)
    return None if model is None else horizon_total_usd(model)


def _solved(
    estimates: Estimates,
    catalog: Catalog,
    months: int,
    settings: FormulationSettings,
    epochs: dict[int, pd.DataFrame],
    solver: str,
    time_limit_s: float | None,
    gap: float,
) -> HorizonModel | None:
    """The horizon model under ``settings``, solved; None where it has no solution."""
    model = build_horizon_model(estimates, catalog, months, settings, epochs)
    result = solve_model(model, solver, time_limit_s, gap)
    return model if result.has_solution else None

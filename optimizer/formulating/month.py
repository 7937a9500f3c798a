"""One month of chips in use and their cover: the constraint families the steady-state plan and
every month of a roadmap share, so that a month means the same in both.

* ``spread_demand``: the chips in use in each slice of the week, by accelerator and eligibility
  class, from the month's demand figures (serving at its profile's level, fixed work spread by
  its level, flexible work placed by the optimizer where its profile runs);
* ``add_cover``: commitments cover chips in use slice by slice within what they hold, a
  reservation unit only the classes it holds;
* ``add_short_work_cover``: work that runs only part of the hours its profile offers is covered
  only by what is free while it runs;
* ``add_chip_limits``: no more chips at once than an accelerator's quota.

A month is tagged in the names of its variables and constraints (nothing in the steady state,
``m003`` in a roadmap's third month). The maths of each family is in its docstring and in
docs/formulation.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pulp

from placement.estimating.economics.commitments import CommitmentBook
from placement.estimating.profiles import SliceGrid
from placement.formulating.naming import name
from placement.models.catalog import Catalog

Slices = list[pulp.LpAffineExpression]
"""One expression per slice of the week."""


def slice_key(t: int) -> str:
    return f"t{t:02d}"


def class_key(c: float) -> str:
    return "any" if math.isinf(c) else f"le{int(c)}"


@dataclass(frozen=True)
class DemandKey:
    """A part of the demand: one accelerator, profile and eligibility class, short work or not."""

    accelerator: str
    profile: str
    eligibility: float
    short: bool


@dataclass
class Figures:
    """A part's demand figures in the month: serving chips held at the base and scaled with the
    profile, work chip-hours and the chips the work holds at once (flexible work only)."""

    serving_base: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    serving_scaled: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    work_hours: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)
    work_chips: pulp.LpAffineExpression = field(default_factory=pulp.LpAffineExpression)


@dataclass(frozen=True)
class Held:
    """What commitments hold in the month: each reservation product's units and each savings
    plan's USD per hour, as (what was bought, an expression of purchase variables; what is
    owned, a constant)."""

    units: dict[str, tuple[pulp.LpAffineExpression, float]]
    usd: dict[str, tuple[pulp.LpAffineExpression, float]]


@dataclass(frozen=True)
class ShortJob:
    """Part-month work on one accelerator in the month: ``h`` chip-hours and ``r`` run hours
    when it runs there, ``on`` whether it does (an expression of the placement; the constant 1
    where it is fixed)."""

    key: object  # how the caller finds its cover variable again
    label: tuple[str, ...]
    accelerator: str
    eligibility: float
    profile: str
    chip_hours: float
    run_hours: float
    on: pulp.LpAffineExpression


@dataclass(frozen=True)
class ShortCoverGroup:
    """Short work fixed on one accelerator and class, of one profile, all holding ``chips``
    chips when it runs: covered at most ``min(h, r F)`` each, so ``min(chips, F)`` x their run
    hours."""

    variable: pulp.LpVariable
    run_hours: dict[object, float]  # job key -> r_j


@dataclass
class Month:
    """A month's chips in use and cover variables, keyed by accelerator, class and slice."""

    tag: tuple[str, ...]
    serving: dict[tuple[str, float], Slices] = field(default_factory=dict)
    work: dict[tuple[str, float], Slices] = field(default_factory=dict)
    short_work: dict[tuple[str, float], Slices] = field(default_factory=dict)
    flexible: dict[tuple[str, str, float, bool, int], pulp.LpVariable] = field(default_factory=dict)
    reserved_cover: dict[tuple[str, int], pulp.LpVariable] = field(default_factory=dict)
    plan_cover: dict[tuple[str, str, int], pulp.LpVariable] = field(default_factory=dict)
    serving_cover: dict[tuple[str, float, int], pulp.LpVariable] = field(default_factory=dict)
    work_cover: dict[tuple[str, float, int], pulp.LpVariable] = field(default_factory=dict)
    short_work_cover: dict[tuple[str, float, int], pulp.LpVariable] = field(default_factory=dict)
    free_for_short: dict[tuple[str, float, str], pulp.LpVariable] = field(default_factory=dict)
    short_cover: dict[object, pulp.LpVariable] = field(default_factory=dict)
    short_cover_groups: dict[tuple[str, float, str, float], ShortCoverGroup] = field(
        default_factory=dict
    )
    plan_allocation: dict[tuple[str, str, int], pulp.LpVariable] = field(default_factory=dict)

    @property
    def slices(self) -> range:
        """The slices of the week the demand is spread over."""
        return range(len(next(iter(self.serving.values()), [])))

    @property
    def accelerators(self) -> list[str]:
        return sorted({a for a, _ in self.serving})

    def classes(self, accelerator: str) -> list[float]:
        return sorted(c for a, c in self.serving if a == accelerator)

    def in_use(self, accelerator: str, t: int) -> pulp.LpAffineExpression:
        """Chips in use on ``accelerator`` in slice ``t``: serving and work, every class."""
        expr = pulp.LpAffineExpression()
        for c in self.classes(accelerator):
            expr.addInPlace(self.serving[(accelerator, c)][t])
            expr.addInPlace(self.work[(accelerator, c)][t])
        return expr

    def covers(self) -> Iterable[tuple[str, int, pulp.LpVariable]]:
        """Every cover variable of the month with its accelerator and slice."""
        for cover in (self.serving_cover, self.work_cover, self.short_work_cover):
            for (acc, _, t), var in cover.items():
                yield acc, t, var


def spread_demand(
    problem: pulp.LpProblem,
    month: Month,
    grid: SliceGrid,
    catalog: Catalog,
    keys: dict[str, str],
    figures: dict[DemandKey, Figures],
) -> None:
    """The chips in use in every slice, by accelerator and class, from one aggregate per part
    (accelerator, profile, class, short or not), so that the model grows with the inventory,
    not with inventory x slices.

    Serving (chips at the base ``S^{base}`` and scaled ``S^{var}``, profile levels ``g_k``):

    .. math:: D^S_{a,c}(t) = \\sum_k S^{base}_{a,k,c} + S^{var}_{a,k,c} g_k(t)

    Work (chip-hours ``V_{a,k,c}``): a fixed profile spreads it as ``V g_k(t) / \\sum_t w_t
    g_k(t)``; a flexible one places it with ``\\phi_{a,k,c,t} \\ge 0`` in the slices where
    ``g_k(t) > 0``, never more chips at once than its jobs hold together (``N_{a,k,c}``):

    .. math:: \\sum_t w_t \\phi_{a,k,c,t} = V_{a,k,c}, \\qquad \\phi_{a,k,c,t} \\le N_{a,k,c}

    Short work's part ``D^{WS}_{a,c}(t)`` is kept apart (see ``add_short_work_cover``).
    """
    levels = grid.levels
    specs = catalog.profiles()
    slices = range(len(grid.hours))
    for part in sorted(figures, key=_order):
        f = figures[part]
        acc, profile, cls = part.accelerator, part.profile, part.eligibility
        g = levels[profile]
        key = (keys[acc], keys[profile], class_key(cls), *(("short",) if part.short else ()))
        serving = month.serving.setdefault((acc, cls), [pulp.LpAffineExpression() for _ in slices])
        work = month.work.setdefault((acc, cls), [pulp.LpAffineExpression() for _ in slices])
        short = (
            month.short_work.setdefault((acc, cls), [pulp.LpAffineExpression() for _ in slices])
            if part.short
            else None
        )
        if specs[profile].kind == "serving":
            for t in slices:
                if g[t] > 0:
                    serving[t].addInPlace(f.serving_scaled, float(g[t]))
            if len(f.serving_base) or f.serving_base.constant:
                for t in slices:
                    serving[t].addInPlace(f.serving_base, 1.0)
            continue
        if specs[profile].placement == "fixed":
            spread = float(grid.hours @ g)
            for t in slices:
                if g[t] > 0:
                    work[t].addInPlace(f.work_hours, float(g[t]) / spread)
                    if short is not None:
                        short[t].addInPlace(f.work_hours, float(g[t]) / spread)
            continue
        placed = pulp.LpAffineExpression()
        for t in slices:
            if g[t] <= 0:
                continue
            label = (*key, *month.tag, slice_key(t))
            phi = problem.add_variable(name("flexible", *label), lowBound=0)
            month.flexible[(acc, profile, cls, part.short, t)] = phi
            work[t].addInPlace(phi, 1.0)
            if short is not None:
                short[t].addInPlace(phi, 1.0)
            placed.addInPlace(phi, float(grid.hours[t]))
            problem.addConstraint(phi - f.work_chips <= 0, name("flexible_at_once", *label))
        placed.addInPlace(f.work_hours, -1.0)
        problem.addConstraint(placed == 0, name("flexible_placed", *key, *month.tag))


def _order(part: DemandKey) -> tuple[str, str, float, bool]:
    return (part.accelerator, part.profile, part.eligibility, part.short)


def add_cover(
    problem: pulp.LpProblem,
    month: Month,
    book: CommitmentBook,
    keys: dict[str, str],
    held: Held,
) -> None:
    """Commitments cover chips in use, slice by slice, within what they hold.

    For reservation product ``q = (p, a, u)`` holding ``o_q + z_q`` units (owned, bought) of
    ``U_q`` chips, and savings plan ``q`` holding ``O_q + Z_q`` USD per hour and paying
    ``r_{q,a}`` per covered chip-hour:

    .. math:: y_{q,t} \\le U_q (o_q + z_q) \\qquad
        \\sum_a r_{q,a} v_{q,a,t} \\le O_q + Z_q

    What is covered on accelerator ``a`` in slice ``t`` is chips in use there, served,
    worked steadily or worked short (``D^{WS}``, bounded job by job in
    ``add_short_work_cover``), class by class:

    .. math:: \\sum_{q \\ni a} y_{q,t} + v_{q,a,t} = \\sum_c (\\sigma_{a,c,t} + \\omega_{a,c,t}
        + \\omega^S_{a,c,t}), \\quad \\sigma_{a,c,t} \\le D^S_{a,c}(t), \\quad
        \\omega_{a,c,t} \\le D^W_{a,c}(t) - D^{WS}_{a,c}(t), \\quad
        \\omega^S_{a,c,t} \\le D^{WS}_{a,c}(t)

    and a unit that holds replicas of at most ``m`` chips covers only the classes ``<= m``:

    .. math:: \\sum_{q:\\ m_q \\le m} y_{q,t} \\le \\sum_{c \\le m} (\\sigma_{a,c,t} +
        \\omega_{a,c,t} + \\omega^S_{a,c,t}) \\quad \\forall \\text{ finite } m
    """
    slices = month.slices
    accelerators = month.accelerators
    tag = month.tag
    for q in book.reservations:
        if q.accelerator not in accelerators or q.key not in held.units:
            continue
        bought, owned = held.units[q.key]
        key = (keys[q.pricing], keys[q.accelerator], str(q.unit_chips))
        for t in slices:
            y = problem.add_variable(name("reserved_cover", *key, *tag, slice_key(t)), 0)
            month.reserved_cover[(q.key, t)] = y
            problem.addConstraint(
                y - q.unit_capacity_chips * bought <= q.unit_capacity_chips * owned,
                name("reserved_capacity", *key, *tag, slice_key(t)),
            )
    for plan in book.savings_plans:
        covered = [a for a in plan.rates if a in accelerators]
        if not covered or plan.key not in held.usd:
            continue
        bought, owned = held.usd[plan.key]
        for t in slices:
            spend = pulp.LpAffineExpression()
            for a in covered:
                v = problem.add_variable(
                    name("plan_cover", keys[plan.pricing], keys[a], *tag, slice_key(t)), 0
                )
                month.plan_cover[(plan.key, a, t)] = v
                spend.addInPlace(v, plan.rates[a])
            spend.addInPlace(bought, -1.0)
            problem.addConstraint(
                spend <= owned, name("plan_capacity", keys[plan.pricing], *tag, slice_key(t))
            )
    for acc in accelerators:
        for t in slices:
            by_class: dict[float, pulp.LpAffineExpression] = {}
            for c in month.classes(acc):
                ck = (keys[acc], class_key(c), *tag, slice_key(t))
                s = problem.add_variable(name("serving_cover", *ck), 0)
                w = problem.add_variable(name("work_cover", *ck), 0)
                month.serving_cover[(acc, c, t)] = s
                month.work_cover[(acc, c, t)] = w
                problem.addConstraint(
                    s - month.serving[(acc, c)][t] <= 0, name("serving_cover_limit", *ck)
                )
                steady_work = month.work[(acc, c)][t]
                by_class[c] = s + w
                if (acc, c) in month.short_work:
                    short = month.short_work[(acc, c)][t]
                    steady_work = steady_work - short
                    ws = problem.add_variable(name("short_work_cover", *ck), 0)
                    month.short_work_cover[(acc, c, t)] = ws
                    problem.addConstraint(ws - short <= 0, name("short_work_cover_limit", *ck))
                    by_class[c] += ws
                problem.addConstraint(w - steady_work <= 0, name("work_cover_limit", *ck))
            supplied = pulp.LpAffineExpression()
            for q in book.on(acc):
                if (q.key, t) in month.reserved_cover:
                    supplied.addInPlace(month.reserved_cover[(q.key, t)], 1.0)
            for plan in book.plans_for(acc):
                if (plan.key, acc, t) in month.plan_cover:
                    supplied.addInPlace(month.plan_cover[(plan.key, acc, t)], 1.0)
            used = pulp.LpAffineExpression()
            for expr in by_class.values():
                used.addInPlace(expr)
            problem.addConstraint(
                supplied - used == 0, name("cover_balance", keys[acc], *tag, slice_key(t))
            )
            reserved = {
                q.key: month.reserved_cover[(q.key, t)]
                for q in book.on(acc)
                if (q.key, t) in month.reserved_cover
            }
            add_eligible_cover(
                problem, book, acc, reserved, by_class, (keys[acc], *tag, slice_key(t))
            )


def add_eligible_cover(
    problem: pulp.LpProblem,
    book: CommitmentBook,
    accelerator: str,
    reserved: dict[str, pulp.LpVariable],
    by_class: dict[float, pulp.LpAffineExpression],
    label: tuple[str, ...],
) -> None:
    """A reservation unit that holds replicas of at most ``m`` chips covers only the classes
    ``<= m``: in one slice, with ``y_q`` each product's cover (``reserved``) and ``u_c`` each
    class's chips (``by_class``: its cover in the steady state, its chips in use in a roadmap
    month, where the cover is not split by class: for nested classes the two are the same
    condition),

    .. math:: \\sum_{q:\\ m_q \\le m} y_q \\le \\sum_{c \\le m} u_c \\quad \\forall
        \\text{ finite } m
    """
    products = book.on(accelerator)
    limits = {q.max_replica_chips for q in products if q.max_replica_chips is not None}
    for limit in sorted(limits):
        narrow = pulp.LpAffineExpression(
            [
                (reserved[q.key], 1.0)
                for q in products
                if q.max_replica_chips is not None
                and q.max_replica_chips <= limit
                and q.key in reserved
            ]
        )
        for c, expr in by_class.items():
            if c <= limit:
                narrow.addInPlace(expr, -1.0)
        problem.addConstraint(
            narrow <= 0, name("cover_eligible", label[0], f"le{limit}", *label[1:])
        )


WHOLE_CHIP_TOLERANCE = 1e-6
"""Chips closer than this to a whole number are whole (solver round-off, not a schedule)."""


def reserved_chips_held(
    book: CommitmentBook, held: Held, accelerator: str
) -> pulp.LpAffineExpression:
    """``\\sum_{q \\ni a} U_q (o_q + z_q)``: the chips the reservations on an accelerator hold."""
    chips = pulp.LpAffineExpression()
    for q in book.on(accelerator):
        if q.key in held.units:
            bought, owned = held.units[q.key]
            chips.addInPlace(bought, q.unit_capacity_chips)
            chips.constant += q.unit_capacity_chips * owned
    return chips


def cover_in_part_chips(
    month: Month, book: CommitmentBook, held: Held, done: frozenset[tuple[str, int]]
) -> dict[tuple[str, int], float]:
    """The slices (accelerator, slice) of a solved month whose cover reaches into a chip that
    is in use for only part of the slice, with the chips of cover each states beyond what
    whole chips get.

    Chips in use are whole in every hour: a slice using ``\\phi = k + p`` chips on average
    (``k`` whole, ``0 < p < 1``) runs ``k`` chips in ``1 - p`` of its hours and ``k + 1`` in the
    rest (the flattest schedule). Commitments able to cover ``C`` chips an hour then cover
    ``min(C, k)`` in the first hours and ``min(C, k + 1)`` in the others: on average exactly
    ``min(C, \\phi)`` when ``C <= k`` or ``C >= k + 1``, but only ``k + p (C - k)`` between, where
    the relaxation's ``min(C, \\phi)`` is too high (a savings plan worth 0.37 of a chip is not
    used all hours by a second chip that runs 37% of them). ``C`` is what could cover the
    slice: reservations held there and savings-plan dollars spent there or left unspent in the
    slice; a slice is returned where its cover ``c > k`` and ``C < k + 1``, with
    ``c - (k + p (C - k))``."""
    found: dict[tuple[str, int], float] = {}
    plans = [p for p in book.savings_plans if p.key in held.usd]
    for acc in month.accelerators:
        reserved = reserved_chips_held(book, held, acc).value() or 0.0
        for t in month.slices:
            if (acc, t) in done:
                continue
            phi = month.in_use(acc, t).value() or 0.0
            whole = math.floor(phi + WHOLE_CHIP_TOLERANCE)
            if phi - whole <= WHOLE_CHIP_TOLERANCE:
                continue
            cover = sum((var.value() or 0.0) for var in _supplying(month, book, acc, t))
            if cover <= whole + WHOLE_CHIP_TOLERANCE:
                continue
            able = reserved
            for plan in plans:
                if acc not in plan.rates or (plan.key, acc, t) not in month.plan_cover:
                    continue
                bought, owned = held.usd[plan.key]
                spent = sum(
                    (month.plan_cover[(plan.key, a, t)].value() or 0.0) * rate
                    for a, rate in plan.rates.items()
                    if (plan.key, a, t) in month.plan_cover
                )
                unspent = max(0.0, (bought.value() or 0.0) + owned - spent)
                own = month.plan_cover[(plan.key, acc, t)].value() or 0.0
                able += own + unspent / plan.rates[acc]
            if able < whole + 1 - WHOLE_CHIP_TOLERANCE:
                found[(acc, t)] = max(0.0, cover - whole_chip_cover(phi, able))
    return found


def whole_chip_cover(phi: float, able: float) -> float:
    """``\\bar c(C, \\phi) = \\min(C, k) + p \\min(1, (C - k)^+)``: what commitments able to cover
    ``C`` chips an hour cover of a slice running ``\\phi = k + p`` chips on average on whole
    chips (``k`` in ``1 - p`` of its hours, ``k + 1`` in the rest; see
    ``cover_in_part_chips``)."""
    whole = math.floor(phi + WHOLE_CHIP_TOLERANCE)
    part = max(0.0, phi - whole)
    return min(able, whole) + part * min(1.0, max(0.0, able - whole))


def _supplying(month: Month, book: CommitmentBook, acc: str, t: int) -> Iterable[pulp.LpVariable]:
    """The cover variables of one accelerator and slice: reservations' and savings plans'."""
    for q in book.on(acc):
        if (q.key, t) in month.reserved_cover:
            yield month.reserved_cover[(q.key, t)]
    for plan in book.plans_for(acc):
        if (plan.key, acc, t) in month.plan_cover:
            yield month.plan_cover[(plan.key, acc, t)]


def add_whole_chip_cover(
    problem: pulp.LpProblem,
    month: Month,
    book: CommitmentBook,
    keys: dict[str, str],
    held: Held,
    slices: Iterable[tuple[str, int]],
) -> None:
    """In the given slices (those ``cover_in_part_chips`` found), of a month whose chips in use
    are now fixed (``\\phi = k + p`` each), cover only what whole chips get:

    .. math:: \\sum_{q \\ni a} y_{q,t} + v_{q,a,t} \\le k + p\\,\\big(C_{a,t} - k\\big),
        \\qquad C_{a,t} = \\sum_{q \\ni a} U_q (o_q + z_q) + \\sum_q s_{q,a,t}

    with ``s_{q,a,t} \\ge v_{q,a,t}`` what a savings plan spends on ``a`` in ``t`` (covering or
    not) and the plan's dollars bounding its spend:

    .. math:: \\sum_{a' \\in R_t} r_{q,a'} s_{q,a',t} + \\sum_{a' \\notin R_t} r_{q,a'} v_{q,a',t}
        \\le O_q + Z_q

    (``R_t`` the accelerators restricted in slice ``t``). With the cover's other bounds, ``c \\le
    C`` and ``c \\le \\phi``, this is ``\\bar c(C, \\phi) = \\min(C, k) + p \\min(1, (C - k)^+)``
    exactly (a minimum of three lines, as ``\\bar c`` is concave in ``C``): with ``\\phi`` fixed,
    the flattest schedule's whole-chip cover is linear in what holds it, and the re-solve stays
    an LP in these slices."""
    restricted: dict[int, set[str]] = {}
    for acc, t in sorted(slices):
        restricted.setdefault(t, set()).add(acc)
    for t, accs in sorted(restricted.items()):
        for acc in sorted(accs):
            phi = month.in_use(acc, t).value() or 0.0
            whole = math.floor(phi + WHOLE_CHIP_TOLERANCE)
            part = max(0.0, phi - whole)
            key = (keys[acc], *month.tag, slice_key(t))
            row = pulp.LpAffineExpression([(var, 1.0) for var in _supplying(month, book, acc, t)])
            row.addInPlace(reserved_chips_held(book, held, acc), -part)
            for plan in book.plans_for(acc):
                if (plan.key, acc, t) not in month.plan_cover:
                    continue
                spent = problem.add_variable(name("plan_allocation", keys[plan.pricing], *key), 0)
                month.plan_allocation[(plan.key, acc, t)] = spent
                problem.addConstraint(
                    month.plan_cover[(plan.key, acc, t)] - spent <= 0,
                    name("plan_allocation_covers", keys[plan.pricing], *key),
                )
                row.addInPlace(spent, -part)
            problem.addConstraint(row <= whole * (1 - part), name("whole_chip_cover", *key))
        for plan in book.savings_plans:
            if plan.key not in held.usd or not any(
                (plan.key, a, t) in month.plan_allocation for a in accs
            ):
                continue
            bought, owned = held.usd[plan.key]
            spend = pulp.LpAffineExpression()
            allocated = []
            for a, rate in sorted(plan.rates.items()):
                if (plan.key, a, t) in month.plan_allocation:
                    spend.addInPlace(month.plan_allocation[(plan.key, a, t)], rate)
                    allocated.append(keys[a])
                elif (plan.key, a, t) in month.plan_cover:
                    spend.addInPlace(month.plan_cover[(plan.key, a, t)], rate)
            spend.addInPlace(bought, -1.0)
            # Named by the accelerators allocated so far: a later round that restricts another
            # accelerator in the slice adds a tighter row beside this one.
            problem.addConstraint(
                spend <= owned,
                name("plan_allocated", keys[plan.pricing], *allocated, *month.tag, slice_key(t)),
            )


def add_short_work_cover(
    problem: pulp.LpProblem,
    month: Month,
    book: CommitmentBook,
    grid: SliceGrid,
    catalog: Catalog,
    keys: dict[str, str],
    held: Held,
    jobs: list[ShortJob],
    aggregate: bool = False,
) -> None:
    """A job's chips run together: short work (``r_j`` hours at ``n_j`` chips, fewer hours than
    its profile offers) is covered only by what commitments hold free **while it runs**. Its
    hours fall across its profile's slices in proportion to the profile, ``s_{k,t} = w_t
    g_k(t) / \\sum_t w_t g_k(t)`` (a flexible profile: evenly over the hours it offers); in
    slice ``t`` what is free for class ``c`` on accelerator ``a`` is what is held for the class,
    ``K_{a,c}`` chips (reservation units eligible for it, savings plans at their rate), net of
    the steady cover (serving and work that runs all its hours) of the classes it shares units
    with, of what narrower classes spill past their own units (``u``), and of what savings
    plans spend on other accelerators then:

    .. math:: F_{a,c,t} = K_{a,c} - \\sum_{c' \\ge c} (\\sigma_{a,c',t} + \\omega_{a,c',t})
        - u_{a,c,t} - \\sum_{q} \\sum_{a' \\ne a} \\frac{r_{q,a'}}{r_{q,a}} v_{q,a',t}

    .. math:: u_{a,c,t} \\ge \\sum_{c' < c} (\\sigma_{a,c',t} + \\omega_{a,c',t})
        - \\sum_{q:\\ m_q < c} U_q (o_q + z_q), \\quad u_{a,c,t} \\ge 0

    .. math:: \\bar F_{a,c,k} = \\sum_t s_{k,t} F_{a,c,t}, \\qquad
        \\kappa_j \\le h_j x_{j,a}, \\qquad \\kappa_j \\le r_j \\bar F_{a,c,k}, \\qquad
        \\sum_t w_t \\omega^S_{a,c,t} \\le \\sum_j \\kappa_j

    Covering steady work first is what happens in every hour (a commitment applies to whatever
    runs), and it is what the solver prefers: a chip of steady cover given up frees at most
    ``e_t \\le w_t`` hours of a job's cover. Short work whose placement is fixed (``x = 1``) is
    grouped by the chips it holds, ``n_j = h_j / r_j``: ``\\sum_{j \\in g} \\min(h_j, r_j \\bar
    F) = \\min(\\sum_g h_j, \\bar F \\sum_g r_j)``, so one ``\\kappa_g`` per (accelerator, class,
    profile, chips) is exact.

    ``aggregate``: a relaxation for a bound (``placement.solving.proof``): the jobs with a
    choice of one (accelerator, class, profile) share one ``\\kappa_g`` with the sums of their
    rows, ``\\kappa_g \\le \\sum_j h_j x_{j,a}`` and ``\\kappa_g \\le \bar F \\sum_j r_j``. Every
    plan's cover meets them (``\\kappa_j \\le r_j \bar F`` holds for the jobs placed elsewhere
    too), so the model's optimum is at most the exact one; two rows per group instead of three
    per job leave HiGHS an LP a fraction of the size at fleet scale.
    """
    if not jobs or not (held.units or held.usd):
        return
    tag = month.tag
    by_part: dict[tuple[str, float], list[ShortJob]] = {}
    for job in jobs:
        by_part.setdefault((job.accelerator, job.eligibility), []).append(job)
    for (acc, cls), members in sorted(by_part.items()):
        free_by_slice = _free_for_short(problem, month, book, keys, held, acc, cls)
        for profile in sorted({job.profile for job in members}):
            share = profile_share(grid, catalog, profile)
            key = (keys[acc], class_key(cls), keys[profile], *tag)
            free = problem.add_variable(name("free_for_short", *key), 0)
            month.free_for_short[(acc, cls, profile)] = free
            mean = pulp.LpAffineExpression()
            for t, expr in enumerate(free_by_slice):
                if share[t] > 0:
                    mean.addInPlace(expr, float(share[t]))
            mean.addInPlace(free, -1.0)
            problem.addConstraint(mean == 0, name("free_for_short_mean", *key))
        total = pulp.LpAffineExpression()
        fixed: dict[tuple[str, float], dict[object, tuple[float, float]]] = {}
        pooled: dict[str, tuple[pulp.LpAffineExpression, list[float]]] = {}
        for job in members:
            if job.chip_hours <= 0:
                continue  # no work this month (zero volume): nothing to cover
            if not len(job.on):
                if job.on.constant <= 0:
                    continue
                # Same chips held (h / r): min(h_j, r_j F) adds up to min(sum h, F sum r).
                chips = round(job.chip_hours / job.run_hours, 6)
                fixed.setdefault((job.profile, chips), {})[job.key] = (
                    job.chip_hours * job.on.constant,
                    job.run_hours * job.on.constant,
                )
                continue
            if aggregate:
                work, runs = pooled.setdefault(job.profile, (pulp.LpAffineExpression(), []))
                work.addInPlace(job.on, job.chip_hours)
                runs.append(job.run_hours)
                continue
            label = (*job.label, *tag)
            kappa = problem.add_variable(name("short_cover", *label), 0)
            month.short_cover[job.key] = kappa
            bound = pulp.LpAffineExpression([(kappa, 1.0)])
            bound.addInPlace(job.on, -job.chip_hours)
            problem.addConstraint(bound <= 0, name("short_cover_work", *label))
            total.addInPlace(kappa, 1.0)
            _bound_by_free(
                problem, kappa, job.run_hours, month.free_for_short[(acc, cls, job.profile)], label
            )
        for profile, (work, runs) in sorted(pooled.items(), key=_by_name):
            key = (keys[acc], class_key(cls), keys[profile], *tag)
            kappa = problem.add_variable(name("short_cover_pooled", *key), 0)
            problem.addConstraint(kappa - work <= 0, name("short_cover_pooled_work", *key))
            total.addInPlace(kappa, 1.0)
            _bound_by_free(
                problem, kappa, sum(runs), month.free_for_short[(acc, cls, profile)], key
            )
        for i, ((profile, chips), group) in enumerate(sorted(fixed.items(), key=_by_profile)):
            key = (keys[acc], class_key(cls), f"g{i}", *tag)
            kappa = problem.add_variable(
                name("short_cover_fixed", *key), 0, sum(h for h, _ in group.values())
            )
            month.short_cover_groups[(acc, cls, profile, chips)] = ShortCoverGroup(
                kappa, {k: r for k, (_, r) in group.items()}
            )
            total.addInPlace(kappa, 1.0)
            _bound_by_free(
                problem,
                kappa,
                sum(r for _, r in group.values()),
                month.free_for_short[(acc, cls, profile)],
                key,
            )
        covered = pulp.LpAffineExpression(
            [
                (month.short_work_cover[(acc, cls, t)], float(grid.hours[t]))
                for t in range(len(grid.hours))
                if (acc, cls, t) in month.short_work_cover
            ]
        )
        problem.addConstraint(
            covered - total <= 0,
            name("short_work_cover_total", keys[acc], class_key(cls), *tag),
        )


def _by_profile(item: tuple[tuple[str, float], object]) -> tuple[str, float]:
    return item[0]


def _by_name(item: tuple[str, object]) -> str:
    return item[0]


def _free_for_short(
    problem: pulp.LpProblem,
    month: Month,
    book: CommitmentBook,
    keys: dict[str, str],
    held: Held,
    acc: str,
    cls: float,
) -> Slices:
    """``F_{a,c,t}`` for every slice: what is held for class ``cls`` net of the steady cover
    that shares it, narrower classes' spill and savings-plan spend elsewhere."""
    held_chips = pulp.LpAffineExpression()
    narrow = pulp.LpAffineExpression()  # units too small for the class
    for q in book.on(acc):
        if q.key not in held.units:
            continue
        bought, owned = held.units[q.key]
        limit = math.inf if q.max_replica_chips is None else q.max_replica_chips
        into = held_chips if limit >= cls else narrow
        into.addInPlace(bought, q.unit_capacity_chips)
        into.constant += q.unit_capacity_chips * owned
    plans = [plan for plan in book.plans_for(acc) if plan.key in held.usd]
    for plan in plans:
        bought, owned = held.usd[plan.key]
        held_chips.addInPlace(bought, 1 / plan.rates[acc])
        held_chips.constant += owned / plan.rates[acc]
    free: Slices = []
    for t in month.slices:
        f = pulp.LpAffineExpression(held_chips)
        spill = pulp.LpAffineExpression()
        for c in month.classes(acc):
            for var in (month.serving_cover[(acc, c, t)], month.work_cover[(acc, c, t)]):
                if c >= cls:
                    f.addInPlace(var, -1.0)
                else:
                    spill.addInPlace(var, 1.0)
        if len(spill):
            if len(narrow) or narrow.constant:
                # u >= spill - narrow capacity, u >= 0: the solver keeps u at the larger.
                key = (keys[acc], class_key(cls), *month.tag, slice_key(t))
                u = problem.add_variable(name("short_spill", *key), 0)
                problem.addConstraint(spill - narrow - u <= 0, name("short_spill", *key))
                f.addInPlace(u, -1.0)
            else:
                f.addInPlace(spill, -1.0)
        for plan in plans:
            for other, rate in plan.rates.items():
                if other != acc and (plan.key, other, t) in month.plan_cover:
                    f.addInPlace(month.plan_cover[(plan.key, other, t)], -rate / plan.rates[acc])
        free.append(f)
    return free


def _bound_by_free(
    problem: pulp.LpProblem,
    kappa: pulp.LpVariable,
    run_hours: float,
    free: pulp.LpVariable,
    key: tuple[str, ...],
) -> None:
    """``kappa <= r F``: work running ``r`` hours is covered by at most what is free then."""
    problem.addConstraint(
        pulp.LpAffineExpression([(kappa, 1.0), (free, -run_hours)]) <= 0,
        name("short_cover_held", *key),
    )


def add_chip_limits(
    problem: pulp.LpProblem, month: Month, catalog: Catalog, keys: dict[str, str]
) -> None:
    """No more chips in use at once than an accelerator's limit (a quota), in any slice:

    .. math:: \\sum_c D^S_{a,c}(t) + D^W_{a,c}(t) \\le L_a \\quad \\forall t
    """
    for acc in month.accelerators:
        limit = catalog.accelerators[acc].max_chips
        if limit is None:
            continue
        for t in month.slices:
            expr = month.in_use(acc, t)
            if len(expr) or expr.constant:
                problem.addConstraint(
                    expr <= limit, name("chip_limit", keys[acc], *month.tag, slice_key(t))
                )


def profile_share(grid: SliceGrid, catalog: Catalog, profile: str) -> np.ndarray:
    """``s_{k,t}``: the share of a short job's hours in each slice (see
    ``add_short_work_cover``)."""
    g = grid.levels[profile]
    runs = (g > 0).astype(float) if catalog.profiles()[profile].placement == "flexible" else g
    return np.asarray(grid.hours * runs / float(grid.hours @ runs))

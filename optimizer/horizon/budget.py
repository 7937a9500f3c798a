"""How long a roadmap's solves may take where the run sets no ``--time-limit``.

A long horizon of varied workloads can hold one HiGHS solve for many minutes, proving a plan it
found long before (or started from): the pricing of the sample's 30 workloads over 60 months ran
over ten minutes; two diurnal services and a pre-training over 120 months spent two minutes in
each of four search MILPs, none of which their relaxation's bound could prove (their reservation
units do not round within the gap). So a roadmap's MILPs aim to be done within
``ROADMAP_BUDGET_S`` of its start (``roadmap_deadline``): the search's solves share
``SEARCH_BUDGET_S``, each given at least ``SEARCH_SOLVE_FLOOR_S``, and each pricing MILP stops
within ``PRICING_SOLVE_BUDGET_S`` or at the deadline, whichever comes first, given at least
``PRICING_SOLVE_FLOOR_S`` (``pricing_limit``, ``until``; staying put's, which the search waits
for as a start, by the end of the search's budget; an LP of a pricing within
``PRICING_RELAXATION_BUDGET_S``: an LP stopped early has no plan). A solve stopped so keeps the
best plan it found, and the roadmap is then ``feasible`` with its gap stated. With
``--time-limit S`` every solve has S seconds and nothing is shared, as before.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from placement.solving.solver import Stall

PRICING_SOLVE_BUDGET_S = 30.0
"""Seconds each solve of a pricing (``placement.horizon.pricing``) may take. At 120 s the
pricing MILPs of the sample's first 5 and 10 workloads over 120 months ran to the limit and
returned no cheaper a plan than their start now is (``placement.horizon.units``: $4,911,760
and $5,680,640 over the horizon, against $4,911,760 and $5,680,875): the later time moved
only their bound. A larger fleet's pricing is proven in seconds."""

PRICING_RELAXATION_BUDGET_S = 300.0
"""Seconds each LP of a pricing (its relaxation, its whole units costed) may take. An LP
stopped at its limit has no plan to use (the sample's first 10 workloads over 120 months,
its relaxation stopped at 9 s: an objective of -$810 million), where a MILP keeps the best
plan it found; so LPs are given longer than the MILPs (the largest measured, the sample's 30
workloads over 120 months, took about a minute)."""

STALL_S = 5.0
"""Seconds a roadmap search's MILP (``placement.horizon.solve``) may branch without finding a
plan better by the gap asked before it stops, where the run sets no ``--time-limit``
(``placement.solving.solver.Stall``): its plan is then what the search goes on from, and the
gap reported is measured from the relaxation's bound as before. Two workloads over 120 months
(a pre-training growing 3.5% a month and a service, both on H100 today): the search's first
MILP found its plan within 3 s and spent the 180 s left proving it (2.9% from its bound, then
2.6%; the plan 0.16% cheaper at the end), and the four after it 15 s each; stopped so, they
took 13-20 s each and the roadmap, priced, cost the same to the cent ($23,913.47 a month).
The pricing's MILPs are not stopped so: a stopped pricing changes the plan's figures (on 120
workloads over 24 months it made a proven pricing feasible)."""

STALL_SHARE_OF_GAP = 1.0
"""A plan counts as better than the best where it is cheaper by this share of the gap asked:
a smaller gain is within what the gap asked leaves unresolved anyway."""

ROADMAP_BUDGET_S = 45.0
"""Seconds from the start of a roadmap's solve (``placement.horizon.solve.solve_horizon``) by
which its MILPs aim to be done, so that a small inventory over 120 months is planned within a
minute (the estimates, the roadmap's last LPs and the steady state after it take the rest).
Measured on eight inventories of one to ten workloads over 120 months (docs/performance.md,
"A roadmap within a minute"): 14-57 s against 14-126 s under the budgets before (a search of
180 s, each solve at least 15 s, pricings of 30 s); six roadmaps cost the same to the cent,
one less, and one 2.1% more (staying put's months priced from a start costed as an LP, with
too little time left for the pricing MILP)."""

SEARCH_BUDGET_S = 25.0
"""Seconds the roadmap search's solves (``placement.horizon.solve``) share: the rest of
``ROADMAP_BUDGET_S`` is the pricing's, which the search's roadmap waits for. Sharing 180 s,
two to five workloads over 120 months spent 40-75 s in four or five search MILPs, each stopped
as stalled (``STALL_S``), for roadmaps no cheaper once priced."""

SEARCH_SOLVE_FLOOR_S = 5.0
"""Seconds a search solve is given even when the shared budget is spent: each step still
gets a try (from its start, where it has one), and the steps after it still run."""

PRICING_SOLVE_FLOOR_S = 5.0
"""Seconds a pricing MILP is given even at the roadmap's deadline: enough for HiGHS to cost
its start and try to improve it (where its relaxation alone took over a third of this, the
start is costed as an LP instead: ``placement.horizon.pricing.ROOT_TO_RELAXATION``)."""


SEARCH_ROOT_TO_RELAXATION = 3.0
"""How many times the search's relaxation's time each later search solve is given at least: a
MILP over the same model needs about that long to get through its root. At 10,000 workloads
over 120 months the relaxation took 10.8 s, and the timeline's MILP, given the 8 s left of
``SEARCH_BUDGET_S``, stopped at a plan 2.5 times its bound and the two after it at none, so
staying put was the roadmap, 16% from the bound. Small inventories' relaxations take under a
second, and this changes nothing for them (``SEARCH_SOLVE_FLOOR_S``)."""


@dataclass
class SearchClock:
    """The time limit of each search solve: the run's ``--time-limit`` where it sets one,
    else what is left of ``SEARCH_BUDGET_S`` since ``started`` (``time.monotonic``), at
    least ``SEARCH_SOLVE_FLOOR_S`` and ``SEARCH_ROOT_TO_RELAXATION`` times the search's
    relaxation's time (``relaxation_s``, set once it is solved)."""

    time_limit_s: float | None
    started: float
    relaxation_s: float = 0.0

    def left(self) -> float:
        """Seconds the next solve may take."""
        if self.time_limit_s is not None:
            return self.time_limit_s
        spent = time.monotonic() - self.started
        return max(
            SEARCH_BUDGET_S - spent,
            SEARCH_SOLVE_FLOOR_S,
            SEARCH_ROOT_TO_RELAXATION * self.relaxation_s,
        )

    def spent(self) -> bool:
        """Whether the shared budget is spent (never under the run's own time limit)."""
        return self.time_limit_s is None and time.monotonic() - self.started >= SEARCH_BUDGET_S


def search_clock(time_limit_s: float | None) -> SearchClock:
    """A clock for a search starting now."""
    return SearchClock(time_limit_s, time.monotonic())


def stall_rule(time_limit_s: float | None) -> Stall | None:
    """When a roadmap search's MILPs stop as stalled: never under the run's own time limit."""
    return None if time_limit_s is not None else Stall(STALL_S, STALL_SHARE_OF_GAP)


def pricing_limit(time_limit_s: float | None) -> float:
    """The time limit of each pricing solve: the run's, else ``PRICING_SOLVE_BUDGET_S`` (cut
    to the roadmap's deadline when the solve starts: ``until``)."""
    return PRICING_SOLVE_BUDGET_S if time_limit_s is None else time_limit_s


def roadmap_deadline(time_limit_s: float | None, seconds: float | None = None) -> float | None:
    """When a roadmap starting now aims to be done (``time.monotonic``; ``seconds`` from now,
    default ``ROADMAP_BUDGET_S``): none under the run's own time limit."""
    if time_limit_s is not None:
        return None
    return time.monotonic() + (ROADMAP_BUDGET_S if seconds is None else seconds)


def until(deadline: float | None, limit: float | None) -> float | None:
    """A pricing MILP's time limit, ``limit``, cut to what is left before ``deadline``
    (``time.monotonic``), at least ``PRICING_SOLVE_FLOOR_S``; ``limit`` itself without one."""
    if deadline is None:
        return limit
    left = max(deadline - time.monotonic(), PRICING_SOLVE_FLOOR_S)
    return left if limit is None else min(limit, left)


def relaxation_limit(time_limit_s: float | None) -> float:
    """The time limit of each pricing LP: the run's, else ``PRICING_RELAXATION_BUDGET_S``."""
    return PRICING_RELAXATION_BUDGET_S if time_limit_s is None else time_limit_s

"""Bounds of a batch (``whatif``, ``sweep``) by the work it plans.

A batch's work is counted in workload-plans: each plan counts its workloads (at least
``SMALLEST_PLANNED_WORKLOADS``), times the months of its roadmap where it is one (``--horizon``).
A count bound alone (500 scenarios or grid points) is minutes at 1,000 workloads and hours at
100,000, where a plan takes 25 s, and the batch holds every plan it made (about 8.7 KB a
workload): the work bound keeps every accepted batch to minutes and a few GB.
"""

SMALLEST_PLANNED_WORKLOADS = 1_000
"""Below this many workloads a plan costs about as much whatever the count (a plan of ten or
thirty workloads takes 0.3-1.8 s of a core: small MILPs are not proven by the greedy start as a
large fleet's are; 1,000 workloads 0.4 s): counted as this many. The same floor as a risk
sample's (``uncertainty.limits.SMALLEST_SAMPLED_WORKLOADS``), kept apart: the command line
imports that module for its options, and taking the floor from here would load this package,
pandas and all, for ``--help``."""

MAX_COMPARED_WORKLOAD_PLANS = 500_000
"""The most workload-plans of one ``whatif``: its scenarios' plans (the base is one more) times
their workloads and months. The comparison holds every plan, about 8.7 KB a workload (4.4 GB
here); in time, 100 scenarios of 1,000 workloads take about 22 s on two cores
(docs/performance.md), so 500 are minutes; at 100,000 workloads five scenarios (a plan there
takes about 25 s); a roadmap of 24 months of a few workloads takes 5-15 s of a core, one of
120 months half a minute or more."""

MAX_SWEPT_WORKLOAD_PLANS = 250_000
"""The most workload-plans of one ``sweep``'s grid (points times workloads and months): a
50-point sweep of 1,000 workloads with 47 break-evens takes about a minute on two cores
(docs/performance.md), so 250 points are minutes; at 100,000 workloads two points (a plan there
takes about 25 s). The sweep holds each point's plan, about 8.7 KB a workload (2.2 GB here).
The break-evens are bisected on top (``MAX_BISECTED_ROADMAP_WORKLOAD_PLANS``)."""

MAX_BISECTED_ROADMAP_WORKLOAD_PLANS = 400_000
"""The most workload-plans of one ``sweep``'s bisection of roadmaps (``--horizon``), on top of
its grid: each roadmap counts as a plan does (``planned_workloads``). The bisection's rounds
follow one another, one solve a round for each open interval, so a sweep with one break-even
waits for every one of its solves in turn, and a 120-month roadmap takes about a minute
whatever the workloads (48 s for 30, 67 s for 1,000; docs/performance.md): three of them here,
the break-even then located to an eighth of the grid step; fifteen of 24 months. A steady
state's bisection reads decisions only, about 6 s a solve at 100,000 workloads, and its budget
of solves a change keeps it to minutes (two points of 100,000 workloads, 134.6 s)."""


def planned_workloads(workloads: int, months: int | None) -> int:
    """What one plan of ``workloads`` workloads counts: the workloads (at least
    ``SMALLEST_PLANNED_WORKLOADS``), times the months of its roadmap where it is one."""
    return max(workloads, SMALLEST_PLANNED_WORKLOADS) * max(months or 1, 1)


def bisected_solves_at_most(workloads: int, months: int | None) -> int | None:
    """The most solves of one ``sweep``'s bisection of roadmaps of ``workloads`` workloads over
    ``months``: ``MAX_BISECTED_ROADMAP_WORKLOAD_PLANS`` over what each counts; None (no bound
    but the budget a change) for a steady state."""
    if not months:
        return None
    return MAX_BISECTED_ROADMAP_WORKLOAD_PLANS // planned_workloads(workloads, months)


def _counted(workloads: int, months: int | None) -> str:
    """The workloads and months as counted, for a message."""
    shown = f"{workloads:,} workloads"
    if workloads < SMALLEST_PLANNED_WORKLOADS:
        shown += f" (counted as {SMALLEST_PLANNED_WORKLOADS:,})"
    if months:
        shown += f" x {months} months of roadmap"
    return shown


def compared_work_problem(scenarios: int, workloads: int, months: int | None) -> str | None:
    """What is wrong with a ``whatif`` of ``scenarios`` scenarios of ``workloads`` workloads,
    each a roadmap of ``months`` where given: more than ``MAX_COMPARED_WORKLOAD_PLANS``
    workload-plans; None where it is within."""
    each = planned_workloads(workloads, months)
    if scenarios * each <= MAX_COMPARED_WORKLOAD_PLANS:
        return None
    return (
        f"{scenarios:,} scenarios x {_counted(workloads, months)} is {scenarios * each:,} "
        f"workload-plans; expected at most {MAX_COMPARED_WORKLOAD_PLANS:,} in one whatif (each "
        "plan is held for the comparison, about 8.7 KB a workload, and a plan of 100,000 "
        f"workloads takes about 25 s): at most {MAX_COMPARED_WORKLOAD_PLANS // each:,} "
        "scenarios here, a smaller inventory or a shorter --horizon"
    )


def swept_work_problem(points: int, workloads: int, months: int | None) -> str | None:
    """What is wrong with a ``sweep`` of ``points`` grid points of ``workloads`` workloads,
    each a roadmap of ``months`` where given: more than ``MAX_SWEPT_WORKLOAD_PLANS``
    workload-plans in its grid; None where it is within."""
    each = planned_workloads(workloads, months)
    if points * each <= MAX_SWEPT_WORKLOAD_PLANS:
        return None
    most = MAX_SWEPT_WORKLOAD_PLANS // each
    fewer = f"at most {most:,} grid points here" if most >= 2 else "no sweep of this size"
    return (
        f"--range: {points:,} grid points x {_counted(workloads, months)} is "
        f"{points * each:,} workload-plans; expected at most {MAX_SWEPT_WORKLOAD_PLANS:,} in "
        "one sweep's grid (each point is a plan, the break-evens are bisected on top, and a "
        f"plan of 100,000 workloads takes about 25 s): {fewer}, a smaller inventory or a shorter "
        "--horizon"
    )

"""Bounds of a risk run, in a module the command line can import without loading the rest."""

import math

MAX_SAMPLES = 1_000
"""The most samples one run draws: a sample of a few workloads takes 0.4-1.5 s of a core (their
MILPs are not proven by the greedy start as a large fleet's are), so these are minutes on two
cores; the percentiles' sampling error, one over the square root of the samples, is 3% here
(10,000, the bound before, were hours for ten workloads)."""

MAX_SAMPLED_WORKLOADS = 1_000_000
"""The most workload-samples one run plans: the samples times the workloads (at least
``SMALLEST_SAMPLED_WORKLOADS``), times the plans sampled (``whatif --samples``: each
scenario's) and a roadmap's months held (``--horizon``, ``HELD_MONTHS_PER_SAMPLE``). A sample
of 1,000 workloads takes about a third of a second on two cores, so 1,000 of them are minutes
(docs/performance.md), 100,000 would be hours."""

HELD_MONTHS_PER_SAMPLE = 6
"""Months of a roadmap held in a sample (``risk --horizon``) that count as one sample's work.
Each month is priced as a small LP of its own: at 1,000 workloads whose demand grows (every
month differs) 120 months take about 9 s of a core, some 27 samples of the steady state
(0.33 s); where demand is flat, alike months are priced once (30 workloads, 0.17 s a sample).
On two cores such a run took 166 s for 6 samples, 236 s for 25 and 375 s for 50 (its point
roadmap about 90 s of it): counting a year as one sample let 100 through, some 9-10 minutes;
half a year keeps the bound's worst case near the other batches' (docs/performance.md)."""

SMALLEST_SAMPLED_WORKLOADS = 1_000
"""Below this many workloads a sample costs about as much whatever the count (ten workloads
0.4-1.5 s of a core, 1,000 workloads 0.58 s): counted as this many."""

DEFAULT_SAMPLES = 100
"""Samples of ``placement risk`` when ``--samples`` is not given: a minute or two for a few dozen
workloads on two cores; the percentiles' sampling error shrinks as one over the square root of
the samples, so 1,000 narrow them about threefold."""

MAX_ROBUST_SAMPLES = 200
"""The most samples ``plan --robust`` joins into one stochastic program: each adds a copy of
the plan's model (at 1,000 workloads, 200 copies are about 600,000 columns)."""

MAX_ROBUST_SAMPLED_WORKLOADS = 200_000
"""The most workload-samples one robust plan joins (the samples times the workloads, at least
``SMALLEST_SAMPLED_WORKLOADS``): 50 samples of 1,000 workloads take under a minute on two
cores (docs/performance.md), so 200 of them are minutes; 200 samples of 100,000 workloads
would be hours, and a copy of the plan's model each."""

DEFAULT_ROBUST_SAMPLES = 50
"""Samples of ``plan --robust`` when ``--samples`` is not given."""


def robust_work_problem(samples: int, workloads: int) -> str | None:
    """What is wrong with a robust plan of ``samples`` futures of ``workloads`` workloads:
    more than ``MAX_ROBUST_SAMPLED_WORKLOADS`` workload-samples; None where it is within."""
    counted = max(workloads, SMALLEST_SAMPLED_WORKLOADS)
    if samples * counted <= MAX_ROBUST_SAMPLED_WORKLOADS:
        return None
    return (
        f"--samples {samples:,} for --robust: {samples:,} samples x {workloads:,} workloads is "
        f"{samples * counted:,} workload-samples; expected at most "
        f"{MAX_ROBUST_SAMPLED_WORKLOADS:,} in one program (each sample adds a copy of the "
        f"plan's model): at most {MAX_ROBUST_SAMPLED_WORKLOADS // counted:,} samples "
        "here, or a smaller inventory"
    )


def sampled_work_problem(
    samples: int, workloads: int, plans: int = 1, months: int | None = None
) -> str | None:
    """What is wrong with planning ``samples`` futures of ``workloads`` workloads, for
    ``plans`` plans (each scenario of a comparison), each a roadmap of ``months`` where given:
    more than ``MAX_SAMPLED_WORKLOADS`` workload-samples; None where it is within."""
    held = 1 if months is None else max(1, math.ceil(months / HELD_MONTHS_PER_SAMPLE))
    each = max(workloads, SMALLEST_SAMPLED_WORKLOADS) * plans * held
    work = samples * each
    if work <= MAX_SAMPLED_WORKLOADS:
        return None
    counted = f" (counted as {SMALLEST_SAMPLED_WORKLOADS:,})"
    shown = f"{workloads:,} workloads{counted if workloads < SMALLEST_SAMPLED_WORKLOADS else ''}"
    parts = [f"{samples:,} samples", shown]
    if plans > 1:
        parts.append(f"{plans:,} plans")
    if held > 1:
        parts.append(
            f"{held} ({months} months of roadmap held, {HELD_MONTHS_PER_SAMPLE} a sample's work)"
        )
    most = MAX_SAMPLED_WORKLOADS // each
    return (
        f"--samples {samples:,}: {' x '.join(parts)} is {work:,} workload-samples; expected at "
        f"most {MAX_SAMPLED_WORKLOADS:,} in one run (a sample of 1,000 workloads takes about "
        f"a third of a second on two cores): at most {most:,} samples here, or a "
        f"smaller inventory{' or a shorter --horizon' if held > 1 else ''}"
    )

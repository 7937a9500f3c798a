"""Bounds of a risk run, in a module the command line can import without loading the rest."""

MAX_SAMPLES = 100_000
"""The most samples one run draws: at a second a sample on two cores, more would take days."""

DEFAULT_SAMPLES = 100
"""Samples of ``placement risk`` when ``--samples`` is not given: a minute or two for a few dozen
workloads on two cores; the percentiles' sampling error shrinks as one over the square root of
the samples, so 1,000 narrow them about threefold."""

MAX_ROBUST_SAMPLES = 200
"""The most samples ``plan --robust`` joins into one stochastic program: each adds a copy of
the plan's model (at 1,000 workloads, 200 copies are about 600,000 columns)."""

DEFAULT_ROBUST_SAMPLES = 50
"""Samples of ``plan --robust`` when ``--samples`` is not given."""

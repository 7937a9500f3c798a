"""The solvers a user can choose and the default gap: plain values, so that the command line
can offer them in ``--help`` without loading the solvers themselves."""

from __future__ import annotations

SOLVERS = ("highs", "cbc")

# 0.1%: closing the last 0.01% can take minutes at 10,000 workloads (docs/performance.md).
DEFAULT_GAP = 1e-3

MAX_WORKERS = 256
"""Local worker processes at most (``--workers``): each is a Python process with its own copy of
the inventory and catalog (100-300 MB); more than a large machine's cores only queue, and a
bigger batch belongs on a Dask cluster (``--scheduler``)."""

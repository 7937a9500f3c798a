"""The solvers a user can choose and the default gap: plain values, so that the command line
can offer them in ``--help`` without loading the solvers themselves."""

from __future__ import annotations

SOLVERS = ("highs", "cbc")

# 0.1%: closing the last 0.01% can take minutes at 10,000 workloads (docs/performance.md).
DEFAULT_GAP = 1e-3

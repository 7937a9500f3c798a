"""Bounds on what a roadmap can be asked for, as plain values the command line offers."""

from __future__ import annotations

MAX_HORIZON_MONTHS = 120
"""The longest horizon planned: ten years."""

HORIZON_SOLVE_BUDGET_S = 120.0
"""Seconds each solve of a roadmap may take where the run sets no ``--time-limit``: past it
the best plan found stands, with its gap to the bound stated (status ``feasible``). A long
horizon of varied workloads can otherwise hold one solve for many minutes: the pricing of
the sample's 30 workloads over 36 months took HiGHS 132 s to prove within the gap, over 60
months over ten minutes, with a plan within 0.5% of the bound long before the proof."""

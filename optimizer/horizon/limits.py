"""Bounds on what a roadmap can be asked for, as plain values the command line offers."""

from __future__ import annotations

MAX_HORIZON_MONTHS = 120
"""The longest horizon planned: ten years."""

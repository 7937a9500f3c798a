"""Plausibility: refuse an inventory that keeps more chips busy than any fleet holds (a unit
mistake, and numbers beyond what the solver handles reliably) before any model is built."""

from __future__ import annotations

from placement.errors import PlacementInputError, Problem
from placement.estimating.options import Estimates, least_busy_chips
from placement.models.catalog import Catalog


def check_plausible_total(estimates: Estimates, catalog: Catalog, source: str) -> None:
    """Refuse an inventory that keeps more chips busy than any fleet holds: a unit mistake,
    and numbers beyond what the solver handles reliably."""
    economics = catalog.economics
    if economics.max_busy_chips_in_total is None:
        return
    busy = least_busy_chips(estimates.options, economics.hours_per_month.value)
    cap = economics.max_busy_chips_in_total.value
    if busy > cap:
        expected = (
            f"an inventory that keeps at most {cap:,} chips busy "
            "(economics.max_busy_chips_in_total); this one needs at least "
            f"{busy:,.0f} all month: check the volumes (monthly_tokens_b is in billions) "
            "and sizes (params_b is in billions)"
        )
        raise PlacementInputError(
            [Problem(f"{source}: expected {expected}", source, expected=expected)],
            title="implausible inventory",
        )

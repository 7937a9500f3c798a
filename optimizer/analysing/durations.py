"""Durations in months: how the catalog's weeks (migration leads, support lags, ports) become
the whole months a roadmap plans in and a move's payback counts.

A month is ``H / (24 x 7)`` weeks (``H`` the catalog's hours per month: 730 h is 4.345 weeks),
and a duration of ``d`` weeks takes ``ceil(d / that)`` whole months. A port takes at least one
month (it is a step of its own, after its platform's programme).
"""

from __future__ import annotations

import math

from placement.estimating.profiles import DAYS_IN_A_WEEK
from placement.models.catalog import HOURS_IN_A_DAY, Catalog


def weeks_per_month(catalog: Catalog) -> float:
    """Weeks in the catalog's month (``hours_per_month / 168``)."""
    return catalog.economics.hours_per_month.value / (DAYS_IN_A_WEEK * HOURS_IN_A_DAY)


def months_for(weeks: float, catalog: Catalog) -> int:
    """Whole months a duration of ``weeks`` takes (0 for none)."""
    return max(0, math.ceil(weeks / weeks_per_month(catalog) - 1e-9))


def port_months(weeks: float, catalog: Catalog) -> int:
    """Whole months a port of ``weeks`` (support lag plus porting weeks) takes: at least one."""
    return max(1, months_for(weeks, catalog))


def port_months_of(catalog: Catalog, family: str, platform: str) -> int:
    """Whole months porting ``family`` to ``platform`` takes: the SDK's support lag where the
    family's support is still pending, then the platform's porting weeks."""
    spec = catalog.platforms[platform]
    pending = catalog.family_support(family, platform) == "pending"
    lag = spec.support_lag_weeks.value if pending else 0.0
    return port_months(lag + spec.porting_weeks_per_family.value, catalog)


def programme_months(catalog: Catalog, platform: str) -> int:
    """Whole months a platform's migration programme takes (its lead)."""
    return months_for(catalog.platforms[platform].migration_lead_weeks.value, catalog)

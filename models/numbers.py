"""Numbers as people read them: money rounded to the dollar, figures to a few digits."""

from __future__ import annotations

import math


def missing(value: object) -> bool:
    """Whether a figure does not exist: None, or NaN (a frame's cell for None)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def usd(value: float | None) -> str:
    """``$1,234``, ``-$120,539``; ``n/a`` for a figure that does not exist (a baseline with
    no plan)."""
    if value is None or missing(value):  # None narrows the type for mypy
        return "n/a"
    rounded = round(value)
    return f"-${-rounded:,}" if rounded < 0 else f"${rounded:,}"


def figure_text(value: float) -> str:
    """A catalog figure in a few characters: 12.5M, 174k, 0.85, 4.832."""
    if abs(value) >= 1e6:
        return f"{value / 1e6:.3g}M"
    if abs(value) >= 1e4:
        return f"{value / 1e3:.3g}k"
    return f"{value:.4g}"


def signed_percent(fraction: float, digits: int = 1) -> str:
    """A change as a signed percentage, ``+6.6%``, ``-12.0%``; a change that rounds to nothing
    is ``0.0%`` (never ``-0.0%``)."""
    rounded = round(100 * fraction, digits)
    if rounded == 0:
        return f"{0:.{digits}f}%"
    return f"{rounded:+.{digits}f}%"


def bracket_digits(low: float, high: float) -> int:
    """Decimals that tell a bracket's ends apart, and no more: a break-even located to within
    0.012 reads 3.248, one located to within 38 (or between two whole numbers) reads 1,171."""
    width = abs(high - low)
    if width <= 0:
        return 6
    if width >= 1:  # whole numbers tell apart brackets of one or more
        return 0
    return 1 - math.floor(math.log10(width))

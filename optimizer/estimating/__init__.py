"""Estimating: per (workload, accelerator, pricing) option, the chips, chip-hours, time to first
token and feasibility, vectorised with pandas, before any model is built (``options``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
    from placement.estimating.options import (
        OPTION_COLUMNS,
        Estimates,
        estimate,
        least_busy_chips,
        one_chip_ttft_ms,
    )

__all__ = [
    "OPTION_COLUMNS",
    "Estimates",
    "estimate",
    "least_busy_chips",
    "one_chip_ttft_ms",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Estimates": "placement.estimating.options",
        "OPTION_COLUMNS": "placement.estimating.options",
        "estimate": "placement.estimating.options",
        "least_busy_chips": "placement.estimating.options",
        "one_chip_ttft_ms": "placement.estimating.options",
    },
)

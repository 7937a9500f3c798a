"""Estimating: per (workload, accelerator, pricing) option, the chips, chip-hours, time to first
token and feasibility, vectorised with pandas, before any model is built (``options``)."""

from placement.estimating.options import (
    OPTION_COLUMNS,
    Estimates,
    estimate,
    least_busy_chips,
    one_chip_ttft_ms,
)

__all__ = ["OPTION_COLUMNS", "Estimates", "estimate", "least_busy_chips", "one_chip_ttft_ms"]

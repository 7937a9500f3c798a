"""Time over a horizon of months: durations in months, demand per month, interim places.

* A month is ``H / (24 x 7)`` weeks (``H`` the catalog's hours per month: 730 h is 4.345
  weeks), and a duration of ``d`` weeks takes ``ceil(d / that)`` whole months: the migration
  programme's lead, and each port's support lag plus porting weeks (at least a month;
  ``placement.analysing.durations``, shared with a move's payback).
* A workload's demand in month ``m`` is its inventory figure times
  ``phi_j(m) = [s_j <= m <= e_j] (1 + g_j)^(m - s_j)``: ``s_j`` its ``start_month`` (1 if not
  given), ``e_j`` its ``end_month`` (the horizon's last month if not given), ``g_j`` its
  ``monthly_growth`` (0 if not given). The volume given is its first month's.
* Until its target is ready a workload runs on its **interim** accelerator: where it runs
  today (``current_accelerator``), else, for a new workload, its cheapest feasible option that
  needs no port and no migration. A new workload with no such option waits for its target.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from placement.analysing.durations import weeks_per_month
from placement.models.catalog import Catalog


def month_of_week(weeks: float, catalog: Catalog) -> int:
    """The month (1-based) in which week ``weeks`` falls: something needed in ``weeks`` weeks
    must be ready by the start of this month."""
    return 1 + math.floor(weeks / weeks_per_month(catalog) + 1e-9)


def month_factors(workloads: pd.DataFrame, horizon: int) -> np.ndarray:
    """``phi[j, m - 1]``: workload j's demand in month m as a multiple of its given volume."""
    months = np.arange(1, horizon + 1)
    start = _column(workloads, "start_month", 1.0)
    end = _column(workloads, "end_month", float(horizon))
    growth = _column(workloads, "monthly_growth", 0.0)
    active = (months[None, :] >= start[:, None]) & (months[None, :] <= end[:, None])
    elapsed = np.maximum(months[None, :] - start[:, None], 0)
    return np.where(active, (1.0 + growth[:, None]) ** elapsed, 0.0)


def outlives(workloads: pd.DataFrame, horizon: int) -> np.ndarray:
    """Whether each workload still runs after the horizon's last month (no ``end_month``, or
    one after it, and started by then)."""
    start = _column(workloads, "start_month", 1.0)
    end = _column(workloads, "end_month", math.inf)
    return (end > horizon) & (start <= horizon)


def start_months(workloads: pd.DataFrame) -> np.ndarray:
    """Each workload's first month (1 where not given)."""
    return _column(workloads, "start_month", 1.0).astype(int)


def _column(workloads: pd.DataFrame, name: str, default: float) -> np.ndarray:
    if name not in workloads:
        return np.full(len(workloads), default)
    return workloads[name].astype(float).fillna(default).to_numpy()


def interim_accelerators(options: pd.DataFrame, workloads: pd.DataFrame) -> dict[int, str]:
    """Workload position -> where it runs until its target is ready (see the module)."""
    interim: dict[int, str] = {}
    if "current_accelerator" in workloads:
        for w, current in workloads["current_accelerator"].items():
            if current is not None and not pd.isna(current):
                interim[int(w)] = str(current)
    ready_now = options[options["feasible"] & ~options["needs_port"] & ~options["needs_migration"]]
    ready_now = ready_now[~ready_now["workload"].isin(list(interim))]
    if not ready_now.empty:
        cheapest = ready_now.loc[ready_now.groupby("workload")["monthly_cost_usd"].idxmin()]
        interim.update(
            zip(cheapest["workload"].astype(int), cheapest["accelerator"].astype(str), strict=True)
        )
    return interim

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
from placement.errors import Problem
from placement.models.catalog import Catalog
from placement.models.workload import BOUNDS, VOLUME_COLUMNS


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


def growth_problems(workloads: pd.DataFrame, horizon: int, source: str) -> list[Problem]:
    """Each workload whose ``monthly_growth`` takes its volume past its column's bound within
    the horizon (the bound a volume given in the file must keep, ``BOUNDS``): growth of 10
    (elevenfold a month) is accepted in a file, but over 12 months it makes 1,000 GPU-hours
    3 x 10^15, which no plan can mean, and which HiGHS cannot solve in double precision."""
    if "monthly_growth" not in workloads:
        return []
    peak = month_factors(workloads, horizon).max(axis=1, initial=0.0)
    start = _column(workloads, "start_month", 1.0)
    end = np.minimum(_column(workloads, "end_month", float(horizon)), horizon)
    problems = []
    for column in VOLUME_COLUMNS:
        if column not in workloads:
            continue
        bound = BOUNDS[column].maximum
        assert bound is not None  # every volume column has one
        volume = workloads[column].astype(float).to_numpy()
        for j in np.flatnonzero(np.nan_to_num(volume * peak) > bound):
            growth = float(workloads["monthly_growth"].iloc[j])
            months = int(end[j] - start[j])
            most = (bound / volume[j]) ** (1 / months) - 1
            problems.append(
                Problem(
                    f"{source}: row {j + 1} (workload {workloads['id'].iloc[j]!r}), column "
                    f"'monthly_growth': got {growth:g}; over a {horizon}-month horizon it takes "
                    f"{column} from {volume[j]:,.6g} to {volume[j] * peak[j]:.3g} by month "
                    f"{int(end[j])}, beyond {bound:,.0f}, the bound of {column}; expected at "
                    f"most {math.floor(most * 1e4) / 1e4:g} for this workload and horizon",
                    source,
                    row=int(j) + 1,
                    column="monthly_growth",
                    value=growth,
                    expected=f"at most {math.floor(most * 1e4) / 1e4:g} over {horizon} months",
                )
            )
    return problems

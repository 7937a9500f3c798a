"""When an option's chips are busy over the month: load profiles as per-option figures.

The month is cut into 48 time slices, each hour of a weekday and each hour of a weekend day,
slice ``t`` standing for ``w_t = H (5/7 or 2/7) / 24`` hours of the month. A profile gives a
level ``g_t`` in [0, 1] per slice (``models.catalog.LoadProfile``).

* **serving** (online inference): a deployment of ``n`` chips at peak holds
  ``n (b + (1 - b) g_t)`` chips in slice ``t``. ``b = 0`` unless the profile follows the
  workload's peak-to-mean ``p``: then ``b = (1/p - mean(g)) / (1 - mean(g))``, so that the
  month's mean is ``n / p``, and never below one replica's share ``B(1, s) / n`` (a
  deployment does not scale below one replica, billed in a whole instance,
  ``placement.estimating.instances``: a 1-chip Trainium2 replica holds a 4-chip instance,
  a 2-GPU H100 replica an 8-GPU one) nor above 1. Chip-hours:
  ``n H (b + (1 - b) mean(g))``.
* **work** (training, batch inference): ``h`` chip-hours of work, run on ``n`` chips at a time,
  at least the deployment's chips and at least ``h`` over the hours the profile offers
  (``H_eff = sum_t w_t g_t / max(g)``), in whole replicas billed in whole instances
  (``B(k, s)`` for ``k`` replicas of ``s`` chips): it runs ``r = h / n`` hours. A
  ``fixed`` profile spreads the chip-hours in proportion to ``w_t g_t``; a ``flexible`` one
  lets the optimizer place them in any slice with ``g_t > 0``.

Weighted means use the slice weights, so a weekday counts 5/7 and a weekend day 2/7.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from placement.estimating.instances import InstanceMenu, billed_chips
from placement.models.catalog import HOURS_IN_A_DAY, WEEKDAYS, WEEKEND_DAYS, Catalog

DAYS_IN_A_WEEK = WEEKDAYS + WEEKEND_DAYS


@dataclass(frozen=True)
class SliceGrid:
    """The time slices of a month: names, the hours each stands for (summing to ``H``) and each
    profile's level in each (``g_k(t)``)."""

    names: list[str]
    hours: np.ndarray
    levels: dict[str, np.ndarray]


def slice_grid(catalog: Catalog) -> SliceGrid:
    """48 slices: weekday hours 00-23, then weekend hours 00-23."""
    month = catalog.economics.hours_per_month.value
    per_hour = month / DAYS_IN_A_WEEK / HOURS_IN_A_DAY
    hours = np.array(
        [per_hour * WEEKDAYS] * HOURS_IN_A_DAY + [per_hour * WEEKEND_DAYS] * HOURS_IN_A_DAY
    )
    names = [f"weekday {h:02d}h" for h in range(HOURS_IN_A_DAY)] + [
        f"weekend {h:02d}h" for h in range(HOURS_IN_A_DAY)
    ]
    return SliceGrid(names, hours, profile_levels(catalog))


def merged_slices(grid: SliceGrid, profiles: Iterable[str], apart: Iterable[str] = ()) -> SliceGrid:
    """``grid`` with the slices in which each of ``profiles`` has the same level merged into
    one that stands for their hours together (``w_T = \\sum_{t \\in T} w_t``), but for the
    slices in which a profile of ``apart`` runs (``g_k(t) > 0``), which stay apart; levels are
    kept for ``profiles`` only.

    A model whose rows are per slice, alike but for the slice's levels, and whose costs and
    totals weigh a slice by its hours (a month of ``placement.formulating.month``, a month of
    the roadmap) has the same optimum on the merged grid: a solution on ``grid`` averaged over
    each merged set, weighted by hours, meets every row (the rows are linear, the integers are
    not per slice) at the same cost, and a merged solution repeated over its set is one on
    ``grid``. What that leaves out is a placement that differs between alike slices: flexible
    work run on whole chips, one more in some hours than in others, which the whole-chip
    rounds (``placement.solving.whole_chips``) price from the slices it is placed in; so
    where flexible work is placed by the optimizer, its profiles are ``apart``. A month of
    always-on services is one slice instead of 48.
    """
    profiles = sorted(set(profiles))
    apart = sorted(set(apart))
    members: dict[tuple[float, ...], list[int]] = {}
    for t in range(len(grid.hours)):
        alone = (float(t),) if any(grid.levels[k][t] > 0 for k in apart) else ()
        key = (*(float(grid.levels[k][t]) for k in profiles), *alone)
        members.setdefault(key, []).append(t)
    sets = list(members.values())
    names = [
        grid.names[ts[0]] + (f" and {len(ts) - 1} more like it" if len(ts) > 1 else "")
        for ts in sets
    ]
    hours = np.array([float(grid.hours[ts].sum()) for ts in sets])
    levels = {k: np.array([float(grid.levels[k][ts[0]]) for ts in sets]) for k in profiles}
    return SliceGrid(names, hours, levels)


def profile_levels(catalog: Catalog) -> dict[str, np.ndarray]:
    """Each profile's 48 levels."""
    return {name: np.array(p.levels()) for name, p in catalog.profiles().items()}


def workload_profiles(workloads: pd.DataFrame, catalog: Catalog) -> pd.Series:
    """The profile of each workload: its ``load_profile``, else the catalog's default for its
    kind and serving. A name the catalog lacks is an input error the reader reports; here it
    can only come from a frame read without the catalog's profiles."""
    defaults = catalog.defaults()
    default = np.where(
        workloads["kind"].eq("training"),
        defaults.training,
        np.where(workloads["serving"].eq("online"), defaults.online, defaults.batch),
    )
    given = workloads["load_profile"]
    names = pd.Series(default, index=workloads.index, dtype=object)
    names = given.where(given.notna(), names)
    specs = catalog.profiles()
    unknown = sorted(set(names) - set(specs))
    if unknown:
        raise ValueError(f"load profiles not in the catalog: {', '.join(map(str, unknown))}")
    serving = workloads["kind"].eq("inference") & workloads["serving"].eq("online")
    kinds = names.map({name: p.kind for name, p in specs.items()})
    if (kinds.eq("serving") != serving).any():
        raise ValueError("online inference takes a serving profile, other work a work profile")
    return names


def offered_hours(catalog: Catalog) -> dict[str, float]:
    """The hours of a month each profile offers work at its full rate: ``sum_t w_t g_t /
    max(g)`` for a fixed spread, every hour with ``g_t > 0`` for a flexible one."""
    grid = slice_grid(catalog)
    hours = {}
    for name, levels in profile_levels(catalog).items():
        if catalog.profiles()[name].placement == "flexible":
            hours[name] = float(grid.hours[levels > 0].sum())
        else:
            hours[name] = float(grid.hours @ levels) / float(levels.max())
    return hours


@dataclass(frozen=True)
class LoadFigures:
    """Per workload on one accelerator: the chips it holds when it runs (and the replicas they
    make), its chip-hours, the serving base share ``b`` (NaN for work) and the hours work runs
    ``r`` (NaN for serving)."""

    chips: np.ndarray
    replicas: np.ndarray
    chip_hours: np.ndarray
    base_fraction: np.ndarray
    run_hours: np.ndarray


def load_figures(
    profiles: pd.Series,
    catalog: Catalog,
    peak_chips: np.ndarray,
    work_chip_hours: np.ndarray,
    replica_chips: np.ndarray,
    replicas: np.ndarray,
    peak_to_mean: np.ndarray,
    menu: InstanceMenu,
) -> LoadFigures:
    """The figures of every workload under its profile (see the module's description).

    ``peak_chips``: the deployment's chips (serving: at peak); ``work_chip_hours``: the work
    to run (used for work profiles).
    """
    grid = slice_grid(catalog)
    month = float(grid.hours.sum())
    n = len(profiles)
    chips = peak_chips.astype(float).copy()
    running = replicas.astype(float).copy()
    chip_hours = np.full(n, np.nan)
    base = np.full(n, np.nan)
    run = np.full(n, np.nan)
    specs = catalog.profiles()
    offered = offered_hours(catalog)
    for name, levels in profile_levels(catalog).items():
        rows = np.flatnonzero(profiles.to_numpy() == name)
        if not len(rows):
            continue
        spec = specs[name]
        mean = float(grid.hours @ levels) / month
        if spec.kind == "serving":
            share = np.zeros(len(rows))
            if spec.follows_peak_to_mean:
                flat = mean >= 1
                wanted = (
                    np.ones(len(rows)) if flat else (1 / peak_to_mean[rows] - mean) / (1 - mean)
                )
                # One replica stays up, billed in a whole instance (a Trainium2 instance of
                # 4 chips even for a 1-chip replica).
                one_replica = billed_chips(np.ones(len(rows)), replica_chips[rows], menu)
                floor = one_replica / np.maximum(peak_chips[rows], 1)
                share = np.clip(np.maximum(wanted, floor), 0, 1)
            base[rows] = share
            chip_hours[rows] = peak_chips[rows] * month * (share + (1 - share) * mean)
        else:
            full_hours = offered[name]
            work = work_chip_hours[rows]
            replica = replica_chips[rows].astype(float)
            # Whole replicas, enough to finish the work in the hours the profile offers.
            needed = np.ceil(work / (full_hours * replica) - 1e-9)
            spread = billed_chips(needed, replica, menu)
            wider = spread > peak_chips[rows]
            chips[rows] = np.where(wider, spread, peak_chips[rows])
            running[rows] = np.where(wider, needed, replicas[rows])
            chip_hours[rows] = work
            run[rows] = work / chips[rows]
    return LoadFigures(chips.astype("int64"), running.astype("int64"), chip_hours, base, run)

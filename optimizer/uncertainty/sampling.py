"""Drawing the catalog's uncertain figures.

Every range (``low``, ``point``, ``high``) whose low and high differ is a figure drawn per
sample, by its distribution: ``uniform`` on [low, high], or ``triangular`` with its mode at the
point. Figures linked in the catalog's ``uncertainty.linked`` share a common factor (a
one-factor Gaussian copula): with correlation rho, figure i of a group draws

.. math:: z_i = \\sqrt{\\rho}\\, Z_g + \\sqrt{1 - \\rho}\\, \\varepsilon_i,\\qquad
    u_i = \\Phi(z_i) \\ (\\text{or } 1 - \\Phi(z_i) \\text{ for a figure linked ``against``})

and takes the value at quantile ``u_i`` of its own distribution, so any two are correlated
``rho`` before that mapping and move in lockstep at ``rho = 1``. A figure linked nowhere draws
its own ``u``. A workload whose ``volume_low``/``volume_high`` give its volume a range is a
figure too (``inventory_figures``), drawn on its own, its mode at the volume given.

Sample ``i`` of seed ``s`` is drawn from a generator seeded with ``(s, i)`` alone: its figures
are the same whichever process, batch or cluster draws it.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from placement.models.catalog import Catalog, Range, uncertain_ranges
from placement.reading import Inventory

_NORMAL = NormalDist()


@dataclass(frozen=True)
class Figure:
    """One uncertain figure: its dotted path, range and distribution, and the group it is
    linked in (None: drawn on its own) with its sense there."""

    path: str
    low: float
    point: float
    high: float
    distribution: str
    group: str | None = None
    against: bool = False
    # An inventory figure: the workload's row (position) and its volume column.
    row: int | None = None
    column: str | None = None

    def at(self, u: float) -> float:
        """The value at quantile ``u`` (0 to 1) of the figure's distribution."""
        low, mode, high = self.low, self.point, self.high
        if self.distribution == "uniform":
            return low + u * (high - low)
        # Triangular: the inverse of its piecewise-quadratic distribution function.
        cut = (mode - low) / (high - low)
        if u < cut:
            return low + math.sqrt(u * (high - low) * (mode - low))
        return high - math.sqrt((1 - u) * (high - low) * (high - mode))


def uncertain_figures(catalog: Catalog) -> list[Figure]:
    """The catalog's figures that vary (low below high), in the catalog's order."""
    uncertainty = catalog.uncertainty
    default = uncertainty.default_distribution if uncertainty else "triangular"
    linked = {
        path: (group, sense == "against")
        for group, figures in (uncertainty.linked.items() if uncertainty else ())
        for path, sense in figures.figures.items()
    }
    figures = []
    for path, figure in uncertain_ranges(catalog).items():
        if figure.high <= figure.low:
            continue
        group, against = linked.get(path, (None, False))
        figures.append(_figure(path, figure, figure.distribution or default, group, against))
    return figures


def inventory_figures(workloads: pd.DataFrame, catalog: Catalog) -> list[Figure]:
    """The volume of every workload whose ``volume_low``/``volume_high`` give it a range
    (path ``inventory.<id>.<column>``), drawn each on its own by the catalog's default
    distribution, its mode at the volume given."""
    if "volume_low" not in workloads or "volume_high" not in workloads:
        return []
    uncertainty = catalog.uncertainty
    distribution = uncertainty.default_distribution if uncertainty else "triangular"
    figures = []
    for row, (wid, tokens, hours, low, high) in enumerate(
        zip(
            workloads["id"],
            workloads["monthly_tokens_b"],
            workloads["h100_gpu_hours"],
            workloads["volume_low"],
            workloads["volume_high"],
            strict=True,
        )
    ):
        column = "monthly_tokens_b" if pd.notna(tokens) else "h100_gpu_hours"
        volume = float(tokens if pd.notna(tokens) else hours)
        low = volume if pd.isna(low) else float(low)
        high = volume if pd.isna(high) else float(high)
        if high > low:
            path = f"inventory.{wid}.{column}"
            figures.append(Figure(path, low, volume, high, distribution, row=row, column=column))
    return figures


def _figure(
    path: str, figure: Range[float], distribution: str, group: str | None, against: bool
) -> Figure:
    return Figure(
        path,
        float(figure.low),
        float(figure.value),
        float(figure.high),
        distribution,
        group,
        against,
    )


def draw_quantiles(
    figures: list[Figure], correlations: dict[str, float], seed: int, index: int
) -> list[float]:
    """Sample ``index``'s quantile of every figure (see the module's formula)."""
    rng = np.random.default_rng([seed, index])
    groups = sorted(correlations)
    common = dict(zip(groups, rng.standard_normal(len(groups)), strict=True))
    own = rng.standard_normal(len(figures))
    quantiles = []
    for figure, epsilon in zip(figures, own, strict=True):
        if figure.group is None:
            z = float(epsilon)
        else:
            rho = correlations[figure.group]
            z = math.sqrt(rho) * float(common[figure.group]) + math.sqrt(1 - rho) * float(epsilon)
        u = _NORMAL.cdf(z)
        quantiles.append(1 - u if figure.against else u)
    return quantiles


def draw_values(catalog: Catalog, figures: list[Figure], seed: int, count: int) -> np.ndarray:
    """The figures' values in each of ``count`` samples: one row per sample, one column per
    figure."""
    correlations = (
        {g: linked.correlation for g, linked in catalog.uncertainty.linked.items()}
        if catalog.uncertainty
        else {}
    )
    values = np.empty((count, len(figures)))
    for index in range(count):
        quantiles = draw_quantiles(figures, correlations, seed, index)
        values[index] = [f.at(u) for f, u in zip(figures, quantiles, strict=True)]
    return values


def catalog_document(catalog: Catalog) -> dict[str, Any]:
    """The catalog as plain data, to which a sample's figures are written (``with_figures``)."""
    return catalog.model_dump(mode="json")


def with_figures(
    document: dict[str, Any], figures: list[Figure], values: Sequence[float]
) -> Catalog:
    """The catalog with each figure's point at the sample's value (its low and high kept, so the
    sampled catalog is checked exactly like the file)."""
    sampled = copy.deepcopy(document)
    for figure, value in zip(figures, values, strict=True):
        if figure.row is not None:
            continue  # an inventory figure (with_volumes)
        node: Any = sampled
        for key in figure.path.split("."):
            node = node[int(key)] if isinstance(node, list) else node[key]
        # Inside [low, high] by construction; clipped against the last bit of rounding.
        node["point"] = min(max(float(value), node["low"]), node["high"])
    return Catalog.model_validate(sampled)


def with_volumes(inventory: Inventory, figures: list[Figure], values: Sequence[float]) -> Inventory:
    """The inventory with each inventory figure's volume at the sample's value."""
    drawn = [(f, v) for f, v in zip(figures, values, strict=True) if f.row is not None]
    if not drawn:
        return inventory
    workloads = inventory.workloads.copy()
    for figure, value in drawn:
        assert figure.row is not None and figure.column is not None
        workloads.iloc[figure.row, workloads.columns.get_loc(figure.column)] = min(
            max(float(value), figure.low), figure.high
        )
    return replace(inventory, workloads=workloads)


def sampled(
    document: dict[str, Any], inventory: Inventory, figures: list[Figure], values: Sequence[float]
) -> tuple[Catalog, Inventory]:
    """One sample: the catalog and the inventory with its figures."""
    return with_figures(document, figures, values), with_volumes(inventory, figures, values)


SampleRows = tuple[tuple[int, tuple[float, ...]], ...]
"""Samples as (index, the figures' values) pairs: what a worker task is sent."""


def sample_chunks(values: np.ndarray, indexes: Sequence[int], size: int) -> list[SampleRows]:
    """The samples at ``indexes`` (rows of ``values``), ``size`` to a chunk, in order."""
    pairs = [(i, tuple(float(v) for v in values[i])) for i in indexes]
    return [tuple(pairs[at : at + size]) for at in range(0, len(pairs), size)]

"""Variables held at values for the solves of a block, their bounds given back after it.

A search tries many plans on one model: the roadmap with some decisions fixed, whole units
fixed size by size, a stopped solve's integers kept through its whole-chip rounds. Each fixes
variables by setting both bounds, and each must give the bounds back however the block ends,
so that later solves are free to choose again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping

import pulp


@contextlib.contextmanager
def kept_bounds(variables: Iterable[pulp.LpVariable]) -> Iterator[None]:
    """The bounds of ``variables`` as they were before the block, whatever it sets."""
    saved = {var: (var.lowBound, var.upBound) for var in variables}
    try:
        yield
    finally:
        for var, (low, up) in saved.items():
            var.lowBound, var.upBound = low, up


@contextlib.contextmanager
def fixed_values(values: Mapping[pulp.LpVariable, float]) -> Iterator[None]:
    """The variables of ``values`` fixed at them (both bounds), their bounds given back after."""
    with kept_bounds(values):
        for var, value in values.items():
            var.lowBound = var.upBound = value
        yield

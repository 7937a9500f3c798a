"""Billing in whole instances: the chips a deployment of replicas is billed for, and which
instances they are.

A cloud sells an accelerator in instances of a few sizes (the catalog's ``instance_types``:
H100 in 1-GPU and 8-GPU p5 instances on AWS, 1, 2, 4 and 8-GPU a3-highgpu machines on Google
Cloud; Trainium2 in 4-chip nodes, 16-chip trn2.48xlarge and 64-chip UltraServers). A replica of
``s`` chips runs inside one instance of ``C_T >= s`` chips (its tensor parallelism stays on the
instance's links), which holds ``q_T = floor(C_T / s)`` such replicas; or, where an instance is
at least a whole node (``C_T >= node_chips``) and ``s`` is a multiple of it, across ``s / C_T``
such instances (pipeline stages between nodes, as a replica wider than a node always runs); a
replica that fits neither way spans ``ceil(s / C_max)`` of the largest. Each workload's replicas
are packed into instances of their own (replicas of different workloads do not share an
instance: a deployment a team can buy and run as it is), in the fewest chips:

.. math:: B(r, s) = \\min_{n_T \\ge 0} \\sum_T n_T\\, c_T \\quad \\text{s.t.} \\quad
    \\sum_T n_T\\, q_T \\ge r

(``c_T`` the chips of one group of instances holding ``q_T`` replicas), an unbounded covering
knapsack, solved exactly by dynamic programming over the replica count. An accelerator without
listed instance types is billed in its ``deployment_unit_chips``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from placement.models.catalog import Accelerator

EXACT_REPLICAS = 4096
"""Replica counts up to which ``B(r, s)`` is tabulated by dynamic programming; above it the
bulk is made of the group that holds the most replicas per chip (an optimal covering of a
large count uses it for all but a remainder far below this), the remainder from the table."""


@dataclass(frozen=True)
class InstanceMenu:
    """The instance sizes an accelerator is sold in: ``(name, chips)`` smallest first (one name
    per size), and the chips of a node (a replica spans instances only whole nodes at a
    time)."""

    sizes: tuple[tuple[str, int], ...]
    node_chips: int


@dataclass(frozen=True)
class _Group:
    """Instances bought together for replicas of one size: ``count`` instances of ``name``
    (``chips`` in all) holding ``replicas`` replicas."""

    name: str
    count: int
    chips: int
    replicas: int


def instance_menu(accelerator: Accelerator) -> InstanceMenu:
    """The accelerator's instance sizes, or its deployment unit where it lists none."""
    by_size: dict[int, str] = {}
    for t in accelerator.instance_types:
        by_size.setdefault(t.chips, t.name)
    if not by_size:
        unit = accelerator.deployment_unit_chips
        by_size[unit] = f"{unit}-chip unit"
    sizes = tuple(sorted(((n, c) for c, n in by_size.items()), key=_chips))
    return InstanceMenu(sizes, accelerator.node_chips)


def _chips(item: tuple[str, int]) -> int:
    return item[1]


def _groups(size: int, menu: InstanceMenu) -> list[_Group]:
    """Every way to hold replicas of ``size`` chips (see the module's description)."""
    groups = []
    for name, chips in menu.sizes:
        if chips >= size:
            groups.append(_Group(name, 1, chips, chips // size))
        elif chips >= menu.node_chips and size % chips == 0:
            groups.append(_Group(name, size // chips, size, 1))
    if not groups:
        name, largest = menu.sizes[-1]
        span = -(-size // largest)
        groups.append(_Group(name, span, span * largest, 1))
    return groups


def billed_chips(replicas: np.ndarray, replica_chips: np.ndarray, menu: InstanceMenu) -> np.ndarray:
    """``B(r, s)`` element by element (``replicas`` and ``replica_chips`` broadcast; NaN where
    either is NaN, infinite where no finite number of replicas will do)."""
    r, s = np.broadcast_arrays(
        np.asarray(replicas, dtype=float), np.asarray(replica_chips, dtype=float)
    )
    out = np.where(np.isinf(r) & ~np.isnan(s), np.inf, np.nan)
    known = np.isfinite(r) & ~np.isnan(s)
    for size in np.unique(s[known]):
        at = known & (s == size)
        counts = np.ceil(r[at] - 1e-9).astype(np.int64)
        groups = _groups(int(size), menu)
        table, _ = _table(groups, int(min(counts.max(initial=0), EXACT_REPLICAS)))
        out[at] = _lookup(table, groups, counts)
    return out


def instance_mix(replicas: int, replica_chips: int, menu: InstanceMenu) -> dict[str, int]:
    """The instances ``B(replicas, replica_chips)`` buys, by name (the plan's ``instances``)."""
    groups = _groups(replica_chips, menu)
    top = min(replicas, EXACT_REPLICAS)
    _, choice = _table(groups, top)
    best = _densest(groups)
    mix: dict[str, int] = {}
    bulk = max(0, -(-(replicas - top) // best.replicas))
    if bulk:
        mix[best.name] = bulk * best.count
    left = replicas - bulk * best.replicas
    while left > 0:
        group = groups[choice[left]]
        mix[group.name] = mix.get(group.name, 0) + group.count
        left -= group.replicas
    return mix


def _densest(groups: list[_Group]) -> _Group:
    return max(groups, key=lambda g: (g.replicas / g.chips, -g.chips))


def _table(groups: list[_Group], top: int) -> tuple[np.ndarray, Sequence[int]]:
    """``B(n, s)`` for ``n = 0..top`` and the group bought last in each optimum (of equal
    chips, the one with fewer instances: 2-GPU and 1-GPU instances, not three 1-GPU ones).

    Each entry depends only on the ones before it, so a table made once for a larger ``top``
    (the next power of two) serves every smaller one: estimating and assembling a plan ask
    for the same few groups thousands of times (a tenth of the estimates' time)."""
    table, choice = _table_upto(tuple(groups), min(EXACT_REPLICAS, 1 << max(top, 1).bit_length()))
    return table[: top + 1], choice[: top + 1]


@functools.lru_cache(maxsize=256)
def _table_upto(groups: tuple[_Group, ...], top: int) -> tuple[np.ndarray, tuple[int, ...]]:
    """``_table``'s entries up to ``top`` (read-only: shared by every caller)."""
    table = np.zeros(top + 1)
    instances = [0] * (top + 1)
    choice = [0] * (top + 1)
    for n in range(1, top + 1):
        costs = [
            (g.chips + table[max(0, n - g.replicas)], g.count + instances[max(0, n - g.replicas)])
            for g in groups
        ]
        choice[n] = min(range(len(groups)), key=costs.__getitem__)
        table[n], instances[n] = costs[choice[n]]
    table.flags.writeable = False
    return table, tuple(choice)


def _lookup(table: np.ndarray, groups: list[_Group], counts: np.ndarray) -> np.ndarray:
    top = len(table) - 1
    best = _densest(groups)
    bulk = np.maximum(0, -(-(counts - top) // best.replicas))
    return bulk * best.chips + table[counts - bulk * best.replicas]

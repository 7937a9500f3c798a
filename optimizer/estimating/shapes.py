"""Choose each option's deployment shape: how many chips one model replica uses, and how many
replicas, over (workload, shape) arrays (no per-workload Python loop).

Candidate replica sizes ``s`` are the accelerator's ``replica_chip_counts`` that hold the model
(``s >= fit``), plus the smallest whole multiple of the largest count that holds it, for a
model larger than every listed shape. A deployment of ``r`` replicas of ``s`` chips is billed
for the fewest chips of whole instances that hold them, each replica inside one instance
(``placement.estimating.instances``: 5 replicas of 2 H100 GPUs take two 8-GPU instances).

Spreading a replica over more chips than its memory needs costs efficiency as it buys latency:
with ``t`` the tensor-parallel exponent (TTFT divides by ``s^t``), a replica of ``s`` chips works
at ``e(s) = (s / s_0)^(t - 1)`` of its chips' full speed. For online inference ``s_0 = fit``: a
replica rounded up past its memory need is paid for whole and is not fully used. Training and
batch inference spread their work data-parallel over as many replicas as they like, so rounding
the replica up to the smallest listed shape costs nothing: ``s_0`` is that smallest shape.

* Online inference: with ``W`` its work in chip-hours on this accelerator at full speed,
  peak-to-mean ``p`` and ``H`` hours a month, a replica size ``s`` is sized at the utilisation
  ``u* = min(target, utilisation allowed by the SLO)``: ``r = max(1, ceil(W p / (H s e u*)))``
  replicas, running at ``u = W p / (H r s e) <= u*`` at peak; TTFT is checked under that load.
  The cheapest shape wins (fewest chips, then the smaller replica: tensor parallelism stays
  inside a node, and more replicas survive the loss of one).
* Training and batch inference run their work on one replica: ``chip_hours = W / e(s)``, so the
  smallest shape that fits (and meets an SLO, unloaded) wins.

An option is infeasible only when no shape meets its SLO; the best TTFT reached says by how much.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from placement.estimating.instances import InstanceMenu, billed_chips
from placement.estimating.latency import loaded_ttft, utilization_for_slo

TIE_BREAK = 1e-9
"""Breaks a tie in cost by replica size: a relative weight far below any real difference."""


@dataclass(frozen=True)
class ShapeInputs:
    """Per workload (arrays of one length) and per accelerator (scalars)."""

    fit_chips: np.ndarray  # the fewest chips whose memory holds the model
    work_chip_hours: np.ndarray  # at full speed on this accelerator
    online: np.ndarray  # bool
    inference: np.ndarray  # bool
    slo_ms: np.ndarray  # NaN where none
    peak_to_mean: np.ndarray
    ttft_one_chip_ms: np.ndarray  # unloaded TTFT of a one-chip replica (NaN for training)
    shapes: list[int]
    menu: InstanceMenu  # the instance sizes sold
    hours: float
    tensor_parallel_exponent: float
    target_utilization: float | None  # None: no queueing model (sized at full load)


@dataclass(frozen=True)
class ShapeChoice:
    """The chosen deployment per workload, and whether any shape met the SLO."""

    replica_chips: np.ndarray
    replicas: np.ndarray
    chips: np.ndarray
    chip_hours: np.ndarray
    ttft_unloaded_ms: np.ndarray  # at the chosen shape (NaN for training)
    ttft_ms: np.ndarray  # under load for online inference, else unloaded
    utilization: np.ndarray  # at peak, online inference only (NaN otherwise)
    meets_slo: np.ndarray  # bool
    best_ttft_ms: np.ndarray  # the lowest unloaded TTFT any shape reached
    best_replica_chips: np.ndarray


def candidate_sizes(fit_chips: np.ndarray, shapes: list[int]) -> np.ndarray:
    """``(W, K + 1)`` replica sizes: every listed shape, then the smallest multiple of the
    largest that holds the model; NaN where a listed shape is too small."""
    listed = np.array(shapes, dtype=float)
    largest = listed[-1]
    beyond = np.maximum(largest, np.ceil(fit_chips / largest) * largest)
    sizes = np.column_stack([np.broadcast_to(listed, (len(fit_chips), len(listed))), beyond])
    return np.where(sizes >= fit_chips[:, None], sizes, np.nan)


def choose_shapes(data: ShapeInputs) -> ShapeChoice:
    """The cheapest deployment of every workload (see the module's description)."""
    sizes = candidate_sizes(data.fit_chips.astype(float), data.shapes)
    rows = np.arange(len(sizes))
    with np.errstate(invalid="ignore", divide="ignore"):
        unloaded = data.ttft_one_chip_ms[:, None] / sizes**data.tensor_parallel_exponent
    slo = data.slo_ms[:, None]
    has_slo = ~np.isnan(slo)

    target = data.target_utilization
    queueing = target is not None
    if target is not None:
        allowed = np.minimum(target, utilization_for_slo(unloaded, slo))
    else:  # the former model: full load, unloaded TTFT
        allowed = np.where(has_slo & ~(unloaded <= slo), 0.0, 1.0)
    online = data.online[:, None]
    smallest = np.where(np.isnan(sizes), np.inf, sizes).min(axis=1)[:, None]
    baseline = np.where(online, data.fit_chips.astype(float)[:, None], smallest)
    efficiency = (sizes / baseline) ** (data.tensor_parallel_exponent - 1)
    demand = (data.work_chip_hours * data.peak_to_mean)[:, None]
    capacity = data.hours * sizes * efficiency  # chip-hours of work one replica does a month
    with np.errstate(invalid="ignore", divide="ignore"):
        replicas = np.maximum(1.0, np.ceil(demand / (capacity * allowed) - 1e-9))
        utilization = demand / (capacity * replicas)
    replicas = np.where(online, replicas, 1.0)
    chips = billed_chips(replicas, sizes, data.menu)
    ttft = np.where(online & queueing, loaded_ttft(unloaded, utilization), unloaded)
    meets = ~np.isnan(sizes) & (~has_slo | (np.where(online, allowed > 0, unloaded <= slo)))
    meets &= np.where(online & queueing & has_slo, ttft <= slo * (1 + 1e-9), True)

    # What each candidate costs: online replicas are paid all month, the rest per chip-hour of
    # work (more with a less efficient, wider replica).
    with np.errstate(invalid="ignore", divide="ignore"):
        chip_hours = np.where(
            online, chips * data.hours, data.work_chip_hours[:, None] / efficiency
        )
    # Equal costs: the smaller replica wins (a factor far below any real difference in cost):
    # it keeps tensor parallelism inside a node, and more replicas survive the loss of one.
    rank = np.nan_to_num(sizes / (np.nanmax(sizes) + 1), nan=0.0)
    score = np.where(meets, chip_hours * (1 + TIE_BREAK * rank), np.inf)
    best = score.argmin(axis=1)
    chosen = meets[rows, best]

    # Where no shape meets the SLO: report the fastest one, as one replica, unloaded.
    speed = np.where(np.isnan(sizes), np.inf, np.nan_to_num(unloaded, nan=0.0))
    fastest = speed.argmin(axis=1)
    pick = np.where(chosen, best, fastest)
    size = sizes[rows, pick]
    count = np.where(chosen, replicas[rows, pick], 1.0)
    billed = billed_chips(count, size, data.menu)
    return ShapeChoice(
        replica_chips=size.astype("int64"),
        replicas=count.astype("int64"),
        chips=billed.astype("int64"),
        chip_hours=np.where(
            data.online, billed * data.hours, data.work_chip_hours / efficiency[rows, pick]
        ),
        ttft_unloaded_ms=np.where(data.inference, unloaded[rows, pick], np.nan),
        ttft_ms=np.where(
            data.inference, np.where(chosen, ttft[rows, pick], unloaded[rows, pick]), np.nan
        ),
        utilization=np.where(data.online & queueing & chosen, utilization[rows, pick], np.nan),
        meets_slo=chosen,
        best_ttft_ms=unloaded[rows, fastest],
        best_replica_chips=sizes[rows, fastest].astype("int64"),
    )

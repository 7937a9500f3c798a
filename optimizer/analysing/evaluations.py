"""Every option of every workload as the plan shows it (``OptionEvaluation``) and as the
explanations read it (a dict per option), made a chunk of workloads at a time.

A plan holds one ``OptionEvaluation`` per option: six per workload, 600,000 at 100,000
workloads. Two things keep that affordable. The records the explanations read live only while
their chunk is explained, not all at once. And what the options repeat is held once: the
accelerator, pricing, sizing and reason strings (a handful of distinct values) are one Python
object each, and every evaluation shares one set of the fields given (pydantic keeps a set per
model otherwise: 728 of its 1,280 bytes). They are made, not validated: the values are this
package's own, of the fields' types.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from pydantic import BaseModel

from placement.models.plan import OptionEvaluation

M = TypeVar("M", bound=BaseModel)

Option = dict[str, Any]

OPTIONS_PER_CHUNK = 50_000
"""Option rows made into Python records at a time (whole workloads: a chunk ends where a
workload does). Their dicts cost several hundred bytes each and are needed only while their
workloads are explained."""

EXPLAINED = (
    "workload",
    "workload_id",
    "accelerator",
    "pricing",
    "pricing_kind",
    "platform",
    "family",
    "feasible",
    "reason",
    "monthly_cost_usd",
    "needs_port",
    "needs_migration",
)
"""The option columns the explanations read (``placement.analysing.explain``)."""

_REPEATED = frozenset(
    {"accelerator", "pricing", "pricing_kind", "platform", "family", "reason", "sizing"}
)
"""String columns with few distinct values: one Python object per value."""


@dataclass(frozen=True)
class OptionChunk:
    """Some workloads' options: the explanations' records and the plan's evaluations, by
    workload position, in the options' order."""

    records: dict[int, list[Option]]
    evaluations: dict[int, list[OptionEvaluation]]


def option_chunks(options: pd.DataFrame) -> Iterator[OptionChunk]:
    """The options a chunk of whole workloads at a time, workloads in ascending position (the
    estimates' order; another order is sorted, keeping each workload's options in order)."""
    if not options["workload"].is_monotonic_increasing:
        options = options.iloc[np.argsort(options["workload"].to_numpy(), kind="stable")]
    workload = options["workload"].to_numpy()
    start = 0
    while start < len(options):
        stop = min(start + OPTIONS_PER_CHUNK, len(options))
        # Extend to the end of the last workload, so that no workload is split.
        stop = int(np.searchsorted(workload, workload[stop - 1], side="right"))
        yield _chunk(options.iloc[start:stop])
        start = stop


def _chunk(options: pd.DataFrame) -> OptionChunk:
    values = {c: _values(options[c]) for c in EXPLAINED}
    names = list(values)
    positions = values["workload"]
    records: dict[int, list[Option]] = {}
    for w, row in zip(positions, zip(*values.values(), strict=True), strict=True):
        records.setdefault(w, []).append(dict(zip(names, row, strict=True)))
    shown = evaluations_of(options, values)
    evaluations: dict[int, list[OptionEvaluation]] = {}
    for w, evaluation in zip(positions, shown, strict=True):
        evaluations.setdefault(w, []).append(evaluation)
    return OptionChunk(records, evaluations)


def evaluations_of(
    options: pd.DataFrame, known: dict[str, list[Any]] | None = None
) -> list[OptionEvaluation]:
    """Each option's ``OptionEvaluation``, rounded per column, NaN as None (``known``: columns
    already made into Python values, re-used)."""
    known = known or {}

    def column(name: str) -> list[Any]:
        return known[name] if name in known else _values(options[name])

    def rounded(name: str, digits: int) -> list[Any]:
        values = options[name].astype(float).round(digits)
        return values.astype(object).where(values.notna(), None).tolist()

    fields = {
        "accelerator": column("accelerator"),
        "pricing": column("pricing"),
        "feasible": options["feasible"].astype(bool).tolist(),
        "reason": column("reason"),
        "chips": options["chips"].astype(int).tolist(),
        "chip_hours": options["chip_hours"].astype(float).round(3).tolist(),
        "monthly_cost_usd": options["monthly_cost_usd"].astype(float).round(2).tolist(),
        "ttft_ms": rounded("ttft_ms", 2),
        "sizing": column("sizing"),
        "replica_chips": options["replica_chips"].astype(int).tolist(),
        "replicas": options["replicas"].astype(int).tolist(),
        "utilization": rounded("utilization", 4),
        "ttft_unloaded_ms": rounded("ttft_unloaded_ms", 2),
    }
    names = list(fields)
    return constructed(
        OptionEvaluation,
        [dict(zip(names, row, strict=True)) for row in zip(*fields.values(), strict=True)],
    )


def constructed(model: type[M], records: list[dict[str, Any]]) -> list[M]:
    """Models of values made here (Python values of the fields' types, already rounded), each
    record giving every field: what ``model.model_construct(**record)`` makes, without its
    loop over the fields per record or validation (600,000 evaluations at 100,000 workloads:
    3.5 s validated, 0.4 s so). Every model shares one set of the fields given, which is safe
    because pydantic's later ``add`` of an assigned field's name never changes a full set.
    ``tests/test_output.py`` checks the models equal validated ones."""
    fields = set(model.model_fields)
    plain = (
        not model.__private_attributes__
        and model.model_config.get("extra") != "allow"
        and not model.__pydantic_post_init__
    )
    if not plain or (records and set(records[0]) != fields):
        raise ValueError(f"{model.__name__}: expected a plain model and every field given")
    new = model.__new__
    setattr_ = object.__setattr__
    out = []
    for record in records:
        instance = new(model)
        setattr_(instance, "__dict__", record)
        setattr_(instance, "__pydantic_fields_set__", fields)
        setattr_(instance, "__pydantic_extra__", None)
        setattr_(instance, "__pydantic_private__", None)
        out.append(instance)
    return out


def _values(column: pd.Series) -> list[Any]:
    """A column as Python values; a repeated string column's equal values are one object, a
    missing one None."""
    if column.name not in _REPEATED:
        return column.tolist()
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    # The last entry answers code -1 (a missing value).
    table = np.array([*(str(u) for u in uniques), None], dtype=object)
    return list(table[codes])

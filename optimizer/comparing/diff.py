"""What changed between two plans: cost, workloads moved (from where to where, and why),
workloads added or dropped, commitments, ports and migrations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from placement.models.plan import Assignment, Plan


@dataclass(frozen=True)
class Move:
    """A workload placed differently in the second plan."""

    workload_id: str
    from_accelerator: str | None  # None: the workload is new, or was unplaced
    to_accelerator: str | None  # None: dropped, or now unplaced
    from_pricing: str | None
    to_pricing: str | None
    cost_change_usd: float  # its showback share, after minus before
    why: str  # the second plan's reason (or why it is gone)


@dataclass(frozen=True)
class PlanDiff:
    """The second plan against the first."""

    objective_change_usd: float | None
    cost_change_usd: dict[str, float]  # by cost_breakdown key
    moves: list[Move] = field(default_factory=list)  # accelerator changed
    repriced: list[Move] = field(default_factory=list)  # same accelerator, other main pricing
    added: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    commitments: list[dict[str, Any]] = field(default_factory=list)  # per product: before, after
    ports_added: list[str] = field(default_factory=list)  # "family -> platform"
    ports_removed: list[str] = field(default_factory=list)
    migrations_added: list[str] = field(default_factory=list)
    migrations_removed: list[str] = field(default_factory=list)

    @property
    def unchanged(self) -> bool:
        return not (
            self.moves
            or self.repriced
            or self.added
            or self.dropped
            or self.commitments
            or self.ports_added
            or self.ports_removed
            or self.migrations_added
            or self.migrations_removed
        )

    def moves_frame(self) -> pd.DataFrame:
        """Moves and repricings, one row each."""
        rows = [{"change": "moved", **m.__dict__} for m in self.moves] + [
            {"change": "repriced", **m.__dict__} for m in self.repriced
        ]
        columns = ["change", *Move.__dataclass_fields__]
        return pd.DataFrame(rows, columns=columns)

    def record(self) -> dict[str, Any]:
        """The diff as JSON-ready data."""
        return {
            "objective_change_usd": self.objective_change_usd,
            "cost_change_usd": self.cost_change_usd,
            "moves": [m.__dict__ for m in self.moves],
            "repriced": [m.__dict__ for m in self.repriced],
            "added": self.added,
            "dropped": self.dropped,
            "commitments": self.commitments,
            "ports_added": self.ports_added,
            "ports_removed": self.ports_removed,
            "migrations_added": self.migrations_added,
            "migrations_removed": self.migrations_removed,
        }


def _commitment_sizes(plan: Plan) -> dict[str, float]:
    """Bought commitments by product: units for reservations, USD per hour for plans."""
    out: dict[str, float] = {}
    for c in plan.commitments:
        if c.owned:
            continue
        key = f"{c.pricing} {c.accelerator} x{c.unit_chips}" if c.kind == "reserved" else c.pricing
        size = float(c.units or 0) if c.kind == "reserved" else float(c.usd_per_hour or 0.0)
        out[key] = out.get(key, 0.0) + size
    return out


def port_label(family: str, platform: str) -> str:
    """A port as a diff names it."""
    return f"{family} -> {platform}"


def _ports(plan: Plan) -> set[str]:
    return {port_label(p.family, p.platform) for p in plan.ported_families}


def plan_diff(before: Plan, after: Plan) -> PlanDiff:
    """``after`` against ``before``, workload by workload (matched by id)."""
    old: dict[str, Assignment] = {a.workload_id: a for a in before.assignments}
    new: dict[str, Assignment] = {a.workload_id: a for a in after.assignments}
    old_unplaced = {u.workload_id for u in before.unplaced}
    new_unplaced = {u.workload_id: u for u in after.unplaced}
    known_before = set(old) | old_unplaced
    known_after = set(new) | set(new_unplaced)
    moves: list[Move] = []
    repriced: list[Move] = []
    for wid in sorted(known_before & known_after):
        a, b = old.get(wid), new.get(wid)
        if a is None and b is None:
            continue
        change = (b.showback_monthly_usd or 0.0 if b else 0.0) - (
            a.showback_monthly_usd or 0.0 if a else 0.0
        )
        move = Move(
            wid,
            a.accelerator if a else None,
            b.accelerator if b else None,
            a.pricing if a else None,
            b.pricing if b else None,
            round(change, 2),
            b.why if b else "; ".join(new_unplaced[wid].reasons),
        )
        if (a is None) != (b is None) or (a and b and a.accelerator != b.accelerator):
            moves.append(move)
        elif a and b and a.pricing != b.pricing:
            repriced.append(move)
    sizes_before, sizes_after = _commitment_sizes(before), _commitment_sizes(after)
    commitments = [
        {"product": k, "before": sizes_before.get(k, 0.0), "after": sizes_after.get(k, 0.0)}
        for k in sorted(set(sizes_before) | set(sizes_after))
        if abs(sizes_before.get(k, 0.0) - sizes_after.get(k, 0.0)) > 1e-9
    ]
    migrations_before = {m.platform for m in before.migrations}
    migrations_after = {m.platform for m in after.migrations}
    objective_change = (
        None
        if before.objective_monthly_usd is None or after.objective_monthly_usd is None
        else round(after.objective_monthly_usd - before.objective_monthly_usd, 2)
    )
    costs_before = before.cost_breakdown.model_dump()
    costs_after = after.cost_breakdown.model_dump()
    return PlanDiff(
        objective_change_usd=objective_change,
        cost_change_usd={
            k: round(float(costs_after[k]) - float(costs_before[k]), 2)
            for k in costs_after
            if isinstance(costs_after[k], int | float) and k in costs_before
        },
        moves=moves,
        repriced=repriced,
        added=sorted(known_after - known_before),
        dropped=sorted(known_before - known_after),
        commitments=commitments,
        ports_added=sorted(_ports(after) - _ports(before)),
        ports_removed=sorted(_ports(before) - _ports(after)),
        migrations_added=sorted(migrations_after - migrations_before),
        migrations_removed=sorted(migrations_before - migrations_after),
    )

"""What changed between two plans: cost, workloads moved (from where to where, and why),
workloads added or dropped, commitments, ports and migrations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from placement.models.catalog import Catalog
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


def commitment_size_text(product: str, size: float) -> str:
    """A bought commitment's size as ``_commitment_sizes`` keys it, read as money: whole units
    of a reservation (``12 units``), a savings plan's dollars an hour (``$11.23/h``)."""
    if " x" in product:  # a reservation: "<pricing> <accelerator> x<chips>"
        units = round(size)
        return f"{units:,} unit{'s' if units != 1 else ''}"
    return f"${size:,.2f}/h"


def commitment_change_text(change: dict[str, Any]) -> str:
    """``before -> after`` of one of a diff's ``commitments``."""
    product = str(change["product"])
    before = commitment_size_text(product, float(change["before"]))
    return f"{before} -> {commitment_size_text(product, float(change['after']))}"


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


@dataclass(frozen=True)
class FigureChange:
    """A catalog figure that differs between two catalogs (its point; a range's bounds are
    named in ``old``/``new`` where only they changed), and, once attributed, the monthly
    cost it moves on its own."""

    path: str
    old: Any
    new: Any
    bounds_only: bool = False  # a range's low or high changed, its point did not
    effect_usd: float | None = None

    def record(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "bounds_only": self.bounds_only,
            "effect_usd": self.effect_usd,
        }


def catalog_changes(before: Catalog, after: Catalog) -> list[FigureChange]:
    """Every figure (by ``catalog show`` path) whose point, low or high differs, in the
    catalog's order; a figure only one catalog has is listed with None on the other side."""
    from placement.catalog import catalog_records

    def keyed(catalog: Catalog) -> dict[str, tuple[Any, Any, Any]]:
        return {
            str(r["path"]): (r.get("point"), r.get("low"), r.get("high"))
            for r in catalog_records(catalog)
        }

    old, new = keyed(before), keyed(after)
    changes = []
    for path in dict.fromkeys([*old, *new]):
        a, b = old.get(path), new.get(path)
        if a == b:
            continue
        if a is not None and b is not None and a[0] == b[0]:
            changes.append(FigureChange(path, f"{a[1]}-{a[2]}", f"{b[1]}-{b[2]}", True))
        else:
            changes.append(FigureChange(path, a[0] if a else None, b[0] if b else None))
    return changes


@dataclass(frozen=True)
class CostChange:
    """One workload's monthly cost in two plans (None where it is not placed)."""

    workload_id: str
    before_usd: float | None
    after_usd: float | None

    @property
    def change_usd(self) -> float:
        return (self.after_usd or 0.0) - (self.before_usd or 0.0)

    def record(self) -> dict[str, Any]:
        return {
            "workload_id": self.workload_id,
            "before_usd": self.before_usd,
            "after_usd": self.after_usd,
            "change_usd": round(self.change_usd, 2),
        }


def cost_changes(before: Plan, after: Plan, top: int = 10) -> list[CostChange]:
    """The ``top`` workloads whose own monthly cost moved most between the plans (added and
    dropped ones too), largest change first; unchanged ones are left out."""
    a = {x.workload_id: x.monthly_cost_usd for x in before.assignments}
    b = {x.workload_id: x.monthly_cost_usd for x in after.assignments}
    changes = [CostChange(w, a.get(w), b.get(w)) for w in dict.fromkeys([*a, *b])]
    moved = [c for c in changes if round(c.change_usd, 2) != 0]
    return sorted(moved, key=lambda c: -abs(c.change_usd))[:top]

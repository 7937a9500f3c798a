"""One sentence per assignment saying why that option won, from the estimates and the solution.

Works on plain option records (dicts with the estimates' columns) so that explaining 10,000
workloads stays linear: the per-family sharing counts are computed once per plan.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from placement.extract import Solution
from placement.formulation import reserved_unit_chip_hours, reserved_unit_monthly_usd
from placement.models.catalog import Catalog

Option = dict[str, Any]


@dataclass(frozen=True)
class PlanContext:
    """What the explanation needs from the whole plan: ports, migrations, port sharing, and
    each reserved pool's spare chip-hours, unit capacity and unit price."""

    ported: frozenset[tuple[str, str]]
    adopted: frozenset[str]
    port_users: Counter[tuple[str, str]]
    spare_chip_hours: dict[tuple[str, str], float]
    unit_chip_hours: dict[tuple[str, str], float]
    unit_usd: dict[tuple[str, str], float]

    @classmethod
    def of(cls, solution: Solution, catalog: Catalog) -> PlanContext:
        chosen = solution.chosen[solution.chosen["needs_port"]]
        users = Counter(zip(chosen["family"], chosen["platform"], strict=True))
        unit_chip_hours: dict[tuple[str, str], float] = {}
        unit_usd: dict[tuple[str, str], float] = {}
        for acc in catalog.accelerators:
            for pricing in catalog.pricing_for(acc):
                if catalog.pricing_options[pricing].kind == "reserved":
                    unit_chip_hours[(acc, pricing)] = reserved_unit_chip_hours(
                        catalog, acc, pricing
                    )
                    unit_usd[(acc, pricing)] = reserved_unit_monthly_usd(catalog, acc, pricing)
        spare = {
            (r.accelerator, r.pricing): r.units * unit_chip_hours[(r.accelerator, r.pricing)]
            - r.used_chip_hours
            for r in solution.reserved.itertuples()
        }
        return cls(
            ported=frozenset(
                zip(solution.ported["family"], solution.ported["platform"], strict=True)
            ),
            adopted=frozenset(solution.adopted),
            port_users=users,
            spare_chip_hours=spare,
            unit_chip_hours=unit_chip_hours,
            unit_usd=unit_usd,
        )


def _usd(value: float) -> str:
    return f"${value:,.0f}"


def _label(option: Option) -> str:
    return f"{option['accelerator']} {option['pricing']}"


def why_for(chosen: Option, options: list[Option], context: PlanContext) -> str:
    """Why ``chosen`` won over the workload's other options (``options`` includes it).

    Compute costs are compared at each option's hourly rate; when a cheaper option lost, the
    sentence names the fixed cost or capacity effect that made it lose.
    """
    key = (chosen["accelerator"], chosen["pricing"])
    others = sorted(
        (o for o in options if o["feasible"] and (o["accelerator"], o["pricing"]) != key),
        key=lambda o: o["monthly_cost_usd"],
    )
    cost = _usd(chosen["monthly_cost_usd"])
    parts: list[str] = []
    cheaper = [o for o in others if o["monthly_cost_usd"] < chosen["monthly_cost_usd"] - 1e-6]
    if cheaper:
        best = cheaper[0]
        parts.append(
            f"{_label(best)} would be {_usd(best['monthly_cost_usd'])}/month vs {cost}, but "
            + _why_not(best, chosen, context)
        )
    elif others:
        nxt = others[0]
        parts.append(
            f"cheapest feasible option at {cost}/month (next: {_label(nxt)} "
            f"{_usd(nxt['monthly_cost_usd'])})"
        )
    else:
        parts.append(f"only feasible option ({cost}/month)")
    if chosen["needs_port"]:
        users = context.port_users[(chosen["family"], chosen["platform"])]
        parts.append(
            f"uses the {chosen['family']} port to {chosen['platform']} "
            f"(shared by {users} workload{'s' if users != 1 else ''})"
        )
    if chosen["pricing_kind"] == "reserved":
        parts.append("runs on the reserved pool")
    if chosen.get("sizing"):
        parts.append(f"sized: {chosen['sizing']}")
    blocked = excluded_reasons(options)
    if blocked:
        parts.append("excluded: " + "; ".join(blocked))
    return "; ".join(parts)


def excluded_reasons(options: list[Option]) -> list[str]:
    """One ``accelerator: reason`` per accelerator whose options are all infeasible."""
    reasons: dict[str, str] = {}
    feasible = {o["accelerator"] for o in options if o["feasible"]}
    for o in options:
        if o["accelerator"] not in feasible and o["accelerator"] not in reasons:
            reasons[o["accelerator"]] = str(o["reason"])
    return [f"{acc}: {reason}" for acc, reason in sorted(reasons.items())]


def _why_not(best: Option, chosen: Option, context: PlanContext) -> str:
    if best["needs_migration"] and best["platform"] not in context.adopted:
        return f"the {best['platform']} migration programme does not pay for itself"
    if best["needs_port"] and (best["family"], best["platform"]) not in context.ported:
        return f"porting {best['family']} to {best['platform']} does not pay for itself"
    if best["pricing_kind"] == "reserved":
        pool = (best["accelerator"], best["pricing"])
        spare = max(0.0, context.spare_chip_hours.get(pool, 0.0))
        if best["chip_hours"] > spare + 1e-6:
            units = math.ceil((best["chip_hours"] - spare) / context.unit_chip_hours[pool] - 1e-9)
            return (
                f"the {best['accelerator']} {best['pricing']} pool has "
                f"{spare:,.0f} spare chip-hours, so it would need {units} more reserved "
                f"unit{'s' if units != 1 else ''} ({_usd(units * context.unit_usd[pool])}/month)"
            )
    if best["pricing_kind"] != "reserved" and chosen["pricing_kind"] == "reserved":
        return "reserved capacity bought for other work has room for it"
    return "the pools and fixed costs of the whole plan make this cheaper overall"

"""One sentence per assignment saying why that option won, from the estimates and the solution.

Works on plain option records (dicts with the estimates' columns) so that explaining 10,000
workloads stays linear: the per-family sharing counts are computed once per plan.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from optimizer.extract import Solution

Option = dict[str, Any]


@dataclass(frozen=True)
class PlanContext:
    """What the explanation needs from the whole plan: ports, migrations, port sharing."""

    ported: frozenset[tuple[str, str]]
    adopted: frozenset[str]
    port_users: Counter[tuple[str, str]]

    @classmethod
    def of(cls, solution: Solution) -> PlanContext:
        chosen = solution.chosen[solution.chosen["needs_port"]]
        users = Counter(zip(chosen["family"], chosen["platform"], strict=True))
        return cls(
            ported=frozenset(
                zip(solution.ported["family"], solution.ported["platform"], strict=True)
            ),
            adopted=frozenset(solution.adopted),
            port_users=users,
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
    if best["pricing_kind"] == "reserved" and chosen["pricing_kind"] != "reserved":
        return "a reserved unit for it would sit partly idle"
    if best["pricing_kind"] != "reserved" and chosen["pricing_kind"] == "reserved":
        return "reserved capacity bought for other work has room for it"
    return "the pools and fixed costs of the whole plan make this cheaper overall"

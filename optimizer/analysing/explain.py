"""One sentence per assignment saying why that accelerator won, and how it is paid for.

Works on plain option records (dicts with the estimates' columns) so that explaining 10,000
workloads stays linear: the per-family sharing counts are computed once per plan.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from placement.analysing.extract import Solution
from placement.models.catalog import Catalog

Option = dict[str, Any]


@dataclass(frozen=True)
class PlanContext:
    """What the explanation needs from the whole plan: ports, migrations, port sharing, the
    accelerators whose chip limit binds, and each accelerator's commitment options."""

    ported: frozenset[tuple[str, str]]
    adopted: frozenset[str]
    port_users: Counter[tuple[str, str]]
    at_limit: frozenset[str]
    has_commitments: frozenset[str]
    on_demand: dict[str, str]

    @classmethod
    def of(cls, solution: Solution, catalog: Catalog) -> PlanContext:
        chosen = solution.chosen[solution.chosen["needs_port"]]
        users = Counter(zip(chosen["family"], chosen["platform"], strict=True))
        slices = solution.slices
        in_use = slices["serving_chips"] + slices["work_chips"]
        full = slices["limit_chips"].notna() & (in_use >= slices["limit_chips"].fillna(0) - 1e-6)
        return cls(
            ported=frozenset(
                zip(solution.ported["family"], solution.ported["platform"], strict=True)
            ),
            adopted=frozenset(solution.adopted),
            port_users=users,
            at_limit=frozenset(slices.loc[full, "accelerator"].astype(str)),
            has_commitments=frozenset(
                a for a in catalog.accelerators if catalog.commitment_options(a)
            ),
            on_demand={a: catalog.on_demand_option(a) for a in catalog.accelerators},
        )


def _usd(value: float) -> str:
    return f"${value:,.0f}"


def _label(option: Option) -> str:
    return f"{option['accelerator']} {option['pricing']}"


def why_for(
    chosen: Option, options: list[Option], coverage: dict[str, float], context: PlanContext
) -> str:
    """Why ``chosen`` (the placed row, with its ``compute_usd``) won over the workload's other
    accelerators, and how its chip-hours are paid (``coverage``: chip-hours by pricing option).

    Another accelerator is priced at its cheapest option as if the workload ran fully on it;
    when that is cheaper, the sentence names the fixed cost or limit that made it lose.
    """
    acc = chosen["accelerator"]
    cost = float(chosen["compute_usd"])
    best_elsewhere: dict[str, Option] = {}
    for o in options:
        if o["feasible"] and o["accelerator"] != acc:
            known = best_elsewhere.get(o["accelerator"])
            if known is None or o["monthly_cost_usd"] < known["monthly_cost_usd"]:
                best_elsewhere[o["accelerator"]] = o
    rivals = sorted(best_elsewhere.values(), key=lambda o: o["monthly_cost_usd"])
    parts: list[str] = []
    cheaper = [o for o in rivals if o["monthly_cost_usd"] < cost - 0.005]
    if cheaper:
        best = cheaper[0]
        parts.append(
            f"{_label(best)} would be {_usd(best['monthly_cost_usd'])}/month vs "
            f"{_usd(cost)} here, but " + _why_not(best, options, context)
        )
    elif rivals:
        nxt = rivals[0]
        parts.append(
            f"cheapest accelerator at {_usd(cost)}/month (next: {_label(nxt)} "
            f"{_usd(nxt['monthly_cost_usd'])})"
        )
    else:
        parts.append(f"only feasible accelerator ({_usd(cost)}/month)")
    parts.append(_paid_by(coverage, acc, context))
    if chosen["needs_port"]:
        users = context.port_users[(chosen["family"], chosen["platform"])]
        parts.append(
            f"uses the {chosen['family']} port to {chosen['platform']} "
            f"(shared by {users} workload{'s' if users != 1 else ''})"
        )
    if chosen.get("sizing"):
        parts.append(f"sized: {chosen['sizing']}")
    blocked = excluded_reasons(options)
    if blocked:
        parts.append("excluded: " + "; ".join(blocked))
    return "; ".join(parts)


def _paid_by(coverage: dict[str, float], accelerator: str, context: PlanContext) -> str:
    total = sum(coverage.values())
    if total <= 0:
        return "uses no chip-hours"
    shares = sorted(coverage.items(), key=lambda kv: (-kv[1], kv[0]))
    words = ", ".join(f"{100 * h / total:.0f}% {option}" for option, h in shares if h > 0)
    only_on_demand = len(shares) == 1 and shares[0][0] == context.on_demand[accelerator]
    if only_on_demand and accelerator in context.has_commitments:
        return f"paid {words}: no commitment would pay for its hours"
    return f"paid {words}"


def excluded_reasons(options: list[Option]) -> list[str]:
    """One ``accelerator: reason`` per accelerator whose options are all infeasible."""
    reasons: dict[str, str] = {}
    feasible = {o["accelerator"] for o in options if o["feasible"]}
    for o in options:
        if o["accelerator"] not in feasible and o["accelerator"] not in reasons:
            reasons[o["accelerator"]] = str(o["reason"])
    return [f"{acc}: {reason}" for acc, reason in sorted(reasons.items())]


def _why_not(best: Option, options: list[Option], context: PlanContext) -> str:
    if best["needs_migration"] and best["platform"] not in context.adopted:
        return f"the {best['platform']} migration programme does not pay for itself"
    if best["needs_port"] and (best["family"], best["platform"]) not in context.ported:
        return f"porting {best['family']} to {best['platform']} does not pay for itself"
    if best["accelerator"] in context.at_limit:
        return f"the {best['accelerator']} chip limit is taken by other work"
    if best["pricing_kind"] != "on_demand":
        on_demand = [
            o
            for o in options
            if o["accelerator"] == best["accelerator"]
            and o["pricing_kind"] == "on_demand"
            and o["feasible"]
        ]
        there = f" ({_usd(on_demand[0]['monthly_cost_usd'])} on demand)" if on_demand else ""
        return (
            "that price needs commitments busy every hour, and the commitments the whole plan "
            f"buys there would not be{there}"
        )
    return "the commitments and fixed costs of the whole plan make this cheaper overall"

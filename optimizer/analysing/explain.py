"""One sentence per assignment saying why that accelerator won, and how it is paid for.

Works on plain option records (dicts with the estimates' columns) so that explaining 10,000
workloads stays linear: the per-family sharing counts and saving bounds are computed once per
plan.

Every figure a sentence gives is one the plan bears out. Another accelerator is priced at its
cheapest option as if that option paid for every hour (a reservation busy every hour): no
schedule of the workload there costs less, so the figure is a lower bound, said as "at least".
A port or migration programme the plan leaves out is set against the most it could save: the
sum, over the workloads that could use it, of what each costs in the plan less its lower bound
there and its switching one-off (amortized), counted only where positive. When that most is
below the one-off's monthly share, the one-off cannot pay and the sentence says so with both
figures; otherwise the sentence says only what the solve showed, that the plan is cheaper
without it (integral commitments and real utilisation decide). tests/test_reasons.py re-solves
with the workload pinned to the other accelerator and checks each sentence against the result.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from placement.analysing.extract import Solution
from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.models.catalog import Catalog

Option = dict[str, Any]


@dataclass(frozen=True)
class SavingBound:
    """The most a port or migration programme could save a month (``usd``), over ``workloads``
    workloads that could use it, against its one-off (``one_off_usd``, amortized over
    ``months``)."""

    usd: float
    workloads: int
    one_off_usd: float
    months: float

    @property
    def monthly_usd(self) -> float:
        return self.one_off_usd / self.months


@dataclass(frozen=True)
class PlanContext:
    """What the explanation needs from the whole plan: ports, migrations, port sharing, the
    accelerators whose chip limit binds, each accelerator's commitment options, and the most
    each port and programme left out could save."""

    ported: frozenset[tuple[str, str]]
    adopted: frozenset[str]
    port_users: Counter[tuple[str, str]]
    at_limit: frozenset[str]
    has_commitments: frozenset[str]
    on_demand: dict[str, str]
    port_bounds: dict[tuple[str, str], SavingBound]
    migration_bounds: dict[str, SavingBound]
    owned: dict[str, list[tuple[str, str]]]

    @classmethod
    def of(cls, solution: Solution, catalog: Catalog, options: pd.DataFrame) -> PlanContext:
        chosen = solution.chosen[solution.chosen["needs_port"]]
        users = Counter(zip(chosen["family"], chosen["platform"], strict=True))
        slices = solution.slices
        in_use = slices["serving_chips"] + slices["work_chips"]
        full = slices["limit_chips"].notna() & (in_use >= slices["limit_chips"].fillna(0) - 1e-6)
        port_bounds, migration_bounds = _saving_bounds(solution, catalog, options)
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
            port_bounds=port_bounds,
            migration_bounds=migration_bounds,
            owned=_owned_by_accelerator(solution, catalog),
        )


def _owned_by_accelerator(solution: Solution, catalog: Catalog) -> dict[str, list[tuple[str, str]]]:
    """Each accelerator's owned commitments as (pricing option, description) pairs."""
    owned: dict[str, list[tuple[str, str]]] = {}
    for entry in solution.owned:
        left = f"{entry.months_left} month{'s' if entry.months_left != 1 else ''} left"
        if entry.accelerator is not None:
            accelerators = [entry.accelerator]
            what = f"{entry.units} x {entry.unit_chips} chips {entry.pricing}, {left}"
        else:
            covered = catalog.pricing_options[entry.pricing].accelerators
            accelerators = list(covered or catalog.accelerators)
            what = f"{entry.pricing} ${entry.usd_per_hour:,.2f}/h, {left}"
        for a in accelerators:
            owned.setdefault(a, []).append((entry.pricing, what))
    return owned


def _saving_bounds(
    solution: Solution, catalog: Catalog, options: pd.DataFrame
) -> tuple[dict[tuple[str, str], SavingBound], dict[str, SavingBound]]:
    """The most each port and each migration programme could save a month.

    For workload j placed elsewhere and platform P: ``g_jP = max(0, cost_j - min_o (c_o +
    s_o / M))`` over j's feasible options o on P (``c_o`` the option's cost as if it paid for
    every hour, ``s_o`` its switching one-off, ``M`` the amortization months), ``cost_j`` its
    compute cost in the plan. A port of family F to P could save at most the sum of ``g_jP``
    over F's workloads; a programme for P at most the sum over every workload."""
    months = catalog.economics.amortization_months.value
    here = solution.chosen.set_index("workload")[["compute_usd", "platform"]].rename(
        columns={"platform": "platform_here"}
    )
    feasible = options[options["feasible"]]
    floor = (
        (feasible["monthly_cost_usd"] + feasible["switching_usd"] / months)
        .groupby([feasible["workload"], feasible["platform"], feasible["family"]])
        .min()
        .rename("floor")
        .reset_index()
    )
    floor = floor.join(here, on="workload")
    floor = floor[floor["compute_usd"].notna() & floor["platform"].ne(floor["platform_here"])]
    floor["gain"] = np.maximum(0.0, floor["compute_usd"] - floor["floor"])
    by_family = floor.groupby(["family", "platform"])["gain"].agg(["sum", "size"])
    by_platform = floor.groupby("platform")["gain"].agg(["sum", "size"])
    port_bounds = {
        (str(f), str(p)): SavingBound(
            float(row["sum"]), int(row["size"]), porting_one_off_usd(catalog, str(p)), months
        )
        for (f, p), row in by_family.iterrows()
    }
    migration_bounds = {
        str(p): SavingBound(
            float(row["sum"]), int(row["size"]), migration_one_off_usd(catalog, str(p)), months
        )
        for p, row in by_platform.iterrows()
    }
    return port_bounds, migration_bounds


def _usd(value: float) -> str:
    return f"${value:,.0f}"


def _label(option: Option) -> str:
    return f"{option['accelerator']} {option['pricing']}"


def why_for(
    chosen: Option, options: list[Option], coverage: dict[str, float], context: PlanContext
) -> str:
    """Why ``chosen`` (the placed row, with its ``compute_usd``) won over the workload's other
    accelerators, and how its chip-hours are paid (``coverage``: chip-hours by pricing option).

    Another accelerator is priced at its cheapest option as if that option paid for every hour
    (a lower bound); when that is cheaper, the sentence names the fixed cost or limit that made
    it lose, with the figures that show it.
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
            f"{best['accelerator']} would cost at least {_usd(best['monthly_cost_usd'])}/month "
            f"({best['pricing']} paying every hour) vs {_usd(cost)} here, but "
            + _why_not(best, options, context)
        )
    elif rivals:
        nxt = rivals[0]
        parts.append(
            f"cheapest accelerator at {_usd(cost)}/month (next: {nxt['accelerator']}, at least "
            f"{_usd(nxt['monthly_cost_usd'])} with {nxt['pricing']} paying every hour)"
        )
    else:
        parts.append(f"only feasible accelerator ({_usd(cost)}/month)")
    owned = [what for pricing, what in context.owned.get(acc, []) if coverage.get(pricing)]
    if cheaper and owned:
        parts.append(
            f"commitments already owned on {acc} pay for its hours whether it moves or not ("
            + "; ".join(owned)
            + ")"
        )
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
    platform = best["platform"]
    if best["needs_migration"] and platform not in context.adopted:
        bound = context.migration_bounds.get(platform)
        return _one_off_reason(f"the {platform} migration programme", "workload", bound)
    if best["needs_port"] and (best["family"], platform) not in context.ported:
        bound = context.port_bounds.get((best["family"], platform))
        return _one_off_reason(
            f"porting {best['family']} to {platform}", f"{best['family']} workload", bound
        )
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


def _one_off_reason(what: str, whose: str, bound: SavingBound | None) -> str:
    """Why a port or programme the plan leaves out stays out, with its one-off and the most it
    could save (a proof when that most is less than the one-off's monthly share)."""
    if bound is None:
        return f"the plan is cheaper without {what}"
    cost = f"{what} ({_usd(bound.one_off_usd)} one-off, {_usd(bound.monthly_usd)}/month amortized)"
    n = bound.workloads
    who = f"{n} {whose}s" if n != 1 else f"one {whose}"
    could = f"{_usd(bound.usd)}/month that the {who} able to use it could save at most"
    if bound.usd < bound.monthly_usd:
        return f"{cost} costs more than the {could}"
    return (
        f"the plan is cheaper without {cost}: set against the {could}, the commitments and "
        "utilisation they would really get do not repay it"
    )

"""Who pays for what: each workload's share of the bill, and the plan's FinOps measures.

The rule (docs/formulation.md, "Showback"):

1. **Compute by use**: a workload pays its on-demand chip-hours at the on-demand rate and its
   committed chip-hours at the rate of the commitment that covered them.
2. **Idle commitments**: what a commitment costs beyond the value used is shared by the
   workloads it covered, in proportion to the chip-hours it covered for each; a commitment
   nobody used is shared by the workloads on the accelerators it covers, by chip-hours (by
   every placed workload, by chip-hours, if none runs there).
3. **Porting**: each port's amortized cost is shared by the workloads of that family on that
   platform that needed it, by chip-hours.
4. **Migration**: each programme's amortized cost is shared by the workloads on that platform,
   by chip-hours.
5. **Switching**: a workload moved off the accelerator it runs on today pays its own amortized
   switching cost.

Shares are rounded to cents by the largest-remainder rule so that they sum exactly to the
plan's total.
"""

from __future__ import annotations

import math
from collections import defaultdict

import pandas as pd

from placement.analysing.extract import ON_DEMAND, Solution
from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.estimating.economics.rates import on_demand_rates
from placement.models.catalog import Catalog
from placement.models.plan import FinOps


def spread(amount: float, weights: dict[int, float], into: dict[int, float]) -> bool:
    """Add ``amount`` to ``into`` in proportion to ``weights``; False if there is no weight."""
    total = sum(weights.values())
    if total <= 0:
        return False
    for w, weight in weights.items():
        into[w] = into.get(w, 0.0) + amount * weight / total
    return True


def showback_usd(solution: Solution, catalog: Catalog, total_usd: float) -> dict[int, float]:
    """Each placed workload's share of ``total_usd`` (see the module's rule), in cents that
    add up to it exactly."""
    chosen = solution.chosen
    share: dict[int, float] = defaultdict(float)
    hours = dict(
        zip(chosen["workload"].astype(int), chosen["chip_hours"].astype(float), strict=True)
    )
    accelerator_of = dict(zip(chosen["workload"].astype(int), chosen["accelerator"], strict=True))
    for w, cost in zip(chosen["workload"].astype(int), chosen["compute_usd"], strict=True):
        share[w] += float(cost)
    coverage = solution.coverage[solution.coverage["product"].ne(ON_DEMAND)]
    for product in solution.products.itertuples():
        idle = product.bought_monthly_usd + product.owned_monthly_usd - product.used_usd
        if idle <= 1e-9:
            continue
        users = coverage[coverage["product"].eq(product.product)]
        weights = dict(zip(users["workload"].astype(int), users["chip_hours"], strict=True))
        if spread(idle, weights, share):
            continue
        on_its = {w: h for w, h in hours.items() if accelerator_of[w] in product.accelerators}
        if not spread(idle, on_its, share):
            spread(idle, hours, share)
    months = catalog.economics.amortization_months.value
    users = port_users(chosen)
    for port in solution.ported.itertuples():
        weights = users.get((str(port.family), str(port.platform)), {})
        cost = porting_one_off_usd(catalog, str(port.platform)) / months
        if not spread(cost, weights, share):
            spread(cost, hours, share)
    for platform in solution.adopted:
        weights = platform_users(chosen, platform)
        cost = migration_one_off_usd(catalog, platform) / months
        if not spread(cost, weights, share):
            spread(cost, hours, share)
    for w, one_off in zip(chosen["workload"].astype(int), chosen["switching_usd"], strict=True):
        share[w] += float(one_off) / months
    return _cents_summing_to(dict(share), total_usd)


def port_users(chosen: pd.DataFrame) -> dict[tuple[str, str], dict[int, float]]:
    """For each port (family, platform), the workloads that need it (of that family, placed
    on that platform, not running there already nor ``neuron_ready``), with their chip-hours:
    the weights the port's cost is shared by (rule 3). One pass over the plan, not a filter
    per port."""
    users: dict[tuple[str, str], dict[int, float]] = {}
    needing = chosen[chosen["needs_port"]]
    for w, family, platform, hours in zip(
        needing["workload"].astype(int).tolist(),
        needing["family"].tolist(),
        needing["platform"].tolist(),
        needing["chip_hours"].astype(float).tolist(),
        strict=True,
    ):
        users.setdefault((str(family), str(platform)), {})[w] = hours
    return users


def platform_users(chosen: pd.DataFrame, platform: str) -> dict[int, float]:
    """The workloads placed on ``platform``, with their chip-hours: the weights its migration
    programme's cost is shared by (rule 4). Where the plan starts a programme, none of them
    runs there today (running there would have adopted it), so all are moving onto it."""
    users = chosen[chosen["platform"].eq(platform)]
    return dict(zip(users["workload"].astype(int), users["chip_hours"].astype(float), strict=True))


def scaled_shares(shares: dict[int, float], total_usd: float) -> dict[int, float]:
    """Shares scaled in proportion to sum to ``total_usd``, in cents (a horizon plan's shares
    are its end state's, scaled to the horizon's monthly average)."""
    whole = sum(shares.values())
    if whole <= 0:
        return _cents_summing_to({k: 0.0 for k in shares}, total_usd) if shares else {}
    return _cents_summing_to({k: v * total_usd / whole for k, v in shares.items()}, total_usd)


def _cents_summing_to(values: dict[int, float], total_usd: float) -> dict[int, float]:
    """Round to cents so that the parts sum to ``total_usd`` (itself in cents): floor every
    part, then move the cents the floors lost (one per part at most) by the largest
    remainders."""
    if not values:
        return {}
    exact = {w: v * 100 for w, v in values.items()}
    cents = {w: math.floor(v) for w, v in exact.items()}
    left = round(total_usd * 100) - sum(cents.values())
    by_remainder = sorted(exact, key=lambda k: exact[k] - cents[k], reverse=left > 0)
    step = 1 if left > 0 else -1
    for i in range(abs(left)):
        cents[by_remainder[i % len(by_remainder)]] += step
    return {w: c / 100 for w, c in cents.items()}


def finops(solution: Solution, catalog: Catalog) -> FinOps:
    """Commitment coverage and utilisation, idle cost and the effective savings rate."""
    chosen = solution.chosen
    rates = (
        chosen["accelerator"].map(on_demand_rates(catalog)).astype(float)
    )  # float even when none is placed
    equivalent = float((chosen["chip_hours"].astype(float) * rates).sum())
    products = solution.products
    cost = float(products["bought_monthly_usd"].sum() + products["owned_monthly_usd"].sum())
    used = float(products["used_usd"].sum())
    compute = solution.costs["on_demand_usd"] + solution.costs["reserved_usd"]
    all_hours = float(chosen["chip_hours"].sum())
    committed = float(chosen["committed_chip_hours"].sum())
    return FinOps(
        on_demand_equivalent_usd=round(equivalent, 2),
        compute_usd=round(compute, 2),
        commitment_coverage=round(committed / all_hours, 4) if all_hours else 0.0,
        # An owned commitment priced below its rate can be worth more than it cost: cap at 1.
        commitment_utilization=round(min(1.0, used / cost), 4) if cost else 1.0,
        unused_commitment_usd=round(max(0.0, cost - used), 2),
        effective_savings_rate=round(1 - compute / equivalent, 4) if equivalent else 0.0,
    )


def pricing_coverage(solution: Solution, catalog: Catalog) -> pd.DataFrame:
    """Chip-hours per (workload, pricing option): commitment products grouped by option, the
    rest under the accelerator's on-demand option."""
    coverage = solution.coverage
    accelerator_of = dict(
        zip(solution.chosen["workload"], solution.chosen["accelerator"], strict=True)
    )
    on_demand_of = {a: catalog.on_demand_option(a) for a in catalog.accelerators}
    on_demand = coverage["workload"].map(accelerator_of).map(on_demand_of)
    pricing_of = dict(zip(solution.products["product"], solution.products["pricing"], strict=True))
    option = coverage["product"].map(pricing_of).where(coverage["product"].ne(ON_DEMAND), on_demand)
    return (
        coverage.assign(pricing=option)
        .groupby(["workload", "pricing"], as_index=False)["chip_hours"]
        .sum()
    )

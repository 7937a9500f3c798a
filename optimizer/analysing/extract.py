"""Read the solved model back into plain frames (no PuLP objects leave this module).

Besides the decisions, this attributes what the commitments covered to the workloads that used
them (``coverage``): in each slice, the narrowest eligible commitment first goes to the classes
of replicas it can hold; within a class, serving chips share their slice's coverage in
proportion to the chips each holds there; work that runs only part of the hours its profile
offers gets its own modelled coverage, and the rest of the class's covered work chip-hours are
shared by the other work in proportion to its chip-hours.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pulp

from placement.estimating.economics.commitments import CommitmentBook, OwnedEntry
from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.estimating.economics.rates import on_demand_rates
from placement.estimating.profiles import profile_levels
from placement.formulating.model import PlacementModel
from placement.models.catalog import Catalog

ON_DEMAND = "on_demand"


@dataclass(frozen=True)
class Solution:
    """The decisions of one solve and what they imply.

    ``chosen``: one model row per placed workload (the estimates' columns), with
    ``committed_chip_hours`` and ``compute_usd`` (its chip-hours at the rates of what paid for
    them); ``coverage``: chip-hours per (workload, product) plus ``on_demand``; ``products``:
    every commitment product held, with units bought and owned, cost and use; ``slices``: chips
    per (accelerator, slice); ``ported``, ``adopted``; ``costs``: the cost breakdown in USD;
    ``owned``: the catalog's commitments already owned.
    """

    chosen: pd.DataFrame
    coverage: pd.DataFrame
    products: pd.DataFrame
    slices: pd.DataFrame
    ported: pd.DataFrame
    adopted: list[str]
    costs: dict[str, float]
    owned: list[OwnedEntry]


def _on(value: float | None) -> bool:
    # Binary values come back as floats near 0 or 1; never compare them to 1 exactly.
    return value is not None and value > 0.5


def _value(var: pulp.LpVariable | pulp.LpAffineExpression | None) -> float:
    value = None if var is None else pulp.value(var)
    return float(value) if value is not None else 0.0


@dataclass(frozen=True)
class Decisions:
    """What a solve decided, read without the costs and coverage ``Solution`` adds (for a
    batch that compares decisions only: a sweep's bisection, a flip point's probe):
    ``chosen``, one model row per placed workload, by workload; the (family, platform) pairs
    ``ported``; the platforms ``adopted``. ``extract_solution`` reads them the same way."""

    chosen: pd.DataFrame
    ported: pd.DataFrame
    adopted: list[str]


def extract_decisions(model: PlacementModel) -> Decisions:
    """The solved model's placements, ports and migrations."""
    chosen_ids = [oid for oid in model.options.index if model.is_placed(int(oid))]
    return Decisions(
        chosen=model.options.loc[chosen_ids].sort_values("workload"),
        ported=pd.DataFrame(
            [
                {"family": f, "platform": s}
                for (f, s), var in model.port.items()
                if _on(var.varValue)
            ],
            columns=["family", "platform"],
        ),
        adopted=sorted(s for s, var in model.adopt.items() if _on(var.varValue)),
    )


def extract_solution(model: PlacementModel, catalog: Catalog) -> Solution:
    """Chosen placements, commitments, ports and migrations, and costs recomputed from them."""
    decided = extract_decisions(model)
    chosen, ported, adopted = decided.chosen, decided.ported, decided.adopted
    book = model.book
    units = {key: round(var.varValue or 0.0) for key, var in model.units.items()}
    plan_usd = {key: max(0.0, var.varValue or 0.0) for key, var in model.plan_usd.items()}
    slices, supplied = _slice_table(model, chosen, catalog)
    coverage = _attribute(model, chosen, catalog, supplied)
    accelerator_of = dict(zip(chosen["workload"], chosen["accelerator"], strict=True))
    products = _products(book, units, plan_usd, coverage, accelerator_of, catalog)
    chosen = _with_compute_cost(chosen, coverage, book, catalog)
    return Solution(
        chosen=chosen,
        coverage=coverage,
        products=products,
        slices=slices,
        ported=ported,
        adopted=adopted,
        costs=solution_costs(chosen, products, ported, adopted, catalog),
        owned=book.owned,
    )


def _slice_table(
    model: PlacementModel, chosen: pd.DataFrame, catalog: Catalog
) -> tuple[pd.DataFrame, dict[tuple[str, int], dict[str, float]]]:
    """Chips per (accelerator, slice): in use (serving, work, of it flexible), covered by each
    product, and on demand. Also returns each slice's coverage by product."""
    grid = model.grid
    rows = []
    supplied: dict[tuple[str, int], dict[str, float]] = {}
    accelerators = sorted({a for a, _ in model.month.serving})
    for acc in accelerators:
        for t, hours in enumerate(grid.hours):
            serving = sum(_value(v[t]) for (a, _), v in model.month.serving.items() if a == acc)
            work = sum(_value(v[t]) for (a, _), v in model.month.work.items() if a == acc)
            flexible = sum(
                _value(v)
                for (a, _, _, _, s), v in model.month.flexible.items()
                if a == acc and s == t
            )
            by_product = {
                q.key: _value(model.month.reserved_cover[(q.key, t)])
                for q in model.book.on(acc)
                if (q.key, t) in model.month.reserved_cover
            }
            for plan in model.book.plans_for(acc):
                if (plan.key, acc, t) in model.month.plan_cover:
                    by_product[plan.key] = _value(model.month.plan_cover[(plan.key, acc, t)])
            by_product = {k: v for k, v in by_product.items() if v > 1e-9}
            steady = sum(
                _value(model.month.serving_cover[(acc, c, t)])
                + _value(model.month.work_cover[(acc, c, t)])
                for a, c in model.month.serving
                if a == acc
            )
            supplied[(acc, t)] = by_product
            covered = sum(by_product.values())
            rows.append(
                {
                    "accelerator": acc,
                    "slice": grid.names[t],
                    "hours": float(hours),
                    "serving_chips": serving,
                    "work_chips": work,
                    "flexible_chips": flexible,
                    "committed_chips": covered,
                    "steady_committed_chips": min(steady, covered),
                    "on_demand_chips": max(0.0, serving + work - covered),
                    "covered_by": by_product,
                    "limit_chips": catalog.accelerators[acc].max_chips,
                }
            )
    columns = [
        "accelerator",
        "slice",
        "hours",
        "serving_chips",
        "work_chips",
        "flexible_chips",
        "committed_chips",
        "steady_committed_chips",
        "on_demand_chips",
        "covered_by",
        "limit_chips",
    ]
    return pd.DataFrame(rows, columns=columns), supplied


def _class_shares(
    model: PlacementModel,
    acc: str,
    t: int,
    supplied: dict[str, float],
) -> dict[float, dict[str, float]]:
    """Chips of each product given to each class in one slice: classes from the narrowest,
    each served by its narrowest eligible products first (the nesting makes this exact)."""
    book = model.book
    limit = {q.key: (q.max_replica_chips or math.inf) for q in book.on(acc)}
    left = dict(supplied)
    order = sorted(left, key=lambda key: limit.get(key, math.inf))
    shares: dict[float, dict[str, float]] = {}
    for c in sorted(c for a, c in model.month.serving if a == acc):
        need = (
            _value(model.month.serving_cover[(acc, c, t)])
            + _value(model.month.work_cover[(acc, c, t)])
            + _value(model.month.short_work_cover.get((acc, c, t)))
        )
        shares[c] = {}
        for key in order:
            if need <= 1e-12:
                break
            if limit.get(key, math.inf) < c or left[key] <= 1e-12:
                continue
            take = min(need, left[key])
            shares[c][key] = take
            left[key] -= take
            need -= take
    return shares


def _attribute(
    model: PlacementModel,
    chosen: pd.DataFrame,
    catalog: Catalog,
    supplied: dict[tuple[str, int], dict[str, float]],
) -> pd.DataFrame:
    """Committed chip-hours per (workload, product), and each workload's on-demand rest."""
    grid = model.grid
    levels = profile_levels(catalog)
    specs = catalog.profiles()
    out: dict[tuple[int, str], float] = defaultdict(float)
    for acc in sorted({a for a, _ in model.month.serving}):
        shares = {
            t: _class_shares(model, acc, t, supplied[(acc, t)]) for t in range(len(grid.hours))
        }
        for c in sorted(c for a, c in model.month.serving if a == acc):
            mine = chosen[chosen["accelerator"].eq(acc) & chosen["eligibility"].eq(c)]
            if mine.empty:
                continue
            serving_rows = mine[mine["load_profile"].map(lambda k: specs[k].kind == "serving")]
            work_rows = mine.drop(serving_rows.index)
            sigma = np.array(
                [_value(model.month.serving_cover[(acc, c, t)]) for t in range(len(grid.hours))]
            )
            omega = np.array(
                [_value(model.month.work_cover[(acc, c, t)]) for t in range(len(grid.hours))]
            )
            omega_short = np.array(
                [
                    _value(model.month.short_work_cover.get((acc, c, t)))
                    for t in range(len(grid.hours))
                ]
            )
            demand = np.array(
                [_value(model.month.serving[(acc, c)][t]) for t in range(len(grid.hours))]
            )
            total = sigma + omega + omega_short
            keys = sorted({k for t in shares for k in shares[t].get(c, {})})
            mix = {
                key: np.array(
                    [
                        shares[t].get(c, {}).get(key, 0.0) / total[t] if total[t] > 1e-12 else 0.0
                        for t in range(len(grid.hours))
                    ]
                )
                for key in keys
            }
            if not serving_rows.empty:
                covered_share = np.divide(
                    sigma, demand, out=np.zeros_like(sigma), where=demand > 1e-12
                )
                g = np.vstack([levels[str(k)] for k in serving_rows["load_profile"]])
                b = serving_rows["base_fraction"].to_numpy(dtype=float)[:, None]
                chips = serving_rows["chips"].to_numpy(dtype=float)[:, None] * (b + (1 - b) * g)
                held = chips * (grid.hours * covered_share)[None, :]
                workloads = serving_rows["workload"].astype(int).tolist()
                for key, weights in mix.items():
                    for w, amount in zip(workloads, held @ weights, strict=True):
                        out[(w, key)] += float(amount)
            if not work_rows.empty:
                _attribute_work(model, work_rows, omega, omega_short, mix, out)
    frame = pd.DataFrame(
        [{"workload": w, "product": k, "chip_hours": v} for (w, k), v in out.items() if v > 1e-9],
        columns=["workload", "product", "chip_hours"],
    )
    committed = frame.groupby("workload")["chip_hours"].sum()
    rest = (
        chosen.set_index("workload")["chip_hours"]
        - committed.reindex(chosen["workload"]).fillna(0.0).to_numpy()
    )
    on_demand = pd.DataFrame(
        {"workload": rest.index, "product": ON_DEMAND, "chip_hours": rest.clip(lower=0).to_numpy()}
    )
    return pd.concat([frame, on_demand], ignore_index=True)


def _attribute_work(
    model: PlacementModel,
    work_rows: pd.DataFrame,
    omega: np.ndarray,
    omega_short: np.ndarray,
    mix: dict[str, np.ndarray],
    out: dict[tuple[int, str], float],
) -> None:
    """Steady work shares its class's steady work cover by chip-hours; each short job gets its
    own ``kappa`` (scaled down where the solver left slack past the short cover), each in the
    product mix of the slices it was covered in."""
    hours = model.grid.hours
    short = _short_cover(model, work_rows.index)
    month_short = float(hours @ omega_short)
    claimed = sum(short.values())
    if claimed > month_short:
        # kappa is an upper bound the solver may leave slack in: hand out only what is covered.
        short = {oid: v * month_short / claimed for oid, v in short.items()} if claimed else {}
    month_steady = float(hours @ omega)
    steady_hours = float(work_rows.drop(list(short))["chip_hours"].sum())
    steady_mix = _product_mix(hours * omega, mix)
    short_mix = _product_mix(hours * omega_short, mix)
    for oid, w, h in zip(
        work_rows.index, work_rows["workload"], work_rows["chip_hours"], strict=True
    ):
        if oid in short:
            got, product_mix = short[oid], short_mix
        else:
            got = month_steady * h / steady_hours if steady_hours else 0.0
            product_mix = steady_mix
        got = min(float(got), float(h))
        for key, share in product_mix.items():
            out[(int(w), key)] += got * share


def _product_mix(covered: np.ndarray, mix: dict[str, np.ndarray]) -> dict[str, float]:
    """Each product's share of chip-hours covered slice by slice (``covered`` per slice)."""
    month = float(covered.sum())
    if month <= 1e-9:
        return {}
    return {key: float(covered @ w) / month for key, w in mix.items()}


def _short_cover(model: PlacementModel, rows: pd.Index) -> dict[int, float]:
    """Each short work row's covered chip-hours: its own kappa, or its share (by run hours) of
    its group's (every member holds the same chips, so each gets ``r_j min(n, K)``)."""
    short = {
        int(oid): _value(model.month.short_cover[int(oid)])
        for oid in rows
        if int(oid) in model.month.short_cover
    }
    wanted = {int(oid) for oid in rows}
    for group in model.month.short_cover_groups.values():
        members = {oid: r for oid, r in group.run_hours.items() if oid in wanted}
        if not members:
            continue
        total_r = sum(group.run_hours.values())
        value = _value(group.variable)
        short.update({oid: value * r / total_r for oid, r in members.items()})
    return short


def _products(
    book: CommitmentBook,
    units: dict[str, int],
    plan_usd: dict[str, float],
    coverage: pd.DataFrame,
    accelerator_of: dict[int, str],
    catalog: Catalog,
) -> pd.DataFrame:
    """Every commitment product held: bought and owned, cost, capacity and use."""
    hours = catalog.economics.hours_per_month.value
    used = coverage.groupby("product")["chip_hours"].sum()
    rows = []
    for q in book.reservations:
        bought = units.get(q.key, 0)
        if bought == 0 and q.owned_units == 0:
            continue
        held = q.owned_units + bought
        use = float(used.get(q.key, 0.0))
        rows.append(
            {
                "product": q.key,
                "pricing": q.pricing,
                "kind": "reserved",
                "accelerator": q.accelerator,
                "unit_chips": q.unit_chips,
                "units_bought": bought,
                "units_owned": q.owned_units,
                "usd_per_hour_bought": None,
                "usd_per_hour_owned": None,
                "bought_monthly_usd": bought * q.unit_monthly_usd,
                "owned_monthly_usd": q.owned_monthly_usd,
                "capacity_chip_hours": held * q.unit_capacity_chips * hours,
                "used_chip_hours": use,
                "used_usd": use * q.rate_usd_per_chip_hour,
                "accelerators": [q.accelerator],
            }
        )
    for plan in book.savings_plans:
        bought_usd = plan_usd.get(plan.key, 0.0)
        if bought_usd <= 1e-9 and plan.owned_usd_per_hour == 0:
            continue
        mine = coverage[coverage["product"].eq(plan.key)]
        rows.append(
            {
                "product": plan.key,
                "pricing": plan.pricing,
                "kind": "savings_plan",
                "accelerator": None,
                "unit_chips": None,
                "units_bought": None,
                "units_owned": None,
                "usd_per_hour_bought": bought_usd,
                "usd_per_hour_owned": plan.owned_usd_per_hour,
                "bought_monthly_usd": bought_usd * hours,
                "owned_monthly_usd": plan.owned_monthly_usd,
                "capacity_chip_hours": None,
                "used_chip_hours": float(mine["chip_hours"].sum()),
                "used_usd": float(
                    sum(
                        r.chip_hours * plan.rates[accelerator_of[r.workload]]
                        for r in mine.itertuples()
                    )
                ),
                "accelerators": sorted(plan.rates),
            }
        )
    return pd.DataFrame(rows, columns=PRODUCT_COLUMNS)


PRODUCT_COLUMNS = [
    "product",
    "pricing",
    "kind",
    "accelerator",
    "unit_chips",
    "units_bought",
    "units_owned",
    "usd_per_hour_bought",
    "usd_per_hour_owned",
    "bought_monthly_usd",
    "owned_monthly_usd",
    "capacity_chip_hours",
    "used_chip_hours",
    "used_usd",
    "accelerators",
]


def _with_compute_cost(
    chosen: pd.DataFrame, coverage: pd.DataFrame, book: CommitmentBook, catalog: Catalog
) -> pd.DataFrame:
    """Each placed workload's committed chip-hours and compute cost: its on-demand chip-hours at
    the on-demand rate and its committed chip-hours at the rate of the commitment that covered
    them."""
    rate_of = product_rates(book)
    on_demand = on_demand_rates(catalog)
    cost: dict[int, float] = defaultdict(float)
    committed: dict[int, float] = defaultdict(float)
    accelerator_of = dict(zip(chosen["workload"], chosen["accelerator"], strict=True))
    for row in coverage.itertuples():
        acc = accelerator_of[row.workload]
        if row.product == ON_DEMAND:
            cost[row.workload] += row.chip_hours * on_demand[acc]
        else:
            cost[row.workload] += row.chip_hours * rate_of[(row.product, acc)]
            committed[row.workload] += row.chip_hours
    return chosen.assign(
        committed_chip_hours=chosen["workload"].map(committed).fillna(0.0).to_numpy(),
        compute_usd=chosen["workload"].map(cost).fillna(0.0).to_numpy(),
    )


def product_rates(book: CommitmentBook) -> dict[tuple[str, str], float]:
    """USD per covered chip-hour of each (product, accelerator)."""
    rates: dict[tuple[str, str], float] = {}
    for q in book.reservations:
        rates[(q.key, q.accelerator)] = q.rate_usd_per_chip_hour
    for plan in book.savings_plans:
        for acc, rate in plan.rates.items():
            rates[(plan.key, acc)] = rate
    return rates


def solution_costs(
    chosen: pd.DataFrame,
    products: pd.DataFrame,
    ported: pd.DataFrame,
    adopted: list[str],
    catalog: Catalog,
) -> dict[str, float]:
    """The cost breakdown of a set of decisions, from the catalog (the objective's terms): on
    demand, the commitments held (bought and owned), porting, migration and switching."""
    months = catalog.economics.amortization_months.value
    on_demand = (
        float(
            (chosen["chip_hours"] - chosen["committed_chip_hours"]).clip(lower=0)
            @ chosen["accelerator"].map(on_demand_rates(catalog)).astype(float)
        )
        if len(chosen)
        else 0.0
    )
    return {
        "on_demand_usd": on_demand,
        "reserved_usd": float(
            products["bought_monthly_usd"].sum() + products["owned_monthly_usd"].sum()
        ),
        "porting_amortized_usd": sum(porting_one_off_usd(catalog, s) for s in ported["platform"])
        / months,
        "migration_amortized_usd": sum(migration_one_off_usd(catalog, s) for s in adopted) / months,
        "switching_amortized_usd": float(chosen["switching_usd"].sum()) / months
        if len(chosen)
        else 0.0,
    }

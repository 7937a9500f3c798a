"""Read the solved model back into plain frames (no PuLP objects leave this module)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from placement.formulation import (
    PlacementModel,
    porting_one_off_usd,
    reserved_unit_chip_hours,
    reserved_unit_monthly_usd,
)
from placement.models.catalog import Catalog


@dataclass(frozen=True)
class Solution:
    """The decisions of one solve.

    ``chosen``: one option row per placed workload (the estimates' columns);
    ``reserved``: units per reserved pool; ``ported``: (family, platform) pairs ported;
    ``adopted``: platforms whose migration is started; ``costs``: the cost breakdown in USD.
    """

    chosen: pd.DataFrame
    reserved: pd.DataFrame
    ported: pd.DataFrame
    adopted: list[str]
    costs: dict[str, float]


def _on(value: float | None) -> bool:
    # Binary values come back as floats near 0 or 1; never compare them to 1 exactly.
    return value is not None and value > 0.5


def extract_solution(model: PlacementModel, catalog: Catalog) -> Solution:
    """Chosen options, reserved units, ports and migrations, and costs recomputed from them."""
    chosen_ids = [oid for oid, var in model.assign.items() if _on(var.varValue)]
    chosen = model.options.loc[chosen_ids].sort_values("workload")
    reserved_rows = []
    for (acc, pricing), var in model.reserved_units.items():
        units = round(var.varValue or 0.0)
        used = float(
            chosen.loc[
                chosen["accelerator"].eq(acc) & chosen["pricing"].eq(pricing), "chip_hours"
            ].sum()
        )
        if units == 0 and used == 0:
            continue
        reserved_rows.append(
            {
                "accelerator": acc,
                "pricing": pricing,
                "units": units,
                "monthly_cost_usd": units * reserved_unit_monthly_usd(catalog, acc, pricing),
                "used_chip_hours": used,
            }
        )
    reserved = pd.DataFrame(
        reserved_rows,
        columns=["accelerator", "pricing", "units", "monthly_cost_usd", "used_chip_hours"],
    )
    ported = pd.DataFrame(
        [{"family": f, "platform": s} for (f, s), var in model.port.items() if _on(var.varValue)],
        columns=["family", "platform"],
    )
    adopted = sorted(s for s, var in model.adopt.items() if _on(var.varValue))
    return Solution(
        chosen=chosen,
        reserved=reserved,
        ported=ported,
        adopted=adopted,
        costs=solution_costs(chosen, reserved, ported, adopted, catalog),
    )


def solution_costs(
    chosen: pd.DataFrame,
    reserved: pd.DataFrame,
    ported: pd.DataFrame,
    adopted: list[str],
    catalog: Catalog,
) -> dict[str, float]:
    """The cost breakdown of a set of decisions, from the catalog (the objective's four terms)."""
    months = catalog.economics.amortization_months.value
    return {
        "on_demand_usd": float(
            chosen.loc[chosen["pricing_kind"].eq("on_demand"), "monthly_cost_usd"].sum()
        ),
        "reserved_usd": float(reserved["monthly_cost_usd"].sum()),
        "porting_amortized_usd": sum(porting_one_off_usd(catalog, s) for s in ported["platform"])
        / months,
        "migration_amortized_usd": sum(
            catalog.platforms[s].migration_one_off_usd.value for s in adopted
        )
        / months,
    }


def greedy_solution(options: pd.DataFrame, catalog: Catalog) -> Solution:
    """Each workload on its cheapest feasible option by compute cost; then the fixed costs it
    triggers: whole reserved units for the chip-hours placed, the ports and the migrations."""
    feasible = options[options["feasible"]]
    chosen = feasible.loc[feasible.groupby("workload")["monthly_cost_usd"].idxmin()]
    rows = []
    on_reserved = chosen[chosen["pricing_kind"].eq("reserved")]
    for (acc, pricing), used in (
        on_reserved.groupby(["accelerator", "pricing"])["chip_hours"].sum().items()
    ):
        per_unit = reserved_unit_chip_hours(catalog, str(acc), str(pricing))
        units = math.ceil(used / per_unit - 1e-9)
        rows.append(
            {
                "accelerator": acc,
                "pricing": pricing,
                "units": units,
                "monthly_cost_usd": units
                * reserved_unit_monthly_usd(catalog, str(acc), str(pricing)),
                "used_chip_hours": float(used),
            }
        )
    reserved = pd.DataFrame(
        rows, columns=["accelerator", "pricing", "units", "monthly_cost_usd", "used_chip_hours"]
    )
    ported = (
        chosen.loc[chosen["needs_port"], ["family", "platform"]]
        .drop_duplicates()
        .reset_index(drop=True)
    )
    adopted = sorted(chosen.loc[chosen["needs_migration"], "platform"].unique().tolist())
    return Solution(
        chosen=chosen,
        reserved=reserved,
        ported=ported,
        adopted=adopted,
        costs=solution_costs(chosen, reserved, ported, adopted, catalog),
    )

"""Baselines: what the plan is compared with (all work on the baseline option, the optimum
without migrating, the greedy placement), each priced by the same pool model as the plan."""

from __future__ import annotations

from placement.estimating import Estimates
from placement.formulating.build import build_model
from placement.formulating.model import FormulationSettings
from placement.models.catalog import Catalog
from placement.models.plan import Baselines
from placement.solving.greedy import greedy_placement
from placement.solving.solver import SolverOptions
from placement.solving.start import GreedyPlan, price_greedy, start_values
from placement.solving.whole_chips import solve_plan_model


def _baseline_usd(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    settings: FormulationSettings,
    start: GreedyPlan | None = None,
) -> float | None:
    """A baseline's optimum under ``settings`` (only the total is needed: nothing extracted)."""
    model = build_model(estimates.options, estimates.workloads["id"].tolist(), catalog, settings)
    result = solve_plan_model(model, catalog, solver, start=start_values(model, start))
    return result.objective if result.has_solution else None


def compute_baselines(
    estimates: Estimates,
    catalog: Catalog,
    solver: SolverOptions,
    objective: float | None,
    greedy: GreedyPlan | None = None,
) -> Baselines:
    """All work on the baseline option; the optimum without migrating; greedy cheapest options.

    A baseline is None where it is undefined (a placeable workload cannot use the baseline option,
    or the restricted model is infeasible).
    """
    options = estimates.options
    placeable = options.loc[options["feasible"], "workload"].unique()
    base_accelerator, base_pricing = catalog.baseline.accelerator, catalog.baseline.pricing
    base = options[
        options["workload"].isin(placeable)
        & options["accelerator"].eq(base_accelerator)
        & options["pricing"].eq(base_pricing)
    ]
    all_base: float | None = None
    if base["feasible"].all() and len(base) == len(placeable) and len(placeable):
        if (
            catalog.pricing_options[base_pricing].kind == "on_demand"
            and not catalog.owned_commitments
        ):
            # On demand is linear: the pool model's price is the options' sum.
            all_base = float(base["monthly_cost_usd"].sum())
        else:
            # Owned commitments still cost and cover; only the baseline option may be bought.
            fixed = {int(w): base_accelerator for w in placeable}
            all_base = _baseline_usd(
                estimates,
                catalog,
                solver,
                FormulationSettings(
                    fixed_accelerators=fixed, purchasable=frozenset({base_pricing})
                ),
            )
    adopted = frozenset(
        name
        for name, acc in catalog.accelerators.items()
        if catalog.platforms[acc.platform].adopted
    )
    on_adopted = options["feasible"] & options["accelerator"].isin(adopted)
    all_incumbent: float | None = None
    if set(options.loc[on_adopted, "workload"]) == set(placeable):
        # Unplaceable workloads have no feasible option, so the model leaves them out already.
        # Started from the greedy placement over the adopted accelerators only.
        incumbent_start = GreedyPlan(
            greedy_placement(options[options["accelerator"].isin(adopted)], catalog)
        )
        all_incumbent = _baseline_usd(
            estimates,
            catalog,
            solver,
            FormulationSettings(allowed_accelerators=adopted),
            incumbent_start,
        )
    # Priced by the same pool model as the plan: only what to commit to is left to choose.
    greedy_usd = (greedy or price_greedy(estimates, catalog, solver)).usd

    def saving(value: float | None) -> float | None:
        return None if value is None or objective is None else round(value - objective, 2)

    def cents(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    return Baselines(
        all_h100_on_demand_usd=cents(all_base),
        all_h100_optimal_usd=cents(all_incumbent),
        greedy_usd=cents(greedy_usd),
        savings_vs_all_h100_on_demand_usd=saving(all_base),
        savings_vs_all_h100_optimal_usd=saving(all_incumbent),
        savings_vs_greedy_usd=saving(greedy_usd),
    )

"""Building the model: the constraint families in order, then the objective."""

from __future__ import annotations

import pandas as pd
import pulp

from placement.estimating.economics.commitments import commitment_book
from placement.estimating.profiles import slice_grid
from placement.formulating.assignment import (
    add_assignment_constraints,
    add_assignment_variables,
)
from placement.formulating.commitments import (
    add_commitment_coverage_constraints,
    add_work_concurrency_constraints,
)
from placement.formulating.costs import set_objective
from placement.formulating.demand import add_chip_limit_constraints, add_demand_constraints
from placement.formulating.model import (
    FormulationSettings,
    ModelNames,
    PlacementModel,
    model_options,
)
from placement.formulating.porting import (
    add_migration_link_constraints,
    add_porting_capacity_constraints,
    add_porting_link_constraints,
)
from placement.models.catalog import Catalog


def build_model(
    options: pd.DataFrame,
    workload_ids: list[str],
    catalog: Catalog,
    settings: FormulationSettings | None = None,
) -> PlacementModel:
    """Create the MILP from the option frame (does not modify it)."""
    settings = settings or FormulationSettings()
    rows = model_options(options, catalog, settings)
    model = PlacementModel(
        problem=pulp.LpProblem("placement", pulp.LpMinimize),
        options=rows,
        names=ModelNames.build(workload_ids, rows, catalog),
        book=commitment_book(catalog),
        grid=slice_grid(catalog),
        purchasable=settings.purchasable,
    )
    add_assignment_variables(model)
    add_assignment_constraints(model)
    add_demand_constraints(model, catalog)
    add_commitment_coverage_constraints(model)
    add_work_concurrency_constraints(model, catalog, settings.aggregate_short_work)
    add_chip_limit_constraints(model, catalog)
    add_porting_link_constraints(model)
    add_migration_link_constraints(model)
    add_porting_capacity_constraints(
        model, catalog, catalog.economics.porting_capacity_weeks_per_cycle
    )
    set_objective(model, catalog)
    return model

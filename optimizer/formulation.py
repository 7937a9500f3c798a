"""The mixed-integer program, built from the estimates' option frame alone.

Sets: workloads j; feasible options o = (j, a, p) (accelerator a, pricing p); reserved pools
(a, p) with p of kind ``reserved``; porting pairs (f, s) of family f and platform s; platforms s
not yet adopted. Domain constraints (latency, memory fit, features, porting time, pins) are
enforced by the option set itself: ``x[j,a,p]`` exists only for options the estimates found
feasible (see optimizer/estimates.py and docs/formulation.md).

Every ``add_<family>_constraints`` function below adds one constraint family and states it.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field

import pandas as pd
import pulp

from placement.models.catalog import Catalog
from placement.naming import name, name_map, unique_clean


@dataclass(frozen=True)
class FormulationSettings:
    """Switches that change the model without changing the catalog (baselines use them)."""

    allowed_accelerators: frozenset[str] | None = None


@dataclass(frozen=True)
class ModelNames:
    """Solver-safe unique names for every id that appears in a variable or constraint name."""

    workloads: list[str]  # by workload position
    families: dict[str, str]
    keys: dict[str, str]  # accelerators, pricing options and platforms (catalog keys)

    @classmethod
    def build(cls, workload_ids: list[str], options: pd.DataFrame, catalog: Catalog) -> ModelNames:
        catalog_keys = [*catalog.accelerators, *catalog.pricing_options, *catalog.platforms]
        return cls(
            workloads=unique_clean(workload_ids),
            families=name_map(options["family"].astype(str)),
            keys=name_map(catalog_keys),
        )


@dataclass
class PlacementModel:
    """The PuLP problem and its variables, keyed by the rows of ``options``."""

    problem: pulp.LpProblem
    options: pd.DataFrame  # feasible, allowed options; index = option id
    assign: dict[int, pulp.LpVariable]
    reserved_units: dict[tuple[str, str], pulp.LpVariable]
    port: dict[tuple[str, str], pulp.LpVariable]
    adopt: dict[str, pulp.LpVariable]
    placeable: list[int]
    names: ModelNames
    costs: dict[str, pulp.LpAffineExpression] = field(default_factory=dict)


def model_options(options: pd.DataFrame, settings: FormulationSettings) -> pd.DataFrame:
    """The options the model may choose: feasible, and on an allowed accelerator."""
    keep = options["feasible"]
    if settings.allowed_accelerators is not None:
        keep &= options["accelerator"].isin(settings.allowed_accelerators)
    return options[keep]


def add_assignment_variables(model: PlacementModel) -> None:
    """Binary ``assign(j,a,p)`` for every option the workload may take."""
    opts = model.options
    n = model.names
    for oid, w, acc, pricing in zip(
        opts.index, opts["workload"], opts["accelerator"], opts["pricing"], strict=True
    ):
        model.assign[oid] = model.problem.add_variable(
            name("assign", n.workloads[w], n.keys[acc], n.keys[pricing]), 0, 1, cat=pulp.LpBinary
        )


def add_assignment_constraints(model: PlacementModel) -> None:
    """Each placeable workload takes exactly one option.

    .. math:: \\sum_{(a,p) \\in O_j} x_{j,a,p} = 1
        \\quad \\forall j \\text{ with } O_j \\neq \\emptyset
    """
    for w, group in model.options.groupby("workload", sort=True).groups.items():
        expr = pulp.LpAffineExpression([(model.assign[oid], 1.0) for oid in group])
        model.problem.addConstraint(expr == 1, name("assign_one", model.names.workloads[int(w)]))
        model.placeable.append(int(w))


def add_reserved_capacity_constraints(model: PlacementModel, catalog: Catalog) -> None:
    """Chip-hours placed on a reserved pool fit in the units bought.

    .. math:: \\sum_j h_{j,a} x_{j,a,p} \\le r_{a,p} \\cdot U_a \\cdot H \\cdot u_p
        \\quad \\forall (a,p),\\ p \\text{ reserved}

    with ``r`` integer units, ``U_a`` chips per reservation unit, ``H`` hours per month and
    ``u_p`` the usable fraction of reserved capacity.
    """
    opts = model.options[model.options["pricing_kind"].eq("reserved")]
    for (acc, pricing), group in opts.groupby(["accelerator", "pricing"], sort=True).groups.items():
        units = model.problem.add_variable(
            name("reserved_units", model.names.keys[str(acc)], model.names.keys[str(pricing)]),
            lowBound=0,
            cat=pulp.LpInteger,
        )
        model.reserved_units[(str(acc), str(pricing))] = units
        capacity = reserved_unit_chip_hours(catalog, str(acc), str(pricing))
        expr = pulp.LpAffineExpression(
            [(model.assign[oid], float(h)) for oid, h in opts.loc[group, "chip_hours"].items()]
        )
        expr.addInPlace(units, -capacity)
        model.problem.addConstraint(
            expr <= 0,
            name("reserved_capacity", model.names.keys[str(acc)], model.names.keys[str(pricing)]),
        )


def add_porting_link_constraints(model: PlacementModel) -> None:
    """A workload runs on a porting platform only if its family is ported there.

    .. math:: \\sum_{a \\in A_s, p} x_{j,a,p} \\le \\mathit{port}_{f(j),s}
        \\quad \\forall j \\text{ not neuron\\_ready},\\ s \\text{ requiring porting}
    """
    opts = model.options[model.options["needs_port"]]
    family_of = dict(zip(opts.index, opts["family"], strict=True))
    for (w, platform), group in opts.groupby(["workload", "platform"], sort=True).groups.items():
        family = str(family_of[group[0]])
        key = (family, str(platform))
        if key not in model.port:
            model.port[key] = model.problem.add_variable(
                name("port", model.names.families[family], model.names.keys[key[1]]),
                0,
                1,
                pulp.LpBinary,
            )
        expr = pulp.LpAffineExpression([(model.assign[oid], 1.0) for oid in group])
        expr.addInPlace(model.port[key], -1.0)
        model.problem.addConstraint(
            expr <= 0,
            name("port_link", model.names.workloads[int(w)], model.names.keys[str(platform)]),
        )


def add_migration_link_constraints(model: PlacementModel) -> None:
    """Nothing runs on, and nothing is ported to, a platform whose migration is not adopted.

    .. math:: \\mathit{port}_{f,s} \\le \\mathit{adopt}_s \\quad \\forall (f,s)

    .. math:: \\sum_{a \\in A_s, p} x_{j,a,p} \\le \\mathit{adopt}_s
        \\quad \\forall j \\text{ needing no port on } s,\\ s \\text{ not adopted}

    (``neuron_ready`` workloads, or any workload on a platform that needs no porting; a workload
    that needs porting reaches ``adopt`` through its ``port`` variable.)
    """
    migrating = model.options[model.options["needs_migration"]]
    for platform in sorted(migrating["platform"].unique()):
        model.adopt[str(platform)] = model.problem.add_variable(
            name("adopt", model.names.keys[str(platform)]), 0, 1, pulp.LpBinary
        )
    for (family, platform), port in model.port.items():
        if platform in model.adopt:
            model.problem.addConstraint(
                port - model.adopt[platform] <= 0,
                name("adopt_link", model.names.families[family], model.names.keys[platform]),
            )
    ready = migrating[~migrating["needs_port"]]
    for (w, platform), group in ready.groupby(["workload", "platform"], sort=True).groups.items():
        expr = pulp.LpAffineExpression([(model.assign[oid], 1.0) for oid in group])
        expr.addInPlace(model.adopt[str(platform)], -1.0)
        model.problem.addConstraint(
            expr <= 0,
            name(
                "adopt_ready_link", model.names.workloads[int(w)], model.names.keys[str(platform)]
            ),
        )


def add_porting_capacity_constraints(
    model: PlacementModel, catalog: Catalog, capacity_weeks: float | None
) -> None:
    """Porting engineer-weeks started this planning cycle stay within the cap (if one is set).

    .. math:: \\sum_{(f,s)} w_s \\cdot \\mathit{port}_{f,s} \\le W
    """
    if capacity_weeks is None or not model.port:
        return
    expr = pulp.LpAffineExpression(
        [
            (var, catalog.platforms[s].porting_weeks_per_family.value)
            for (_, s), var in model.port.items()
        ]
    )
    model.problem.addConstraint(expr <= capacity_weeks, "porting_capacity")


def set_objective(model: PlacementModel, catalog: Catalog) -> None:
    """Minimise monthly cost: compute plus amortised one-off costs.

    .. math:: \\min \\sum_{o \\text{ on-demand}} c_o x_o + \\sum_{(a,p)} R_{a,p} r_{a,p}
        + \\sum_{(f,s)} \\frac{w_s E}{M} \\mathit{port}_{f,s}
        + \\sum_s \\frac{G_s}{M} \\mathit{adopt}_s

    ``c_o`` the option's monthly on-demand cost, ``R`` a reserved unit's monthly price
    (``U_a H`` chip-hours at the discounted rate), ``w_s`` porting weeks per family, ``E`` the
    engineer cost per week, ``G_s`` the migration programme's one-off cost and ``M`` the
    amortisation months.
    """
    econ = catalog.economics
    months = econ.amortization_months.value
    on_demand = model.options[model.options["pricing_kind"].eq("on_demand")]
    model.costs["on_demand_usd"] = pulp.LpAffineExpression(
        [(model.assign[oid], float(c)) for oid, c in on_demand["monthly_cost_usd"].items()]
    )
    model.costs["reserved_usd"] = pulp.LpAffineExpression(
        [
            (var, reserved_unit_monthly_usd(catalog, a, p))
            for (a, p), var in model.reserved_units.items()
        ]
    )
    model.costs["porting_amortized_usd"] = pulp.LpAffineExpression(
        [(var, porting_one_off_usd(catalog, s) / months) for (_, s), var in model.port.items()]
    )
    model.costs["migration_amortized_usd"] = pulp.LpAffineExpression(
        [
            (var, catalog.platforms[s].migration_one_off_usd.value / months)
            for s, var in model.adopt.items()
        ]
    )
    objective = pulp.LpAffineExpression()
    for expr in model.costs.values():
        objective.addInPlace(expr)
    model.problem.setObjective(objective)


def reserved_unit_chip_hours(catalog: Catalog, accelerator: str, pricing: str) -> float:
    """Usable chip-hours of one reservation unit a month: ``U_a * H * u_p``."""
    usable = catalog.pricing_options[pricing].usable_fraction
    if usable is None:
        raise ValueError(f"pricing option {pricing!r} is not a reservation")
    return (
        catalog.accelerators[accelerator].reservation_unit_chips
        * catalog.economics.hours_per_month.value
        * usable.value
    )


def reserved_unit_monthly_usd(catalog: Catalog, accelerator: str, pricing: str) -> float:
    """Monthly price of one reservation unit: ``U_a * H * rate_on_demand * (1 - discount)``."""
    acc = catalog.accelerators[accelerator]
    option = catalog.pricing_options[pricing]
    return (
        acc.reservation_unit_chips
        * catalog.economics.hours_per_month.value
        * acc.on_demand_usd_per_chip_hour.value
        * (1 - option.discount_vs_on_demand.value)
    )


def porting_one_off_usd(catalog: Catalog, platform: str) -> float:
    """One-off cost of porting one family: weeks per family x engineer cost per week."""
    return (
        catalog.platforms[platform].porting_weeks_per_family.value
        * catalog.economics.porting_engineer_usd_per_week.value
    )


def build_model(
    options: pd.DataFrame,
    workload_ids: list[str],
    catalog: Catalog,
    settings: FormulationSettings | None = None,
) -> PlacementModel:
    """Create the MILP from the option frame (does not modify it)."""
    settings = settings or FormulationSettings()
    allowed = model_options(options, settings)
    model = PlacementModel(
        problem=pulp.LpProblem("placement", pulp.LpMinimize),
        options=allowed,
        assign={},
        reserved_units={},
        port={},
        adopt={},
        placeable=[],
        names=ModelNames.build(workload_ids, allowed, catalog),
    )
    add_assignment_variables(model)
    add_assignment_constraints(model)
    add_reserved_capacity_constraints(model, catalog)
    add_porting_link_constraints(model)
    add_migration_link_constraints(model)
    add_porting_capacity_constraints(
        model, catalog, catalog.economics.porting_capacity_weeks_per_cycle
    )
    set_objective(model, catalog)
    return model


def model_file_text(model: PlacementModel, path: str | os.PathLike[str]) -> str:
    """The MILP as MPS (``path`` ending ``.mps``) or CPLEX LP (anything else), for inspection.

    PuLP writes only to a path, so it writes into a private folder and the text is returned
    for the caller to write by the safe-file rules (placement.output).
    """
    with tempfile.TemporaryDirectory() as folder:
        if str(path).lower().endswith(".mps"):
            scratch = os.path.join(folder, "model.mps")
            model.problem.writeMPS(scratch)
        else:
            scratch = os.path.join(folder, "model.lp")
            model.problem.writeLP(scratch)
        with open(scratch, encoding="utf-8") as handle:
            return handle.read()

"""Porting and migration: a family runs on a new platform only once ported there, nothing runs
on a platform whose migration programme is not adopted, and the porting weeks of a cycle may be
capped."""

from __future__ import annotations

import pulp

from placement.formulating.model import PlacementModel, rows_by
from placement.formulating.naming import name
from placement.models.catalog import Catalog


def add_porting_link_constraints(model: PlacementModel) -> None:
    """A workload runs on a porting platform only if its family is ported there.

    .. math:: \\sum_{a \\in A_s} x_{j,a} \\le \\mathit{port}_{f(j),s}
        \\quad \\forall j \\text{ not neuron\\_ready},\\ s \\text{ requiring porting}
    """
    opts = model.options[model.options["needs_port"]]
    family_of = dict(zip(opts.index, opts["family"], strict=True))
    for (w, platform), group in rows_by(opts, "workload", "platform").items():
        family = str(family_of[group[0]])
        key = (family, str(platform))
        if key not in model.port:
            model.port[key] = model.problem.add_variable(
                name("port", model.names.families[family], model.names.keys[key[1]]),
                0,
                1,
                pulp.LpBinary,
            )
        expr = model.placed((int(oid), 1.0) for oid in group)
        if not len(expr):  # placed there for certain: the family is ported
            model.port[key].lowBound = 1
            continue
        expr.addInPlace(model.port[key], -1.0)
        model.problem.addConstraint(
            expr <= 0,
            name("port_link", model.names.workloads[int(w)], model.names.keys[str(platform)]),
        )


def add_migration_link_constraints(model: PlacementModel) -> None:
    """Nothing runs on, and nothing is ported to, a platform whose migration is not adopted.

    .. math:: \\mathit{port}_{f,s} \\le \\mathit{adopt}_s \\quad \\forall (f,s)

    .. math:: \\sum_{a \\in A_s} x_{j,a} \\le \\mathit{adopt}_s
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
    for (w, platform), group in rows_by(ready, "workload", "platform").items():
        expr = model.placed((int(oid), 1.0) for oid in group)
        if not len(expr):  # placed there for certain: the platform is adopted
            model.adopt[str(platform)].lowBound = 1
            continue
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

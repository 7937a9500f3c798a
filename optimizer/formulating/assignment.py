"""Assignment: each placeable workload on exactly one of the accelerators it may take."""

from __future__ import annotations

import pulp

from placement.formulating.model import PlacementModel, rows_by
from placement.formulating.naming import name


def add_assignment_variables(model: PlacementModel) -> None:
    """Binary ``assign(j,a)`` for every (workload, accelerator) pair the workload may take,
    except where the workload has only one: there ``x[j,a] = 1`` is a constant, so that the
    baselines, where every placement is given, leave only what to commit to."""
    opts = model.options
    n = model.names
    choices = opts["workload"].map(opts["workload"].value_counts())
    for oid, w, acc, k in zip(
        opts.index, opts["workload"], opts["accelerator"], choices, strict=True
    ):
        if k == 1:
            model.fixed.add(int(oid))
            continue
        model.assign[oid] = model.problem.add_variable(
            name("assign", n.workloads[w], n.keys[acc]), 0, 1, cat=pulp.LpBinary
        )


def add_assignment_constraints(model: PlacementModel) -> None:
    """Each placeable workload runs on exactly one accelerator.

    .. math:: \\sum_{a \\in A_j} x_{j,a} = 1 \\quad \\forall j \\text{ with } A_j \\neq \\emptyset
    """
    for w, group in rows_by(model.options, "workload").items():
        model.placeable.append(int(w))
        if len(group) == 1:
            continue  # a constant: see add_assignment_variables
        expr = pulp.LpAffineExpression([(model.assign[oid], 1.0) for oid in group])
        model.problem.addConstraint(expr == 1, name("assign_one", model.names.workloads[int(w)]))

"""Why no plan exists: the constraints and bounds that conflict, in words.

Where the plan's model is infeasible, its LP relaxation is solved and, where that is infeasible
too, HiGHS's irreducible infeasible subset (IIS: ``Highs.getIis``, strategy ``iis_strategy``
from the whole LP) names a smallest set of rows and variable bounds that cannot all hold;
removing any one of them makes the rest feasible. Each row is given as the model writes it
(``porting_capacity: 4 port(llama,neuron) + 4 port(mistral,neuron) <= 5``), each bound with
the workloads that force it (a port or migration every option of a workload needs).

Where the relaxation is feasible, the conflict lies in whole numbers alone (chips, reservation
units, one accelerator per workload): no IIS exists for that, and the sentence says so.
"""

from __future__ import annotations

import highspy
import pandas as pd
import pulp

from placement.formulating.model import PlacementModel
from placement.solving.solver import SolveStatus, solve_model

MAX_SHOWN = 12
"""Rows and bounds of a conflict listed; a larger one says how many more there are."""

WHOLE_NUMBERS_ONLY = (
    "the LP relaxation is feasible: the conflict lies in whole numbers alone (whole chips, "
    "reservation units, one accelerator per workload)"
)


def _row_text(constraint: pulp.LpConstraint) -> str:
    terms = " + ".join(
        f"{coefficient:g} {var.name}" if coefficient != 1 else var.name
        for var, coefficient in constraint.items()
    ).replace("+ -", "- ")
    sense = {pulp.LpConstraintLE: "<=", pulp.LpConstraintGE: ">=", pulp.LpConstraintEQ: "="}
    return f"{constraint.name}: {terms} {sense[constraint.sense]} {-constraint.constant:g}"


def _forcing(model: PlacementModel) -> dict[str, list[str]]:
    """For each port and migration variable forced to 1, the workloads that force it (every
    option they have needs it)."""
    options = model.options
    out: dict[str, list[str]] = {}
    for (family, platform), var in model.port.items():
        if (var.lowBound or 0) > 0.5:
            out[var.name] = _only_on(options, platform, family)
    for platform, var in model.adopt.items():
        if (var.lowBound or 0) > 0.5:
            out[var.name] = _only_on(options, platform, None)
    return out


def _only_on(options: pd.DataFrame, platform: str, family: str | None) -> list[str]:
    """The workloads whose every option runs on ``platform`` (and is of ``family``)."""
    here = options["platform"].astype(str).eq(platform)
    if family is not None:
        here &= options["family"].astype(str).eq(family)
    every = here.groupby(options["workload_id"].astype(str)).all()
    return sorted(str(w) for w, only in every.items() if only)


def _bound_text(var: pulp.LpVariable, which: int, forced_by: list[str]) -> str:
    """A variable bound of the IIS (``which``: HiGHS's IisBoundStatus), with the workloads
    that force it where a port or migration is forced."""
    low, high = var.lowBound or 0, var.upBound
    if low == high:
        text = f"{var.name} = {low:g}"
    elif which == int(highspy.IisBoundStatus.kIisBoundStatusUpper):
        text = f"{var.name} <= {high:g}"
    elif which == int(highspy.IisBoundStatus.kIisBoundStatusBoxed):
        text = f"{low:g} <= {var.name} <= {high:g}"
    else:
        text = f"{var.name} >= {low:g}"
    if forced_by:
        more = " ..." if len(forced_by) > 5 else ""
        text += f" (every option of {', '.join(forced_by[:5])}{more} needs it)"
    return text


def conflicts(model: PlacementModel) -> list[str]:
    """The conflicting rows and bounds of ``model`` (built, infeasible), as sentences; one
    sentence saying the conflict is in whole numbers where the LP relaxation is feasible."""
    relaxed = solve_model(model, "highs", None, 0.0, relax=True)
    if relaxed.status is not SolveStatus.INFEASIBLE:
        return [WHOLE_NUMBERS_ONLY]
    highs = model.problem.solverModel
    highs.setOptionValue("iis_strategy", highspy.IisStrategy.kIisStrategyFromLp)
    status, iis = highs.getIis()
    if status == highspy.HighsStatus.kError or not iis.valid_:
        return ["HiGHS found the LP relaxation infeasible but gave no conflicting subset"]
    rows = list(model.problem._constraints.values())
    columns = model.problem.variables()
    forced = _forcing(model)
    out = [_row_text(rows[i]) for i in iis.row_index_]
    for i, which in zip(iis.col_index_, iis.col_bound_, strict=True):
        var = columns[i]
        out.append(_bound_text(var, int(which), forced.get(var.name, [])))
    if len(out) > MAX_SHOWN:
        out = [*out[:MAX_SHOWN], f"... and {len(out) - MAX_SHOWN} more"]
    return out

"""The two-stage stochastic program by sample average (its extensive form), for ``plan
--robust``: what to commit to, port and migrate decided once for every sample; where work runs
and what is paid on demand decided per sample.

Each sample's model is built as any plan's (``build_model`` with that sample's catalog), then
the sample models are joined into one problem: the first-stage variables (reservation units
``z_q``, savings-plan USD per hour ``Z_q``, ports and adoptions) become one shared variable
each, every other variable and row is the sample's own (renamed ``s<k>_...``). With sample
weights ``p_k`` (1/K) and the sample costs ``c_k(x)``:

.. math:: \\min\\ (1 - \\omega) \\sum_k p_k c_k + \\omega \\Big(\\eta + \\frac{1}{1 - \\alpha}
    \\sum_k p_k u_k\\Big)
    \\quad\\text{s.t.}\\quad u_k \\ge c_k - \\eta,\\ u_k \\ge 0

(the expected cost and, with weight ``omega``, the conditional value at risk at level
``alpha``: the mean of the costliest ``1 - alpha`` of the samples, Rockafellar and Uryasev's LP
form, as PyPSA writes it). A first-stage decision a sample's model has no variable for (no
option of that sample needs the port) is still paid in that sample, at its figures.

The second stage's integers (placements, flexible work's whole chips) may be relaxed
(``relax_recourse``): the first stage stays integer, and the stage chosen is then priced in
every sample with whole placements (``first_stage.hold_first_stage``), where it can only cost
more than the relaxation said.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pulp

from placement.formulating.first_stage import FirstStage, unmodelled_prices
from placement.formulating.model import PlacementModel
from placement.models.catalog import Catalog


@dataclass
class ExtensiveForm:
    """The joined problem, its shared first-stage variables by kind and key, and each sample's
    cost expression (in the shared variables)."""

    problem: pulp.LpProblem
    units: dict[str, pulp.LpVariable] = field(default_factory=dict)
    plan_usd: dict[str, pulp.LpVariable] = field(default_factory=dict)
    port: dict[tuple[str, str], pulp.LpVariable] = field(default_factory=dict)
    adopt: dict[str, pulp.LpVariable] = field(default_factory=dict)
    costs: list[pulp.LpAffineExpression] = field(default_factory=list)

    def first_stage(self) -> FirstStage:
        """The solved first stage."""
        return FirstStage(
            units={k: round(v.varValue or 0.0) for k, v in self.units.items() if v.varValue},
            plan_usd={
                k: float(v.varValue) for k, v in self.plan_usd.items() if (v.varValue or 0) > 1e-9
            },
            ported=frozenset(k for k, v in self.port.items() if (v.varValue or 0) > 0.5),
            adopted=frozenset(k for k, v in self.adopt.items() if (v.varValue or 0) > 0.5),
        )


def _shared(
    problem: pulp.LpProblem, pool: dict, key: object, var: pulp.LpVariable
) -> pulp.LpVariable:
    """The shared variable for ``key``: made from the first sample's, its bounds widened to
    hold every sample's (a forced port: lower bound 1; a product more units are useful in)."""
    if key not in pool:
        pool[key] = problem.add_variable(f"first_{var.name}", var.lowBound, var.upBound, var.cat)
    shared = pool[key]
    if (var.lowBound or 0) > (shared.lowBound or 0):
        shared.lowBound = var.lowBound
    if shared.upBound is not None and (var.upBound is None or var.upBound > shared.upBound):
        shared.upBound = var.upBound
    return shared


def join_first_stage(
    form: ExtensiveForm, model: PlacementModel
) -> dict[pulp.LpVariable, pulp.LpVariable]:
    """Each first-stage variable of ``model`` mapped to the form's shared one for its key
    (made on first sight)."""
    shared: dict[pulp.LpVariable, pulp.LpVariable] = {}
    for key, var in model.units.items():
        shared[var] = _shared(form.problem, form.units, key, var)
    for key, var in model.plan_usd.items():
        shared[var] = _shared(form.problem, form.plan_usd, key, var)
    for pair, var in model.port.items():
        shared[var] = _shared(form.problem, form.port, pair, var)
    for platform, var in model.adopt.items():
        shared[var] = _shared(form.problem, form.adopt, platform, var)
    return shared


def extensive_form(
    models: list[PlacementModel],
    catalogs: list[Catalog],
    cvar_alpha: float = 0.95,
    cvar_weight: float = 0.0,
    relax_recourse: bool = True,
) -> ExtensiveForm:
    """Join the sample models (built from the same inventory, one per catalog) into the
    extensive form (see the module's docstring)."""
    form = ExtensiveForm(pulp.LpProblem("robust", pulp.LpMinimize))
    mapping: list[dict[pulp.LpVariable, pulp.LpVariable]] = []
    for k, model in enumerate(models):
        shared = join_first_stage(form, model)
        mapping.append(shared)
        for var in model.problem.variables():
            if var in shared:
                continue
            var.name = f"s{k}_{var.name}"
            if relax_recourse and var.cat == pulp.LpInteger:
                var.cat = pulp.LpContinuous
        for name, row in model.problem._constraints.items():
            expr = pulp.LpAffineExpression([(shared.get(v, v), c) for v, c in row.items()])
            form.problem.addConstraint(
                pulp.LpConstraint(expr, row.sense, f"s{k}_{name}", -row.constant)
            )
    for k, (model, catalog) in enumerate(zip(models, catalogs, strict=True)):
        objective = model.problem.objective
        assert objective is not None  # build_model always sets one
        cost = pulp.LpAffineExpression(
            [(mapping[k].get(v, v), c) for v, c in objective.items()], constant=objective.constant
        )
        cost.addInPlace(absent_first_stage_cost(form, model, catalog))
        form.costs.append(cost)
    program_objective(form.problem, form.costs, cvar_alpha, cvar_weight)
    return form


def program_objective(
    problem: pulp.LpProblem,
    costs: list[pulp.LpAffineExpression],
    cvar_alpha: float,
    cvar_weight: float,
) -> None:
    """Set ``problem``'s objective to the program's over the sample costs ``c_k`` (equal
    weights): ``(1 - omega) sum_k p_k c_k``, plus with ``omega > 0`` the CVaR term and its rows
    ``u_k >= c_k - eta`` (see the module's docstring)."""
    weight = 1.0 / len(costs)
    expected = pulp.LpAffineExpression()
    for cost in costs:
        expected.addInPlace(cost * weight)
    objective = expected * (1 - cvar_weight)
    if cvar_weight > 0:
        eta = problem.add_variable("cvar_eta")
        tail = pulp.LpAffineExpression([(eta, 1.0)])
        for k, cost in enumerate(costs):
            excess = problem.add_variable(f"cvar_excess_s{k}", 0)
            problem.addConstraint(excess - cost + eta >= 0, f"cvar_excess_s{k}")
            tail.addInPlace(excess, weight / (1 - cvar_alpha))
        objective.addInPlace(tail * cvar_weight)
    problem.setObjective(objective)


def absent_first_stage_cost(
    form: ExtensiveForm, model: PlacementModel, catalog: Catalog
) -> pulp.LpAffineExpression:
    """The sample's cost of the form's first-stage decisions its own model has no variable
    for, at its catalog's prices."""
    prices = unmodelled_prices(model, catalog)
    expr = pulp.LpAffineExpression()
    for key, usd in prices.units.items():
        if key in form.units:
            expr.addInPlace(form.units[key], usd)
    for key, usd in prices.plan_usd.items():
        if key in form.plan_usd:
            expr.addInPlace(form.plan_usd[key], usd)
    for (family, platform), var in form.port.items():
        if (family, platform) not in model.port:
            expr.addInPlace(var, prices.port[platform])
    for platform, var in form.adopt.items():
        if platform not in model.adopt:
            expr.addInPlace(var, prices.adopt[platform])
    return expr

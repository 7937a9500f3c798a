"""A roadmap to start the search from: the greedy targets, reached as early as they can be.

Each workload targets its greedy accelerator (``placement.solving.greedy``: its cheapest, within
pins and the per-cycle porting cap). Every migration programme a target needs starts in month 1
and is ready after its lead; ports start once their programme is done, the most valuable first
(the monthly saving of the workloads waiting for them, at on-demand rates), at most
``porting_engineers`` at a time. A workload whose target would be ready after its deadline, or
not within the horizon, targets its interim place instead. The plan is priced by solving the
roadmap model with these decisions fixed (commitments left free). It is one of the starts the
whole MILP may search from (``placement.horizon.solve``), beside the stay-put plan and the
roadmap rounded from the LP relaxation (``rounded_readiness``), which is also here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd
import pulp

from placement.estimating import Estimates
from placement.horizon.formulation import ready_month
from placement.horizon.model import HorizonModel
from placement.horizon.timeline import month_of_week, start_months
from placement.models.catalog import Catalog
from placement.solving.fixing import fixed_values
from placement.solving.greedy import greedy_placement
from placement.solving.solver import solve_model

Start = dict[pulp.LpVariable, float]


def early_start(model: HorizonModel, estimates: Estimates, catalog: Catalog) -> Start | None:
    """The values of every binary of the early roadmap (see the module), or None if the
    greedy placement leaves a workload out."""
    rows = model.rows
    greedy = greedy_placement(estimates.options, catalog)
    chosen = rows[rows["accelerator"].eq(rows["workload"].map(greedy))]
    if chosen["workload"].nunique() != rows["workload"].nunique():
        return None
    ready_at = _schedule(model, chosen, estimates, catalog)
    starts = start_months(estimates.workloads)
    needed = estimates.workloads["needed_in_weeks"].astype(float)
    target: dict[int, str] = {}
    for w, acc, readiness, first in zip(
        chosen["workload"],
        chosen["accelerator"],
        chosen["readiness"],
        chosen["available"],
        strict=True,
    ):
        w = int(w)
        ready = 1 if readiness is None else ready_at.get(readiness)
        ready = None if ready is None else max(ready, int(first))
        deadline = model.months + 1
        if not pd.isna(needed.iat[w]):
            deadline = min(deadline, month_of_week(float(needed.iat[w]), catalog))
        if w not in model.interim:
            deadline = min(deadline, int(starts[w]))
        late = ready is None or ready > deadline
        target[w] = model.interim[w] if late and w in model.interim else str(acc)
    values = assign_values(model, target)
    used = {g for w, g in _targets(rows, target) if g is not None}
    for (s, k), var in model.adopt.items():
        if isinstance(var, pulp.LpVariable):
            done = ready_at.get(("adopt", s))
            values[var] = float(done is not None and k >= done and _needs(used, s))
    for (f, s, k), var in model.port.items():
        if isinstance(var, pulp.LpVariable):
            done = ready_at.get(("port", f, s))
            values[var] = float(done is not None and k >= done and ("port", f, s) in used)
    return values


def assign_values(model: HorizonModel, target: dict[int, str]) -> Start:
    """``x_{j,a}`` of a placement: 1 where the row's accelerator is its workload's target."""
    rows = model.rows
    return {
        var: float(target.get(int(rows.at[oid, "workload"])) == rows.at[oid, "accelerator"])
        for oid, var in model.assign.items()
    }


def stay_put_start(model: HorizonModel, stay: HorizonModel) -> Start:
    """The integer values of the stay-put plan in the roadmap model: every workload targets
    its interim place, nothing is migrated or ported, the same reservations are bought (HiGHS
    completes the continuous rest)."""
    where = dict(
        zip(stay.rows["workload"].astype(int), stay.rows["accelerator"].astype(str), strict=True)
    )
    start = assign_values(model, where)
    for ready in [*model.adopt.values(), *model.port.values()]:
        if isinstance(ready, pulp.LpVariable):
            start[ready] = 0.0
    for key, var in model.units.items():
        bought = stay.units.get(key)
        start[var] = float(round(bought.varValue or 0.0)) if bought is not None else 0.0
    return start


def _targets(rows: pd.DataFrame, target: dict[int, str]) -> list[tuple[int, tuple[str, ...]]]:
    """(workload, readiness group) of each workload's chosen row."""
    mine = rows[rows["accelerator"].eq(rows["workload"].map(target))]
    return list(zip(mine["workload"].astype(int), mine["readiness"], strict=True))


def _needs(used: set[tuple[str, ...]], platform: str) -> bool:
    """Whether a chosen target needs ``platform``'s programme (directly or through a port)."""
    return any(g[-1] == platform for g in used)


def _schedule(
    model: HorizonModel, chosen: pd.DataFrame, estimates: Estimates, catalog: Catalog
) -> dict[tuple[str, ...], int]:
    """The month each readiness group of the chosen rows is ready: programmes after their
    lead, ports by value within the engineers."""
    ready: dict[tuple[str, ...], int] = {}
    groups = {g for g in chosen["readiness"] if g is not None}
    for s, lead in model.lead_months.items():
        if any(g[-1] == s for g in groups):
            ready[("adopt", s)] = lead + 1
    options = estimates.options
    interim_cost = {
        (int(w), str(a)): float(c)
        for w, a, c in zip(
            options["workload"], options["accelerator"], options["monthly_cost_usd"], strict=True
        )
    }
    value: dict[tuple[str, ...], float] = {}
    for w, g, cost in zip(
        chosen["workload"],
        chosen["readiness"],
        chosen["monthly_cost_usd"],
        strict=True,
    ):
        if g is None or g[0] != "port":
            continue
        interim = model.interim.get(int(w))
        saving = interim_cost.get((int(w), interim), float(cost)) - float(cost) if interim else 0.0
        value[g] = value.get(g, 0.0) + saving
    order = [(g[1], g[2]) for g in sorted(value, key=lambda k: (-value[k], k))]
    programmes = {g[1]: month for g, month in ready.items() if g[0] == "adopt"}
    ready.update(queue_ports(model, order, {}, programmes, catalog.economics.porting_engineers))
    return ready


def queue_ports(
    model: HorizonModel,
    order: list[tuple[str, str]],
    earliest_start: dict[tuple[str, str], int],
    programme_ready: dict[str, int],
    engineers: int | None,
) -> dict[tuple[str, ...], int]:
    """The month each port (family, platform) of ``order`` is ready, taken in that order with
    at most ``engineers`` at once: each starts at its earliest start (month 1 if not given),
    once its platform's programme is done and an engineer is free; a port that would not be
    done within the horizon is not started."""
    lanes = [0] * (engineers if engineers is not None else len(order) or 1)
    ready: dict[tuple[str, ...], int] = {}
    for f, s in order:
        d = model.port_months[(f, s)]
        lane = min(range(len(lanes)), key=lambda i: lanes[i])
        begin = max(earliest_start.get((f, s), 1), programme_ready.get(s, 1), lanes[lane] + 1)
        if begin + d <= model.months + 1:
            lanes[lane] = begin + d - 1
            ready[("port", f, s)] = begin + d
    return ready


def rounded_readiness(model: HorizonModel, engineers: int | None) -> list[Start]:
    """Readiness binaries from a solved LP relaxation, two ways, the first usually best:

    * each programme and port ready from the first month the relaxation has it at least half
      done, the ports then queued by their start within the engineers (a rounding can put
      more at once than there are engineers);
    * under an engineer cap, where the relaxation shares engineers between ports, the ports
      it gives at least half a month of readiness in all, as early as they can be, the most
      months first (the order a rounding of shared months can get wrong).
    """
    programmes: dict[str, int] = {}
    for s in model.lead_months:
        month = ready_month(model, ("adopt", s), after_horizon=True)
        if month is not None:
            programmes[s] = month
    order: list[tuple[int, str, str]] = []
    for f, s in model.port_months:
        month = ready_month(model, ("port", f, s), after_horizon=True)
        if month is not None:
            order.append((month, f, s))
    starts = {(f, s): month - model.port_months[(f, s)] for month, f, s in order}
    # By start month: queued so, the ports keep their months wherever the engineers allow.
    by_start = sorted(starts, key=lambda port: (starts[port], port))
    ways = [queue_ports(model, by_start, starts, programmes, engineers)]
    if engineers is not None:
        months = {port: _months_ready(model, port) for port in model.port_months}
        wanted = sorted((p for p in months if months[p] >= 0.5), key=lambda p: (-months[p], p))
        ways.append(queue_ports(model, wanted, {}, programmes, engineers))
    return [_readiness_values(model, programmes, ports) for ports in ways]


def _readiness_values(
    model: HorizonModel, programmes: dict[str, int], ports: dict[tuple[str, ...], int]
) -> Start:
    """The readiness binaries of programmes and ports ready from the months given."""
    never = model.months + 2
    values: Start = {}
    for (s, k), var in model.adopt.items():
        if isinstance(var, pulp.LpVariable):
            values[var] = float(k >= programmes.get(s, never))
    for (f, s, k), var in model.port.items():
        if isinstance(var, pulp.LpVariable):
            values[var] = float(k >= ports.get(("port", f, s), never))
    return values


def _months_ready(model: HorizonModel, port: tuple[str, str]) -> float:
    """How many months of the horizon (and the month after) a port is ready at the solution."""
    return sum(model.ready_value(("port", *port), k) for k in range(1, model.months + 2))


@dataclass(frozen=True)
class Priced:
    """A roadmap priced with some binaries fixed: its cost, every integer value of it (the
    search's start), the solver's time, and each move's ``y_{j,k}`` (continuous, so not in
    the start: what, with the start, gives the roadmap's months back)."""

    cost: float
    start: Start
    time_s: float
    steps: Start = field(default_factory=dict)


def priced(
    model: HorizonModel,
    values: Start,
    solver: str,
    time_limit_s: float | None,
    gap: float,
    start: Start | None = None,
    target: float | None = None,
) -> Priced | None:
    """The roadmap's cost with ``values``' binaries fixed (the other decisions chosen, from
    ``start`` if given, stopping at the first costing no more than ``target`` if given), or
    None where it is infeasible. The model's variables keep the values of that plan."""
    with fixed_values(values):
        result = solve_model(model, solver, time_limit_s, gap, start=start, target=target)
    if result.objective is None:
        return None
    full = dict(values)
    for var in [*model.assign.values(), *readiness_variables(model)]:
        full[var] = float(round(var.varValue or 0.0))
    for var in model.units.values():
        full[var] = float(round(var.varValue or 0.0))
    steps = {y: y.varValue or 0.0 for on in model.on_target.values() for y in on.values()}
    return Priced(result.objective, full, result.time_s, steps)


def readiness_variables(model: HorizonModel) -> list[pulp.LpVariable]:
    """The binaries of the migration programmes and ports."""
    return [
        ready
        for ready in [*model.adopt.values(), *model.port.values()]
        if isinstance(ready, pulp.LpVariable)
    ]

"""The moves a plan recommends: workloads leaving the accelerator they run on today.

A move of workload j from the accelerator c it runs on today to the plan's accelerator t is
priced at the plan's prices, not at list prices, because commitments change what the team pays
wherever the workload runs:

- **Staying** costs ``S_j = sum_p (h_{j,p} / h_j) C_{j,c,p}``: its chip-hours split between on
  demand and each commitment option p in the shares that pay for it in the plan (its coverage
  ``h_{j,p}`` of its ``h_j`` chip-hours), each share at option p's monthly cost on c
  (``C_{j,c,p}``, the option's ``monthly_cost_usd``: all its chip-hours there at p's rate). The
  share paid on demand stays on demand; an option c does not offer (or cannot run it under) is
  paid on demand. So a workload 90% reserved on Trainium2 in the plan is priced staying on H100
  90% at the H100 reservation's rate: the same buying decision, where it runs today.
- **In the plan** it costs ``P_j``, its compute at the rates of what covered it (its
  assignment's ``monthly_cost_usd``). The monthly saving is ``s_j = S_j - P_j``.
- **The one-offs it triggers**: its switching one-off ``K``; its share of the port it needs
  (the port's one-off shared by the workloads that need that port, by chip-hours); its share
  of the migration programme of the platform it goes to, where the plan starts one (shared by
  the workloads the plan puts on that platform, by chip-hours: none runs there today, or the
  platform would be adopted, so all are moving onto it). The shares follow the showback's
  rules 3 and 4 (placement.analysing.showback), so the two reconcile: ``O_j = K + port share +
  migration share``.
- **The lead**: ``L_j`` whole months before the saving starts: the programme's lead where the
  plan starts one, then the port's support lag and porting weeks (at least a month), counted
  as a roadmap counts them (placement.analysing.durations); 0 where nothing is waited for.
  With the catalog's ``porting_engineers`` E, the plan's ports queue: taken in order of the
  monthly saving the moves needing them make at the plan's prices (most first; then by
  family and platform), each starts when an engineer is free and its platform's programme is
  done, and holds that engineer until it is ready (a list schedule over E engineers). A move's
  lead is the month its port is ready.
- **Payback**: ``L_j + O_j / s_j`` months where ``s_j > 0``; none otherwise.

The figure at list prices (on-demand option where it runs today minus where it goes) is kept
beside it. A move that saves nothing at the plan's prices, or costs more on demand, says why the
plan makes it anyway. A roadmap (``--horizon``) plans the queue as its MILP finds best and
replaces the lead by the months before it moves the workload.
"""

from __future__ import annotations

import heapq
from typing import Any

import pandas as pd

from placement.analysing.durations import port_months_of, programme_months
from placement.analysing.extract import Solution
from placement.analysing.showback import platform_users, port_users, spread
from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.models.catalog import Catalog
from placement.models.plan import RecommendedMove


def recommended_moves(
    options: pd.DataFrame,
    solution: Solution,
    workloads: pd.DataFrame,
    catalog: Catalog,
    paid: dict[int, dict[str, float]],
) -> list[RecommendedMove]:
    """One move per placed workload whose accelerator differs from its current one
    (``paid``: each workload's chip-hours by the pricing option that paid for them)."""
    if "current_accelerator" not in workloads or workloads["current_accelerator"].isna().all():
        return []
    current_of = workloads["current_accelerator"]
    moving = [
        row
        for row in solution.chosen.itertuples()
        if not pd.isna(current_of.at[row.workload])
        and current_of.at[row.workload] != row.accelerator
    ]
    costs = _option_figures(options, {int(row.workload) for row in moving})
    shares = _one_off_shares(solution, catalog)
    moves: list[RecommendedMove] = []
    ports: dict[int, tuple[str, str]] = {}
    for row in moving:
        port_share, migration_share = shares.get(int(row.workload), (0.0, 0.0))
        moves.append(
            _move(
                row,
                str(current_of.at[row.workload]),
                costs[int(row.workload)],
                paid.get(int(row.workload), {}),
                port_share,
                migration_share,
                catalog,
            )
        )
        if bool(row.needs_port):
            ports[len(moves) - 1] = (str(row.family), str(row.platform))
    return _queued(moves, ports, solution, catalog)


Figures = dict[str, Any]
"""An option's ``feasible``, ``monthly_cost_usd`` and ``reason``."""


def _option_figures(
    options: pd.DataFrame, workloads: set[int]
) -> dict[int, dict[tuple[str, str], Figures]]:
    """The figures of every option of ``workloads``, by workload and (accelerator, pricing):
    plain dicts, where a lookup in the option frame costs a millisecond a move."""
    rows = options[options["workload"].isin(workloads)]
    columns = ["workload", "accelerator", "pricing", "feasible", "monthly_cost_usd", "reason"]
    out: dict[int, dict[tuple[str, str], Figures]] = {}
    for w, acc, pricing, feasible, usd, reason in zip(
        *(rows[c].tolist() for c in columns), strict=True
    ):
        out.setdefault(int(w), {})[(str(acc), str(pricing))] = {
            "feasible": feasible,
            "monthly_cost_usd": usd,
            "reason": reason,
        }
    return out


def _queued(
    moves: list[RecommendedMove],
    ports: dict[int, tuple[str, str]],
    solution: Solution,
    catalog: Catalog,
) -> list[RecommendedMove]:
    """The moves with each port's lead counted behind the engineers (see the module):
    ``ports`` maps a move's position to the (family, platform) it waits for."""
    engineers = catalog.economics.porting_engineers
    if engineers is None or not ports:
        return moves
    saving: dict[tuple[str, str], float] = {}
    for p in solution.ported.itertuples():
        saving[(str(p.family), str(p.platform))] = 0.0
    for i, port in ports.items():
        saving[port] = saving.get(port, 0.0) + max(0.0, moves[i].monthly_saving_usd or 0.0)
    ready = port_queue(sorted(saving, key=lambda k: (-saving[k], k)), solution, catalog, engineers)
    return [with_lead(m, ready[ports[i]]) if i in ports else m for i, m in enumerate(moves)]


def port_queue(
    order: list[tuple[str, str]], solution: Solution, catalog: Catalog, engineers: int
) -> dict[tuple[str, str], int]:
    """The month each (family, platform) port is ready, taken in ``order`` by ``engineers``
    engineers (a list schedule): a port starts when its platform's programme is done (at
    once on a platform already adopted) and an engineer is free, and takes its support lag
    and porting weeks in whole months (``port_months``)."""
    free = [0] * max(1, engineers)  # the month each engineer is next free (a heap)
    ready: dict[tuple[str, str], int] = {}
    for family, platform in order:
        programme = programme_months(catalog, platform) if platform in solution.adopted else 0
        start = max(heapq.heappop(free), programme)
        ready[(family, platform)] = start + port_months_of(catalog, family, platform)
        heapq.heappush(free, ready[(family, platform)])
    return ready


def _move(
    row: Any,
    current: str,
    costs: dict[tuple[str, str], Figures],
    paid: dict[str, float],
    port_share: float,
    migration_share: float,
    catalog: Catalog,
) -> RecommendedMove:
    """The move of one chosen row (see the module for the figures)."""
    to = str(row.accelerator)
    on_demand_there = costs[(current, catalog.on_demand_option(current))]
    on_demand_here = costs[(to, catalog.on_demand_option(to))]
    plan_usd = float(row.compute_usd)
    switching = float(row.switching_usd)
    one_offs = switching + port_share + migration_share
    lead = lead_months(row, catalog)
    list_saving = stay = saving = None
    reason = ""
    if bool(on_demand_there["feasible"]):
        list_saving = round(
            float(on_demand_there["monthly_cost_usd"]) - float(on_demand_here["monthly_cost_usd"]),
            2,
        )
        there = {pricing: f for (acc, pricing), f in costs.items() if acc == current}
        stay = round(stay_monthly_usd(there, paid, current, to, catalog), 2)
        saving = round(stay - plan_usd, 2)
        committed = float(row.committed_chip_hours) / float(row.chip_hours)
        reason = _why_moved(current, to, stay, round(plan_usd, 2), list_saving, committed)
        if not reason:
            reason = _why_not_repaid(saving, one_offs, catalog)
    else:
        reason = f"cannot stay on {current}: {on_demand_there['reason']}"
    return RecommendedMove(
        workload_id=str(row.workload_id),
        from_accelerator=current,
        to_accelerator=to,
        switching_one_off_usd=round(switching, 2),
        monthly_saving_usd=saving,
        payback_months=payback_months(one_offs, saving, lead),
        reason=reason,
        list_monthly_saving_usd=list_saving,
        stay_monthly_usd=stay,
        plan_monthly_usd=round(plan_usd, 2),
        port_share_usd=round(port_share, 2),
        migration_share_usd=round(migration_share, 2),
        one_offs_usd=round(one_offs, 2),
        lead_months=lead,
    )


def stay_monthly_usd(
    there: dict[str, Figures], paid: dict[str, float], current: str, to: str, catalog: Catalog
) -> float:
    """``S = sum_p (h_p / h) C_{c,p}``: the workload's compute on ``current`` (``there``: its
    options on that accelerator, by pricing) in the mix of pricing options that pays for it in
    the plan (``paid``: chip-hours by option). Its on-demand share, and any share of an option
    ``current`` does not offer or cannot run it under, is priced at ``current``'s on-demand
    option."""
    on_demand = catalog.on_demand_option(current)
    total = sum(paid.values())
    if total <= 0:
        return float(there[on_demand]["monthly_cost_usd"])
    cost = 0.0
    for pricing, hours in paid.items():
        usable = (
            pricing != catalog.on_demand_option(to)
            and pricing in there
            and bool(there[pricing]["feasible"])
        )
        option = pricing if usable else on_demand
        cost += hours / total * float(there[option]["monthly_cost_usd"])
    return cost


def lead_months(row: Any, catalog: Catalog) -> int:
    """``L``: whole months before a move's saving starts. The programme's lead where the plan
    starts one for the platform it goes to (``needs_migration``), then, where it needs a port,
    the port's support lag and porting weeks, at least a month, as a roadmap counts them
    (``programme_months`` + ``port_months_of``)."""
    platform = str(row.platform)
    months = programme_months(catalog, platform) if bool(row.needs_migration) else 0
    if bool(row.needs_port):
        months += port_months_of(catalog, str(row.family), platform)
    return months


def payback_months(one_offs_usd: float, saving_usd: float | None, lead: int) -> float | None:
    """``L + O / s`` months where the move saves (``s > 0``); None where it does not."""
    if saving_usd is None or saving_usd <= 0:
        return None
    return round(lead + one_offs_usd / saving_usd, 2)


def with_lead(move: RecommendedMove, lead: int) -> RecommendedMove:
    """The move with a lead of ``lead`` months (a roadmap's: the months before it moves the
    workload, ports queued behind the engineers included) and its payback recounted."""
    payback = payback_months(move.one_offs_usd, move.monthly_saving_usd, lead)
    return move.model_copy(update={"lead_months": lead, "payback_months": payback})


def _one_off_shares(solution: Solution, catalog: Catalog) -> dict[int, tuple[float, float]]:
    """Each placed workload's share of the port it needs and of its platform's programme (one-
    offs, not amortized), by chip-hours among the workloads sharing each (showback rules 3, 4)."""
    port: dict[int, float] = {}
    migration: dict[int, float] = {}
    users = port_users(solution.chosen)
    for p in solution.ported.itertuples():
        spread(
            porting_one_off_usd(catalog, str(p.platform)),
            users.get((str(p.family), str(p.platform)), {}),
            port,
        )
    for platform in solution.adopted:
        spread(
            migration_one_off_usd(catalog, platform),
            platform_users(solution.chosen, platform),
            migration,
        )
    return {w: (port.get(w, 0.0), migration.get(w, 0.0)) for w in set(port) | set(migration)}


def _why_not_repaid(saving: float, one_offs: float, catalog: Catalog) -> str:
    """Why a move is made whose own saving does not repay the one-offs it triggers within the
    months the plan amortizes them over (``s A < O``): the plan's total is lower with it
    there, through what it shares with other workloads."""
    months = catalog.economics.amortization_months.value
    if saving * months >= one_offs:
        return ""
    return (
        f"its saving at the plan's prices (${saving:,.2f} a month) repays less than its "
        f"${one_offs:,.2f} one-offs over the {months} months they are amortized over; the plan "
        "moves it because its total is lower with it there: commitments and one-offs are "
        "shared with other workloads"
    )


def _why_moved(
    current: str, to: str, stay: float, plan: float, list_saving: float, committed_share: float
) -> str:
    """Why a move that saves nothing at the plan's prices, or costs more on demand, is made:
    what covers it where it goes, and the figures either way."""
    cover = (
        f"commitments held on {to} cover {committed_share:.0%} of its chip-hours"
        if committed_share > 0
        else f"it runs on demand on {to}"
    )
    if plan >= stay:
        why = (
            "those commitments are paid for whether used or not"
            if committed_share > 0
            else "commitments and one-offs are shared with other workloads"
        )
        return (
            f"at the plan's prices it costs ${plan - stay:,.2f} a month more on {to} "
            f"(${plan:,.2f} a month there; {cover}) than staying on {current} "
            f"(${stay:,.2f}); the plan moves it because its total is lower with it there: {why}"
        )
    if list_saving <= 0:
        return (
            f"at on-demand prices it costs ${-list_saving:,.2f} a month more on {to}; at the "
            f"plan's prices it saves ${stay - plan:,.2f} ({cover})"
        )
    return ""

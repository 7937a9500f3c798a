"""The plan: what the optimizer decided, why, and what it costs. Its JSON is a fixed interface."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from placement.models.numbers import usd

PlanStatus = Literal["optimal", "feasible", "infeasible", "no_solution"]
"""``optimal`` within the gap; ``feasible``: a plan, stopped (time limit) before proving the gap;
``infeasible``: the model is proven to have no plan; ``no_solution``: the solver stopped (time
limit, or a solver failure) before finding any plan, so nothing is known either way."""


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OptionEvaluation(_Out):
    """One (accelerator, pricing) option as evaluated for a workload, feasible or not."""

    accelerator: str
    pricing: str
    feasible: bool
    reason: str | None = None
    chips: int | None = None
    chip_hours: float | None = None
    monthly_cost_usd: float | None = None
    ttft_ms: float | None = Field(
        default=None,
        description="Time to first token of this deployment (ms): under its planned load for "
        "online serving, else unloaded.",
    )
    sizing: str | None = None
    replica_chips: int | None = Field(
        default=None, description="Chips one model replica uses (its parallel degree)."
    )
    replicas: int | None = Field(default=None, description="Replicas of the model deployed.")
    utilization: float | None = Field(
        default=None, description="Online serving: the share of capacity busy at peak."
    )
    ttft_unloaded_ms: float | None = Field(
        default=None, description="Time to first token on an idle replica (ms)."
    )


class Assignment(_Out):
    """Where one workload runs, what it uses and costs, and why that option won."""

    workload_id: str
    accelerator: str
    pricing: str
    chips: int
    chip_hours: float
    monthly_cost_usd: float
    why: str
    options: list[OptionEvaluation]
    extra: dict[str, Any] = Field(default_factory=dict)
    replica_chips: int | None = Field(
        default=None, description="Chips one model replica uses (its parallel degree)."
    )
    replicas: int | None = Field(default=None, description="Replicas of the model deployed.")
    instances: dict[str, int] = Field(
        default_factory=dict,
        description="The whole instances its chips are billed in, by instance type: the fewest "
        "chips of the catalog's instance_types that hold its replicas (a catalog without "
        "instance_types: its deployment units, named 'N-chip unit').",
    )
    coverage: dict[str, float] = Field(
        default_factory=dict,
        description="Its chip-hours by pricing option (on_demand and each commitment option); "
        "pricing is the one with the most.",
    )
    showback_monthly_usd: float | None = Field(
        default=None,
        description="Its share of the whole bill: compute at the rates of what covered it, "
        "plus its share of idle commitments, of its family's ports and of its platform's "
        "migration. The shares of all workloads sum to objective_monthly_usd.",
    )
    load_profile: str | None = Field(default=None, description="When it runs over the week.")
    run_hours: float | None = Field(
        default=None, description="Work: the hours a month it holds its chips."
    )
    current_accelerator: str | None = Field(
        default=None, description="Where it runs today (the inventory's current_accelerator)."
    )
    switching_one_off_usd: float = Field(
        default=0.0,
        description="One-off cost of moving it off its current accelerator; 0 if it stays.",
    )


class RecommendedMove(_Out):
    """A workload the plan moves off the accelerator it runs on today, and what that brings.

    The saving is at the plan's prices: what the workload would cost staying where it runs
    today, paid for in the same mix of on demand and commitments as the plan pays for it, minus
    what it costs in the plan. The payback counts every one-off the move needs (its switching,
    its share of the port and the migration programme it relies on) and the months before the
    saving starts (placement.analysing.moves)."""

    workload_id: str
    from_accelerator: str
    to_accelerator: str
    switching_one_off_usd: float
    monthly_saving_usd: float | None = Field(
        description="stay_monthly_usd - plan_monthly_usd: what the move saves a month at the "
        "plan's prices (before schema 1.8: at on-demand rates, now list_monthly_saving_usd); "
        "None where it cannot stay (see reason)."
    )
    payback_months: float | None = Field(
        default=None,
        description="lead_months + one_offs_usd / monthly_saving_usd: the months until the move "
        "has paid back its one-offs (before schema 1.8: switching_one_off_usd over the on-demand "
        "saving); None where nothing is saved.",
    )
    reason: str = Field(
        default="",
        description="Why it cannot stay, where its current place is infeasible; why the plan "
        "moves it, where it saves nothing at the plan's prices (or costs more on demand).",
    )
    list_monthly_saving_usd: float | None = Field(
        default=None,
        description="Its compute a month at on-demand rates where it runs today minus where it "
        "goes (the options' monthly_cost_usd); None where it cannot stay (schema 1.8).",
    )
    stay_monthly_usd: float | None = Field(
        default=None,
        description="Its compute a month where it runs today at the plan's prices: its "
        "chip-hours there split between on demand and each commitment option in the shares "
        "that pay for it in the plan (its coverage), each at that option's rate there; None "
        "where it cannot stay (schema 1.8).",
    )
    plan_monthly_usd: float = Field(
        default=0.0,
        description="Its compute a month in the plan (its assignment's monthly_cost_usd).",
    )
    port_share_usd: float = Field(
        default=0.0,
        description="Its share of the one-off of the port it needs where it goes: the port's "
        "cost shared by the workloads that need that port, by chip-hours (schema 1.8).",
    )
    migration_share_usd: float = Field(
        default=0.0,
        description="Its share of the migration programme of the platform it goes to, where the "
        "plan starts one: its cost shared by the workloads the plan puts on that platform (all "
        "moving onto it), by chip-hours (schema 1.8).",
    )
    one_offs_usd: float = Field(
        default=0.0,
        description="switching_one_off_usd + port_share_usd + migration_share_usd.",
    )
    lead_months: int = Field(
        default=0,
        description="Whole months before the saving starts: the migration programme's lead "
        "and the port's support lag and porting weeks, as a roadmap counts them; over a horizon, "
        "the months before the roadmap moves it (schema 1.8).",
    )


class Unplaced(_Out):
    """A workload that fits nowhere, with one reason per accelerator."""

    workload_id: str
    reasons: list[str]


class ReservedPurchase(_Out):
    """Reserved units bought for one (accelerator, reserved pricing option) pool."""

    accelerator: str
    pricing: str
    units: int
    chips_per_unit: int
    chips: int
    monthly_cost_usd: float
    capacity_chip_hours: float
    used_chip_hours: float
    utilization: float
    break_even_utilization: float | None = Field(
        default=None,
        description="The utilization above which the units cost less than on demand.",
    )


class Commitment(_Out):
    """A commitment product held: bought in this plan or already owned."""

    pricing: str
    kind: Literal["reserved", "savings_plan"]
    owned: bool
    accelerator: str | None = Field(description="A reservation's accelerator; None for a plan.")
    unit_chips: int | None = None
    units: int | None = None
    usd_per_hour: float | None = Field(default=None, description="A savings plan's commitment.")
    term_months: int | None = Field(default=None, description="Bought: the term signed.")
    months_left: int | None = Field(default=None, description="Owned: months still to run.")
    monthly_cost_usd: float
    capacity_chip_hours: float | None = Field(
        default=None, description="Reservations: chip-hours the units could cover a month."
    )
    used_chip_hours: float
    used_usd: float = Field(description="The covered chip-hours at the commitment's rates.")
    utilization: float = Field(description="used_usd / monthly_cost_usd.")
    coverage: float = Field(
        description="The share of the covered accelerators' chip-hours this commitment covers."
    )
    break_even_utilization: float | None = Field(
        default=None,
        description="The utilization at which it costs what the chip-hours it covers would "
        "cost on demand (its rate over the on-demand rate); above it, it saves.",
    )
    net_saving_monthly_usd: float | None = Field(
        default=None,
        description="Its covered chip-hours at on-demand rates minus its monthly cost.",
    )


class FinOps(_Out):
    """The commitment measures FinOps teams track, for the whole plan."""

    on_demand_equivalent_usd: float = Field(
        description="All compute chip-hours at on-demand rates."
    )
    compute_usd: float = Field(description="What compute costs: on demand plus commitments.")
    commitment_coverage: float = Field(
        description="Chip-hours covered by commitments / all chip-hours."
    )
    commitment_utilization: float = Field(
        description="Commitment value used / commitment cost (1 when nothing is idle)."
    )
    unused_commitment_usd: float = Field(description="Commitment cost left idle this month.")
    effective_savings_rate: float = Field(description="1 - compute_usd / on_demand_equivalent_usd.")


class SliceUse(_Out):
    """Chips on one accelerator in one time slice of the month (the plan's per-slice check)."""

    accelerator: str
    slice: str
    hours: float = Field(description="Hours of the month this slice stands for.")
    serving_chips: float
    work_chips: float
    flexible_chips: float = Field(description="Of the work: placed here by the optimizer.")
    committed_chips: float
    steady_committed_chips: float = Field(
        default=0.0,
        description=(
            "Of the committed chips: those covering serving and work that runs all the hours "
            "its profile offers. What is left of the commitments, net of these, is what a "
            "part-month job can have covered while it runs."
        ),
    )
    on_demand_chips: float
    covered_by: dict[str, float] = Field(
        default_factory=dict, description="Chips covered, by commitment product."
    )
    limit_chips: int | None = None


class PortedFamily(_Out):
    """A model family ported to a software platform in this plan."""

    family: str
    platform: str
    porting_weeks: float
    one_off_usd: float
    amortized_monthly_usd: float
    workloads: list[str]


class Migration(_Out):
    """A platform migration programme the plan starts."""

    platform: str
    one_off_usd: float
    amortized_monthly_usd: float
    lead_weeks: float


class CostBreakdown(_Out):
    """Monthly cost by component; the four add up to the objective."""

    on_demand_usd: float
    reserved_usd: float
    porting_amortized_usd: float
    migration_amortized_usd: float
    switching_amortized_usd: float = Field(
        default=0.0,
        description="One-off costs of moving workloads off their current accelerators, "
        "amortized like porting.",
    )

    @property
    def total_usd(self) -> float:
        return (
            self.on_demand_usd
            + self.reserved_usd
            + self.porting_amortized_usd
            + self.migration_amortized_usd
            + self.switching_amortized_usd
        )


class Baselines(_Out):
    """Reference plans the optimum is compared with (monthly USD; None where undefined)."""

    all_h100_on_demand_usd: float | None
    all_h100_optimal_usd: float | None
    greedy_usd: float | None
    savings_vs_all_h100_on_demand_usd: float | None = None
    savings_vs_all_h100_optimal_usd: float | None = None
    savings_vs_greedy_usd: float | None = None


class SolverInfo(_Out):
    """Which solver ran, how long, and the relative MIP gap it proved."""

    name: str
    time_s: float
    gap: float | None
    termination: str = ""
    relaxed_objective_usd: float | None = Field(
        default=None,
        description="Where cover was re-solved in whole chips: the first solve's objective, "
        "a lower bound of the whole-chip optimum (the plan is within objective minus this of "
        "it); None where no re-solve was needed.",
    )


class RoadmapMonth(_Out):
    """One month of a roadmap: what runs where, what starts and ends, and what it costs."""

    month: int
    cost_usd: float = Field(description="The plan's cost this month (the components' sum).")
    on_demand_usd: float
    commitments_usd: float = Field(description="Commitments held this month, bought or owned.")
    porting_usd: float = Field(description="Ports starting this month (their one-off).")
    migration_usd: float = Field(description="Migration programmes starting this month.")
    switching_usd: float = Field(description="Workloads moving this month (their one-off).")
    stay_cost_usd: float | None = Field(
        description="What staying where the team is costs this month (every workload on its "
        "interim place, commitments chosen as well as they can be)."
    )
    saving_usd: float | None = Field(description="stay_cost_usd - cost_usd.")
    cumulative_saving_usd: float | None = Field(description="The running total of saving_usd.")
    workloads_by_accelerator: dict[str, int] = Field(
        description="Workloads running this month, by accelerator."
    )
    moves: list[str] = Field(description="Workloads that reach their target this month.")
    ports_in_progress: list[str] = Field(description="family/platform ports under way.")
    ports_ready: list[str] = Field(description="family/platform ports usable from this month.")
    migrations_in_progress: list[str]
    migrations_ready: list[str] = Field(description="Platforms usable from this month.")
    commitments_bought: list[str] = Field(description="Purchases this month, as product x amount.")
    commitments_expiring: list[str] = Field(
        description="Commitments (owned or bought) whose last month this is."
    )


class RoadmapWorkload(_Out):
    """Where one workload runs over the horizon."""

    workload_id: str
    interim_accelerator: str | None = Field(
        description="Where it runs until it moves to its target, once that is ready "
        "(today's place for a workload that runs somewhere)."
    )
    target_accelerator: str
    ready_month: int | None = Field(
        description="The month it runs on its target from; None: not within the horizon."
    )
    current_accelerator: str | None = None


class RoadmapStep(_Out):
    """A port or a migration programme: when it starts, when it is usable, what it costs."""

    item: str = Field(description="port or migration")
    platform: str
    family: str | None = None
    start_month: int
    ready_month: int = Field(description="Usable from the start of this month.")
    one_off_usd: float


class RoadmapPurchase(_Out):
    """A commitment bought in a month of the horizon."""

    month: int
    product: str
    pricing: str
    accelerator: str | None
    units: int | None
    usd_per_hour: float | None
    term_months: int
    monthly_usd: float
    after_horizon_usd: float = Field(description="Its payments after the horizon's last month.")


class Roadmap(_Out):
    """The plan month by month over a horizon (``--horizon N``)."""

    horizon_months: int
    total_usd: float = Field(
        description="The horizon's cost: every month's, plus the commitment payments after it "
        "that are charged (after_horizon_charged_usd)."
    )
    objective_monthly_usd: float = Field(description="total_usd / horizon_months.")
    changes_nothing: bool = Field(
        default=False,
        description="No workload moves and nothing is ported or migrated: the roadmap is a way "
        "of staying put, compared with itself (no saving, no payback).",
    )
    after_horizon_usd: float = Field(
        description="Commitment payments that fall after the horizon's last month."
    )
    after_horizon_charged_usd: float = Field(
        0.0,
        description="The part of after_horizon_usd in total_usd: payments of commitments "
        "no workload running on after the horizon could use (they would lie idle).",
    )
    stay_total_usd: float | None = Field(
        description="What staying where the team is costs over the horizon, on the same basis."
    )
    stay_monthly_usd: float | None = Field(
        default=None,
        description="stay_total_usd / horizon_months: staying where the team is, a month over "
        "the same months as objective_monthly_usd (schema 1.8).",
    )
    all_h100_on_demand_total_usd: float | None = Field(
        default=None,
        description="Every workload on the catalog's baseline option (H100 on demand) over the "
        "horizon, with the same months and growth, nothing bought (owned commitments still "
        "cost and cover); None where some workload cannot run there (schema 1.8).",
    )
    all_h100_on_demand_monthly_usd: float | None = Field(
        default=None,
        description="all_h100_on_demand_total_usd / horizon_months (schema 1.8).",
    )
    end_state_monthly_usd: float | None = Field(
        default=None,
        description="What a month of the end state costs (the steady-state plan of where the "
        "roadmap leaves every workload, with commitments and one-offs as the steady state "
        "counts them): what the plan's baselines are compared with (schema 1.8).",
    )
    payback_month: int | None = Field(
        description="The first month from which the running saving against staying stays "
        "positive; None if it never is."
    )
    first_year_net_usd: float | None = Field(
        description="The running saving against staying after month 12 (or the horizon's "
        "last month, if shorter)."
    )
    steady_state_month: int | None = Field(
        description="The first month from which every workload runs on its target; None if "
        "some never do within the horizon."
    )
    months: list[RoadmapMonth]
    workloads: list[RoadmapWorkload]
    steps: list[RoadmapStep]
    purchases: list[RoadmapPurchase]


class InstanceRate(_Out):
    """One instance type an accelerator is sold in and its on-demand price per instance-hour."""

    name: str
    chips: int
    on_demand_usd_per_hour: float


class AcceleratorRate(_Out):
    """What one chip of an accelerator is and what the plan paid for it on demand, so that a
    price in the plan is never read in the wrong unit."""

    accelerator: str
    chip: str | None = Field(
        description="What one chip is, as the catalog says (None: not stated)."
    )
    on_demand_usd_per_chip_hour: float
    instance_types: list[InstanceRate] = Field(default_factory=list)


SCHEMA_VERSION = "1.12"
"""The plan JSON's schema version: the minor number grows when keys are added (keys are never
removed or renamed). 1.0 was the core plan; 1.1 added ``schema_version``, ``run`` and the status
``no_solution``; 1.2 the deployment shape; 1.3 commitments, FinOps measures, slices, coverage
and showback; 1.4 ``run.scenario_file``; 1.5 where workloads run today
(``current_accelerator``, ``switching_one_off_usd`` per assignment), ``moves``,
``switching_amortized_usd``, ``run.horizon_months`` and ``roadmap``; 1.6
``roadmap.after_horizon_charged_usd``, ``break_even_utilization`` and
``net_saving_monthly_usd`` per commitment (utilisation counted owned first slice by slice);
1.7 ``steady_committed_chips`` per slice (part-month work is covered net of it) and
``roadmap.changes_nothing``; 1.8 moves priced at the plan's prices (``monthly_saving_usd`` and
``payback_months`` take that meaning; ``list_monthly_saving_usd``, ``stay_monthly_usd``,
``plan_monthly_usd``, the one-offs a move triggers and its ``lead_months`` added) and the
roadmap's like-for-like comparisons (``stay_monthly_usd``, ``all_h100_on_demand_total_usd``,
``all_h100_on_demand_monthly_usd``, ``end_state_monthly_usd``); 1.9 ``rates``: what a chip is
and its on-demand price per chip-hour and per instance-hour, per accelerator; 1.10
``instances`` per assignment: the whole instances its chips are billed in, and
``solver.relaxed_objective_usd`` (cover in whole chips); 1.11 ``alternatives`` and ``robust``;
1.12 ``conflicts``: why no plan exists."""


class InputInfo(_Out):
    """The inventory a plan was made from."""

    path: str = Field(description="As given on the command line ('<stdin>', '<DataFrame>').")
    format: str | None = Field(description="csv, xlsx, json, yaml or parquet; None in memory.")
    sheet: str | None = Field(default=None, description="The workbook sheet read (xlsx).")
    sha256: str | None = Field(description="Of the bytes read; None for data given in memory.")
    workloads: int


class CatalogInfo(_Out):
    """The catalog a plan was made with."""

    name: str
    path: str | None = Field(description="The catalog file; None for the packaged default.")
    via: str = Field(description="How it was chosen: default, --catalog, PLACEMENT_CATALOG, api.")
    sha256: str | None = Field(description="Of the catalog file's bytes (or the default's).")
    effective_sha256: str = Field(
        description="Of the validated catalog after overrides: equal means the same figures."
    )


class SolverOptionsInfo(_Out):
    """What the solver was asked for."""

    solver: str
    time_limit_s: float | None
    gap: float


class ScenarioInfo(_Out):
    """The scenario file a plan applied."""

    name: str
    description: str
    path: str
    sha256: str = Field(description="Of the scenario file's bytes.")
    catalog_settings: list[str] = Field(description="Its catalog settings, path=value.")
    inventory_changes: int = Field(description="How many inventory changes it made.")


class RunInfo(_Out):
    """Where a plan came from: enough to tell two plans apart and to re-run one."""

    tool_version: str
    started_at: str = Field(description="ISO 8601, UTC, to the second.")
    input: InputInfo
    catalog: CatalogInfo
    overrides: list[str] = Field(description="The --set overrides, in the order applied.")
    scenario: str | None = Field(default=None, description="The scenario applied, if any.")
    horizon_months: int | None = Field(
        default=None, description="The horizon planned (--horizon), if any (schema 1.5)."
    )
    scenario_file: ScenarioInfo | None = Field(
        default=None, description="The scenario file applied, if any (added in schema 1.4)."
    )
    solver_options: SolverOptionsInfo
    libraries: dict[str, str] = Field(description="Versions of Python and the solver stack.")


AlternativeObjective = Literal[
    "fewest_ported_families", "least_trainium", "least_committed", "no_migration"
]


class Alternative(_Out):
    """A plan within the slack asked of the optimum that minimises something else
    (``plan --alternatives SLACK``): the fewest families ported, the least work on Trainium2,
    the least committed, or no migration; then, among those, the cheapest."""

    objective: AlternativeObjective
    description: str = Field(description="What it minimises, in words.")
    monthly_cost_usd: float
    within: float = Field(description="Its cost over the plan's, minus 1 (0.004 = 0.4% dearer).")
    extra_cost_usd: float = Field(description="Its cost minus the plan's, USD a month.")
    measure: float = Field(description="The value of what it minimises (see measure_unit).")
    measure_unit: str
    plan_measure: float = Field(description="The same measure in the plan itself.")
    status: PlanStatus
    assignments: list[Assignment]
    unplaced: list[Unplaced] = Field(default_factory=list)
    reserved_purchases: list[ReservedPurchase]
    ported_families: list[PortedFamily]
    migrations: list[Migration]
    commitments: list[Commitment]
    cost_breakdown: CostBreakdown
    finops: FinOps | None = None
    slices: list[SliceUse] = Field(default_factory=list)

    def as_plan(self, plan: Plan) -> Plan:
        """The alternative as a whole plan (the plan it is an alternative to, its decisions
        replaced), e.g. to re-check it with ``check_plan``."""
        return plan.model_copy(
            update={
                "status": self.status,
                "objective_monthly_usd": self.monthly_cost_usd,
                "cost_breakdown": self.cost_breakdown,
                "assignments": self.assignments,
                "unplaced": self.unplaced,
                "reserved_purchases": self.reserved_purchases,
                "ported_families": self.ported_families,
                "migrations": self.migrations,
                "commitments": self.commitments,
                "finops": self.finops,
                "slices": self.slices,
                "moves": [],
                "alternatives": None,
            }
        )


class OutOfSample(_Out):
    """The robust plan against the point plan on fresh samples (not those it was chosen on)."""

    samples: int
    robust_mean_usd: float | None
    point_plan_mean_usd: float | None
    gap_mean_usd: float | None = Field(
        description="Robust minus point plan, mean over the fresh samples (negative: it saves)."
    )
    gap_ci_low_usd: float | None
    gap_ci_high_usd: float | None
    confidence: float = Field(description="Of the interval (normal approximation).")


class RobustReport(_Out):
    """``plan --robust``: a first stage chosen for every sample at once, against the point
    plan's, each held fixed and priced in every sample."""

    samples: int
    seed: int
    failed_samples: int
    cvar_alpha: float | None
    cvar_weight: float
    chosen: Literal["stochastic program", "point plan"] = Field(
        description="Which first stage won on the samples: the stochastic program's, or the "
        "point plan's where it prices lower with whole placements."
    )
    expected_cost_usd: float | None = Field(description="The robust plan held, mean over samples.")
    point_plan_expected_cost_usd: float | None
    objective_usd: float | None = Field(
        description="What the choice minimised over the samples, the robust plan held: the "
        "expected cost, or (1 - cvar_weight) x expected + cvar_weight x CVaR."
    )
    point_plan_objective_usd: float | None
    value_of_stochastic_solution_usd: float | None = Field(
        description="The point plan's objective minus the robust plan's, both held over the "
        "same samples (the expected cost without --cvar): never negative."
    )
    perfect_information_cost_usd: float | None = Field(
        description="Mean of each sample's own optimum: the cost of knowing the figures."
    )
    expected_value_of_perfect_information_usd: float | None
    cvar_usd: float | None = Field(description="The robust plan's CVaR at cvar_alpha.")
    point_plan_cvar_usd: float | None
    tail_premium: float | None = Field(
        description="Expected cost paid per dollar of CVaR removed against the point plan "
        "(None where the tail does not shrink)."
    )
    program_objective_usd: float | None = Field(
        description="The stochastic program's objective (placements relaxed): a bound the "
        "priced figures are compared with."
    )
    held_infeasible_samples: int
    out_of_sample: OutOfSample | None


class Plan(_Out):
    """The result of ``placement plan``: the brief's plan JSON."""

    schema_version: str = SCHEMA_VERSION
    status: PlanStatus
    objective_monthly_usd: float | None
    cost_breakdown: CostBreakdown
    assignments: list[Assignment]
    unplaced: list[Unplaced]
    reserved_purchases: list[ReservedPurchase]
    ported_families: list[PortedFamily]
    migrations: list[Migration] = Field(default_factory=list)
    commitments: list[Commitment] = Field(default_factory=list)
    finops: FinOps | None = None
    slices: list[SliceUse] = Field(default_factory=list)
    rates: list[AcceleratorRate] = Field(
        default_factory=list,
        description="Per accelerator: what one chip is and the on-demand price the plan used, "
        "per chip-hour and per instance-hour of each instance type the catalog lists.",
    )
    moves: list[RecommendedMove] = Field(
        default_factory=list,
        description="Workloads moved off the accelerator they run on today.",
    )
    roadmap: Roadmap | None = Field(
        default=None,
        description="The plan month by month, when a horizon is planned (--horizon N); the "
        "plan's objective and cost breakdown are then the horizon's monthly averages.",
    )
    baselines: Baselines
    solver: SolverInfo
    message: str = ""
    run: RunInfo | None = Field(default=None, description="Provenance; None only if unknown.")
    alternatives: list[Alternative] | None = Field(
        default=None,
        description="Near-optimal plans (plan --alternatives SLACK), one per objective found "
        "within the slack; None when not asked.",
    )
    robust: RobustReport | None = Field(
        default=None,
        description="plan --robust: the plan's commitments, ports and migration chosen for "
        "sampled figures at once, and how it compares with the point plan; None when not asked.",
    )
    conflicts: list[str] | None = Field(
        default=None,
        description="Where no plan exists (status infeasible): a smallest set of the model's "
        "rows and bounds that cannot all hold (HiGHS's IIS of the LP relaxation), each as the "
        "model writes it, or why there is none; None otherwise.",
    )

    def gap_asked(self, default: float) -> float:
        """The relative gap the plan was solved to, as its provenance records it (``default``
        where the plan does not say)."""
        return self.run.solver_options.gap if self.run is not None else default

    def summary(self) -> str:
        """The plan in one line: status, money and what it decides."""
        return (
            f"{self.status}, {usd(self.objective_monthly_usd)} a month, "
            f"{len(self.assignments):,} placed, {len(self.unplaced):,} unplaced, "
            f"{len(self.ported_families)} ports, {len(self.migrations)} migrations"
        )

    def __repr__(self) -> str:
        # Every field would be thousands of lines at fleet scale: model_dump() has them.
        return f"Plan({self.summary()})"

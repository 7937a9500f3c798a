"""The catalog: price book, hardware model and workload model, as pydantic models.

Every uncertain figure is a range (``low``, ``high``, ``point``, ``source``). Field names carry
their unit (``_usd``, ``_usd_per_chip_hour``, ``_gb``, ``_weeks``, ``_ms``...). Accelerators,
pricing options, software platforms and model families are open sets keyed by name: adding an
H200, a Trainium3 or a 3-year term is a catalog edit, never a code change.

Every number is checked against what it means: each numeric field is declared with a
:class:`Bound` (money ``>= 0``, a discount between 0 and 1, memory ``> 0``...), directly
(``Annotated[float, MONEY]``) or through its range or fixed type (``MoneyRange``,
``FixedMemory``). NaN, infinities and ``true``/``false`` are never numbers here. The table of
bounds is in docs/inputs.md ("Conventions"); tests/test_catalog_validation.py fails when a
numeric field has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    model_validator,
)
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from placement.models.bounds import Bound

ModelClass = Literal["decoder", "encoder", "encoder_decoder"]
FamilySupport = Literal["supported", "pending"]
FeatureSupport = Literal["supported", "slower", "unsupported"]
# How a range's figure is drawn by ``placement risk``: evenly between low and high, or most
# often at the point and ever less often towards low and high.
Distribution = Literal["uniform", "triangular"]
LinkSense = Literal["with", "against"]


# A month has at most 31 x 24 hours; more "hours per month" than that cannot be.
HOURS_IN_LONGEST_MONTH = 31 * 24

MAX_USD_PER_HOUR = 1_000_000
"""The most a money figure per hour may be (a price per chip-hour or per instance-hour, a savings
plan's hourly commitment or its cap, the plausible price's limit): a million dollars an hour.
The dearest chip-hour costs about $12, the dearest instance-hour about $100, and a whole
estate's savings plan commits thousands of dollars an hour; more is a unit mistake (a yearly
figure, cents). It also keeps the solver's costs finite: a commitment unit costs its price
times a month's hours times its chips, and prices from 2 x 10^15 per chip-hour made HiGHS
take such costs for infinite and PuLP fail reading its solution (an IndexError)."""
MAX_USD = 1_000_000_000_000_000
"""The most any other money figure may be (a one-off migration, a week of porting, a workload's
switch, a month of a commitment): a quadrillion dollars, about ten times the world's yearly
output. Beyond it is no longer money but a unit mistake or an overflow (10^308); a figure
meant to forbid something (a migration at $10^12) stays within it. Such a figure enters the
model once (a one-off over its amortization months), far below the 10^20 at which HiGHS takes
a cost for infinite (it solved with one-offs up to 10^19)."""
MONEY = Bound(
    "money (USD)",
    minimum=0,
    ceiling=MAX_USD,
    why="a quadrillion dollars: more is a unit mistake, not money",
)
MONEY_PER_HOUR = Bound(
    "money (USD)",
    minimum=0,
    ceiling=MAX_USD_PER_HOUR,
    why="a million dollars an hour: more is a unit mistake, and a cost the solver takes for "
    "infinite",
)
# Share of the on-demand price taken off: 0 is none, 1 makes it free; more would pay the buyer.
DISCOUNT = Bound("a discount", minimum=0, maximum=1)
# Share of memory or reserved chip-hours that can be used; none usable would divide by zero.
USABLE_FRACTION = Bound("a usable fraction", minimum=0, maximum=1, minimum_open=True)
# Memory added to the weights (KV cache, activations, optimizer state). No upper limit: a long
# context's KV cache can outgrow the weights, and a stateless optimizer adds nothing.
OVERHEAD = Bound("a memory overhead", minimum=0)
MEMORY = Bound("memory", minimum=0, minimum_open=True)
# Tokens per chip-hour, speed vs the reference, serving efficiency: work must get done.
MIN_THROUGHPUT = 1e-6
"""The least a throughput figure (a ratio to the H100, tokens a second) or a slowdown factor may
be: a millionth of the reference is no accelerator, and the chips and hours a workload needs
are divided by it (1e-300 overflowed the estimates)."""
THROUGHPUT = Bound(
    "a throughput figure",
    minimum=0,
    minimum_open=True,
    floor=MIN_THROUGHPUT,
    why="a millionth of the reference: less is a unit mistake, and overflows what is sized by it",
)
# A feature that is "slower" keeps this share of its throughput.
SLOWDOWN = Bound(
    "a slowdown factor",
    minimum=0,
    maximum=1,
    minimum_open=True,
    floor=MIN_THROUGHPUT,
    why="a millionth of full speed: less is a unit mistake, and overflows what is sized by it",
)
WEEKS = Bound("weeks", minimum=0)
# Times to first token, in ms or as a ratio to the reference's.
LATENCY = Bound("a latency", minimum=0, minimum_open=True)
# Peak traffic is never below mean traffic; a hundredfold peak is a spike, not a load (the
# inventory's ``peak_to_mean`` column has the same bound), and a ratio of 10^300 made the chips
# a workload needs overflow.
PEAK_TO_MEAN = Bound("a peak-to-mean ratio", minimum=1, maximum=100)
# The correlation of linked figures: positive (a shared cause), at most 1 (lockstep).
CORRELATION = Bound("a correlation", minimum=0, maximum=1, minimum_open=True)
# TTFT grows as params^e and shrinks as 1 / chips^e; a negative exponent would reverse either.
SCALING_EXPONENT = Bound("a scaling exponent", minimum=0)
# Tokens per chip-hour never grow with model size outside the measured sizes.
SIZE_ELASTICITY = Bound("a size elasticity", maximum=0)
MODEL_SIZE = Bound("a model size (billions of parameters)", minimum=0, minimum_open=True)
CHIPS = Bound("a chip count", minimum=1)
# A context length in tokens; a model sees at least one token.
TOKENS = Bound("a number of tokens", minimum=1)
# How many times slower attention runs without a kernel (flash attention): at least as fast is 1.
ATTENTION_SLOWDOWN = Bound("an attention slowdown", minimum=1)
# A share of a whole (of a step's time, of the parameters, of a full fine-tune's compute).
SHARE = Bound("a share", minimum=0, maximum=1, minimum_open=True)
MONTHS = Bound("months", minimum=1)
# How busy a load profile is in one hour, as a share of its peak.
LOAD_LEVEL = Bound("a load level", minimum=0, maximum=1)
# A limit on chips in use or units bought: a quota of zero is a real quota (Trainium2 starts so).
LIMIT = Bound("a limit", minimum=0)
# Units of a commitment already owned: an owned commitment holds at least one.
UNITS = Bound("a number of units", minimum=1)
HOURS_PER_MONTH = Bound(
    "hours per month", minimum=0, maximum=HOURS_IN_LONGEST_MONTH, minimum_open=True
)

BOUNDS = (
    MONEY,
    MONEY_PER_HOUR,
    DISCOUNT,
    USABLE_FRACTION,
    OVERHEAD,
    MEMORY,
    THROUGHPUT,
    SLOWDOWN,
    WEEKS,
    LATENCY,
    PEAK_TO_MEAN,
    SCALING_EXPONENT,
    SIZE_ELASTICITY,
    MODEL_SIZE,
    CHIPS,
    TOKENS,
    ATTENTION_SLOWDOWN,
    SHARE,
    MONTHS,
    LOAD_LEVEL,
    LIMIT,
    UNITS,
    HOURS_PER_MONTH,
)
"""Every kind of catalog number (docs/inputs.md tabulates them)."""

Money = Annotated[float, MONEY]
MoneyPerHour = Annotated[float, MONEY_PER_HOUR]
Weeks = Annotated[float, WEEKS]
Memory = Annotated[float, MEMORY]
ModelSize = Annotated[float, MODEL_SIZE]
Chips = Annotated[int, CHIPS]
Months = Annotated[int, MONTHS]
LoadLevel = Annotated[float, LOAD_LEVEL]
Limit = Annotated[int, LIMIT]
Units = Annotated[int, UNITS]

# Dotted numbers: 2.20, 2.17, 2.20.1 (compared part by part, so 2.20 is later than 2.9).
DOTTED_VERSION = re.compile(r"\d+(\.\d+)+")


@dataclass(frozen=True)
class VersionText:
    """A software version: text of dotted numbers (``"2.20"``), never a YAML number (2.20
    unquoted reads as 2.2, which compares as older than 2.18)."""

    def _text(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise PydanticCustomError(
                "catalog_version",
                'a version must be text, quoted in YAML ("2.20"): unquoted it is a number',
            )
        return value

    def _dotted(self, value: str) -> str:
        if not DOTTED_VERSION.fullmatch(value):
            raise PydanticCustomError(
                "catalog_version", "a version must be dotted numbers, such as 2.20"
            )
        return value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        dotted = core_schema.no_info_after_validator_function(self._dotted, handler(source))
        return core_schema.no_info_before_validator_function(self._text, dotted)


SdkVersion = Annotated[str, VersionText()]

N = TypeVar("N", bound=float)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Range(_Strict, Generic[N]):
    """An uncertain figure: ``low <= point <= high``; ``point`` defaults to the midpoint.

    The catalog uses its bounded kinds (``MoneyRange``...): ``Range[Money]`` checks every one
    of ``low``, ``high`` and ``point`` against the bound.
    """

    low: N
    high: N
    point: N | None = None
    source: str = Field(min_length=1)
    # How risk samples the figure; None: the catalog's uncertainty.default_distribution.
    distribution: Distribution | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Range[N]:
        if self.low > self.high:
            raise ValueError(f"low ({self.low}) must not exceed high ({self.high})")
        if self.point is None:
            object.__setattr__(self, "point", (self.low + self.high) / 2)
        elif not self.low <= self.point <= self.high:
            raise ValueError(f"point {self.point} must lie within [{self.low}, {self.high}]")
        return self

    @property
    def value(self) -> float:
        """The point estimate the model uses."""
        assert self.point is not None  # set by the validator; narrows the type for mypy
        return self.point


class MoneyRange(Range[Money]):
    """Money in USD: ``>= 0`` and at most :data:`MAX_USD`."""


class HourlyMoneyRange(Range[MoneyPerHour]):
    """Money in USD per hour: ``>= 0`` and at most :data:`MAX_USD_PER_HOUR`."""


class DiscountRange(Range[Annotated[float, DISCOUNT]]):
    """A discount vs the on-demand price: between 0 and 1."""


class UsableFractionRange(Range[Annotated[float, USABLE_FRACTION]]):
    """The usable share of memory or reserved chip-hours: ``> 0`` and ``<= 1``."""


class OverheadRange(Range[Annotated[float, OVERHEAD]]):
    """Memory added to the weights (a fraction, or bytes per parameter): ``>= 0``."""


class ThroughputRange(Range[Annotated[float, THROUGHPUT]]):
    """Tokens per chip-hour or second, speed or efficiency vs the reference: ``> 0``."""


class SlowdownRange(Range[Annotated[float, SLOWDOWN]]):
    """The share of throughput a "slower" feature keeps: ``> 0`` and ``<= 1``."""


class WeeksRange(Range[Weeks]):
    """A duration in weeks: ``>= 0``."""


class LatencyRange(Range[Annotated[float, LATENCY]]):
    """A time to first token (ms) or its ratio to the reference's: ``> 0``."""


class PeakToMeanRange(Range[Annotated[float, PEAK_TO_MEAN]]):
    """Peak traffic over mean traffic: ``>= 1`` and ``<= 100``."""


class ScalingExponentRange(Range[Annotated[float, SCALING_EXPONENT]]):
    """An exponent of the TTFT model: ``>= 0``."""


class AttentionSlowdownRange(Range[Annotated[float, ATTENTION_SLOWDOWN]]):
    """How many times slower attention runs without its kernel: ``>= 1``."""


class ShareRange(Range[Annotated[float, SHARE]]):
    """A share of a whole: ``> 0`` and ``<= 1``."""


class Fixed(_Strict, Generic[N]):
    """A figure that is not uncertain (a published specification or a convention); the
    catalog uses its bounded kinds (``FixedMemory``...)."""

    value: N
    source: str = Field(min_length=1)


class FixedHourlyMoney(Fixed[MoneyPerHour]):
    """Money in USD per hour that is not uncertain (a limit): ``>= 0`` and at most
    :data:`MAX_USD_PER_HOUR`."""


class FixedMemory(Fixed[Memory]):
    """GB of memory: ``> 0``."""


class FixedHoursPerMonth(Fixed[Annotated[float, HOURS_PER_MONTH]]):
    """Hours in a month: ``> 0`` and at most a 31-day month's 744."""


class FixedMonths(Fixed[Annotated[float, MONTHS]]):
    """A number of months: ``>= 1``."""


class FixedChips(Fixed[Chips]):
    """A whole number of chips: ``>= 1``."""


class FixedSizeElasticity(Fixed[Annotated[float, SIZE_ELASTICITY]]):
    """How tokens per chip-hour scale with model size beyond the anchors: ``<= 0``."""


class FixedModelSize(Fixed[ModelSize]):
    """A model size in billions of parameters: ``> 0``."""


class FixedTokens(Fixed[Annotated[int, TOKENS]]):
    """A number of tokens (a context length): ``>= 1``."""


class ActiveParams(_Strict):
    """The parameters a mixture-of-experts model uses per token, at one published total size."""

    params_b: ModelSize
    active_params_b: ModelSize
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _at_most_total(self) -> ActiveParams:
        if self.active_params_b > self.params_b:
            raise ValueError("active_params_b must not exceed params_b")
        return self


class ThroughputAnchor(_Strict):
    """A measured point of a throughput curve: a model size and the figure at that size."""

    params_b: ModelSize
    figure: ThroughputRange


class FeatureRule(_Strict):
    """How a platform handles a workload feature: fully, slower or not at all.

    Slower is either a ``throughput_factor`` on the whole workload, or, for a missing attention
    kernel, an ``attention_slowdown`` of the attention alone, charged only for the attention
    beyond the context the reference's benchmarks ran (they were measured without the kernel).
    """

    support: FeatureSupport
    throughput_factor: SlowdownRange | None = None
    attention_slowdown: AttentionSlowdownRange | None = None
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _factor_when_slower(self) -> FeatureRule:
        slowdowns = (self.throughput_factor is not None) + (self.attention_slowdown is not None)
        if (self.support == "slower") != (slowdowns == 1):
            raise ValueError(
                "support: slower needs exactly one of throughput_factor and attention_slowdown, "
                "and other supports neither"
            )
        return self


class GraphCaching(_Strict):
    """From an SDK version on, TTFT is a ratio of the reference accelerator's TTFT."""

    from_sdk_version: SdkVersion
    ttft_ratio_to_reference: LatencyRange


class FeatureRelease(_Strict):
    """A feature a future SDK version brings, dated by the month of a horizon it is usable
    from (month 1 is the first month planned): from then on the platform handles the feature
    by ``rule`` instead of its current one."""

    feature: str
    from_month: Months
    rule: FeatureRule
    sdk_version: SdkVersion | None = None
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _known_feature(self) -> FeatureRelease:
        from placement.models.workload import FEATURES

        if self.feature not in FEATURES:
            raise ValueError(f"feature {self.feature!r} is not one of: {', '.join(FEATURES)}")
        return self


class Platform(_Strict):
    """A software platform (CUDA, Neuron).

    Porting is per (family, platform); the migration programme is per platform.
    """

    adopted: bool
    porting_required: bool
    porting_weeks_per_family: WeeksRange
    support_lag_weeks: WeeksRange
    migration_one_off_usd: MoneyRange
    migration_lead_weeks: WeeksRange
    default_family_support: FamilySupport
    sdk_version: SdkVersion | None = None
    graph_caching: GraphCaching | None = None
    features: dict[str, FeatureRule] = Field(default_factory=dict)
    # Dated features of the SDK's roadmap, used over a horizon (--horizon); none by default.
    feature_roadmap: list[FeatureRelease] = Field(default_factory=list)


DERIVED_NODE_MULTIPLES = 8
"""Without listed replica shapes, a replica may span up to this many whole nodes."""


class ReservationUnit(_Strict):
    """One instance size an accelerator's reservations are sold in.

    ``max_replica_chips``: the largest model replica the instance holds (a one-GPU instance
    runs only one-GPU replicas); None: any, over as many instances as it takes. ``max_units``:
    how many units can be bought (None: no limit)."""

    chips: Chips
    max_replica_chips: Chips | None = None
    max_units: Limit | None = None
    source: str = Field(min_length=1)


class InstanceType(_Strict):
    """An instance size an accelerator is sold in (``p5.48xlarge``: 8 H100 GPUs), so that a
    price list's or an invoice's price per instance-hour can be read in chips."""

    name: str = Field(min_length=1)
    chips: Chips
    source: str = Field(min_length=1)


class InstancePrice(HourlyMoneyRange):
    """An on-demand price per instance-hour of one of the accelerator's ``instance_types``, as
    a price list or an invoice gives it. The accelerator divides it by the instance's chips once,
    when the catalog is validated, into ``on_demand_usd_per_chip_hour``."""

    instance: str = Field(min_length=1)

    def per_chip(self, chips: int) -> HourlyMoneyRange:
        """The same price per chip-hour; its source says how it was derived."""
        return HourlyMoneyRange(
            low=self.low / chips,
            high=self.high / chips,
            point=self.value / chips,
            source=f"{self.instance} ${self.value:g}/h / {chips} chips: {self.source}",
        )


NOT_GIVEN = HourlyMoneyRange(low=0, high=0, source="not given")
"""Stands for an on-demand price per chip-hour the file does not give (it gives one per
instance-hour instead); never used: the accelerator derives the real one or is refused."""


class Accelerator(_Strict):
    """One accelerator type, its deployment granularity, price and performance vs the reference."""

    platform: str
    # What one chip is ("one NVIDIA H100 SXM5 GPU, 80 GB HBM3"): every "per chip" figure
    # counts these. None (a catalog written before it): not stated, and catalog show says so.
    chip: str | None = Field(default=None, min_length=1)
    # The instance sizes the accelerator is sold in; none listed (older catalogs): prices are
    # given per chip-hour and reservation units are not checked against instances.
    instance_types: list[InstanceType] = Field(default_factory=list)
    memory_gb_per_chip: FixedMemory
    deployment_unit_chips: Chips
    node_chips: Chips
    # The instance sizes reservations come in; a catalog written before them gives one size,
    # ``reservation_unit_chips``.
    reservation_units: list[ReservationUnit] | None = None
    reservation_unit_chips: Chips | None = None
    # Chips that may run at once (a quota); None: no limit.
    max_chips: Limit | None = None
    # The on-demand price, per chip-hour or per instance-hour (exactly one of the two). A price
    # per instance-hour becomes the price per chip-hour here, once; it is not dumped again, so
    # a dumped catalog is a per-chip one and everything downstream reads one unit.
    on_demand_usd_per_chip_hour: HourlyMoneyRange = NOT_GIVEN
    on_demand_usd_per_instance_hour: InstancePrice | None = Field(default=None, exclude=True)
    training_throughput_vs_reference: dict[str, list[ThroughputAnchor]]
    inference_throughput_vs_reference: ThroughputRange
    inference_serving_efficiency: ThroughputRange
    ttft_7b_ms_warm: LatencyRange
    ttft_7b_ms_cold: LatencyRange
    pricing: list[str] | None = None
    # The chip counts one model replica may use (tensor- and pipeline-parallel degrees), in
    # increasing order; beyond the last, whole multiples of it. None (a catalog written before
    # shapes): powers of two of the deployment unit up to a node, then whole nodes.
    replica_chip_counts: list[Chips] | None = None

    @model_validator(mode="after")
    def _units(self) -> Accelerator:
        if self.node_chips % self.deployment_unit_chips:
            raise ValueError("node_chips must be a multiple of deployment_unit_chips")
        if "default" not in self.training_throughput_vs_reference:
            raise ValueError("training_throughput_vs_reference needs a 'default' curve")
        counts = self.replica_chip_counts
        if counts is not None and (not counts or any(a >= b for a, b in pairwise(counts))):
            raise ValueError("replica_chip_counts must be a non-empty increasing list")
        if (self.reservation_units is None) == (self.reservation_unit_chips is None):
            raise ValueError("give exactly one of reservation_units and reservation_unit_chips")
        if self.reservation_units is not None:
            sizes = [u.chips for u in self.reservation_units]
            if not sizes or len(set(sizes)) != len(sizes):
                raise ValueError("reservation_units must list distinct chip counts")
        problems = [*self._instance_problems(), *self._price_problems()]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _instance_problems(self) -> list[str]:
        """Instance names are unique, and where instances are listed every reservation unit is
        the size of one of them (a unit of chips no instance holds cannot be bought)."""
        names = [t.name for t in self.instance_types]
        problems = [
            f"instance_types: {name!r} is listed more than once"
            for name in sorted({n for n in names if names.count(n) > 1})
        ]
        if not self.instance_types:
            return problems
        sizes = {t.chips for t in self.instance_types}
        listed = ", ".join(f"{t.name} with {t.chips}" for t in self.instance_types)
        if self.reservation_units is not None:
            units = [(f"reservation_units.{i}.chips", u.chips) for i, u in enumerate(self.units())]
        else:
            units = [("reservation_unit_chips", self.units()[0].chips)]
        problems += [
            f"{where} {chips} is not the chips of any of instance_types ({listed})"
            for where, chips in units
            if chips not in sizes
        ]
        return problems

    def _price_problems(self) -> list[str]:
        """Exactly one on-demand price, per chip-hour or per instance-hour; a price per
        instance-hour is turned into the price per chip-hour here, once."""
        per_chip = "on_demand_usd_per_chip_hour" in self.model_fields_set
        per_instance = self.on_demand_usd_per_instance_hour
        if per_chip == (per_instance is not None):
            given = "both are given" if per_chip else "neither is given"
            return [
                "give exactly one of on_demand_usd_per_chip_hour and "
                f"on_demand_usd_per_instance_hour ({given})"
            ]
        if per_instance is None:
            return []
        chips = {t.name: t.chips for t in self.instance_types}
        if per_instance.instance not in chips:
            known = ", ".join(chips) or "none listed"
            return [
                f"on_demand_usd_per_instance_hour.instance {per_instance.instance!r} is not one "
                f"of instance_types ({known})"
            ]
        derived = per_instance.per_chip(chips[per_instance.instance])
        object.__setattr__(self, "on_demand_usd_per_chip_hour", derived)
        return []

    def units(self) -> list[ReservationUnit]:
        """The reservation unit sizes (one, any replica, for a catalog that gives only
        ``reservation_unit_chips``)."""
        if self.reservation_units is not None:
            return list(self.reservation_units)
        assert self.reservation_unit_chips is not None  # the validator requires one of the two
        return [
            ReservationUnit(
                chips=self.reservation_unit_chips, source="accelerators.reservation_unit_chips"
            )
        ]

    def replica_shapes(self) -> list[int]:
        """The listed replica chip counts, or the ones derived for an older catalog."""
        if self.replica_chip_counts is not None:
            return list(self.replica_chip_counts)
        shapes = []
        size = self.deployment_unit_chips
        while size <= self.node_chips:
            shapes.append(size)
            size *= 2
        if shapes[-1] != self.node_chips:
            shapes.append(self.node_chips)
        return shapes + [self.node_chips * k for k in range(2, DERIVED_NODE_MULTIPLES + 1)]


class PricingOption(_Strict):
    """A way to pay: on demand per chip-hour used; a reservation of instance units, paid
    whether used or not, that covers whatever runs on them hour by hour; or a savings plan, a
    commitment of USD per hour that pays for usage of the accelerators it covers at their
    discounted rates.

    ``usable_fraction`` (reservations, optional): the share of reserved hours that can be used;
    absent, all of them. ``accelerators`` (savings plans): the accelerators covered (None:
    all); ``discounts_by_accelerator``: a rate per accelerator where it differs from
    ``discount_vs_on_demand``; ``max_usd_per_hour``: how much can be committed (None: no limit).
    """

    kind: Literal["on_demand", "reserved", "savings_plan"]
    discount_vs_on_demand: DiscountRange
    term_months: Months | None = None
    usable_fraction: UsableFractionRange | None = None
    accelerators: list[str] | None = None
    discounts_by_accelerator: dict[str, DiscountRange] = Field(default_factory=dict)
    max_usd_per_hour: MoneyPerHour | None = None

    @model_validator(mode="after")
    def _kind_fields(self) -> PricingOption:
        if self.kind != "on_demand" and self.term_months is None:
            raise ValueError(f"a {self.kind} option needs term_months")
        if self.kind != "reserved" and self.usable_fraction is not None:
            raise ValueError("usable_fraction applies to reservations only")
        plan_only = (
            self.accelerators is not None
            or self.discounts_by_accelerator
            or self.max_usd_per_hour is not None
        )
        if self.kind != "savings_plan" and plan_only:
            raise ValueError(
                "accelerators, discounts_by_accelerator and max_usd_per_hour apply to "
                "savings plans only"
            )
        return self

    def discount_for(self, accelerator: str) -> float:
        """The discount this option gives on an accelerator's on-demand rate."""
        rate = self.discounts_by_accelerator.get(accelerator, self.discount_vs_on_demand)
        return rate.value


HOURS_IN_A_DAY = 24
WEEKDAYS, WEEKEND_DAYS = 5, 2
"""Load profiles describe a weekday and a weekend day hour by hour: 48 time slices a month."""


def _whole_day(value: Any) -> Any:
    """One number stands for every hour of the day (a bad number is reported once, as hour 0)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [value] * HOURS_IN_A_DAY
    return value


DayLevels = Annotated[list[LoadLevel], BeforeValidator(_whole_day)]


class LoadProfile(_Strict):
    """When a workload runs, hour by hour over a weekday and a weekend day (a level per hour,
    or one level for the whole day; 1 = its peak).

    ``serving``: online traffic; the deployment's chips follow the level (``always_on`` holds
    them all month). With ``follows_peak_to_mean`` the level is stretched so that the mean over
    the peak is the workload's 1 / peak_to_mean. ``work``: training or batch chip-hours,
    ``fixed`` spread in proportion to the level, or ``flexible``: placed by the optimizer in
    whichever hours are cheapest (the levels then say where it may run)."""

    kind: Literal["serving", "work"]
    weekday: DayLevels = Field(default_factory=lambda: [1.0] * HOURS_IN_A_DAY)
    weekend: DayLevels = Field(default_factory=lambda: [1.0] * HOURS_IN_A_DAY)
    follows_peak_to_mean: bool = False
    placement: Literal["fixed", "flexible"] = "fixed"
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _shape(self) -> LoadProfile:
        for day in (self.weekday, self.weekend):
            if len(day) != HOURS_IN_A_DAY:
                raise ValueError(f"a day's levels are {HOURS_IN_A_DAY} numbers, one per hour")
        if max(self.levels()) <= 0:
            raise ValueError("a load profile must run in some hour (every level is 0)")
        if self.kind == "serving" and self.placement != "fixed":
            raise ValueError("placement: flexible applies to work profiles only")
        if self.kind == "work" and self.follows_peak_to_mean:
            raise ValueError("follows_peak_to_mean applies to serving profiles only")
        return self

    def levels(self) -> list[float]:
        """The 48 hourly levels: a weekday's 24, then a weekend day's."""
        return [*self.weekday, *self.weekend]


class DefaultLoadProfiles(_Strict):
    """The profile of a workload whose ``load_profile`` is empty, by kind and serving."""

    training: str
    online: str
    batch: str


class OwnedCommitment(_Strict):
    """A commitment the team already holds: paid whatever the plan does, used first.

    A reservation gives ``accelerator``, ``units`` and the unit size ``unit_chips`` (default:
    the accelerator's first); a savings plan gives ``usd_per_hour``. ``monthly_usd``: what it
    costs a month, where that is not the catalog's current rate."""

    pricing: str
    accelerator: str | None = None
    unit_chips: Chips | None = None
    units: Units | None = None
    usd_per_hour: MoneyPerHour | None = None
    months_left: Months
    monthly_usd: Money | None = None
    source: str = Field(min_length=1)


class Family(_Strict):
    """A model family: its architecture class, its support status per platform and, for a
    mixture of experts, the active parameters of its published sizes."""

    model_class: ModelClass
    moe: bool = False
    support: dict[str, FamilySupport] = Field(default_factory=dict)
    active_params: list[ActiveParams] = Field(default_factory=list)


class MemoryModel(_Strict):
    """Bytes per parameter and overheads that turn a model size into GB of accelerator memory."""

    bytes_per_param: dict[str, Memory]
    inference_overhead_fraction: OverheadRange
    training_optimizer_bytes_per_param: OverheadRange
    training_activation_overhead_fraction: OverheadRange
    usable_memory_fraction: UsableFractionRange


class AdapterModel(_Strict):
    """LoRA and QLoRA training: a few trainable parameters on a frozen base."""

    trainable_param_fraction: ShareRange
    # The precision the adapters train in (weights and gradients), whatever the base's.
    adapter_precision: str
    lora_compute_vs_full: ShareRange
    qlora_compute_vs_full: ShareRange


class WorkloadModel(_Strict):
    """Reference-accelerator throughput: how much work one reference chip-hour does, and how
    online serving is sized."""

    training_tokens_per_reference_chip_hour: dict[str, list[ThroughputAnchor]]
    size_elasticity_outside_anchors: FixedSizeElasticity
    inference_tokens_per_s_per_reference_chip: ThroughputAnchor
    inference_anchor_precision: str
    online_peak_to_mean_ratio: PeakToMeanRange
    # Optional so that a catalog written before them still loads; None keeps the former model:
    # no prefill split, full utilisation, no context or adapter effects.
    inference_prefill_tokens_per_s_per_reference_chip: ThroughputAnchor | None = None
    online_target_utilization: UsableFractionRange | None = None
    training_benchmark_context_tokens: FixedTokens | None = None
    inference_benchmark_context_tokens: FixedTokens | None = None
    training_attention_share_at_benchmark_context: ShareRange | None = None
    inference_attention_share_at_benchmark_context: ShareRange | None = None
    adapters: AdapterModel | None = None


class LatencyModel(_Strict):
    """TTFT scaling: ``ttft = ttft_7b * (params / 7B)^params_exponent / tp^tp_exponent``."""

    start_mode: Literal["warm", "cold"]
    reference_params_b: FixedModelSize
    params_exponent: ScalingExponentRange
    tensor_parallel_exponent: ScalingExponentRange


class Economics(_Strict):
    """Time conversions and the prices of engineering time."""

    hours_per_month: FixedHoursPerMonth
    amortization_months: FixedMonths
    porting_engineer_usd_per_week: MoneyRange
    # Engineer-weeks of porting per planning cycle; None: no cap.
    porting_capacity_weeks_per_cycle: Weeks | None = None
    # One-off cost of moving a workload off the accelerator it runs on today (re-validation,
    # data movement, cut-over). None (a catalog written before it existed): moving is free.
    switching_usd_per_workload: MoneyRange | None = None
    # Engineers porting at once over a horizon: a port holds one engineer for its weeks, so
    # ports beyond this number queue. None: no cap.
    porting_engineers: Units | None = None
    # Plausibility limits: beyond them a volume or a size is a unit mistake, not a workload,
    # and the numbers would leave the range the solver handles. None (a catalog written before
    # they existed): no limit.
    max_busy_chips_per_workload: FixedChips | None = None
    max_busy_chips_in_total: FixedChips | None = None
    # The most an on-demand chip-hour plausibly costs: above it, a price per chip-hour is taken
    # for a price per instance-hour given in the wrong field. None (older catalogs): no check.
    max_on_demand_usd_per_chip_hour: FixedHourlyMoney | None = None


LEGACY_PROFILES = {
    "always_on": LoadProfile(
        kind="serving", source="built in: online deployments hold their chips all month"
    ),
    "flexible": LoadProfile(
        kind="work", placement="flexible", source="built in: work may run in any hour"
    ),
}
"""The profiles of a catalog written before load profiles: the model it was made for."""
LEGACY_DEFAULTS = DefaultLoadProfiles(training="flexible", online="always_on", batch="flexible")


class Baseline(_Strict):
    """The incumbent option every plan is compared with (all work there)."""

    accelerator: str
    pricing: str


class LinkedFigures(_Strict):
    """Figures that move together because one cause drives them (the Neuron SDK's maturity
    moves Trainium2's throughput, its latency and the porting effort at once): ``placement
    risk`` draws them from one common factor. ``figures`` maps each range's dotted path to
    ``with`` (it rises with the factor) or ``against`` (it falls); ``correlation`` is the
    correlation of any two of them before each is mapped onto its own range (1: they move in
    lockstep)."""

    figures: dict[str, LinkSense] = Field(min_length=1)
    correlation: Annotated[float, CORRELATION] = 1.0
    source: str = Field(min_length=1)


class Uncertainty(_Strict):
    """How ``placement risk`` samples the catalog's ranges: the distribution of a range that
    names none, and the groups of figures that move together (every other figure is drawn on
    its own)."""

    default_distribution: Distribution = "triangular"
    linked: dict[str, LinkedFigures] = Field(default_factory=dict)


class Catalog(_Strict):
    """The whole catalog. Cross-references (platforms, pricing, families) are checked here."""

    name: str
    reference_accelerator: str
    baseline: Baseline
    economics: Economics
    memory: MemoryModel
    workload_model: WorkloadModel
    latency: LatencyModel
    platforms: dict[str, Platform]
    pricing_options: dict[str, PricingOption]
    accelerators: dict[str, Accelerator]
    families: dict[str, Family]
    unknown_family_class: ModelClass
    # When workloads run over a week (optional so that older catalogs load: they get
    # ``LEGACY_LOAD_PROFILES``, the model they were written for).
    load_profiles: dict[str, LoadProfile] | None = None
    default_load_profiles: DefaultLoadProfiles | None = None
    owned_commitments: list[OwnedCommitment] = Field(default_factory=list)
    # How risk samples the ranges (None: each on its own, by default_distribution's default).
    uncertainty: Uncertainty | None = None
    # Sources of plain settings (chip counts, bytes per parameter, SDK versions...), by dotted
    # path; a path also covers everything below it.
    sources: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _references(self) -> Catalog:
        problems: list[str] = []
        if self.reference_accelerator not in self.accelerators:
            problems.append(
                f"reference_accelerator {self.reference_accelerator!r} is not an accelerator"
            )
        if self.baseline.accelerator not in self.accelerators:
            problems.append(
                f"baseline.accelerator {self.baseline.accelerator!r} is not an accelerator"
            )
        if self.baseline.pricing not in self.pricing_options:
            problems.append(f"baseline.pricing {self.baseline.pricing!r} is not a pricing option")
        for name, acc in self.accelerators.items():
            if acc.platform not in self.platforms:
                problems.append(f"accelerators.{name}.platform {acc.platform!r} is not a platform")
            for option in acc.pricing or []:
                if option not in self.pricing_options:
                    problems.append(
                        f"accelerators.{name}.pricing {option!r} is not a pricing option"
                    )
        for name in self.accelerators:
            paid = [p for p in self.pricing_for(name) if p in self.pricing_options]
            on_demand = [p for p in paid if self.pricing_options[p].kind == "on_demand"]
            if len(on_demand) != 1:
                problems.append(
                    f"accelerators.{name} must be offered exactly one on-demand pricing option "
                    f"(has {len(on_demand)}): uncommitted chip-hours are paid on demand"
                )
        for name, fam in self.families.items():
            for platform in fam.support:
                if platform not in self.platforms:
                    problems.append(f"families.{name}.support {platform!r} is not a platform")
        if self.workload_model.inference_anchor_precision not in self.memory.bytes_per_param:
            problems.append("workload_model.inference_anchor_precision has no bytes_per_param")
        adapters = self.workload_model.adapters
        if adapters is not None and adapters.adapter_precision not in self.memory.bytes_per_param:
            problems.append("workload_model.adapters.adapter_precision has no bytes_per_param")
        problems += self._attention_figures()
        problems += self._plausible_prices()
        problems += self._profile_references()
        problems += self._commitment_references()
        problems += self._linked_references()
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _plausible_prices(self) -> list[str]:
        """A price per chip-hour above the catalog's plausible maximum is most likely the price
        of a whole instance (8 or 16 chips) pasted into the per-chip field."""
        limit = self.economics.max_on_demand_usd_per_chip_hour
        if limit is None:
            return []
        return [
            f"accelerators.{name}.on_demand_usd_per_chip_hour: "
            f"${acc.on_demand_usd_per_chip_hour.high:g} per chip-hour is above "
            f"economics.max_on_demand_usd_per_chip_hour (${limit.value:g}: {limit.source}); "
            "if it is the price of a whole instance, give it as "
            "on_demand_usd_per_instance_hour {instance, low, high, source}, which is divided by "
            "the instance's chips"
            for name, acc in self.accelerators.items()
            if acc.on_demand_usd_per_chip_hour.high > limit.value
        ]

    def _linked_references(self) -> list[str]:
        """Every linked figure names a range of this catalog, or a figure the catalog may give
        and this one does not (a scenario that makes a feature supported removes its slowdown:
        the link then holds nothing for it); and it is linked in one group only."""
        if self.uncertainty is None:
            return []
        problems = []
        group_of: dict[str, str] = {}
        for group, linked in self.uncertainty.linked.items():
            for path in linked.figures:
                where = f"uncertainty.linked.{group}.figures"
                found = _figure_at(self, path)
                if found is not None:
                    problems.append(
                        f"{where}: {path!r} {found}; expected a dotted path to a figure with "
                        "low and high, as --set names it"
                    )
                elif path in group_of:
                    problems.append(f"{where}: {path!r} is already linked in {group_of[path]!r}")
                group_of.setdefault(path, group)
        return problems

    def _profile_references(self) -> list[str]:
        if (self.load_profiles is None) != (self.default_load_profiles is None):
            return ["give load_profiles and default_load_profiles together"]
        profiles = self.profiles()
        problems = []
        for use, kind in (("training", "work"), ("online", "serving"), ("batch", "work")):
            name = getattr(self.defaults(), use)
            if name not in profiles:
                problems.append(f"default_load_profiles.{use} {name!r} is not a load profile")
            elif profiles[name].kind != kind:
                problems.append(f"default_load_profiles.{use} {name!r} must be a {kind} profile")
        return problems

    def _commitment_references(self) -> list[str]:
        problems = []
        for name, pricing in self.pricing_options.items():
            for listed in [*(pricing.accelerators or []), *pricing.discounts_by_accelerator]:
                if listed not in self.accelerators:
                    problems.append(f"pricing_options.{name}: {listed!r} is not an accelerator")
        for i, owned in enumerate(self.owned_commitments):
            where = f"owned_commitments.{i}"
            option = self.pricing_options.get(owned.pricing)
            if option is None or option.kind == "on_demand":
                problems.append(f"{where}.pricing {owned.pricing!r} is not a commitment option")
                continue
            if option.kind == "savings_plan":
                if owned.usd_per_hour is None or owned.units is not None:
                    problems.append(f"{where}: a savings plan gives usd_per_hour (not units)")
                continue
            acc = self.accelerators.get(owned.accelerator or "")
            if acc is None or owned.units is None or owned.usd_per_hour is not None:
                problems.append(f"{where}: a reservation gives an accelerator and units")
            elif owned.unit_chips is not None and owned.unit_chips not in {
                u.chips for u in acc.units()
            }:
                problems.append(
                    f"{where}.unit_chips {owned.unit_chips} is not a reservation unit of "
                    f"{owned.accelerator}"
                )
        return problems

    def profiles(self) -> dict[str, LoadProfile]:
        """The load profiles (the legacy pair for a catalog written before them)."""
        return dict(self.load_profiles) if self.load_profiles is not None else LEGACY_PROFILES

    def profile_kinds(self) -> dict[str, str]:
        """Each load profile's kind (``serving`` or ``work``), as the inventory checks them."""
        return {name: profile.kind for name, profile in self.profiles().items()}

    def defaults(self) -> DefaultLoadProfiles:
        """Which profile a workload without one gets."""
        if self.default_load_profiles is not None:
            return self.default_load_profiles
        return LEGACY_DEFAULTS

    def payable_options(self, accelerator: str) -> list[str]:
        """How an accelerator's chip-hours can be paid: its on-demand option and every
        commitment that can cover it."""
        return [
            name
            for name in self.pricing_for(accelerator)
            if self.pricing_options[name].kind == "on_demand"
            or name in self.commitment_options(accelerator)
        ]

    def on_demand_option(self, accelerator: str) -> str:
        """The accelerator's on-demand option (the catalog checks there is exactly one)."""
        return next(
            name
            for name in self.pricing_for(accelerator)
            if self.pricing_options[name].kind == "on_demand"
        )

    def commitment_options(self, accelerator: str) -> list[str]:
        """The reservation and savings-plan options that can cover an accelerator."""
        return [
            name
            for name in self.pricing_for(accelerator)
            if self.pricing_options[name].kind == "reserved"
            or (
                self.pricing_options[name].kind == "savings_plan"
                and accelerator in (self.pricing_options[name].accelerators or self.accelerators)
            )
        ]

    def _attention_figures(self) -> list[str]:
        """An ``attention_slowdown`` is charged at the workload's context against the
        benchmark's, so it needs the benchmark contexts and attention's share there."""
        wm = self.workload_model
        needed = {
            "workload_model.training_attention_share_at_benchmark_context": (
                wm.training_attention_share_at_benchmark_context
            ),
            "workload_model.inference_attention_share_at_benchmark_context": (
                wm.inference_attention_share_at_benchmark_context
            ),
            "workload_model.training_benchmark_context_tokens": (
                wm.training_benchmark_context_tokens
            ),
            "workload_model.inference_benchmark_context_tokens": (
                wm.inference_benchmark_context_tokens
            ),
        }
        missing = [path for path, value in needed.items() if value is None]
        if not missing:
            return []
        return [
            f"platforms.{name}.features.{feature}.attention_slowdown needs {', '.join(missing)}"
            for name, platform in self.platforms.items()
            for feature, rule in platform.features.items()
            if rule.attention_slowdown is not None
        ]

    def porting_accelerators(self) -> list[str]:
        """The accelerators of platforms a model family must be ported to (Trainium2 in the
        default catalog), by name."""
        return sorted(
            name
            for name, acc in self.accelerators.items()
            if self.platforms[acc.platform].porting_required
        )

    def pricing_for(self, accelerator: str) -> list[str]:
        """Pricing options offered for an accelerator (all of them unless it lists its own)."""
        return list(self.accelerators[accelerator].pricing or self.pricing_options)

    def family(self, name: str) -> Family:
        """The catalog family, or an unknown family: default class, pending on porting platforms."""
        if name in self.families:
            return self.families[name]
        return Family(model_class=self.unknown_family_class, moe=False, support={})

    def family_support(self, family: str, platform: str) -> FamilySupport:
        """Whether the platform's SDK supports the family now or only after its support lag."""
        known = self.families.get(family)
        if known is not None and platform in known.support:
            return known.support[platform]
        if known is None and self.platforms[platform].porting_required:
            return "pending"
        return self.platforms[platform].default_family_support


def _figure_at(catalog: Catalog, path: str) -> str | None:
    """None where ``path`` names a range, or an optional figure (or section) this catalog
    leaves out; otherwise what is wrong with it."""
    node: Any = catalog
    for depth, key in enumerate(path.split(".")):
        here = ".".join(path.split(".")[: depth + 1])
        if node is None:
            return None
        if isinstance(node, BaseModel):
            if key not in type(node).model_fields or type(node).model_fields[key].exclude:
                return f"is not a figure of this catalog ({here!r} is not a field)"
            node = getattr(node, key)
        elif isinstance(node, dict):
            if key not in node:
                return f"is not a figure of this catalog (no {here!r})"
            node = node[key]
        elif isinstance(node, list):
            if not key.isdigit() or int(key) >= len(node):
                return f"is not a figure of this catalog (no item {here!r})"
            node = node[int(key)]
        else:
            return f"is not a figure of this catalog ({here!r} is a single value)"
    if node is None or isinstance(node, Range):
        return None
    return "is not a range of this catalog"


def uncertain_ranges(catalog: Catalog) -> dict[str, Range[Any]]:
    """Every range of the catalog by its dotted path (as ``--set`` names it: list items by
    position), in the catalog's order; fields not dumped (a price per instance-hour, which
    becomes the price per chip-hour) are left out."""
    found: dict[str, Range[Any]] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Range):
            found[path] = node
        elif isinstance(node, BaseModel):
            for field_name, info in type(node).model_fields.items():
                if not info.exclude:
                    walk(getattr(node, field_name), f"{path}.{field_name}" if path else field_name)
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{path}.{index}")

    walk(catalog, "")
    return found

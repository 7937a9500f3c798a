"""The catalog: price book, hardware model and workload model, as pydantic models.

Every uncertain figure is a :class:`Range` (``low``, ``high``, ``point``, ``source``). Field names
carry their unit (``_usd``, ``_usd_per_chip_hour``, ``_gb``, ``_weeks``, ``_ms``...). Accelerators,
pricing options, software platforms and model families are open sets keyed by name: adding an
H200, a Trainium3 or a 3-year term is a catalog edit, never a code change.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ModelClass = Literal["decoder", "encoder", "encoder_decoder"]
FamilySupport = Literal["supported", "pending"]
FeatureSupport = Literal["supported", "slower", "unsupported"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Range(_Strict):
    """An uncertain figure: ``low <= point <= high``; ``point`` defaults to the midpoint."""

    low: float
    high: float
    point: float | None = None
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _ordered(self) -> Range:
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


class Fixed(_Strict):
    """A figure that is not uncertain (a published specification or a convention)."""

    value: float
    source: str = Field(min_length=1)


class ThroughputAnchor(_Strict):
    """A measured point of a throughput curve: a model size and the figure at that size."""

    params_b: float = Field(gt=0)
    figure: Range


class FeatureRule(_Strict):
    """How a platform handles a workload feature: fully, slower (throughput x factor) or not."""

    support: FeatureSupport
    throughput_factor: Range | None = None
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _factor_when_slower(self) -> FeatureRule:
        if (self.support == "slower") != (self.throughput_factor is not None):
            raise ValueError("throughput_factor is required for, and only for, support: slower")
        return self


class GraphCaching(_Strict):
    """From an SDK version on, TTFT is a ratio of the reference accelerator's TTFT."""

    from_sdk_version: str
    ttft_ratio_to_reference: Range


class Platform(_Strict):
    """A software platform (CUDA, Neuron).

    Porting is per (family, platform); the migration programme is per platform.
    """

    adopted: bool
    porting_required: bool
    porting_weeks_per_family: Range
    support_lag_weeks: Range
    migration_one_off_usd: Range
    migration_lead_weeks: Range
    default_family_support: FamilySupport
    sdk_version: str | None = None
    graph_caching: GraphCaching | None = None
    features: dict[str, FeatureRule] = Field(default_factory=dict)


class Accelerator(_Strict):
    """One accelerator type, its deployment granularity, price and performance vs the reference."""

    platform: str
    memory_gb_per_chip: Fixed
    deployment_unit_chips: int = Field(ge=1)
    node_chips: int = Field(ge=1)
    reservation_unit_chips: int = Field(ge=1)
    on_demand_usd_per_chip_hour: Range
    training_throughput_vs_reference: dict[str, list[ThroughputAnchor]]
    inference_throughput_vs_reference: Range
    inference_serving_efficiency: Range
    ttft_7b_ms_warm: Range
    ttft_7b_ms_cold: Range
    pricing: list[str] | None = None

    @model_validator(mode="after")
    def _units(self) -> Accelerator:
        if self.node_chips % self.deployment_unit_chips:
            raise ValueError("node_chips must be a multiple of deployment_unit_chips")
        if "default" not in self.training_throughput_vs_reference:
            raise ValueError("training_throughput_vs_reference needs a 'default' curve")
        return self


class PricingOption(_Strict):
    """A way to pay: on-demand per chip-hour used, or reserved units paid whether used or not."""

    kind: Literal["on_demand", "reserved"]
    discount_vs_on_demand: Range
    term_months: int | None = None
    usable_fraction: Range | None = None

    @model_validator(mode="after")
    def _reserved_fields(self) -> PricingOption:
        if self.kind == "reserved" and (self.term_months is None or self.usable_fraction is None):
            raise ValueError("a reserved option needs term_months and usable_fraction")
        return self


class Family(_Strict):
    """A model family: its architecture class and its support status per platform."""

    model_class: ModelClass
    moe: bool = False
    support: dict[str, FamilySupport] = Field(default_factory=dict)


class MemoryModel(_Strict):
    """Bytes per parameter and overheads that turn a model size into GB of accelerator memory."""

    bytes_per_param: dict[str, float]
    inference_overhead_fraction: Range
    training_optimizer_bytes_per_param: Range
    training_activation_overhead_fraction: Range
    usable_memory_fraction: Range


class WorkloadModel(_Strict):
    """Reference-accelerator throughput: how much work one reference chip-hour does."""

    training_tokens_per_reference_chip_hour: dict[str, list[ThroughputAnchor]]
    size_elasticity_outside_anchors: Fixed
    inference_tokens_per_s_per_reference_chip: ThroughputAnchor
    inference_anchor_precision: str
    online_peak_to_mean_ratio: Range


class LatencyModel(_Strict):
    """TTFT scaling: ``ttft = ttft_7b * (params / 7B)^params_exponent / tp^tp_exponent``."""

    start_mode: Literal["warm", "cold"]
    reference_params_b: Fixed
    params_exponent: Range
    tensor_parallel_exponent: Range


class Economics(_Strict):
    """Time conversions and the prices of engineering time."""

    hours_per_month: Fixed
    amortization_months: Fixed
    porting_engineer_usd_per_week: Range
    porting_capacity_weeks_per_cycle: float | None = None


class Baseline(_Strict):
    """The incumbent option every plan is compared with (all work there)."""

    accelerator: str
    pricing: str


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
        for name, fam in self.families.items():
            for platform in fam.support:
                if platform not in self.platforms:
                    problems.append(f"families.{name}.support {platform!r} is not a platform")
        if self.workload_model.inference_anchor_precision not in self.memory.bytes_per_param:
            problems.append("workload_model.inference_anchor_precision has no bytes_per_param")
        if problems:
            raise ValueError("; ".join(problems))
        return self

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

"""The reference document's figures beside the model's own, with deviations and tolerances.

Every model figure here comes from :func:`placement.estimating.estimate` (or the full planner, for
break-evens) run on the workloads that represent a case of the document, never from the catalog
read back directly, so ``placement reference`` checks the whole estimation chain.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from placement.catalog import apply_overrides, load_catalog
from placement.errors import PlacementInputError
from placement.estimating import estimate, one_chip_ttft_ms
from placement.estimating.economics.one_offs import migration_one_off_usd, porting_one_off_usd
from placement.models.catalog import Catalog
from placement.models.numbers import signed_percent
from placement.pipeline import SolverOptions, plan
from placement.reading import inventory_from_records
from placement.writing.files import OutputError, write_files

FIGURES_RESOURCE = "reference_figures.yaml"


@dataclass(frozen=True)
class ReferenceCheck:
    """One figure of the document and the model's figure for the same case."""

    section: str
    case: str
    quantity: str
    reference_low: float | None
    reference_high: float | None
    model: float | str
    tolerance: float | None
    note: str = ""
    expected: str | None = None  # for categorical figures (best option)

    @property
    def deviation(self) -> float | None:
        """Relative distance outside the printed range (0 inside it); None for categories."""
        if not isinstance(self.model, float | int) or self.reference_low is None:
            return None
        low, high = self.reference_low, self.reference_high or self.reference_low
        value = float(self.model)
        if low <= value <= high:
            return 0.0
        bound = low if value < low else high
        return (value - bound) / abs(bound) if bound else math.inf

    @property
    def ok(self) -> bool:
        if self.expected is not None:
            return self.model == self.expected
        deviation = self.deviation
        return (
            deviation is not None
            and self.tolerance is not None
            and abs(deviation) <= self.tolerance
        )

    def record(self) -> dict[str, Any]:
        if self.expected is not None:
            reference = self.expected
        elif self.reference_high is None or self.reference_high == self.reference_low:
            reference = _fmt(self.reference_low)
        else:
            reference = f"{_fmt(self.reference_low)} - {_fmt(self.reference_high)}"
        deviation = self.deviation
        return {
            "section": self.section,
            "case": self.case,
            "quantity": self.quantity,
            "reference": reference,
            "model": _fmt(self.model),
            "deviation": "" if deviation is None else signed_percent(deviation),
            "tolerance": "" if self.tolerance is None else f"{self.tolerance:.0%}",
            "ok": "yes" if self.ok else "NO",
            "note": self.note,
        }


def _check(
    section: str,
    case: str,
    quantity: str,
    figure: float | dict[str, float],
    model: float,
    tolerance: float,
    note: str = "",
) -> ReferenceCheck:
    """A check against a printed figure: one number, or a ``{low, high}`` range."""
    if isinstance(figure, dict):
        return ReferenceCheck(
            section, case, quantity, figure["low"], figure["high"], model, tolerance, note
        )
    return ReferenceCheck(section, case, quantity, figure, None, model, tolerance, note)


def _fmt(value: float | str | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def reference_figures() -> dict[str, Any]:
    """The packaged figures of the document and the workloads of each case."""
    text = resources.files("placement.data").joinpath(FIGURES_RESOURCE).read_text("utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def _options(workloads: list[dict[str, Any]], catalog: Catalog, source: str) -> pd.DataFrame:
    inventory = inventory_from_records(workloads, source, list(catalog.accelerators))
    return estimate(inventory.workloads, catalog).options


def _cost(options: pd.DataFrame, accelerator: str, pricing: str) -> float:
    mask = options["accelerator"].eq(accelerator) & options["pricing"].eq(pricing)
    return float(options.loc[mask, "monthly_cost_usd"].sum())


def _one(options: pd.DataFrame, workload_id: str, accelerator: str, column: str) -> float:
    mask = options["workload_id"].eq(workload_id) & options["accelerator"].eq(accelerator)
    return float(options.loc[mask, column].iloc[0])


def training_table_checks(catalog: Catalog, figures: dict[str, Any]) -> list[ReferenceCheck]:
    """Hours on 64 Trainium2 chips and on 8 H100, and the cost ratio at on-demand prices."""
    section = figures["training_table"]
    tol = figures["tolerance"]
    rows = section["rows"]
    options = _options([r["workload"] for r in rows], catalog, "training table")
    checks: list[ReferenceCheck] = []
    for row in rows:
        wid, name = row["id"], row["name"]
        trn2_hours = _one(options, wid, "trn2", "chip_hours") / 64
        h100_hours = _one(options, wid, "h100", "chip_hours") / 8
        trn2 = options[options["workload_id"].eq(wid)]
        ratio = _cost(trn2, "trn2", "on_demand") / _cost(trn2, "h100", "on_demand")
        inverse = row["h100_hours_8_gpus"] / row["trn2_hours_64_chips"]
        printed = row["throughput_ratio_printed"]
        checks += [
            _check(
                "training table",
                name,
                "Trainium2 hours on 64 chips",
                row["trn2_hours_64_chips"],
                trn2_hours,
                tol,
            ),
            _check(
                "training table",
                name,
                "H100 hours on 8 GPUs",
                row["h100_hours_8_gpus"],
                h100_hours,
                tol,
            ),
            _check(
                "training table",
                name,
                "cost ratio Trainium2 / H100 (on-demand)",
                row["cost_ratio"],
                ratio,
                tol,
            ),
            _check(
                "training table",
                name,
                "throughput ratio H100 time / Trainium2 time",
                inverse,
                h100_hours / trn2_hours,
                tol,
                note=""
                if abs(printed - inverse) <= 0.05
                else f"printed {printed}x; the hours give {inverse:.2f} (printed figure inverted)",
            ),
        ]
    return checks


def inference_checks(catalog: Catalog, figures: dict[str, Any]) -> list[ReferenceCheck]:
    """70B INT4 throughput of 64 Trainium2 chips vs 8 H100, and H100's inference cost advantage."""
    section = figures["inference"]
    tol = figures["tolerance"]
    # The document measured a benchmark: production serving efficiency does not apply to it.
    bench = Catalog.model_validate(
        apply_overrides(
            catalog.model_dump(mode="json"),
            [f"accelerators.{a}.inference_serving_efficiency=1" for a in catalog.accelerators],
        )
    )
    options = _options(section["workloads"], bench, "inference benchmark")
    production = _options(section["workloads"], catalog, "inference benchmark")
    wid = section["workloads"][0]["id"]
    tokens = float(section["workloads"][0]["monthly_tokens_b"]) * 1e9
    per_chip_s = {
        a: tokens / (_one(options, wid, a, "chip_hours") * 3600) for a in ("trn2", "h100")
    }
    trn2_64 = per_chip_s["trn2"] * 64
    h100_8 = per_chip_s["h100"] * 8
    serving = production[production["workload_id"].eq(section["workloads"][1]["id"])]
    advantage = _cost(serving, "trn2", "on_demand") / _cost(serving, "h100", "on_demand") - 1
    case = "70B INT4"
    return [
        _check(
            "inference",
            case,
            "tokens/s, 64 Trainium2 chips (benchmark)",
            section["trn2_64_chip_tokens_per_s"],
            trn2_64,
            tol,
        ),
        _check(
            "inference",
            case,
            "64 Trainium2 chips / 8 H100 throughput",
            section["trn2_64_chips_vs_8_h100"],
            trn2_64 / h100_8,
            tol,
        ),
        _check(
            "inference",
            "inference-heavy work",
            "H100 cost advantage (Trainium2 cost per token / H100's - 1, on-demand)",
            section["h100_cost_advantage"],
            advantage,
            tol,
            note="served online, with production serving efficiency",
        ),
    ]


def latency_checks(catalog: Catalog, figures: dict[str, Any]) -> list[ReferenceCheck]:
    """7B TTFT: H100; Trainium2 cold and warm before graph caching; the ratio after it."""
    section = figures["latency"]
    tol = figures["tolerance"]
    data = catalog.model_dump(mode="json")

    def ttft(accelerator: str, overrides: list[str]) -> float:
        """The document quotes single-chip latency: a one-chip replica, unloaded."""
        cat = Catalog.model_validate(apply_overrides(data, overrides))
        inventory = inventory_from_records(section["workloads"], "latency", list(cat.accelerators))
        return float(one_chip_ttft_ms(inventory.workloads, cat, accelerator)[0])

    platform = catalog.accelerators["trn2"].platform
    old_sdk = [f"platforms.{platform}.sdk_version={section['sdk_before_graph_caching']}"]
    h100 = ttft("h100", [])
    now = ttft("trn2", [])
    sdk = catalog.platforms[platform].sdk_version
    return [
        _check("latency", "7B TTFT", "H100 ms", section["h100_ttft_7b_ms"], h100, tol),
        _check(
            "latency",
            "7B TTFT",
            "Trainium2 cold ms, before graph caching",
            section["trn2_ttft_7b_ms_cold_before_graph_caching"],
            ttft("trn2", [*old_sdk, "latency.start_mode=cold"]),
            tol,
        ),
        _check(
            "latency",
            "7B TTFT",
            "Trainium2 warm ms, before graph caching",
            section["trn2_ttft_7b_ms_warm_before_graph_caching"],
            ttft("trn2", [*old_sdk, "latency.start_mode=warm"]),
            tol,
        ),
        _check(
            "latency",
            "7B TTFT",
            f"Trainium2 / H100 with graph caching (SDK {sdk})",
            section["trn2_ttft_vs_h100_with_graph_caching"],
            now / h100,
            tol,
        ),
    ]


def price_checks(catalog: Catalog, figures: dict[str, Any]) -> list[ReferenceCheck]:
    """H100 on-demand price, and the 1-year reservation discount on every accelerator."""
    section = figures["prices"]
    tol = figures["tolerance"]
    options = _options(figures["latency"]["workloads"], catalog, "prices")
    rate = options.groupby(["accelerator", "pricing"])["rate_usd_per_chip_hour"].first()
    checks = [
        _check(
            "prices",
            "H100",
            "on-demand USD per GPU-hour",
            section["h100_on_demand_usd_per_gpu_hour"],
            float(rate[("h100", "on_demand")]),
            tol,
        ),
    ]
    for accelerator in sorted(catalog.accelerators):
        if (accelerator, "reserved_1yr") in rate.index:
            discount = 1 - rate[(accelerator, "reserved_1yr")] / rate[(accelerator, "on_demand")]
            checks.append(
                _check(
                    "prices",
                    accelerator,
                    "1-year reserved discount vs on-demand",
                    section["reserved_1yr_discount"],
                    float(discount),
                    tol,
                )
            )
    return checks


DOCUMENT_COLUMNS = {
    "trn2": ("trn2", "on_demand"),
    "h100_on_demand": ("h100", "on_demand"),
    "h100_reserved": ("h100", "reserved_1yr"),
}


THROUGHPUT_PRICING = (
    "workload_model.online_peak_to_mean_ratio=1",
    "workload_model.online_target_utilization=1",
)
"""How the document's cost table prices inference: mean traffic, every chip busy."""


def cost_table_checks(catalog: Catalog, figures: dict[str, Any]) -> list[ReferenceCheck]:
    """Each pure row of the monthly cost table: its three columns and its best option.

    Compared as the document compares: compute at each option's hourly rate, porting and
    migration left out, among the document's columns (Trainium2, priced like its training
    table at on-demand rates; H100 on-demand; H100 reserved).
    """
    tol = figures["cost_table_tolerance"]
    checks: list[ReferenceCheck] = []
    # The document prices tokens at throughput: mean traffic at full load. The tool sizes
    # online serving for its peak at a target utilisation (docs/assumptions.md).
    at_throughput = Catalog.model_validate(
        apply_overrides(catalog.model_dump(mode="json"), THROUGHPUT_PRICING)
    )
    as_document = document_catalog(catalog)
    for row in figures["cost_table"]["rows"]:
        options = _options(row["workloads"], at_throughput, row["name"])
        costs = {col: _cost(options, *key) for col, key in DOCUMENT_COLUMNS.items()}
        for col, key in (
            ("trn2", "trn2_usd"),
            ("h100_on_demand", "h100_on_demand_usd"),
            ("h100_reserved", "h100_reserved_usd"),
        ):
            checks.append(
                _check("cost table", row["name"], f"{col} USD/month", row[key], costs[col], tol)
            )
        best = min(costs, key=lambda col: costs[col])
        checks.append(
            ReferenceCheck(
                "cost table",
                row["name"],
                "best option",
                None,
                None,
                best,
                None,
                expected=row["best"],
            )
        )
        checks.append(_whole_plan_check(row, as_document))
    return checks


def document_catalog(catalog: Catalog) -> Catalog:
    """The catalog as the document's cost table prices: compute only (no porting, no
    migration), tokens at throughput, its three columns (Trainium2 on demand, H100 on demand,
    H100 reserved) and H100 reservations per GPU-hour (units of one GPU holding any replica)."""
    data = apply_overrides(catalog.model_dump(mode="json"), THROUGHPUT_PRICING)
    for platform in data["platforms"].values():
        for field in ("migration_one_off_usd", "porting_weeks_per_family"):
            platform[field].update(low=0, high=0, point=0)
    for name, columns in DOCUMENT_PRICING.items():
        data["accelerators"][name]["pricing"] = list(columns)
    h100 = data["accelerators"]["h100"]
    h100["reservation_unit_chips"] = None
    h100["reservation_units"] = [{"chips": 1, "source": DOCUMENT_UNIT_SOURCE}]
    return Catalog.model_validate(data)


DOCUMENT_PRICING = {"trn2": ("on_demand",), "h100": ("on_demand", "reserved_1yr")}
DOCUMENT_UNIT_SOURCE = "REF cost comparison: reserved H100 priced per GPU-hour"


def _whole_plan_check(row: dict[str, Any], catalog: Catalog) -> ReferenceCheck:
    """The row planned whole by the tool under the document's pricing: its column is the
    accelerator, and for H100 whether commitments cover most of its chip-hours."""

    inventory = inventory_from_records(
        row["workloads"], row["name"], list(catalog.accelerators), catalog.profile_kinds()
    )
    result = plan(inventory, catalog, SolverOptions(gap=0.0))
    [assignment] = result.plan.assignments
    kind = catalog.pricing_options[assignment.pricing].kind
    column = assignment.accelerator
    if assignment.accelerator == "h100":
        column = "h100_on_demand" if kind == "on_demand" else "h100_reserved"
    return ReferenceCheck(
        "cost table",
        row["name"],
        "best option (whole plan)",
        None,
        None,
        column,
        None,
        expected=row.get("best_whole_plan", row["best"]),
    )


@dataclass(frozen=True)
class BreakEven:
    """The monthly training volume from which moving a family to a new platform pays.

    ``h100_gpu_hours`` is ``F / (c_incumbent - c_new)``: the amortized one-off costs ``F``
    (porting the family plus the migration programme) over the saving per H100 GPU-hour of work,
    each side at its cheapest option's hourly rate with reserved capacity at its usable fraction.
    None when the new platform saves nothing per hour.
    """

    name: str
    h100_gpu_hours: float | None
    incumbent_usd_per_h100_hour: float
    new_usd_per_h100_hour: float
    fixed_monthly_usd: float


def _usd_per_work_hour(options: pd.DataFrame, catalog: Catalog) -> pd.Series:
    """Cost of one H100 GPU-hour of work on each option, reserved at its usable fraction."""
    usable = {
        name: option.usable_fraction.value if option.usable_fraction is not None else 1.0
        for name, option in catalog.pricing_options.items()
    }
    return options["monthly_cost_usd"] / options["pricing"].map(usable)


def break_even(catalog: Catalog, figures: dict[str, Any]) -> list[BreakEven]:
    """Break-even training volume per model of ``figures['break_even']`` (not in the document)."""
    migrating = {name for name, p in catalog.platforms.items() if not p.adopted}
    results = []
    for model in figures["break_even"]["models"]:
        # One H100 GPU-hour of work: option costs are then costs per H100 GPU-hour.
        workload = {
            "id": "w",
            "kind": "training",
            "model_family": model["model_family"],
            "params_b": model["params_b"],
            "h100_gpu_hours": 1.0,
        }
        options = _options([workload], catalog, "break-even")
        options = options[options["feasible"]]
        per_hour = _usd_per_work_hour(options, catalog)
        new = options["platform"].isin(migrating)
        incumbent_rate = float(per_hour[~new].min())
        new_rate = float(per_hour[new].min()) if new.any() else math.inf
        fixed = _fixed_monthly(catalog)
        volume = fixed / (incumbent_rate - new_rate) if new_rate < incumbent_rate else None
        results.append(BreakEven(model["name"], volume, incumbent_rate, new_rate, fixed))
    return results


def _fixed_monthly(catalog: Catalog) -> float:
    """Porting plus migration, amortized, for one family moving to every non-adopted platform."""
    months = catalog.economics.amortization_months.value
    total = 0.0
    for name, platform in catalog.platforms.items():
        if platform.adopted:
            continue
        total += migration_one_off_usd(catalog, name)
        if platform.porting_required:
            total += porting_one_off_usd(catalog, name)
    return total / months


def reference_checks(catalog: Catalog | None = None) -> list[ReferenceCheck]:
    """Every comparison, in the document's order."""
    catalog = catalog or load_catalog()
    figures = reference_figures()
    return [
        *training_table_checks(catalog, figures),
        *inference_checks(catalog, figures),
        *latency_checks(catalog, figures),
        *price_checks(catalog, figures),
        *cost_table_checks(catalog, figures),
    ]


def write_reference_inputs(directory: str | Path) -> list[Path]:
    """Write the workloads of every case as the CSV inventories of ``inputs/reference/``."""
    figures = reference_figures()
    files: dict[str, list[dict[str, Any]]] = {
        figures["training_table"]["file"]: [
            r["workload"] for r in figures["training_table"]["rows"]
        ],
        figures["inference"]["file"]: figures["inference"]["workloads"],
        figures["latency"]["file"]: figures["latency"]["workloads"],
    }
    for row in figures["cost_table"]["rows"]:
        files[row["file"]] = row["workloads"]
    out = Path(directory)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(str(out), err.strerror or str(err)) from None
    texts: dict[Path, str] = {}
    for name, rows in files.items():
        columns = list(dict.fromkeys(key for row in rows for key in row))
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        texts[out / name] = buffer.getvalue()
    write_files({str(path): text for path, text in texts.items()})
    return list(texts)


@dataclass(frozen=True)
class ReferenceReport:
    """Every check and every break-even, for one catalog."""

    checks: list[ReferenceCheck]
    break_evens: list[BreakEven]

    @property
    def all_ok(self) -> bool:
        return all(check.ok for check in self.checks)


def reference_report(catalog: Catalog | None = None) -> ReferenceReport:
    """The comparison ``placement reference`` prints.

    The document speaks of H100 and Trainium2 on-demand and 1-year reserved: a catalog without
    them cannot be compared with it.
    """
    catalog = catalog or load_catalog()
    missing = [f"accelerators.{a}" for a in ("h100", "trn2") if a not in catalog.accelerators]
    missing += [
        f"pricing_options.{p}"
        for p in ("on_demand", "reserved_1yr")
        if p not in catalog.pricing_options
    ]
    if missing:
        raise PlacementInputError(
            [
                f"the reference compares H100 and Trainium2, on-demand and 1-year reserved; "
                f"the catalog has no {', '.join(missing)}"
            ],
            title="catalog cannot be compared with the reference",
        )
    return ReferenceReport(reference_checks(catalog), break_even(catalog, reference_figures()))

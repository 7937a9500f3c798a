"""One row of a workload inventory, validated.

The inventory columns are a fixed interface (see docs/inputs.md). Row validation lives here so
that every reader (CSV, XLSX, JSON, YAML, Parquet, a DataFrame from a notebook) applies the same
rules. Every rule reports its own column and says, in plain words, what the column expects:
errors carry the type :data:`INVALID_VALUE` and a message that completes "expected ...", so a
reader can quote them to a planner without pydantic's vocabulary.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from decimal import Decimal
from numbers import Real
from typing import Annotated, Any, Literal, TypeGuard, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from placement.models.bounds import Bound

Kind = Literal["training", "inference"]
Serving = Literal["online", "batch"]
Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
Feature = Literal[
    "flash_attention", "lora", "lora_multi_rank", "qlora", "moe", "speculative_decoding"
]
KINDS: tuple[str, ...] = get_args(Kind)
SERVING_MODES: tuple[str, ...] = get_args(Serving)
PRECISIONS: tuple[str, ...] = get_args(Precision)
FEATURES: tuple[str, ...] = get_args(Feature)
"""The features a workload can need, in catalog order (the order ``features`` is stored in)."""
REQUIRED_COLUMNS: tuple[str, ...] = ("id", "kind", "model_family", "params_b")
VOLUME_COLUMNS: tuple[str, ...] = ("monthly_tokens_b", "h100_gpu_hours")
VOLUME_RANGE_COLUMNS: tuple[str, ...] = ("volume_low", "volume_high")
"""The range of the row's volume, in the unit of its volume column: ``placement risk`` draws
the volume from it (docs/risk.md); planning uses the volume itself."""
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "precision",
    *VOLUME_COLUMNS,
    "serving",
    "ttft_slo_ms",
    "features",
    "needed_in_weeks",
    "neuron_ready",
    "pinned_accelerator",
    "active_params_b",
    "context_tokens",
    "peak_to_mean",
    "input_token_share",
    "load_profile",
    "current_accelerator",
    "start_month",
    "end_month",
    "monthly_growth",
    *VOLUME_RANGE_COLUMNS,
)
KNOWN_COLUMNS: tuple[str, ...] = REQUIRED_COLUMNS + OPTIONAL_COLUMNS
NUMBER_COLUMNS: tuple[str, ...] = (
    "params_b",
    *VOLUME_COLUMNS,
    "ttft_slo_ms",
    "needed_in_weeks",
    "active_params_b",
    "context_tokens",
    "peak_to_mean",
    "input_token_share",
    "start_month",
    "end_month",
    "monthly_growth",
    *VOLUME_RANGE_COLUMNS,
)
MONTH_COLUMNS: tuple[str, ...] = ("start_month", "end_month")
"""Number columns that hold whole months (month 1 is the first month planned)."""


BOUNDS: dict[str, Bound] = {
    "params_b": Bound(
        "params_b",
        minimum=0,
        minimum_open=True,
        maximum=100_000,
        why="100 trillion parameters, about 50 times the largest published model",
    ),
    "monthly_tokens_b": Bound(
        "monthly_tokens_b",
        minimum=0,
        maximum=10_000_000,
        why="10^16 tokens a month, thousands of times the largest services",
    ),
    "h100_gpu_hours": Bound(
        "h100_gpu_hours",
        minimum=0,
        maximum=1_000_000_000,
        why="10^9 GPU-hours a month: 1.4 million H100s busy all month",
    ),
    "ttft_slo_ms": Bound(
        "ttft_slo_ms", minimum=0, minimum_open=True, maximum=3_600_000, why="an hour"
    ),
    "needed_in_weeks": Bound("needed_in_weeks", minimum=0, maximum=520, why="ten years"),
    "active_params_b": Bound(
        "active_params_b",
        minimum=0,
        minimum_open=True,
        maximum=100_000,
        why="as params_b; at most params_b itself",
    ),
    "context_tokens": Bound(
        "context_tokens",
        minimum=0,
        minimum_open=True,
        maximum=10_000_000,
        why="ten million tokens, beyond any model's context window in 2026",
    ),
    "peak_to_mean": Bound(
        "peak_to_mean",
        minimum=1,
        maximum=100,
        why="peak traffic is at least the mean; a hundredfold peak is a spike, not a load",
    ),
    "input_token_share": Bound(
        "input_token_share", minimum=0, maximum=1, why="a share of the month's tokens"
    ),
    "start_month": Bound("start_month", minimum=1, maximum=120, why="ten years of months"),
    "end_month": Bound("end_month", minimum=1, maximum=120, why="ten years of months"),
    "monthly_growth": Bound(
        "monthly_growth",
        minimum=-1,
        minimum_open=True,
        maximum=10,
        why="demand can fall by less than all of itself in a month; growing more than "
        "elevenfold in a month is a unit mistake (a percentage written as a number)",
    ),
}
# A volume's range is in the unit of the row's volume column: the wider of the two bounds.
BOUNDS.update(
    {
        column: Bound(
            column,
            minimum=0,
            maximum=BOUNDS["h100_gpu_hours"].maximum,
            why="the volume's own bound (in its column's unit)",
        )
        for column in VOLUME_RANGE_COLUMNS
    }
)
"""Every number column's accepted range; the upper bounds reflect physics and money with a wide
margin: a value beyond one is a typo or a unit mistake, never a real workload (docs/inputs.md,
"Columns")."""


def _a_number(bound: Bound) -> str:
    return f"a number {bound.words}"


INVALID_VALUE = "invalid_inventory_value"
"""Error type of every rule below; its message completes the sentence "expected ..."."""

ACCELERATOR_NAMES = "accelerator_names"
"""Validation-context key: the catalog's accelerator names a pin must be one of (lower case)."""
LOAD_PROFILES = "load_profiles"
"""Validation-context key: the catalog's load profiles, name (lower case) -> ``serving`` or
``work``."""

_TRUE_WORDS = frozenset({"true", "yes", "1"})
_FALSE_WORDS = frozenset({"false", "no", "0"})


def _one_of(choices: Collection[str]) -> str:
    return "one of: " + ", ".join(choices)


EXPECTED: dict[str, str] = {
    "id": "a non-empty id (on one line, without control characters)",
    "kind": _one_of(KINDS),
    "model_family": "a non-empty model family name (e.g. llama, t5) on one line",
    "params_b": _a_number(BOUNDS["params_b"]),
    "precision": _one_of(PRECISIONS) + " (empty means bf16)",
    "monthly_tokens_b": _a_number(BOUNDS["monthly_tokens_b"]),
    "h100_gpu_hours": _a_number(BOUNDS["h100_gpu_hours"]),
    "serving": _one_of(SERVING_MODES) + " (empty means online)",
    "ttft_slo_ms": _a_number(BOUNDS["ttft_slo_ms"]) + ", or empty",
    "features": "names separated by ';' from: " + ", ".join(FEATURES),
    "needed_in_weeks": _a_number(BOUNDS["needed_in_weeks"]) + ", or empty",
    "neuron_ready": "true or false (or yes/no, 1/0; empty means false)",
    "pinned_accelerator": "an accelerator name, or empty",
    "active_params_b": _a_number(BOUNDS["active_params_b"]) + ", or empty",
    "context_tokens": _a_number(BOUNDS["context_tokens"]) + ", or empty",
    "peak_to_mean": _a_number(BOUNDS["peak_to_mean"]) + ", or empty",
    "input_token_share": _a_number(BOUNDS["input_token_share"]) + ", or empty",
    "load_profile": "a load profile name from the catalog, or empty",
    "current_accelerator": "an accelerator name (where the workload runs today), or empty",
    "start_month": "a whole number of months >= 1 and at most 120, or empty",
    "end_month": "a whole number of months >= 1 and at most 120, or empty",
    "monthly_growth": _a_number(BOUNDS["monthly_growth"])
    + " (a fraction: 0.05 is 5% a month), or empty",
    "volume_low": _a_number(BOUNDS["volume_low"])
    + " in the unit of the row's volume column, at most the volume, or empty",
    "volume_high": _a_number(BOUNDS["volume_high"])
    + " in the unit of the row's volume column, at least the volume, or empty",
}
"""What each column expects, in the words a planner reads after "expected"."""


def _invalid(expected: str) -> PydanticCustomError:
    return PydanticCustomError(INVALID_VALUE, expected)


def is_blank(value: object) -> bool:
    """Empty cells (``""``, whitespace, NaN, None) mean "not given" in every file format."""
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, float):
        return math.isnan(value)
    return value is None


def id_text(value: object) -> str | None:
    """The id a cell holds, or None if it holds none.

    Spreadsheets and JSON turn ids like ``42`` into numbers; they mean the text ``"42"``, not
    ``"42.0"``. The reader's duplicate check uses this too, so both agree on what an id is.
    """
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if _is_number(value) and not is_blank(value):
        return str(value)
    return None


_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")


def _one_line(text: str) -> bool:
    """No line breaks, tabs or other control characters: a cell that has them is misread."""
    return _CONTROL_CHARACTER.search(text) is None


def _id(value: object) -> str:
    text = id_text(value)
    if text is None or not _one_line(text):
        raise _invalid(EXPECTED["id"])
    return text


def _choice(
    field: str, choices: Collection[str], *, default: str | None = None, required: bool = False
) -> Callable[[Any], Any]:
    """A parser for a case-insensitive word from ``choices``; blank gives ``default``."""

    def parse(value: object) -> str | None:
        if is_blank(value):
            if required:
                raise _invalid(EXPECTED[field])
            return default
        if isinstance(value, str) and value.strip().lower() in choices:
            return value.strip().lower()
        raise _invalid(EXPECTED[field])

    return parse


def _name(field: str, *, required: bool) -> Callable[[Any], Any]:
    """A parser for a free name, compared case-insensitively downstream, so stored lower-case."""

    def parse(value: object) -> str | None:
        if is_blank(value):
            if required:
                raise _invalid(EXPECTED[field])
            return None
        if isinstance(value, str) and _one_line(value.strip()):
            return value.strip().lower()
        raise _invalid(EXPECTED[field])

    return parse


def _is_number(value: object) -> TypeGuard[Real | Decimal]:
    """Python, NumPy and decimal (Parquet) numbers, not booleans (``True`` is not a size, even
    where a spreadsheet says so)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True  # the common case, without the slower abstract-class check below
    return isinstance(value, Real | Decimal)


def _as_float(value: Real | Decimal) -> float:
    """The number as a float; NaN when it is beyond the float range (a 400-digit integer)."""
    try:
        return float(value)
    except OverflowError:
        return math.nan


def _float_or_nan(text: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        return math.nan


def _number(field: str, *, required: bool) -> Callable[[Any], Any]:
    """A parser for a finite number within :data:`BOUNDS`; text is parsed, booleans refused.

    pydantic's lax mode would read ``True`` as 1.0 and accept ``inf``; neither is a size or a
    volume. NaN, infinities and numbers beyond the float range are refused in every format.
    """
    bound = BOUNDS[field]

    def parse(value: object) -> float | None:
        if is_blank(value):
            if required:
                raise _invalid(EXPECTED[field])
            return None
        number = math.nan
        if isinstance(value, str):
            number = _float_or_nan(value)
        elif _is_number(value):
            number = _as_float(value)
        if math.isfinite(number) and bound.allows(number):
            return number
        raise _invalid(EXPECTED[field])

    return parse


def _month(field: str) -> Callable[[Any], Any]:
    """A parser for a whole month number (``3`` or ``3.0``, not ``2.5``) within :data:`BOUNDS`."""
    number = _number(field, required=False)

    def parse(value: object) -> float | None:
        month = number(value)
        if month is not None and not float(month).is_integer():
            raise _invalid(EXPECTED[field])
        return month

    return parse


def _features(value: object) -> tuple[str, ...]:
    """``;``-separated names (or a JSON/YAML list), de-duplicated, in :data:`FEATURES` order."""
    if is_blank(value):
        return ()
    if isinstance(value, str):
        names = [part.strip().lower() for part in value.split(";")]
    elif isinstance(value, list | tuple) and all(isinstance(part, str) for part in value):
        names = [part.strip().lower() for part in value]
    else:
        raise _invalid(EXPECTED["features"])
    given = {name for name in names if name}
    unknown = sorted(given.difference(FEATURES))
    if unknown:
        raise _invalid(f"{EXPECTED['features']} (not known: {', '.join(map(repr, unknown))})")
    return tuple(feature for feature in FEATURES if feature in given)


def _bool(value: object) -> bool:
    if is_blank(value):
        return False
    if isinstance(value, bool):
        return value
    if _is_number(value) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE_WORDS | _FALSE_WORDS:
        return value.strip().lower() in _TRUE_WORDS
    raise _invalid(EXPECTED["neuron_ready"])


def _combination_errors(data: dict[str, Any]) -> list[InitErrorDetails]:
    """Rules across columns, judged on what the cells hold, not on whether each is valid.

    They are checked on the raw row so that a row with a bad ``params_b`` and both volume
    columns filled reports both problems at once; each names the column the planner must edit.
    """
    errors: list[InitErrorDetails] = []

    def add(field: str, expected: str) -> None:
        errors.append({"type": _invalid(expected), "loc": (field,), "input": data.get(field)})

    has_tokens = not is_blank(data.get("monthly_tokens_b"))
    has_hours = not is_blank(data.get("h100_gpu_hours"))
    if has_tokens and has_hours:
        add("h100_gpu_hours", "empty when monthly_tokens_b is given (give exactly one of the two)")
    elif not has_tokens and not has_hours:
        add(
            "monthly_tokens_b",
            "a number >= 0 here or in h100_gpu_hours (exactly one of the two is needed)",
        )
    kind = data.get("kind")
    training = isinstance(kind, str) and kind.strip().lower() == "training"
    if training:
        for field in ("serving", "ttft_slo_ms", "input_token_share"):
            if not is_blank(data.get(field)):
                add(field, f"empty for training ({field} applies to inference only)")
    serving = data.get("serving")
    batch = isinstance(serving, str) and serving.strip().lower() == "batch"
    if (training or batch) and not is_blank(data.get("peak_to_mean")):
        add("peak_to_mean", "empty except for online inference (its traffic's peak over mean)")
    if has_hours and not has_tokens and not is_blank(data.get("input_token_share")):
        add(
            "input_token_share",
            "empty when h100_gpu_hours is given (it splits monthly_tokens_b; measured hours "
            "already include the prompts)",
        )
    start, end = _as_number(data.get("start_month")), _as_number(data.get("end_month"))
    if start is not None and end is not None and end < start:
        add("end_month", f"at least start_month ({start:g}): a workload ends after it starts")
    volume = _as_number(data.get("monthly_tokens_b" if has_tokens else "h100_gpu_hours"))
    low, high = _as_number(data.get("volume_low")), _as_number(data.get("volume_high"))
    if volume is not None and low is not None and low > volume:
        add("volume_low", f"at most the volume ({volume:g}): the low end of its range")
    if volume is not None and high is not None and high < volume:
        add("volume_high", f"at least the volume ({volume:g}): the high end of its range")
    active, total = _as_number(data.get("active_params_b")), _as_number(data.get("params_b"))
    if active is not None and total is not None and active > total:
        add("active_params_b", "at most params_b (the active parameters are part of the total)")
    return errors


def _as_number(value: object) -> float | None:
    """A cell's number for a cross-column rule, or None where the cell's own rule will speak."""
    if isinstance(value, str):
        number = _float_or_nan(value)
    elif _is_number(value):
        number = _as_float(value)
    else:
        return None
    return number if math.isfinite(number) else None


def _as_init_details(error: Any) -> InitErrorDetails:
    """Turn a reported error back into one that can be raised again alongside others."""
    kind = error["type"]
    details: InitErrorDetails = {
        "type": _invalid(error["msg"]) if kind == INVALID_VALUE else kind,
        "loc": error["loc"],
        "input": error["input"],
    }
    if "ctx" in error:
        details["ctx"] = error["ctx"]
    return details


class Workload(BaseModel):
    """A training or inference workload as the planner describes it.

    Exactly one of ``monthly_tokens_b`` (work in billions of tokens) and ``h100_gpu_hours``
    (measured demand) gives the monthly volume. ``serving`` is ``online`` or ``batch`` for
    inference (``online`` when not given) and ``None`` for training, so consumers never re-apply
    the default. ``pinned_accelerator`` is checked against the names passed in the validation
    context under :data:`ACCELERATOR_NAMES`, when given.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    id: Annotated[str, BeforeValidator(_id)]
    kind: Annotated[Kind, BeforeValidator(_choice("kind", KINDS, required=True))]
    model_family: Annotated[str, BeforeValidator(_name("model_family", required=True))]
    params_b: Annotated[float, BeforeValidator(_number("params_b", required=True))]
    precision: Annotated[
        Precision, BeforeValidator(_choice("precision", PRECISIONS, default="bf16"))
    ] = "bf16"
    monthly_tokens_b: Annotated[
        float | None,
        BeforeValidator(_number("monthly_tokens_b", required=False)),
    ] = None
    h100_gpu_hours: Annotated[
        float | None,
        BeforeValidator(_number("h100_gpu_hours", required=False)),
    ] = None
    serving: Annotated[
        Serving | None,
        BeforeValidator(_choice("serving", SERVING_MODES)),
        Field(validate_default=True),
    ] = None
    ttft_slo_ms: Annotated[
        float | None,
        BeforeValidator(_number("ttft_slo_ms", required=False)),
    ] = None
    features: Annotated[tuple[Feature, ...], BeforeValidator(_features)] = ()
    needed_in_weeks: Annotated[
        float | None,
        BeforeValidator(_number("needed_in_weeks", required=False)),
    ] = None
    neuron_ready: Annotated[bool, BeforeValidator(_bool)] = False
    pinned_accelerator: Annotated[
        str | None, BeforeValidator(_name("pinned_accelerator", required=False))
    ] = None
    active_params_b: Annotated[
        float | None, BeforeValidator(_number("active_params_b", required=False))
    ] = None
    context_tokens: Annotated[
        float | None, BeforeValidator(_number("context_tokens", required=False))
    ] = None
    peak_to_mean: Annotated[
        float | None, BeforeValidator(_number("peak_to_mean", required=False))
    ] = None
    input_token_share: Annotated[
        float | None, BeforeValidator(_number("input_token_share", required=False))
    ] = None
    load_profile: Annotated[str | None, BeforeValidator(_name("load_profile", required=False))] = (
        None
    )
    current_accelerator: Annotated[
        str | None, BeforeValidator(_name("current_accelerator", required=False))
    ] = None
    start_month: Annotated[float | None, BeforeValidator(_month("start_month"))] = None
    end_month: Annotated[float | None, BeforeValidator(_month("end_month"))] = None
    monthly_growth: Annotated[
        float | None, BeforeValidator(_number("monthly_growth", required=False))
    ] = None
    volume_low: Annotated[float | None, BeforeValidator(_number("volume_low", required=False))] = (
        None
    )
    volume_high: Annotated[
        float | None, BeforeValidator(_number("volume_high", required=False))
    ] = None

    @field_validator("serving", mode="after")
    @classmethod
    def _online_by_default(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None and info.data.get("kind") == "inference":
            return "online"
        return value

    @field_validator("pinned_accelerator", mode="after")
    @classmethod
    def _known_accelerator(cls, value: str | None, info: ValidationInfo) -> str | None:
        names = (info.context or {}).get(ACCELERATOR_NAMES)
        if value is not None and names is not None and value not in names:
            raise _invalid(_one_of(names) + " (or empty for no pin)")
        return value

    @field_validator("current_accelerator", mode="after")
    @classmethod
    def _known_current(cls, value: str | None, info: ValidationInfo) -> str | None:
        names = (info.context or {}).get(ACCELERATOR_NAMES)
        if value is not None and names is not None and value not in names:
            raise _invalid(_one_of(names) + " (or empty where it does not run yet)")
        return value

    @field_validator("load_profile", mode="after")
    @classmethod
    def _known_profile(cls, value: str | None, info: ValidationInfo) -> str | None:
        """A catalog profile, of the kind the workload is: ``serving`` for online inference,
        ``work`` for training and batch inference."""
        profiles = (info.context or {}).get(LOAD_PROFILES)
        if value is None or profiles is None:
            return value
        kind, serving = info.data.get("kind"), info.data.get("serving")
        wanted = "serving" if kind == "inference" and serving == "online" else "work"
        fitting = [name for name, profile_kind in profiles.items() if profile_kind == wanted]
        if value not in fitting:
            who = "online inference" if wanted == "serving" else "training and batch inference"
            raise _invalid(f"{_one_of(fitting)} (the {wanted} profiles, for {who}), or empty")
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _check_combinations(
        cls, data: Any, handler: ModelWrapValidatorHandler[Workload]
    ) -> Workload:
        """Report cross-column problems together with every per-column one.

        An ``after`` validator would only run once every column is valid, hiding these until
        the planner fixes the rest; a cell with its own error gets no second message.
        """
        combinations = _combination_errors(data) if isinstance(data, dict) else []
        if not combinations:
            return handler(data)
        try:
            handler(data)
        except ValidationError as exc:
            field_errors = exc.errors(include_url=False)
        else:
            field_errors = []
        failed = {error["loc"] for error in field_errors}
        raise ValidationError.from_exception_data(
            cls.__name__,
            [_as_init_details(error) for error in field_errors]
            + [error for error in combinations if error["loc"] not in failed],
        )

"""Seeded synthetic workload inventories for benchmarks and tests.

``synthetic_inventory(n, seed)`` returns an inventory frame with the columns of DESIGN.md
section 2 (plus a ``team`` extra column) that looks like the workload list of a large ML
organisation:

* about 35% training and 65% inference;
* model families from the default catalog's family list, weighted towards Llama, BERT-style
  encoders and Mistral, plus a few unknown in-house families (``acme_*``) the Neuron SDK does
  not support yet;
* model sizes taken from each family's real releases (BERT 0.11/0.34B, T5 0.22-11B, Llama
  1-405B, Mixtral 47/141B, DeepSeek-V3 671B, ...);
* precisions plausible for the kind (bf16 training, fp32 for some encoders, fp8/int8/int4
  quantised serving, int4 for QLoRA);
* monthly volumes log-normal (a quarter given as measured H100 GPU-hours, the rest as tokens),
  scaled with model size;
* a TTFT SLO on most online inference (50-1000 ms), mostly set with headroom over what the
  model achieves on an H100 today, a few tight or aspirational;
* features at low, realistic rates; a few deadlines, pins and Neuron-ready workloads.

The same ``(n, seed)`` always gives an identical frame. CLI::

    python -m benchmarks.generate 10000 --seed 0 -o inv_10k.csv     # or .parquet
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from placement.catalog import CatalogSource, read_catalog
from placement.models.workload import FEATURES, KNOWN_COLUMNS
from placement.reading import Inventory, read_inventory

__all__ = [
    "COLUMNS",
    "FAMILY_PROFILES",
    "IN_HOUSE_FAMILIES",
    "TEAMS",
    "main",
    "synthetic_inventory",
    "write_inventory",
]

COLUMNS: tuple[str, ...] = (*KNOWN_COLUMNS, "team")

TRAINING_SHARE = 0.35
GPU_HOURS_SHARE = 0.25  # volume given as measured H100 GPU-hours rather than tokens
ONLINE_SHARE = 0.70  # of inference
SLO_SHARE = 0.85  # of online inference
DEADLINE_SHARE = 0.07
PIN_SHARE = 0.03
NEURON_READY_SHARE = 0.04


@dataclass(frozen=True)
class FamilyProfile:
    """How often a family appears (per kind) and the sizes it comes in."""

    name: str
    weight: float
    sizes_b: tuple[float, ...]
    size_weights: tuple[float, ...]
    style: str  # "decoder", "encoder", "encoder_decoder", "moe", "vision"
    training_bias: float = 1.0  # relative weight among training workloads vs inference


FAMILY_PROFILES: tuple[FamilyProfile, ...] = (
    FamilyProfile("llama", 0.34, (1, 3, 8, 13, 70, 405), (6, 10, 42, 7, 28, 7), "decoder"),
    FamilyProfile("mistral", 0.11, (7, 12, 22), (75, 15, 10), "decoder"),
    FamilyProfile("mixtral", 0.05, (46.7, 141), (80, 20), "moe"),
    FamilyProfile("qwen2", 0.08, (0.5, 1.5, 7, 14, 32, 72), (5, 15, 35, 15, 15, 15), "decoder"),
    FamilyProfile("gpt_neox", 0.04, (1.4, 6.9, 12, 20), (25, 35, 20, 20), "decoder", 1.5),
    FamilyProfile("t5", 0.06, (0.22, 0.77, 3, 11), (30, 30, 25, 15), "encoder_decoder"),
    FamilyProfile("bert", 0.13, (0.11, 0.34), (55, 45), "encoder"),
    FamilyProfile("roberta", 0.08, (0.125, 0.355), (50, 50), "encoder"),
    FamilyProfile("deepseek_v3", 0.02, (671,), (1,), "moe", 0.5),
    FamilyProfile("mistral_large_2", 0.02, (123,), (1,), "decoder", 0.5),
    FamilyProfile("qwen2_5_vl", 0.03, (3, 7, 32, 72), (20, 50, 15, 15), "vision"),
)
"""The default catalog's families (tests check the two lists agree)."""

IN_HOUSE_FAMILIES: tuple[str, ...] = ("acme_lm", "acme_rec", "acme_speech", "acme_vision")
IN_HOUSE_SHARE = 0.04
IN_HOUSE_SIZE_RANGE_B = (0.3, 30.0)  # log-uniform

TEAMS: tuple[str, ...] = (
    "foundation", "alignment", "research", "applied", "search", "ads", "recsys",
    "trust-safety", "devtools", "support", "product", "localization", "platform", "legal",
    "finance", "voice", "vision", "growth", "security", "data-science", "health", "commerce",
    "maps", "marketing",
)  # fmt: skip

# Precision mixes: (names, weights).
_TRAIN_PRECISION = (("bf16", "fp32", "fp16", "fp8"), (82, 8, 5, 5))
_TRAIN_PRECISION_ENCODER = (("fp32", "bf16", "fp16"), (45, 35, 20))
_INFER_PRECISION = (("bf16", "fp16", "fp8", "int8", "int4"), (30, 10, 28, 14, 18))
_INFER_PRECISION_ENCODER = (("fp16", "fp32", "bf16", "int8"), (45, 20, 20, 15))
_BYTES = {"fp32": 4.0, "bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}

# Feature probabilities per (feature, kind) for decoder-style models; encoders get a fraction.
_FEATURE_RATES: dict[str, tuple[float, float]] = {  # (training, inference)
    "flash_attention": (0.30, 0.12),
    "lora": (0.15, 0.06),
    "lora_multi_rank": (0.03, 0.04),
    "qlora": (0.04, 0.0),
    "speculative_decoding": (0.0, 0.07),  # online inference only
}
_ENCODER_FEATURE_SCALE = 0.15
_MOE_LISTED = 0.85  # MoE families that also list "moe" in features
_IN_HOUSE_MOE = 0.05
_NEURON_READY_FAMILIES = ("llama", "mistral", "bert", "roberta", "t5", "qwen2")


def _pick(
    rng: np.random.Generator,
    choices: Sequence[str],
    weights: Sequence[float] | np.ndarray,
    size: int,
) -> np.ndarray:
    p = np.asarray(weights, dtype=float)
    return rng.choice(np.asarray(choices, dtype=object), size=size, p=p / p.sum())


def _significant(values: np.ndarray, digits: int = 3) -> np.ndarray:
    """Round to ``digits`` significant figures (volumes are estimates; keep files readable)."""
    out = np.zeros_like(values, dtype=float)
    nonzero = values > 0
    magnitude = np.floor(np.log10(values[nonzero]))
    scale = 10.0 ** (digits - 1 - magnitude)
    out[nonzero] = np.round(values[nonzero] * scale) / scale
    return out


def _size_label(params_b: float) -> str:
    return f"{params_b:g}b"


def synthetic_inventory(n: int, seed: int) -> pd.DataFrame:
    """A realistic synthetic inventory of ``n`` workloads; identical for identical ``(n, seed)``.

    Columns: :data:`COLUMNS` (the DESIGN.md inventory columns plus the extra column ``team``).
    Missing values are NaN (numbers) or None (text); ``features`` is ``;``-separated ("" for
    none); ``neuron_ready`` is a bool.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = np.random.default_rng(seed)

    # Kind, then family conditional on kind.
    training = rng.random(n) < TRAINING_SHARE
    names = [p.name for p in FAMILY_PROFILES] + list(IN_HOUSE_FAMILIES)
    in_house_w = [IN_HOUSE_SHARE / len(IN_HOUSE_FAMILIES)] * len(IN_HOUSE_FAMILIES)
    infer_w = np.array([p.weight for p in FAMILY_PROFILES] + in_house_w)
    train_w = np.array([p.weight * p.training_bias for p in FAMILY_PROFILES] + in_house_w)
    family = np.empty(n, dtype=object)
    family[training] = _pick(rng, names, train_w, int(training.sum()))
    family[~training] = _pick(rng, names, infer_w, int((~training).sum()))

    # Size from the family's releases; style drives precision and features.
    params = np.empty(n, dtype=float)
    style = np.empty(n, dtype=object)
    for profile in FAMILY_PROFILES:
        mask = family == profile.name
        weights = np.asarray(profile.size_weights, dtype=float)
        params[mask] = rng.choice(
            np.asarray(profile.sizes_b), size=int(mask.sum()), p=weights / weights.sum()
        )
        style[mask] = profile.style
    in_house = np.isin(family, IN_HOUSE_FAMILIES)
    low, high = IN_HOUSE_SIZE_RANGE_B
    drawn = np.exp(rng.uniform(math.log(low), math.log(high), int(in_house.sum())))
    params[in_house] = _significant(drawn, 2)
    style[in_house] = "decoder"
    encoder = np.isin(style, ["encoder"])
    decoder_like = ~encoder & ~np.isin(style, ["encoder_decoder"])

    # Serving mode (inference only).
    inference = ~training
    online = inference & (rng.random(n) < ONLINE_SHARE)

    # Features.
    features: dict[str, np.ndarray] = {}
    draws = rng.random((len(_FEATURE_RATES), n))
    for row, (feature, (train_rate, infer_rate)) in enumerate(_FEATURE_RATES.items()):
        rate = np.where(training, train_rate, infer_rate)
        rate = np.where(decoder_like, rate, rate * _ENCODER_FEATURE_SCALE)
        if feature == "speculative_decoding":
            rate = np.where(online & decoder_like, rate, 0.0)
        features[feature] = draws[row] < rate
    features["lora"] &= ~features["lora_multi_rank"] & ~features["qlora"]
    moe_draw = rng.random(n)
    moe_family = np.isin(style, ["moe"])
    features["moe"] = (moe_family & (moe_draw < _MOE_LISTED)) | (
        in_house & (moe_draw < _IN_HOUSE_MOE)
    )

    # Precision by kind and style; QLoRA trains on 4-bit base weights.
    precision = np.empty(n, dtype=object)
    for kind_mask, (dec, enc) in (
        (training, (_TRAIN_PRECISION, _TRAIN_PRECISION_ENCODER)),
        (inference, (_INFER_PRECISION, _INFER_PRECISION_ENCODER)),
    ):
        for style_mask, (choices, mix) in ((~encoder, dec), (encoder, enc)):
            mask = kind_mask & style_mask
            precision[mask] = _pick(rng, choices, mix, int(mask.sum()))
    precision[features["qlora"]] = "int4"

    # Monthly volume: log-normal, scaled with model size.
    by_hours = rng.random(n) < GPU_HOURS_SHARE
    z = rng.standard_normal(n)
    token_median = np.where(
        training,
        12.0 * (8.0 / params) ** 0.45,
        np.where(encoder, 30.0, 4.0 * (8.0 / params) ** 0.3),
    )
    hours_median = np.where(training, 250.0 * (params / 8.0) ** 0.6, 400.0 * (params / 8.0) ** 0.4)
    sigma = np.where(training, 1.0, 1.2)
    tokens = _significant(token_median * np.exp(sigma * z))
    hours = _significant(hours_median * np.exp(z))
    monthly_tokens_b = np.where(by_hours, np.nan, tokens)
    h100_gpu_hours = np.where(by_hours, hours, np.nan)

    # TTFT SLO: most teams set it with headroom over what the model does on an H100 today
    # (a rule of thumb: 20 ms for 7B on one GPU, linear in size, /n^0.8 when sharded over n
    # GPUs); a few are tight or aspirational, drawn without regard to the model.
    bytes_pp = np.array([_BYTES[p] for p in precision])
    gpus = np.maximum(1.0, np.ceil(params * bytes_pp * 1.2 / 72.0))
    current_ms = 20.0 * (params / 7.0) / gpus**0.8
    headroom = np.exp(rng.uniform(math.log(1.05), math.log(8.0), n))
    aspirational = rng.random(n) < 0.05
    free_slo = np.exp(rng.uniform(math.log(50.0), math.log(1000.0), n))
    slo = np.where(aspirational, free_slo, current_ms * headroom)
    slo = np.clip(np.round(slo / 10.0) * 10.0, 50.0, 1000.0)
    has_slo = online & (rng.random(n) < SLO_SHARE)
    ttft_slo_ms = np.where(has_slo, slo, np.nan)

    # Deadlines, pins and Neuron-ready workloads.
    needed = rng.integers(1, 27, n).astype(float)
    needed_in_weeks = np.where(rng.random(n) < DEADLINE_SHARE, needed, np.nan)
    # Pins are policy pins to the H100 fleet the team runs today (compliance, data residency):
    # with Trainium2 not yet adopted in the default catalog nobody pins work to it, and a trn2
    # pin would leave the all-H100 baseline undefined for the whole inventory.
    pinned_accelerator = np.full(n, None, dtype=object)
    pinned_accelerator[rng.random(n) < PIN_SHARE] = "h100"
    neuron_ready = (
        (rng.random(n) < NEURON_READY_SHARE)
        & np.isin(family, _NEURON_READY_FAMILIES)
        & ~(pinned_accelerator == "h100")
    )

    serving = np.full(n, None, dtype=object)
    serving[online] = "online"
    serving[inference & ~online] = "batch"
    team = _pick(rng, TEAMS, [1.0 / (rank + 2) for rank in range(len(TEAMS))], n)

    feature_text = [";".join(f for f in FEATURES if features[f][i]) for i in range(n)]
    ids = [
        f"{team[i]}-{family[i]}-{_size_label(params[i])}-{'train' if training[i] else 'infer'}"
        f"-{i:06d}"
        for i in range(n)
    ]
    frame = pd.DataFrame(
        {
            "id": pd.Series(ids, dtype=object),
            "kind": pd.Series(np.where(training, "training", "inference"), dtype=object),
            "model_family": pd.Series(family, dtype=object),
            "params_b": params,
            "precision": pd.Series(precision, dtype=object),
            "monthly_tokens_b": monthly_tokens_b,
            "h100_gpu_hours": h100_gpu_hours,
            "serving": pd.Series(serving, dtype=object),
            "ttft_slo_ms": ttft_slo_ms,
            "features": pd.Series(feature_text, dtype=object),
            "needed_in_weeks": needed_in_weeks,
            "neuron_ready": neuron_ready.astype(bool),
            "pinned_accelerator": pd.Series(pinned_accelerator, dtype=object),
            "team": pd.Series(team, dtype=object),
        },
        columns=list(COLUMNS),
    )
    return frame


def read_synthetic(n: int, seed: int) -> tuple[CatalogSource, Inventory]:
    """The default catalog and the synthetic inventory of ``n`` workloads, read as a batch
    benchmark plans it (whatif, risk, robust)."""
    catalog = read_catalog()
    inventory = read_inventory(
        synthetic_inventory(n, seed=seed),
        list(catalog.catalog.accelerators),
        load_profiles=catalog.catalog.profile_kinds(),
    )
    return catalog, inventory


def write_inventory(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write an inventory as CSV or Parquet, by the file's extension."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".csv":
        frame.to_csv(target, index=False)
    elif suffix == ".parquet":
        frame.to_parquet(target, index=False)
    else:
        raise ValueError(f"{target}: expected a file ending in .csv or .parquet")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.generate",
        description="Write a seeded synthetic workload inventory (CSV or Parquet).",
    )
    parser.add_argument("n", type=int, help="number of workloads")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "-o", "--output", required=True, help="output file; .csv or .parquet by extension"
    )
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("n must be at least 1")
    if Path(args.output).suffix.lower() not in (".csv", ".parquet"):
        parser.error("--output must end in .csv or .parquet")
    target = write_inventory(synthetic_inventory(args.n, args.seed), args.output)
    print(f"wrote {args.n} workloads (seed {args.seed}) to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

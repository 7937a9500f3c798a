"""Workload physics against hand-computed figures of the default catalog.

The catalog's points used below: H100 7B TTFT 20 ms; Trainium2 with graph caching 1.2 x 20 =
24 ms; TTFT grows as params^1 and divides by chips^0.8 over a replica; 80 GB (H100) and 64 GB
(Trainium2) at 90% usable; inference needs params x bytes x 1.2; peak-to-mean 1.5; target
utilisation 0.7; attention's share of a training step 0.08 at 8,192 tokens, of a prompt 0.015
at 512 tokens; attention 2.5 x slower without flash attention.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from placement.catalog import load_catalog
from placement.estimating import estimate
from placement.estimating.latency import loaded_ttft, utilization_for_slo
from placement.reading import read_inventory
from tests.conftest import frame, run_plan

CATALOG = load_catalog()
TP = 0.8  # latency.tensor_parallel_exponent
H100_7B_MS = 20.0
TRN2_7B_MS = 1.2 * 20.0
TARGET = 0.7


def _options(rows: list[dict[str, Any]]) -> pd.DataFrame:
    inventory = read_inventory(frame(rows), list(CATALOG.accelerators))
    return estimate(inventory.workloads, CATALOG).options


def _option(rows: list[dict[str, Any]], workload_id: str, accelerator: str) -> pd.Series:
    options = _options(rows)
    chosen = options[
        options["workload_id"].eq(workload_id)
        & options["accelerator"].eq(accelerator)
        & options["pricing"].eq("on_demand")
    ]
    return chosen.iloc[0]


def _training(id: str, family: str, params_b: float, **more: Any) -> dict[str, Any]:
    return {
        "id": id,
        "kind": "training",
        "model_family": family,
        "params_b": params_b,
        "monthly_tokens_b": 1,
        **more,
    }


def _online(id: str, params_b: float, precision: str, slo: float, **more: Any) -> dict[str, Any]:
    return {
        "id": id,
        "kind": "inference",
        "model_family": "llama",
        "params_b": params_b,
        "precision": precision,
        "monthly_tokens_b": 0.2,
        "serving": "online",
        "ttft_slo_ms": slo,
        **more,
    }


class TestDeploymentShapes:
    def test_70b_bf16_at_60ms_takes_one_8_gpu_replica(self) -> None:
        # 70B bf16 needs 168 GB: 3 H100. One chip: 20 x 10 = 200 ms; 4 chips 66.0 ms > 60;
        # 8 chips 200 / 8^0.8 = 37.9 ms, within 60 ms up to 54% load.
        row = _online("chat", 70, "bf16", 60, pinned_accelerator="h100")
        option = _option([row], "chat", "h100")
        assert option["feasible"]
        assert (option["fit_chips"], option["replica_chips"], option["replicas"]) == (3, 8, 1)
        assert 200 / 4**TP > 60
        assert option["ttft_unloaded_ms"] == pytest.approx(200 / 8**TP, rel=1e-6)
        assert option["ttft_ms"] <= 60
        assert "1 replica of 8 h100 (tensor-parallel 8)" in option["sizing"]
        result = run_plan([row], CATALOG)
        assert [a.replica_chips for a in result.plan.assignments] == [8]

    def test_405b_fp8_at_200ms_takes_16_gpu_replicas(self) -> None:
        # 405B fp8 needs 486 GB: 7 H100. One chip: 20 x 405 / 7 = 1157 ms; 8 chips 219 ms > 200;
        # 16 chips 1157 / 16^0.8 = 125.9 ms.
        row = _online("svc", 405, "fp8", 200, pinned_accelerator="h100")
        option = _option([row], "svc", "h100")
        one_chip = H100_7B_MS * 405 / 7
        assert one_chip / 8**TP > 200
        assert (option["fit_chips"], option["replica_chips"]) == (7, 16)
        assert option["ttft_unloaded_ms"] == pytest.approx(one_chip / 16**TP, rel=1e-6)
        assert option["ttft_ms"] <= 200
        assert "(tensor-parallel 8 x 2 pipeline stages)" in option["sizing"]
        run_plan([row], CATALOG)

    def test_trainium2_latency_uses_the_4_chips_of_its_instance(self) -> None:
        # 70B int4 (42 GB) fits one Trainium2 chip at 24 x 10 = 240 ms: within 250 ms only up to
        # 8% load. Over the 4 chips of one instance: 240 / 4^0.8 = 79.2 ms.
        row = _online("agent", 70, "int4", 250, pinned_accelerator="trn2", neuron_ready=True)
        option = _option([row], "agent", "trn2")
        assert (option["fit_chips"], option["replica_chips"]) == (1, 4)
        assert option["ttft_unloaded_ms"] == pytest.approx(TRN2_7B_MS * 10 / 4**TP, rel=1e-6)
        assert option["ttft_unloaded_ms"] == pytest.approx(79.2, abs=0.1)

    def test_no_shape_meets_the_slo_says_what_the_best_reached(self) -> None:
        # 405B fp8 at 20 ms: 64 H100 reach 1157 / 64^0.8 = 41.8 ms; larger replicas (whole
        # multiples of 64) are not tried beyond the memory minimum.
        row = _online("svc", 405, "fp8", 20)
        option = _option([row], "svc", "h100")
        assert not option["feasible"]
        best = H100_7B_MS * 405 / 7 / 64**TP
        assert f"TTFT {best:.1f} ms even unloaded on 64 chips per replica" in option["reason"]

    @pytest.mark.parametrize(
        ("params_b", "precision", "slo", "tokens_b"),
        [
            (8, "bf16", 30, 50),
            (70, "bf16", 100, 20),
            (70, "fp8", 45, 300),
            (34, "int8", None, 5),
            (180, "int4", 150, 1),
            (405, "bf16", 400, 60),
        ],
    )
    def test_replicas_use_valid_shapes_only(
        self, params_b: float, precision: str, slo: float | None, tokens_b: float
    ) -> None:
        row = {**_online("w", params_b, precision, slo or 0), "monthly_tokens_b": tokens_b}
        if slo is None:
            row.pop("ttft_slo_ms")
        options = _options([row])
        shapes = {
            name: set(acc.replica_chip_counts or []) for name, acc in CATALOG.accelerators.items()
        }
        for option in options.itertuples():
            listed = shapes[option.accelerator]
            assert option.replica_chips in listed or option.replica_chips % max(listed) == 0
            assert option.replica_chips not in (3, 5, 6, 7)
            unit = CATALOG.accelerators[option.accelerator].deployment_unit_chips
            assert option.chips == -(-option.replicas * option.replica_chips // unit) * unit


class TestServingUnderLoad:
    @pytest.mark.parametrize(
        ("params_b", "precision", "slo", "tokens_b", "peak"),
        [
            (8, "bf16", 40, 30, None),
            (8, "bf16", 25, 300, 3.0),
            (70, "fp8", 120, 60, 1.2),
            (70, "int4", 250, 10, None),
            (13, "fp16", None, 40, 2.0),
        ],
    )
    def test_every_online_option_is_within_target_and_slo(
        self, params_b: float, precision: str, slo: float | None, tokens_b: float, peak: float
    ) -> None:
        row = {**_online("w", params_b, precision, slo or 0), "monthly_tokens_b": tokens_b}
        if slo is None:
            row.pop("ttft_slo_ms")
        if peak is not None:
            row["peak_to_mean"] = peak
        options = _options([row])
        feasible = options[options["feasible"]]
        assert not feasible.empty
        for option in feasible.itertuples():
            assert option.utilization <= TARGET + 1e-9
            if slo is not None:
                assert option.ttft_ms <= slo * (1 + 1e-9)
            expected = loaded_ttft(np.array(option.ttft_unloaded_ms), np.array(option.utilization))
            assert option.ttft_ms == pytest.approx(float(expected))
        result = run_plan([row], CATALOG)  # re-checks load and TTFT from the plan
        assert result.plan.assignments

    def test_mdl1_queueing_by_hand(self) -> None:
        # S = 10 ms at u = 0.5: 10 (1 + 0.5 / (2 x 0.5)) = 15 ms; an SLO of 15 ms allows u = 0.5.
        assert float(loaded_ttft(np.array(10.0), np.array(0.5))) == pytest.approx(15)
        assert float(utilization_for_slo(np.array(10.0), np.array(15.0))) == pytest.approx(0.5)
        assert float(utilization_for_slo(np.array(10.0), np.array(9.0))) == 0.0

    def test_replicas_are_sized_for_peak_at_target_utilisation(self) -> None:
        # 8B bf16 on H100, no SLO: one-chip replicas. Decode: 1985 tok/s for 70B int4 (35 GB)
        # -> 1985 x 35 / 16 = 4342 tok/s for 8B bf16; 100B tokens a month = 6,397 chip-hours;
        # at peak 1.5 and 70%: 6,397 x 1.5 / (730 x 0.7) = 18.8 -> 19 replicas.
        row = {**_online("w", 8, "bf16", 0), "monthly_tokens_b": 100}
        row.pop("ttft_slo_ms")
        option = _option([row], "w", "h100")
        work = 100e9 / (1985 * 35 / 16 * 3600)
        assert option["replica_chips"] == 1
        assert option["replicas"] == int(np.ceil(work * 1.5 / (730 * TARGET)))
        assert option["utilization"] == pytest.approx(work * 1.5 / (730 * option["replicas"]))
        flat = _option([{**row, "peak_to_mean": 1.0}], "w", "h100")
        assert flat["replicas"] == int(np.ceil(work / (730 * TARGET)))

    def test_input_tokens_are_priced_at_prefill(self) -> None:
        # 70B bf16: decode 1985 x 35 / 140 = 496 tok/s; prefill 3500 tok/s (compute-bound).
        # Half the tokens as prompt: 1e9 x (0.5 / 496 + 0.5 / 3500) / 3600 chip-hours.
        base = {
            "id": "w",
            "kind": "inference",
            "model_family": "llama",
            "params_b": 70,
            "precision": "bf16",
            "monthly_tokens_b": 1,
            "serving": "batch",
        }
        decode_only = _option([base], "w", "h100")["chip_hours"]
        split = _option([{**base, "input_token_share": 0.5}], "w", "h100")["chip_hours"]
        decode = 1985 * 35 / 140
        assert decode_only == pytest.approx(1e9 / decode / 3600, rel=1e-3)
        assert split == pytest.approx(1e9 * (0.5 / decode + 0.5 / 3500) / 3600, rel=1e-3)

    def test_serving_efficiency_is_charged_to_online_serving_only(self) -> None:
        # Trainium2 runs 0.10625 of an H100's inference throughput per chip; continuous batching
        # (experimental in SDK 2.20) costs online serving a further 0.85. A batch job fills its
        # chips itself: its work is 1 / 0.10625 of H100's, not 1 / (0.10625 x 0.85).
        batch = {
            "id": "w",
            "kind": "inference",
            "model_family": "llama",
            "params_b": 70,
            "precision": "int4",
            "monthly_tokens_b": 10,
            "serving": "batch",
        }
        trn2 = _option([batch], "w", "trn2")["chip_hours"]
        h100 = _option([batch], "w", "h100")["chip_hours"]
        assert trn2 / h100 == pytest.approx(1 / 0.10625, rel=1e-6)
        online = {**batch, "serving": "online", "peak_to_mean": 1.0, "monthly_tokens_b": 100}
        busy = {
            a: (o["utilization"] * o["replicas"] * o["replica_chips"])
            for a in ("trn2", "h100")
            for o in [_option([online], "w", a)]
        }
        assert busy["trn2"] / busy["h100"] == pytest.approx(1 / (0.10625 * 0.85), rel=1e-6)


class TestActiveParameters:
    def test_deepseek_v3_training_within_2x_of_published(self) -> None:
        # DeepSeek-V3 report: 2.664M H800 GPU-hours for 14.8T tokens, 5.56M tokens per GPU-hour.
        row = _training("ds", "deepseek_v3", 671, monthly_tokens_b=5)
        hours = _option([row], "ds", "h100")["chip_hours"]
        published = 5e9 / (14.8e12 / 2.664e6)
        assert 0.5 <= hours / published <= 2

    def test_mixtral_compute_follows_its_active_parameters(self) -> None:
        # Mixtral 8x7B: 12.9B of 46.7B active. Its training costs what a dense 12.9B model's does
        # (the MoE penalty applies on Trainium2 only); its memory, what 46.7B's does.
        moe = _training("m", "mixtral", 46.7)
        dense = {**moe, "id": "d", "model_family": "llama", "params_b": 12.9}
        options = _options([moe, dense]).set_index(["workload_id", "accelerator", "pricing"])
        assert options.loc[("m", "h100", "on_demand"), "chip_hours"] == pytest.approx(
            options.loc[("d", "h100", "on_demand"), "chip_hours"]
        )
        assert (
            options.loc[("m", "h100", "on_demand"), "memory_gb"]
            > 3 * options.loc[("d", "h100", "on_demand"), "memory_gb"]
        )

    def test_moe_ttft_uses_active_parameters(self) -> None:
        # DeepSeek-V3 fp8: 805 GB -> 12 H100, replica 16; TTFT 20 x 37 / 7 / 16^0.8.
        row = {
            "id": "r",
            "kind": "inference",
            "model_family": "deepseek_v3",
            "params_b": 671,
            "precision": "fp8",
            "monthly_tokens_b": 0.1,
            "serving": "online",
        }
        option = _option([row], "r", "h100")
        assert option["replica_chips"] == 16
        assert option["ttft_unloaded_ms"] == pytest.approx(20 * 37 / 7 / 16**TP, rel=1e-6)

    def test_the_column_overrides_the_family_ratio(self) -> None:
        row = {
            "id": "r",
            "kind": "inference",
            "model_family": "mixtral",
            "params_b": 46.7,
            "monthly_tokens_b": 1,
            "serving": "batch",
        }
        default = _option([row], "r", "h100")
        given = _option([{**row, "active_params_b": 25.8}], "r", "h100")
        assert given["chip_hours"] == pytest.approx(2 * default["chip_hours"], rel=1e-6)
        assert given["memory_gb"] == default["memory_gb"]


class TestAttention:
    @staticmethod
    def _ratio(row: dict[str, Any]) -> float:
        options = _options([row]).set_index(["accelerator", "pricing"])["monthly_cost_usd"]
        return float(options[("trn2", "on_demand")] / options[("h100", "on_demand")])

    def test_the_reference_70b_row_is_unchanged_by_listing_flash_attention(self) -> None:
        row = _training("r", "llama", 70)
        plain = self._ratio(row)
        listed = self._ratio({**row, "features": "flash_attention"})
        at_benchmark = self._ratio({**row, "features": "flash_attention", "context_tokens": 8192})
        assert plain == pytest.approx(0.644, abs=0.01)
        assert listed == pytest.approx(plain)
        assert at_benchmark == pytest.approx(plain)

    def test_long_context_charges_only_the_attention_beyond_the_benchmark(self) -> None:
        # At 4 x 8192: with the kernel a token costs 0.92 + 0.08 x 4 = 1.24 of a benchmark
        # token; without it (2.5 x slower attention) (0.92 + 2.5 x 0.08 x 4) / (0.92 + 0.2)
        # = 1.536 of Trainium2's own benchmark token. Trainium2 keeps 1.24 / 1.536 = 0.807.
        row = _training("r", "llama", 70, context_tokens=32768)
        options = _options([row, {**row, "id": "f", "features": "flash_attention"}])
        hours = options[options["pricing"].eq("on_demand")].set_index(
            ["workload_id", "accelerator"]
        )["chip_hours"]
        short = _option([{**row, "context_tokens": 8192}], "r", "h100")["chip_hours"]
        assert hours[("r", "h100")] == pytest.approx(1.24 * short)
        assert hours[("f", "h100")] == pytest.approx(hours[("r", "h100")])
        keeps = 1.24 / ((0.92 + 2.5 * 0.08 * 4) / (0.92 + 2.5 * 0.08))
        assert hours[("f", "trn2")] == pytest.approx(hours[("r", "trn2")] / keeps)


class TestAdapters:
    def test_8b_qlora_fits_one_h100(self) -> None:
        # Frozen 8B int4 base 4 GB + 0.5% trainable (40M) x (2 x 2 + 12) bytes = 0.64 GB, x 1.25
        # activations = 5.8 GB.
        row = {
            "id": "q",
            "kind": "training",
            "model_family": "llama",
            "params_b": 8,
            "precision": "int4",
            "monthly_tokens_b": 1,
            "features": "qlora",
        }
        option = _option([row], "q", "h100")
        assert option["memory_gb"] == pytest.approx((8 * 0.5 + 8 * 0.005 * 16) * 1.25)
        assert option["fit_chips"] == 1
        assert "adapter" in option["sizing"]

    def test_adapter_compute_is_a_share_of_full_fine_tuning(self) -> None:
        full = _training("f", "llama", 8)
        lora = {**full, "id": "l", "features": "lora"}
        qlora = {**full, "id": "q", "features": "qlora", "precision": "int4"}
        options = _options([full, lora, qlora])
        hours = options[
            options["accelerator"].eq("h100") & options["pricing"].eq("on_demand")
        ].set_index("workload_id")["chip_hours"]
        assert hours["l"] == pytest.approx(0.67 * hours["f"])
        assert hours["q"] == pytest.approx(0.85 * hours["f"])

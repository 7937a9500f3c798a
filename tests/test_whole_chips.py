"""Whole chips: what a plan states is what a schedule of whole chips and instances costs.

Figures by hand from the default catalog: Trainium2 $0.41 a chip-hour, reserved 40% off
($0.246), sold in 4-chip instances; 730 hours a month.
"""

from __future__ import annotations

import pytest

from placement.catalog import load_catalog
from tests.conftest import EXACT, run_plan

CATALOG = load_catalog()


def test_a_service_never_scales_below_one_instance() -> None:
    # A 7B service on Trainium2 with 1-chip replicas, following a daily cycle 3x its mean:
    # at its trough one replica stays up, and it holds a whole 4-chip instance, so the
    # service holds 4 chips every hour: 2,920 chip-hours, reserved 2,920 x $0.246 = $718.32
    # (a trough of one chip stated $437 where at least $718 is billed).
    rows = [
        {
            "id": "svc",
            "kind": "inference",
            "model_family": "llama",
            "params_b": 7,
            "precision": "bf16",
            "monthly_tokens_b": 0.5,
            "serving": "online",
            "load_profile": "diurnal",
            "peak_to_mean": 3,
            "pinned_accelerator": "trn2",
            "neuron_ready": True,
        }
    ]
    plan = run_plan(rows, CATALOG, EXACT).plan
    [assignment] = plan.assignments
    assert (assignment.replica_chips, assignment.chips) == (1, 4)
    assert assignment.chip_hours == pytest.approx(4 * 730)
    assert plan.cost_breakdown.reserved_usd == pytest.approx(718.32, abs=0.01)

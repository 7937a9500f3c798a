"""The catalog: defaults, conventions, overrides, and extension by catalog edits alone."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from placement.catalog import (
    apply_overrides,
    catalog_records,
    default_catalog_text,
    load_catalog,
    read_catalog,
)
from placement.errors import CatalogError
from placement.models.catalog import Catalog
from tests.conftest import EXACT, default_catalog_dict, make_catalog, placement_of, run_plan


def _money_keys(node: Any, path: str = "") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = f"{path}.{key}" if path else str(key)
            if isinstance(value, dict) and {"low", "high"} <= value.keys():
                found.append((here, value))
            found.extend(_money_keys(value, here))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.extend(_money_keys(value, f"{path}.{i}"))
    return found


def test_default_catalog_loads_with_a_source_for_every_figure() -> None:
    catalog = load_catalog()
    records = catalog_records(catalog)
    figures = [r for r in records if r["source"]]
    assert len(figures) > 40
    for record in figures:
        if record["low"] is not None:  # ranges and fixed figures; plain settings have no range
            assert record["low"] <= record["point"] <= record["high"], record["path"]


def test_every_range_has_a_source_and_money_is_named_in_usd() -> None:
    ranges = _money_keys(default_catalog_dict())
    assert ranges
    for path, value in ranges:
        assert value.get("source"), path
    money_paths = [p for p, _ in ranges if "usd" in p]
    assert any(p.endswith("on_demand_usd_per_chip_hour") for p in money_paths)
    assert any(p.endswith("migration_one_off_usd") for p in money_paths)


def test_reference_figures_in_the_default() -> None:
    catalog = load_catalog()
    h100 = catalog.accelerators["h100"].on_demand_usd_per_chip_hour
    assert (h100.low, h100.high, h100.value) == (3.5, 4.5, 4.0)
    assert catalog.pricing_options["reserved_1yr"].discount_vs_on_demand.value == 0.4
    migration = catalog.platforms["neuron"].migration_one_off_usd
    assert (migration.low, migration.high) == (50_000, 200_000)
    assert catalog.accelerators["trn2"].deployment_unit_chips == 4
    assert catalog.accelerators["trn2"].memory_gb_per_chip.value == 64


def test_set_overrides_a_range_to_a_certain_value() -> None:
    catalog = load_catalog(overrides=["accelerators.h100.on_demand_usd_per_chip_hour=5"])
    price = catalog.accelerators["h100"].on_demand_usd_per_chip_hour
    assert (price.low, price.value, price.high) == (5, 5, 5)
    assert "set to 5 by override" in price.source


def test_set_point_within_the_range() -> None:
    catalog = load_catalog(overrides=["accelerators.h100.on_demand_usd_per_chip_hour.point=3.6"])
    price = catalog.accelerators["h100"].on_demand_usd_per_chip_hour
    assert (price.low, price.value, price.high) == (3.5, 3.6, 4.5)


def test_bad_overrides_are_all_reported() -> None:
    with pytest.raises(CatalogError) as err:
        load_catalog(overrides=["accelerators.h200.memory=1", "nonsense", "economics.nope=2"])
    text = str(err.value)
    assert "3 problems" in text
    assert "'accelerators.h200'" in text and "known keys here: h100, trn2" in text
    assert "expected dotted.path=value" in text
    assert "'economics.nope'" in text


def test_invalid_values_are_reported_with_their_path() -> None:
    with pytest.raises(CatalogError) as err:
        load_catalog(overrides=["accelerators.h100.on_demand_usd_per_chip_hour.point=9"])
    assert "accelerators.h100.on_demand_usd_per_chip_hour" in str(err.value)
    assert "must lie within" in str(err.value)


def test_unknown_cross_references_are_rejected() -> None:
    data = apply_overrides(default_catalog_dict(), ["accelerators.trn2.platform=rocm"])
    with pytest.raises(ValueError, match="'rocm' is not a platform"):
        Catalog.model_validate(data)


def add_h200_and_three_year_term(data: dict[str, Any]) -> None:
    """An H200 on CUDA (141 GB) and a 3-year reservation, by catalog edits alone."""
    source = "test: public H200 spec and an assumed price"
    data["accelerators"]["h200"] = {
        "platform": "cuda",
        "memory_gb_per_chip": {"value": 141, "source": source},
        "deployment_unit_chips": 1,
        "node_chips": 8,
        "reservation_unit_chips": 8,
        "on_demand_usd_per_chip_hour": {"low": 5, "high": 5, "source": source},
        "training_throughput_vs_reference": {
            "default": [{"params_b": 1, "figure": {"low": 1.5, "high": 1.5, "source": source}}]
        },
        "inference_throughput_vs_reference": {"low": 1.6, "high": 1.6, "source": source},
        "inference_serving_efficiency": {"low": 1, "high": 1, "source": source},
        "ttft_7b_ms_warm": {"low": 12, "high": 18, "source": source},
        "ttft_7b_ms_cold": {"low": 12, "high": 18, "source": source},
    }
    data["pricing_options"]["reserved_3yr"] = {
        "kind": "reserved",
        "term_months": 36,
        "discount_vs_on_demand": {"low": 0.6, "high": 0.6, "source": source},
        "usable_fraction": {"low": 0.95, "high": 0.95, "source": source},
    }


class TestThirdAcceleratorAndTerm:
    ROWS = (
        # 405B fp8 online: 486 GB -> 7 H100 (72 GB usable) or 4 H200 (126.9 GB usable).
        {
            "id": "big-chat",
            "kind": "inference",
            "model_family": "llama",
            "params_b": 405,
            "precision": "fp8",
            "monthly_tokens_b": 1,
            "serving": "online",
        },
        {
            "id": "sft",
            "kind": "training",
            "model_family": "mistral",
            "params_b": 7,
            "h100_gpu_hours": 3000,
        },
    )

    def test_options_cover_every_accelerator_and_term(self) -> None:
        catalog = make_catalog(default_catalog_dict(), add_h200_and_three_year_term)
        result = run_plan(self.ROWS, catalog, EXACT)
        options = {(o.accelerator, o.pricing) for o in result.plan.assignments[0].options}
        # The default savings plan lists the accelerators it covers; the H200 is not one.
        assert options == {
            (a, p)
            for a in ("h100", "h200", "trn2")
            for p in ("on_demand", "reserved_1yr", "reserved_3yr")
        } | {("h100", "savings_plan_1yr"), ("trn2", "savings_plan_1yr")}
        chips = {o.accelerator: o.chips for o in result.plan.assignments[0].options}
        # H100: 7 chips hold it -> an 8-GPU replica; the H200 (no listed shapes) 4. Trainium2:
        # 9 chips hold it -> 16-chip replicas; its traffic, 1,620 H100-hours of work at 0.09 of
        # H100 speed per chip, x 1.5 at peak, at 70% target load, needs 4 of them.
        assert chips == {"h100": 8, "h200": 4, "trn2": 64}

    def test_plan_uses_the_h200_on_three_year_terms_without_porting(self) -> None:
        catalog = make_catalog(default_catalog_dict(), add_h200_and_three_year_term)
        result = run_plan(self.ROWS, catalog, EXACT)
        # H200: 4 chips x 730 h x $5 x 0.4 = $5,840 vs H100 8 x 730 x $4 x 0.4 = $9,344;
        # training: 3000 / 1.5 = 2000 h at $2 = $4,000 vs H100 3000 h at $1.6 = $4,800.
        assert placement_of(result) == {
            "big-chat": ("h200", "reserved_3yr"),
            "sft": ("h200", "reserved_3yr"),
        }
        assert result.plan.ported_families == []
        assert result.plan.migrations == []
        [pool] = result.plan.reserved_purchases
        assert (pool.accelerator, pool.pricing, pool.units) == ("h200", "reserved_3yr", 1)
        # One 8-chip unit holds 8 x 0.95 = 7.6 chips: the chat's 4 all month, and 3.6 free
        # while the sft's 4 chips run (2,000 chip-hours in 500 h): 1,800 of them covered, 200
        # on demand at $5.
        [sft] = [a for a in result.plan.assignments if a.workload_id == "sft"]
        assert (sft.chips, sft.run_hours) == (4, 500)
        assert sft.coverage == pytest.approx({"reserved_3yr": 1800, "on_demand": 200})
        assert result.plan.objective_monthly_usd == pytest.approx(8 * 730 * 5 * 0.4 + 200 * 5)

    def test_a_trainium3_shares_the_neuron_port(self) -> None:
        def add_trn3(data: dict[str, Any]) -> None:
            trn3 = dict(data["accelerators"]["trn2"])
            trn3["memory_gb_per_chip"] = {"value": 144, "source": "test: assumed"}
            data["accelerators"]["trn3"] = trn3

        catalog = make_catalog(default_catalog_dict(), add_trn3)
        rows = [
            {
                "id": f"pretrain-{i}",
                "kind": "training",
                "model_family": "llama",
                "params_b": 405,
                "monthly_tokens_b": 2,
            }
            for i in range(2)
        ]
        result = run_plan(rows, catalog, EXACT)
        accelerators = {a.accelerator for a in result.plan.assignments}
        assert accelerators <= {"trn2", "trn3"}
        assert [(p.family, p.platform) for p in result.plan.ported_families] == [
            ("llama", "neuron")
        ]
        assert [m.platform for m in result.plan.migrations] == ["neuron"]


def test_text_settings_stay_text() -> None:
    # YAML would read 2.20 as the float 2.2 (and 2.2 < 2.18 as a version).
    catalog = load_catalog(overrides=["platforms.neuron.sdk_version=2.20"])
    assert catalog.platforms["neuron"].sdk_version == "2.20"


def test_every_number_in_the_default_catalog_has_a_source() -> None:
    missing = [
        r["path"]
        for r in catalog_records(load_catalog())
        if isinstance(r["point"], int | float)
        and not isinstance(r["point"], bool)
        and not r["source"]
    ]
    assert missing == []


def test_catalog_file_hash_is_of_its_bytes_and_latin1_is_refused(tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.yaml"
    crlf.write_bytes(default_catalog_text().replace("\n", "\r\n").encode("utf-8"))
    source = read_catalog(crlf)
    assert source.origin.sha256 == hashlib.sha256(crlf.read_bytes()).hexdigest()
    assert source.catalog == load_catalog()
    latin1 = tmp_path / "latin1.yaml"
    text = default_catalog_text().replace("name:", "# caf\xe9\nname:", 1)
    latin1.write_bytes(text.encode("latin-1"))
    with pytest.raises(CatalogError, match="is not UTF-8; the file looks like Latin-1"):
        load_catalog(latin1)


def test_a_settings_copy_is_a_deep_copy_that_keeps_aliases_and_leaves_the_original() -> None:
    import copy

    from placement.catalog.files import _round_trip_yaml
    from placement.catalog.settings import copied_document

    text = "# top\na: &x\n  low: 1  # why\n  high: 2\nb: *x\nc:\n  - 1\n  - {d: 2}\n"
    document = _round_trip_yaml().load(text)
    copied = copied_document(document)
    assert copied == copy.deepcopy(document)
    assert copied["a"] is copied["b"] and copied["a"] is not document["a"]
    assert copied["c"][1] is not document["c"][1]
    copied["a"]["low"] = 5
    copied["c"][1]["d"] = 3
    assert document["a"]["low"] == 1 and document["c"][1]["d"] == 2
    assert copied["b"]["low"] == 5  # one node under an anchor, as in the file


def test_exporting_twice_gives_the_same_text_with_its_comments() -> None:
    from placement.catalog import catalog_to_yaml

    first = catalog_to_yaml(read_catalog(overrides=["accelerators.h100.max_chips=64"]))
    again = catalog_to_yaml(read_catalog(overrides=["accelerators.h100.max_chips=64"]))
    plain = catalog_to_yaml(read_catalog())
    assert first == again
    assert "#" in plain and plain.count("#") == first.count("#")
    assert plain == catalog_to_yaml(read_catalog())


@pytest.mark.parametrize(
    "text",
    [
        "a: yes\nb: 0o12\nc: 1:30\nd: 012\ne: 1_000\nf: on\ng: .inf\nh: 2.20\ni: 1e3\n",
        "j: 2026-01-01\nk: ~\nl: 0x1F\nm: +12\nn: .5\no: 'quoted'\np: [1, {q: null}]\n",
        "base: &b {low: 1, high: 2}\nother:\n  <<: *b\n  point: 1.5\n",
    ],
)
def test_the_quick_parse_reads_every_value_as_the_round_trip_parse_does(text: str) -> None:
    from placement.catalog.files import _parse_plain, _round_trip_yaml

    assert _parse_plain(text) == _round_trip_yaml().load(text)


@pytest.mark.parametrize("name", [None, "aws-2026"])
def test_a_catalog_read_quickly_is_the_catalog_read_round_trip(name: str | None) -> None:
    from placement.catalog.files import _parse, _read_bytes, _validate

    source = read_catalog(name)
    data, label = _read_bytes(name)
    base = _parse(data.decode("utf-8"), label)
    assert source.catalog == _validate(base, base, [], label)[0]
    assert base == _parse(source.text, label) and source.document == base

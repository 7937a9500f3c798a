"""Real units for real prices: what a chip is, instance types, prices per instance-hour, and the
packaged catalogs chosen by name (``--catalog aws-2026``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from placement.catalog import catalog_records, catalog_to_yaml, load_catalog, read_catalog
from placement.catalog.files import PACKAGED_CATALOGS, packaged_catalog_text
from placement.cli.main import cli
from placement.errors import CatalogError
from placement.models.catalog import Catalog
from tests.conftest import default_catalog_dict

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "inputs" / "sample_inventory.csv")


def _run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def _write(tmp_path: Path, data: dict[str, Any], name: str = "my.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(path)


def _h100_per_instance(data: dict[str, Any], **price: Any) -> dict[str, Any]:
    """The default catalog with H100's price given per p5.48xlarge-hour instead of per GPU."""
    h100 = data["accelerators"]["h100"]
    del h100["on_demand_usd_per_chip_hour"]
    h100["on_demand_usd_per_instance_hour"] = {"instance": "p5.48xlarge", **price}
    return data


def _objective(result: Result) -> float:
    assert result.exit_code == 0, result.output
    return float(json.loads(result.stdout)["objective_monthly_usd"])


# --- prices per instance-hour ------------------------------------------------------------------


def test_an_instance_hour_price_is_divided_by_the_instance_chips_once() -> None:
    data = _h100_per_instance(default_catalog_dict(), low=28, high=36, point=32, source="invoice")
    price = Catalog.model_validate(data).accelerators["h100"].on_demand_usd_per_chip_hour
    assert (price.low, price.value, price.high) == (3.5, 4.0, 4.5)
    assert price.source == "p5.48xlarge $32/h / 8 chips: invoice"


def test_a_validated_catalog_dumps_and_loads_back_as_per_chip() -> None:
    data = _h100_per_instance(default_catalog_dict(), low=28, high=36, point=32, source="invoice")
    catalog = Catalog.model_validate(data)
    dumped = catalog.model_dump(mode="json")
    assert "on_demand_usd_per_instance_hour" not in dumped["accelerators"]["h100"]
    again = Catalog.model_validate(dumped)
    assert again.accelerators["h100"].on_demand_usd_per_chip_hour.value == 4.0


def test_an_instance_hour_price_plans_like_the_same_price_per_chip(tmp_path: Path) -> None:
    per_chip = default_catalog_dict()
    per_chip["accelerators"]["h100"]["on_demand_usd_per_chip_hour"] = {
        "low": 3.5,
        "high": 4.5,
        "point": 4.0,
        "source": "per GPU",
    }
    per_instance = _h100_per_instance(
        default_catalog_dict(), low=28, high=36, point=32, source="per p5.48xlarge"
    )
    by_chip = _run("plan", SAMPLE, "--catalog", _write(tmp_path, per_chip, "chip.yaml"),
                   "--format", "json")  # fmt: skip
    by_instance = _run("plan", SAMPLE, "--catalog", _write(tmp_path, per_instance, "inst.yaml"),
                       "--format", "json")  # fmt: skip
    assert _objective(by_instance) == pytest.approx(_objective(by_chip), rel=1e-9)


@pytest.mark.parametrize("given", ["both", "neither"])
def test_both_or_neither_price_is_refused_naming_the_path(tmp_path: Path, given: str) -> None:
    data = default_catalog_dict()
    h100 = data["accelerators"]["h100"]
    if given == "both":
        h100["on_demand_usd_per_instance_hour"] = {
            "instance": "p5.48xlarge",
            "low": 28,
            "high": 36,
            "source": "invoice",
        }
    else:
        del h100["on_demand_usd_per_chip_hour"]
    path = _write(tmp_path, data)
    result = _run("catalog", "show", "--catalog", path)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert f"{path}: accelerators.h100: give exactly one of on_demand_usd_per_chip_hour and " in (
        result.output
    )
    assert f"({given} " in result.output


def test_an_instance_price_names_a_listed_instance(tmp_path: Path) -> None:
    data = _h100_per_instance(default_catalog_dict(), low=28, high=36, source="invoice")
    data["accelerators"]["h100"]["on_demand_usd_per_instance_hour"]["instance"] = "p5.96xlarge"
    result = _run("catalog", "show", "--catalog", _write(tmp_path, data))
    assert result.exit_code == 2
    assert "on_demand_usd_per_instance_hour.instance 'p5.96xlarge' is not one of " in result.output
    assert "p5.4xlarge, a3-highgpu-2g, a3-highgpu-4g, p5.48xlarge" in result.output


def test_a_reservation_unit_must_be_an_instance_size(tmp_path: Path) -> None:
    data = default_catalog_dict()
    data["accelerators"]["trn2"]["instance_types"] = [
        {"name": "trn2.48xlarge", "chips": 16, "source": "AWS"}
    ]
    result = _run("catalog", "show", "--catalog", _write(tmp_path, data))
    assert result.exit_code == 2
    assert (
        "accelerators.trn2: reservation_units.0.chips 4 is not the chips of any of "
        "instance_types (trn2.48xlarge with 16)"
    ) in result.output


def test_instance_names_are_unique() -> None:
    data = default_catalog_dict()
    types = data["accelerators"]["h100"]["instance_types"]
    types.append(dict(types[0]))
    with pytest.raises(ValueError, match=r"'p5\.4xlarge' is listed more than once"):
        Catalog.model_validate(data)


def test_an_older_catalog_without_chip_or_instances_still_loads_and_says_so(
    tmp_path: Path,
) -> None:
    data = default_catalog_dict()
    for acc in data["accelerators"].values():
        del acc["chip"], acc["instance_types"]
    result = _run("catalog", "show", "--catalog", _write(tmp_path, data), "--format", "json")
    assert result.exit_code == 0, result.output
    by_path = {r["path"]: r for r in json.loads(result.stdout)}
    assert by_path["accelerators.h100.chip"]["point"] == "not stated"
    assert by_path["accelerators.h100.instance_types"]["point"] == "none listed"


# --- overrides -----------------------------------------------------------------------------------


def test_an_instance_price_is_overridden_with_set() -> None:
    catalog = load_catalog(
        "aws-2026", ["accelerators.h100.on_demand_usd_per_instance_hour.point=55"]
    )
    assert catalog.accelerators["h100"].on_demand_usd_per_chip_hour.value == 55 / 8


def test_an_instance_price_set_to_one_number_keeps_its_instance() -> None:
    catalog = load_catalog("aws-2026", ["accelerators.trn2.on_demand_usd_per_instance_hour=40"])
    price = catalog.accelerators["trn2"].on_demand_usd_per_chip_hour
    assert (price.low, price.value, price.high) == (2.5, 2.5, 2.5)
    assert price.source.startswith("trn2.48xlarge $40/h / 16 chips: ")


def test_a_price_per_chip_set_on_an_instance_priced_accelerator_replaces_it() -> None:
    catalog = load_catalog("aws-2026", ["accelerators.h100.on_demand_usd_per_chip_hour=6"])
    price = catalog.accelerators["h100"].on_demand_usd_per_chip_hour
    assert (price.low, price.value, price.high) == (6, 6, 6)
    assert "replacing on_demand_usd_per_instance_hour" in price.source


def test_an_instance_price_in_the_per_chip_field_is_refused() -> None:
    result = _run(
        "catalog",
        "show",
        "--catalog",
        "aws-2026",
        "--set",
        "accelerators.h100.on_demand_usd_per_chip_hour=55.04",
    )
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "--set 'accelerators.h100.on_demand_usd_per_chip_hour=55.04'" in result.output
    assert (
        "accelerators.h100.on_demand_usd_per_chip_hour: $55.04 per chip-hour is above "
        "economics.max_on_demand_usd_per_chip_hour ($15: "
    ) in result.output
    assert "give it as on_demand_usd_per_instance_hour" in result.output


# --- packaged catalogs by name -------------------------------------------------------------------


def test_each_packaged_catalog_is_named_as_it_names_itself() -> None:
    for name, resource in PACKAGED_CATALOGS.items():
        assert yaml.safe_load(packaged_catalog_text(resource))["name"] == name
        assert load_catalog(name).name == name


def test_aws_2026_plans_the_sample() -> None:
    result = _run("plan", SAMPLE, "--catalog", "aws-2026", "--format", "json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["status"] == "optimal"
    assert plan["unplaced"] == []
    assert plan["run"]["catalog"]["name"] == "aws-2026"
    # H100 at $54.08-55.06 per p5.48xlarge-hour: $6.76-6.88 per GPU-hour, not $55.
    h100 = read_catalog("aws-2026").catalog.accelerators["h100"]
    assert 6.7 < h100.on_demand_usd_per_chip_hour.value < 6.9
    # The plan says what a chip is and prices it both ways: the p5.48xlarge hour is the
    # catalog's instance price back again ($54.57 at its point), a GPU-hour an eighth of it.
    rates = {r["accelerator"]: r for r in plan["rates"]}
    assert rates["h100"]["chip"].startswith("one NVIDIA H100")
    assert rates["h100"]["on_demand_usd_per_chip_hour"] == pytest.approx(54.57 / 8)
    p5 = {t["name"]: t for t in rates["h100"]["instance_types"]}["p5.48xlarge"]
    assert (p5["chips"], p5["on_demand_usd_per_hour"]) == (8, pytest.approx(54.57))


def test_the_environment_names_a_packaged_catalog() -> None:
    result = _run("catalog", "show", "--format", "json", env={"PLACEMENT_CATALOG": "aws-2026"})
    assert result.exit_code == 0, result.output
    by_path = {r["path"]: r for r in json.loads(result.stdout)}
    assert by_path["name"]["point"] == "aws-2026"


def test_an_unknown_name_lists_the_packaged_catalogs() -> None:
    result = _run("plan", SAMPLE, "--catalog", "aws-2027")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "aws-2027: cannot read the catalog file" in result.output
    assert "nor is it a packaged catalog (aws-2026, default-2026)" in result.output


def test_a_file_of_the_same_name_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = default_catalog_dict()
    data["name"] = "my-own"
    _write(tmp_path, data, "aws-2026")
    monkeypatch.chdir(tmp_path)
    assert load_catalog("aws-2026").name == "my-own"


def test_aws_2026_exports_as_written_and_loads_back(tmp_path: Path) -> None:
    result = _run("catalog", "export", "--catalog", "aws-2026")
    assert result.exit_code == 0, result.output
    assert result.stdout == catalog_to_yaml(read_catalog("aws-2026"))
    assert "on_demand_usd_per_instance_hour:" in result.stdout
    exported = tmp_path / "mine.yaml"
    exported.write_text(result.stdout, encoding="utf-8")
    assert load_catalog(exported) == load_catalog("aws-2026")


# --- catalog show --------------------------------------------------------------------------------


def test_catalog_show_says_what_a_chip_is_and_lists_instance_types() -> None:
    result = _run("catalog", "show", "--catalog", "aws-2026", "--format", "json")
    assert result.exit_code == 0, result.output
    by_path = {r["path"]: r for r in json.loads(result.stdout)}
    assert by_path["accelerators.h100.chip"]["point"] == "one NVIDIA H100 SXM5 GPU, 80 GB HBM3"
    assert "Trainium2" in by_path["accelerators.trn2.chip"]["point"]
    assert by_path["accelerators.h100.instance_types.p5.48xlarge"]["point"] == 8
    assert by_path["accelerators.h100.instance_types.p5.4xlarge"]["point"] == 1
    assert by_path["accelerators.trn2.instance_types.trn2.48xlarge"]["point"] == 16
    assert by_path["accelerators.trn2.instance_types.Trn2 UltraServer"]["point"] == 64
    # The price as given (per instance-hour) beside the price the model uses (per chip-hour).
    given = by_path["accelerators.h100.on_demand_usd_per_instance_hour"]
    used = by_path["accelerators.h100.on_demand_usd_per_chip_hour"]
    assert given["point"] == pytest.approx(8 * used["point"])
    assert used["source"].startswith("p5.48xlarge $54.57/h / 8 chips: ")


def test_the_table_shows_the_chip_text() -> None:
    result = _run("catalog", "show", "--format", "md")
    assert result.exit_code == 0, result.output
    assert "one NVIDIA H100 SXM5 GPU, 80 GB HBM3" in result.stdout
    assert "accelerators.h100.instance_types.p5.48xlarge" in result.stdout


def _is_figure(record: dict[str, Any]) -> bool:
    """A number, or what a chip is (plain words such as a platform's name are no figures)."""
    point = record["point"]
    number = isinstance(point, int | float) and not isinstance(point, bool)
    return number or record["path"].endswith(".chip")


def test_every_figure_of_aws_2026_has_a_source() -> None:
    figures = [r for r in catalog_records(load_catalog("aws-2026")) if _is_figure(r)]
    assert len(figures) > 80
    assert [r["path"] for r in figures if not str(r["source"]).strip()] == []
    # Each source is a citation or says it is an assumption (or a definition or convention).
    prices = [r for r in figures if "usd" in r["path"] and "accelerators." in r["path"]]
    assert len(prices) == 4  # per instance-hour as given, per chip-hour as used, two chips
    assert all(r["source"].count(":") >= 1 for r in prices)


def test_every_packaged_catalog_says_what_its_chips_are() -> None:
    for name in PACKAGED_CATALOGS:
        for acc_name, acc in load_catalog(name).accelerators.items():
            assert acc.chip, (name, acc_name)
            assert acc.instance_types, (name, acc_name)


def test_an_unreadable_catalog_is_still_a_catalog_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="nor is it a packaged catalog"):
        load_catalog(tmp_path / "missing.yaml")

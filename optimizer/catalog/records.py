"""The catalog as flat records (path, low, point, high, source) for catalog show and the
assumptions page."""

from __future__ import annotations

from typing import Any

from placement.models.catalog import Catalog


def catalog_records(catalog: Catalog) -> list[dict[str, Any]]:
    """Every figure of the catalog as a flat record: path, low, point, high, source.

    Ranges give low/point/high; fixed figures and plain settings give their value as the point.
    """
    records: list[dict[str, Any]] = []

    def walk(node: Any, path: str, inherited: str = "") -> None:
        if isinstance(node, dict) and "source" in node and ("point" in node or "value" in node):
            point = node.get("point", node.get("value"))
            records.append(
                {
                    "path": path,
                    "low": node.get("low", point),
                    "point": point,
                    "high": node.get("high", point),
                    "source": node["source"],
                }
            )
            return
        if isinstance(node, dict) and {"name", "chips", "source"} == node.keys():
            # An instance type: one record under its name, its chips as the value.
            records.append(
                {
                    "path": f"{path}.{node['name']}",
                    "low": None,
                    "point": node["chips"],
                    "high": None,
                    "source": node["source"],
                }
            )
            return
        if isinstance(node, dict) and "params_b" in node and "figure" in node:
            walk(node["figure"], f"{path}@{node['params_b']:g}B")
            return
        if isinstance(node, dict) and "active_params_b" in node and "source" in node:
            point = node["active_params_b"]
            at = f"{path}@{node['params_b']:g}B"
            records.append(
                {"path": at, "low": point, "point": point, "high": point, "source": node["source"]}
            )
            return
        if isinstance(node, dict):
            # An entry with its own source (a reservation unit, a load profile) sources its
            # plain settings.
            own = node.get("source") if isinstance(node.get("source"), str) else inherited
            for key, value in node.items():
                if key != "source" or own is inherited:
                    walk(value, f"{path}.{key}" if path else str(key), own or "")
            return
        if isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
            for value in node:
                walk(value, path, inherited)
            return
        records.append(
            {"path": path, "low": None, "point": node, "high": None, "source": inherited}
        )

    data = catalog.model_dump(mode="json")
    data.pop("sources", None)
    walk(data, "")
    for record in records:
        if not record["source"]:
            record["source"] = setting_source(catalog, record["path"])
    return _with_units(catalog, records)


NOT_STATED = "not stated"
"""What catalog show says of a chip a catalog (written before ``chip``) does not describe."""


def _with_units(catalog: Catalog, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Say what a chip is where the catalog does not, and show a price given per instance-hour
    beside the price per chip-hour derived from it (the dump holds only the latter)."""
    result = []
    for record in records:
        parts = record["path"].split(".")
        acc = catalog.accelerators.get(parts[1]) if parts[0] == "accelerators" else None
        if acc is not None and parts[2:] == ["chip"] and acc.chip is None:
            record = {
                **record,
                "point": NOT_STATED,
                "source": "the catalog does not say what one chip is: check that prices per "
                "chip-hour are per chip, not per instance",
            }
        if acc is not None and parts[2:] == ["instance_types"] and not acc.instance_types:
            record = {**record, "point": "none listed"}
        result.append(record)
        price = acc.on_demand_usd_per_instance_hour if acc is not None else None
        if price is not None and parts[2:] == ["on_demand_usd_per_chip_hour"]:
            result.append(
                {
                    "path": f"accelerators.{parts[1]}.on_demand_usd_per_instance_hour",
                    "low": price.low,
                    "point": price.value,
                    "high": price.high,
                    "source": f"{price.instance}: {price.source}",
                }
            )
    return result


def setting_source(catalog: Catalog, path: str) -> str:
    """The ``sources`` entry for a plain setting: its own path or the nearest parent's."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        source = catalog.sources.get(".".join(parts[:end]))
        if source:
            return source
    return ""

"""Load the catalog: the packaged default, a user's file, and ``--set dotted.path=value`` overrides.

Overrides are applied to the raw mapping before validation, so an override is checked exactly like
a value written in the file. Setting a range (``low``/``high``/``point``) to a single number makes
it certain: all three become that number, and the source records the override.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from placement.errors import CatalogError
from placement.models.catalog import Catalog

DEFAULT_CATALOG_RESOURCE = "default_catalog.yaml"
RANGE_KEYS = {"low", "high", "point"}


def default_catalog_text() -> str:
    """The packaged default catalog, as written (with its comments)."""
    return resources.files("placement.data").joinpath(DEFAULT_CATALOG_RESOURCE).read_text("utf-8")


def _load_mapping(path: str | os.PathLike[str] | None) -> tuple[dict[str, Any], str]:
    if path is None:
        return yaml.safe_load(default_catalog_text()), "<default catalog>"
    name = str(path)
    try:
        text = Path(path).read_text("utf-8")
    except OSError as err:
        raise CatalogError([f"{name}: cannot read the catalog file ({err.strerror})"]) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise CatalogError([f"{name}: not valid YAML ({err})"]) from None
    if not isinstance(data, dict):
        raise CatalogError([f"{name}: expected a YAML mapping at the top level"])
    return data, name


def parse_override(text: str) -> tuple[str, Any]:
    """Split ``a.b.c=value``; the value is read as YAML (numbers, booleans, null, strings)."""
    path, sep, raw = text.partition("=")
    if not sep or not path.strip():
        raise CatalogError([f"--set {text!r}: expected dotted.path=value"])
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError:
        value = raw
    return path.strip(), value


def apply_overrides(data: Mapping[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """Return a copy of ``data`` with every ``dotted.path=value`` override applied.

    Every bad path is reported at once, naming the path and the keys that exist at that level.
    """
    result: dict[str, Any] = copy.deepcopy(dict(data))
    problems: list[str] = []
    for text in overrides:
        try:
            path, value = parse_override(text)
        except CatalogError as err:
            problems.extend(err.problems)
            continue
        problem = _set_path(result, path, value, text.partition("=")[2].strip())
        if problem:
            problems.append(f"--set {text!r}: {problem}")
    if problems:
        raise CatalogError(problems)
    return result


def _set_path(data: dict[str, Any], path: str, value: Any, raw: str) -> str | None:
    keys = path.split(".")
    node: Any = data
    for depth, key in enumerate(keys[:-1]):
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
            continue
        if not isinstance(node, dict) or key not in node:
            return _unknown(keys[: depth + 1], node)
        if node[key] is None:
            node[key] = {}
        node = node[key]
    last = keys[-1]
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = value
        return None
    if not isinstance(node, dict):
        return _unknown(keys, node)
    current = node.get(last)
    if isinstance(current, str):
        # Text stays text: YAML would read an SDK version "2.20" as the number 2.2.
        value = raw
    is_range_part = last in RANGE_KEYS and bool(RANGE_KEYS & node.keys())
    if last not in node and not (_may_add(keys) or is_range_part):
        return _unknown(keys, node)
    if isinstance(current, dict) and RANGE_KEYS & current.keys() and not isinstance(value, dict):
        # A single number for a range: the figure becomes certain at that value.
        source = current.get("source", "")
        node[last] = {
            "low": value,
            "high": value,
            "point": value,
            "source": f"{source} [set to {value} by override]",
        }
    elif isinstance(current, dict) and "value" in current and not isinstance(value, dict):
        node[last] = {
            **current,
            "value": value,
            "source": f"{current.get('source', '')} [set to {value} by override]",
        }
    else:
        node[last] = value
    return None


def _may_add(keys: list[str]) -> bool:
    """New entries may be added to open maps (e.g. a family's support status), not elsewhere."""
    return len(keys) >= 2 and keys[-2] in {"support", "features", "bytes_per_param"}


def _unknown(keys: list[str], node: Any) -> str:
    known = sorted(node) if isinstance(node, dict) else []
    where = ".".join(keys)
    hint = f"; known keys here: {', '.join(known)}" if known else ""
    return f"no catalog entry {where!r}{hint}"


def load_catalog(
    path: str | os.PathLike[str] | None = None, overrides: Iterable[str] = ()
) -> Catalog:
    """Load and validate a catalog (the packaged default when ``path`` is None)."""
    data, name = _load_mapping(path)
    data = apply_overrides(data, overrides)
    try:
        return Catalog.model_validate(data)
    except ValidationError as err:
        raise CatalogError([_describe(name, e) for e in err.errors()]) from None


def _describe(name: str, error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "(top level)"
    message = str(error["msg"]).removeprefix("Value error, ")
    value = error.get("input")
    shown = "" if isinstance(value, dict | list) else f" (got {value!r})"
    return f"{name}: {where}: {message}{shown}"


def catalog_to_yaml(catalog: Catalog) -> str:
    """The catalog as YAML, in the order of the model's fields; loads back to an equal catalog."""
    data = catalog.model_dump(mode="json", exclude_none=False)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def catalog_records(catalog: Catalog) -> list[dict[str, Any]]:
    """Every figure of the catalog as a flat record: path, low, point, high, source.

    Ranges give low/point/high; fixed figures and plain settings give their value as the point.
    """
    records: list[dict[str, Any]] = []

    def walk(node: Any, path: str) -> None:
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
        if isinstance(node, dict) and "params_b" in node and "figure" in node:
            walk(node["figure"], f"{path}@{node['params_b']:g}B")
            return
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else str(key))
            return
        if isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
            for value in node:
                walk(value, path)
            return
        records.append({"path": path, "low": None, "point": node, "high": None, "source": ""})

    data = catalog.model_dump(mode="json")
    data.pop("sources", None)
    walk(data, "")
    for record in records:
        if not record["source"]:
            record["source"] = setting_source(catalog, record["path"])
    return records


def setting_source(catalog: Catalog, path: str) -> str:
    """The ``sources`` entry for a plain setting: its own path or the nearest parent's."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        source = catalog.sources.get(".".join(parts[:end]))
        if source:
            return source
    return ""

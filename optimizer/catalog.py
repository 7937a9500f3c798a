"""Load the catalog: the packaged default, a user's file, and ``--set dotted.path=value`` overrides.

Overrides are applied to the raw mapping before validation, so an override is checked exactly like
a value written in the file. Setting a range (``low``/``high``/``point``) to a single number makes
it certain: all three become that number, and the source records the override.
"""

from __future__ import annotations

import copy
import hashlib
import io
import os
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from ruamel.yaml import YAML, YAMLError

from placement.errors import CatalogError, Problem
from placement.models.catalog import Catalog

DEFAULT_CATALOG_RESOURCE = "default_catalog.yaml"
RANGE_KEYS = {"low", "high", "point"}


DEFAULT_CATALOG_NAME = "<default catalog>"


def default_catalog_text() -> str:
    """The packaged default catalog, as written (with its comments)."""
    return resources.files("placement.data").joinpath(DEFAULT_CATALOG_RESOURCE).read_text("utf-8")


def _round_trip_yaml() -> YAML:
    """ruamel.yaml in round-trip mode: comments, quotes, flow style and key order survive, so
    ``catalog export`` gives back the file as written (with overrides applied), not a re-dump.
    """
    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096  # never fold a long source string
    rt.indent(mapping=2, sequence=4, offset=2)
    rt.representer.add_representer(
        type(None), lambda rep, _: rep.represent_scalar("tag:yaml.org,2002:null", "null")
    )
    return rt


@dataclass(frozen=True)
class CatalogOrigin:
    """Where a catalog came from, for messages and the plan's provenance."""

    name: str  # the file as given, or "<default catalog>"
    path: str | None  # None for the packaged default
    sha256: str  # of the bytes read (the packaged text for the default)
    overrides: tuple[str, ...]
    via: str  # default, --catalog, PLACEMENT_CATALOG or api


@dataclass(frozen=True)
class CatalogSource:
    """A validated catalog, the YAML document it came from (overrides applied, comments kept)
    and its origin."""

    catalog: Catalog
    document: Any
    origin: CatalogOrigin


def _read_bytes(path: str | os.PathLike[str] | None) -> tuple[bytes, str]:
    """The catalog's bytes (hashed as read) and its name for messages."""
    if path is None:
        return default_catalog_text().encode("utf-8"), DEFAULT_CATALOG_NAME
    name = str(path)
    try:
        return Path(path).read_bytes(), name
    except OSError as err:
        reason = err.strerror or str(err)
        raise CatalogError(
            [Problem(f"{name}: cannot read the catalog file ({reason})", name, expected=reason)]
        ) from None


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        expected = "UTF-8 text"
        message = f"{name}: not {expected} (byte {err.start} is {data[err.start]:#04x})"
        raise CatalogError([Problem(message, name, expected=expected)]) from None


def _parse(text: str, name: str) -> Any:
    try:
        data = _round_trip_yaml().load(text)
    except YAMLError as err:
        raise CatalogError(
            [Problem(f"{name}: not valid YAML ({err})", name, expected=f"valid YAML ({err})")]
        ) from None
    if not isinstance(data, dict):
        expected = "a YAML mapping at the top level"
        raise CatalogError([Problem(f"{name}: expected {expected}", name, expected=expected)])
    return data


def parse_override(text: str) -> tuple[str, Any]:
    """Split ``a.b.c=value``; the value is read as YAML (numbers, booleans, null, strings)."""
    path, sep, raw = text.partition("=")
    if not sep or not path.strip():
        expected = "dotted.path=value"
        message = f"--set {text!r}: expected {expected}"
        raise CatalogError([Problem(message, "--set", value=text, expected=expected)])
    try:
        value = yaml.safe_load(raw)
    except yaml.YAMLError:
        value = raw
    return path.strip(), value


def apply_overrides(data: dict[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """Return a copy of ``data`` with every ``dotted.path=value`` override applied.

    Every bad path is reported at once, naming the path and the keys that exist at that level.
    """
    result: dict[str, Any] = copy.deepcopy(data)  # a round-trip document keeps its comments
    problems: list[Problem] = []
    for text in overrides:
        try:
            path, value = parse_override(text)
        except CatalogError as err:
            problems.extend(err.problems)
            continue
        raw = text.partition("=")[2].strip()
        problem = _set_path(result, path, value, raw)
        if problem:
            message = f"--set {text!r}: {problem}"
            problems.append(Problem(message, "--set", column=path, value=raw, expected=problem))
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


def read_catalog(
    path: str | os.PathLike[str] | None = None,
    overrides: Iterable[str] = (),
    via: str | None = None,
) -> CatalogSource:
    """Load and validate a catalog (the packaged default when ``path`` is None), keeping the
    document and its origin."""
    data, name = _read_bytes(path)
    document = apply_overrides(_parse(_decode(data, name), name), overrides)
    try:
        catalog = Catalog.model_validate(document)
    except ValidationError as err:
        raise CatalogError([_describe(name, e) for e in err.errors()]) from None
    origin = CatalogOrigin(
        name=name,
        path=None if path is None else str(path),
        sha256=hashlib.sha256(data).hexdigest(),
        overrides=tuple(overrides),
        via=via or ("default" if path is None else "api"),
    )
    return CatalogSource(catalog, document, origin)


def load_catalog(
    path: str | os.PathLike[str] | None = None, overrides: Iterable[str] = ()
) -> Catalog:
    """Load and validate a catalog (the packaged default when ``path`` is None)."""
    return read_catalog(path, overrides).catalog


def _describe(name: str, error: Any) -> Problem:
    where = ".".join(str(part) for part in error["loc"]) or "(top level)"
    message = str(error["msg"]).removeprefix("Value error, ")
    value = error.get("input")
    structured = isinstance(value, dict | list)
    shown = "" if structured else f" (got {value!r})"
    return Problem(
        f"{name}: {where}: {message}{shown}",
        name,
        column=where,
        value=None if structured else value,
        expected=message,
    )


def catalog_to_yaml(source: CatalogSource) -> str:
    """The catalog's YAML as written, comments included, with the overrides applied; it loads
    back to an equal catalog."""
    out = io.StringIO()
    _round_trip_yaml().dump(source.document, out)
    return out.getvalue()


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

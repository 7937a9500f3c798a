"""Catalog settings: --set dotted.path=value overrides and a scenario's catalog entries, applied to
the raw catalog document before validation, so that a setting is checked exactly like a value
written in the file. Setting a range (low/high/point) to a single number makes it
certain: all three become that number, and the source records the setting."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import yaml
from ruamel.yaml.comments import CommentedMap, CommentedSeq, merge_attrib

from placement.errors import CatalogError, Problem

RANGE_KEYS = {"low", "high", "point"}


def parse_override(text: str) -> tuple[str, Any]:
    """Split ``a.b.c=value``; the value is read as YAML (numbers, booleans, null, strings).

    A text setting (an SDK version) is kept as written when the override is applied, so
    ``2.20`` stays ``"2.20"`` and ``v2.17`` reaches the version rule as written.
    """
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


@dataclass(frozen=True)
class Override:
    """One ``--set`` option as given (``text``), the dotted ``path`` it sets, and the value as
    written (``raw``); ``origin`` is where it came from (``--set`` or a scenario file) and
    ``label`` how messages name it."""

    text: str
    path: str
    raw: str
    origin: str = "--set"
    label: str = ""

    @property
    def named(self) -> str:
        return self.label or f"--set {self.text!r}"


@dataclass(frozen=True)
class Setting:
    """A catalog change given as data rather than ``--set`` text (a scenario's ``catalog``
    entries): the dotted ``path``, the ``value`` as read, the value as written (``raw``), the
    file it came from (``origin``) and how messages name it (``label``)."""

    path: str
    value: Any
    raw: str
    origin: str
    label: str


def apply_overrides(data: dict[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """Return a copy of ``data`` with every ``dotted.path=value`` override applied.

    Every bad path is reported at once, naming the path and the keys that exist at that level.
    """
    result, _, problems = apply_settings(data, overrides)
    if problems:
        raise CatalogError(problems)
    return result


def apply_settings(
    data: dict[str, Any], overrides: Iterable[str | Setting]
) -> tuple[dict[str, Any], list[Override], list[Problem]]:
    """A copy of ``data`` with the overrides whose path exists applied; those overrides, and a
    problem for each of the others."""
    result: dict[str, Any] = copied_document(data)
    applied: list[Override] = []
    problems: list[Problem] = []
    for given in overrides:
        if isinstance(given, Setting):
            path, value, raw = given.path, given.value, given.raw
            override = Override(f"{path}={raw}", path, raw, given.origin, given.label)
        else:
            try:
                path, value = parse_override(given)
            except CatalogError as err:
                problems.extend(err.problems)
                continue
            raw = given.partition("=")[2].strip()
            override = Override(given, path, raw)
        problem = _set_path(result, path, value, raw)
        if problem:
            message = f"{override.named}: {problem}"
            problems.append(
                Problem(message, override.origin, column=path, value=raw, expected=problem)
            )
        else:
            applied.append(override)
    return result, applied, problems


def copied_document(data: Any) -> Any:
    """A copy of a catalog document whose every mapping and list is new (setting a value in it
    never changes ``data``), with its scalars and round-trip attributes (comments, line
    numbers, style) shared, not copied.

    ``copy.deepcopy`` copies every node's attributes too (0.025 s a copy of the packaged
    catalog, against 0.003 s so), and a batch copies a catalog per job or sample. A node
    aliased in ``data`` (a YAML anchor) is one node in the copy, as with ``deepcopy``. The
    shared attributes are only read (validation's line numbers); a writer that changes them
    (dumping moves comments) dumps a ``deepcopy`` (``catalog_to_yaml``)."""
    return _copied(data, {})


def _copied(node: Any, memo: dict[int, Any]) -> Any:
    if node is None or isinstance(node, str | int | float):
        return node  # immutable (ruamel's scalars are subclasses of these)
    done = memo.get(id(node))
    if done is not None:
        return done
    if isinstance(node, dict):  # CommentedMap too
        mapping = node.__class__()
        memo[id(node)] = mapping
        for key in node:
            mapping[key] = _copied(node[key], memo)
        return _with_attributes(node, mapping)
    if isinstance(node, list):  # CommentedSeq too
        sequence = node.__class__()
        memo[id(node)] = sequence
        for value in node:
            sequence.append(_copied(value, memo))
        return _with_attributes(node, sequence)
    return copy.deepcopy(node, memo)


def _with_attributes(node: Any, res: Any) -> Any:
    """``res`` sharing ``node``'s round-trip attributes (a ruamel node's: a plain one has
    none), but for its merge keys' record, which deleting a key changes in place."""
    if not isinstance(node, CommentedMap | CommentedSeq):
        return res
    node.copy_attributes(res)
    if hasattr(node, merge_attrib):
        setattr(res, merge_attrib, copy.deepcopy(getattr(node, merge_attrib)))
    return res


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
    if isinstance(current, str) and not isinstance(value, str):
        # Text stays text: YAML would read an SDK version "2.20" as the number 2.2.
        value = raw
    is_range_part = last in RANGE_KEYS and bool(RANGE_KEYS & node.keys())
    other = ALTERNATIVE_PRICES.get(last)
    if last not in node and other in node:
        # A price in the other unit replaces the file's: an accelerator has exactly one.
        del node[other]
        if not isinstance(value, dict):
            value = {
                "low": value,
                "high": value,
                "point": value,
                "source": f"set to {value} by override, replacing {other}",
            }
        node[last] = value
        return None
    if last not in node and not (_may_add(keys) or is_range_part):
        return _unknown(keys, node)
    if isinstance(current, dict) and RANGE_KEYS & current.keys() and not isinstance(value, dict):
        # A single number for a range: the figure becomes certain at that value.
        source = current.get("source", "")
        node[last] = {
            # Keys beside the range stay (a price per instance-hour keeps its instance).
            **{k: v for k, v in current.items() if k not in RANGE_KEYS | {"source"}},
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


ALTERNATIVE_PRICES = {
    "on_demand_usd_per_chip_hour": "on_demand_usd_per_instance_hour",
    "on_demand_usd_per_instance_hour": "on_demand_usd_per_chip_hour",
}
"""An accelerator's on-demand price is given in exactly one of these units; setting it in the
other unit replaces it (a sweep of the price per chip-hour works on any catalog)."""

OPEN_MAPS = frozenset(
    {"support", "features", "bytes_per_param", "pricing_options", "accelerators", "load_profiles"}
)
"""Maps whose entries are the user's to add: a family's support status, a feature, a
precision, a pricing option (a 3-year term, a savings plan), an accelerator, a load profile."""


def _may_add(keys: list[str]) -> bool:
    """New entries may be added to open maps (e.g. a family's support status), not elsewhere."""
    new_entry = len(keys) == 2 and keys[0] in OPEN_MAPS
    return new_entry or (len(keys) >= 2 and keys[-2] in {"support", "features", "bytes_per_param"})


def _unknown(keys: list[str], node: Any) -> str:
    known = sorted(node) if isinstance(node, dict) else []
    where = ".".join(keys)
    hint = f"; known keys here: {', '.join(known)}" if known else ""
    return f"no catalog entry {where!r}{hint}"

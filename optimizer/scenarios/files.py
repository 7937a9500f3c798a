"""Read a scenario file: a name, a description, catalog settings and inventory changes.

::

    name: traffic-doubles
    description: Online inference traffic doubles.
    catalog:                                  # dotted paths, exactly as --set takes them
      economics.amortization_months: 24
    inventory:                                # applied in order
      - scale: {column: monthly_tokens_b, by: 2}
        where: {kind: inference, serving: online}
      - set: {column: load_profile, value: diurnal}
        where: {model_family: "llama*"}
      - pin: trn2                             # pinned_accelerator (null unpins)
        where: {model_family: llama}
      - profile: business_hours               # load_profile
        where: {id: [chat, search]}
      - drop: true
        where: {team: research}
      - add:
          - {id: new-sft, kind: training, model_family: llama, params_b: 8, h100_gpu_hours: 900}

A ``where`` maps columns to a value or a list of values (any of them); a text value may be a
shell-style pattern (``llama*``). Every problem of the file is reported at once, naming the
file, the entry and its line; a filter that matches no workload is a problem too (raised when
the changes are applied, since it depends on the inventory).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from placement.catalog import Setting
from placement.errors import PlacementInputError, Problem
from placement.models.labels import MAX_LABEL_CHARS, label_problem
from placement.reading.bounded import Silent, TooLarge, read_bounded
from placement.reading.encoding import WIDE_BYTE_ORDER_MARKS, UndecodableText, decode
from placement.reading.nesting import MAX_NESTING, nesting_too_deep

ACTIONS = ("scale", "set", "pin", "profile", "drop", "add")
"""The inventory changes a scenario may make, one per entry."""


class ScenarioError(PlacementInputError):
    """A scenario file is malformed, or one of its changes cannot be applied."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(problems, title="invalid scenario")


@dataclass(frozen=True)
class InventoryChange:
    """One entry of a scenario's ``inventory`` list: its action, the action's argument, the
    filter (column -> accepted values; empty: every workload), its position and line."""

    action: str
    argument: Any
    where: dict[str, list[Any]]
    index: int
    line: int | None

    @property
    def label(self) -> str:
        return f"inventory[{self.index}] ({self.action})"


@dataclass(frozen=True)
class Scenario:
    """A parsed scenario file."""

    name: str
    description: str
    path: str
    sha256: str
    settings: tuple[Setting, ...] = ()
    changes: tuple[InventoryChange, ...] = field(default_factory=tuple)
    # The file's text as read (once: a pipe or process substitution cannot be read twice).
    text: str = field(default="", compare=False, repr=False)
    # Problems of its entries, reported with those of its settings and changes when it is
    # applied (``scenarios.apply.apply_scenario``): every problem of a file at once.
    problems: tuple[Problem, ...] = field(default=(), compare=False, repr=False)


def scenario_problem(
    path: str, where: str, message: str, line: int | None, value: Any = None
) -> Problem:
    """A problem of a scenario file, located by its entry (``where``) and line."""
    at = f", line {line}" if line is not None else ""
    return Problem(
        f"{path}: {where}: {message}{at}",
        path,
        line=line,
        column=where,
        value=value,
        expected=message,
    )


def _lines(node: yaml.Node | None) -> dict[str, Any]:
    """Line numbers (from 1) and value nodes, by top-level key, from the composed document
    (safe_load loses the lines)."""
    out: dict[str, Any] = {}
    if not isinstance(node, yaml.MappingNode):
        return out
    for key, value in node.value:
        name = key.value
        out[name] = {"line": key.start_mark.line + 1, "node": value}
    return out


def _raw_scalars(node: yaml.Node | None) -> dict[str, tuple[str | None, int]]:
    """Of a mapping node: key -> (its value's text as written if a scalar, its line)."""
    out: dict[str, tuple[str | None, int]] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            text = value.value if isinstance(value, yaml.ScalarNode) else None
            out[str(key.value)] = (text, key.start_mark.line + 1)
    return out


MAX_SCENARIOS = 500
"""Scenario files in one ``whatif`` at most: each is a whole plan held in memory for the
comparison (about 9 MB at 1,000 workloads, so 500 are 4.4 GB), and a table of hundreds of
columns is read by nobody. Larger inventories and roadmaps get fewer (``comparing.limits``)."""

MAX_SCENARIO_VALUES = 100_000
"""Values a scenario file may hold once its aliases are expanded (a real one holds tens)."""


def _structure_problems(file: str, root: yaml.Node | None) -> list[Problem]:
    """Duplicate keys, recursive aliases, and aliases that expand beyond
    :data:`MAX_SCENARIO_VALUES` values, in the composed document (aliases there are shared
    nodes, so the walk stays as small as the file)."""
    if root is None:
        return []
    problems: list[Problem] = []
    sizes: dict[int, int] = {}
    on_path: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in on_path:
            raise _Recursive(node.start_mark.line + 1)
        on_path.add(key)
        total = 1
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for k, v in node.value:
                line = k.start_mark.line + 1
                if isinstance(k, yaml.ScalarNode) and k.value in seen:
                    problems.append(
                        scenario_problem(
                            file, str(k.value), f"duplicate key (first at line {seen[k.value]})",
                            line,
                        )
                    )  # fmt: skip
                elif isinstance(k, yaml.ScalarNode):
                    seen[k.value] = line
                total += size(k) + size(v)
        elif isinstance(node, yaml.SequenceNode):
            total += sum(size(item) for item in node.value)
        on_path.discard(key)
        sizes[key] = min(total, MAX_SCENARIO_VALUES + 1)
        return sizes[key]

    try:
        if size(root) > MAX_SCENARIO_VALUES:
            problems.append(
                scenario_problem(
                    file, "(file)",
                    f"its aliases expand to more than {MAX_SCENARIO_VALUES:,} values "
                    "(an alias bomb?); write the values out", None,
                )
            )  # fmt: skip
    except _Recursive as err:
        problems.append(
            scenario_problem(file, "(file)", "a recursive alias (a node holds itself)", err.line)
        )
    return problems


_TOO_DEEP = (
    f"nested deeper than {MAX_NESTING} levels of mappings and lists: not a scenario (a scenario "
    "nests four)"
)


class _Recursive(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


def read_scenario(path: str | Path) -> Scenario:
    """Parse a scenario file (YAML). Raises :class:`ScenarioError` where the file is not a
    scenario at all (unreadable, too large, not YAML, not a mapping, an alias bomb); the
    problems of its entries are kept (``Scenario.problems``) and raised with those of its
    settings and changes when it is applied, so that one message lists them all."""
    name = str(path)
    data = _read(name)
    text = _text(name, data)
    deep = nesting_too_deep(text)
    if deep is not None:
        raise ScenarioError([scenario_problem(name, "(file)", _TOO_DEEP, deep)])
    try:
        composed = yaml.compose(text)
        # Checked before anything is built from it: an alias bomb or a recursive alias is
        # refused while it is still a small graph of nodes.
        structural = _structure_problems(name, composed)
        if structural:
            raise ScenarioError(structural)
        document = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise ScenarioError(
            [scenario_problem(name, "(file)", f"not valid YAML: {err}", line)]
        ) from None
    except RecursionError:  # deeper than the event count saw (a construct it could not read)
        raise ScenarioError([scenario_problem(name, "(file)", _TOO_DEEP, None)]) from None
    problems: list[Problem] = []
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise ScenarioError(
            [
                scenario_problem(
                    name, "(top level)", "a mapping with name, description, catalog, inventory", 1
                )
            ]
        )
    lines = _lines(composed)
    known = {"name", "description", "catalog", "inventory"}
    for key in document:
        if key not in known:
            problems.append(
                scenario_problem(
                    name,
                    str(key),
                    f"unknown key; expected one of: {', '.join(sorted(known))}",
                    lines.get(str(key), {}).get("line"),
                )
            )
    title = document.get("name")
    wrong = label_problem(title.strip()) if isinstance(title, str) else "a non-empty text"
    if wrong:
        shown = title if isinstance(title, str) and len(title) <= MAX_LABEL_CHARS else None
        problems.append(
            scenario_problem(name, "name", wrong, lines.get("name", {}).get("line"), shown)
        )
    description = document.get("description", "")
    if not isinstance(description, str):
        problems.append(
            scenario_problem(
                name, "description", "a text", lines.get("description", {}).get("line")
            )
        )
    settings = _settings(name, document.get("catalog"), lines.get("catalog", {}), problems)
    changes = _changes(name, document.get("inventory"), lines.get("inventory", {}), problems)
    return Scenario(
        name=str(title).strip() if isinstance(title, str) else "",
        description=str(description or "").strip(),
        path=name,
        sha256=hashlib.sha256(data).hexdigest(),
        settings=tuple(settings),
        changes=tuple(changes),
        text=text,
        problems=tuple(problems),
    )


def _read(name: str) -> bytes:
    """The scenario file's bytes, or a :class:`ScenarioError` about it: a pipe that stays
    silent (a FIFO nothing writes to would block for ever), larger than a scenario, or
    unreadable."""
    try:
        return read_bounded(name)
    except Silent as err:
        problem = Problem(
            f"{name}: {err.reason} (give the scenario's YAML file)",
            name,
            expected="a scenario YAML file",
        )
    except TooLarge as err:
        problem = Problem(
            f"{name}: {err.reason}: not a scenario (a scenario is a few lines of YAML)",
            name,
            expected="a scenario YAML file",
        )
    except OSError as err:
        reason = err.strerror or str(err)
        problem = Problem(f"{name}: cannot read ({reason})", name, expected=reason)
    raise ScenarioError([problem])


def _text(name: str, data: bytes) -> str:
    """The scenario's text: UTF-16 or UTF-32 with a byte-order mark (as Windows editors save
    it) by the catalog's and the inventory's rule, anything else as UTF-8 (with or without its
    mark), whose errors, a NUL or a stray byte, the YAML parser reports with its line."""
    try:
        if data.startswith(WIDE_BYTE_ORDER_MARKS):
            return decode(data)
        return data.decode("utf-8-sig")
    except UndecodableText as err:
        problem = scenario_problem(name, "(file)", f"expected {err.expected}", err.line, err.found)
    except UnicodeDecodeError as err:
        problem = scenario_problem(name, "(file)", f"not valid YAML: {err}", None)
    raise ScenarioError([problem])


def _settings(
    file: str, catalog: Any, where: dict[str, Any], problems: list[Problem]
) -> list[Setting]:
    if catalog is None:
        return []
    if not isinstance(catalog, dict):
        problems.append(
            scenario_problem(
                file, "catalog", "a mapping of dotted paths to values", where.get("line")
            )
        )
        return []
    written = _raw_scalars(where.get("node"))
    out = []
    for path, value in catalog.items():
        text, line = written.get(str(path), (None, where.get("line")))
        if not isinstance(path, str) or not path.strip():
            problems.append(scenario_problem(file, f"catalog.{path}", "a dotted path", line))
            continue
        raw = text if text is not None else json.dumps(value)
        out.append(
            Setting(path.strip(), value, raw, file, f"{file}: catalog {path!r} (line {line})")
        )
    return out


def _changes(
    file: str, inventory: Any, where: dict[str, Any], problems: list[Problem]
) -> list[InventoryChange]:
    if inventory is None:
        return []
    node = where.get("node")
    if not isinstance(inventory, list):
        problems.append(scenario_problem(file, "inventory", "a list of changes", where.get("line")))
        return []
    item_lines = (
        [item.start_mark.line + 1 for item in node.value]
        if isinstance(node, yaml.SequenceNode)
        else [None] * len(inventory)
    )
    out = []
    for index, (entry, line) in enumerate(zip(inventory, item_lines, strict=True)):
        label = f"inventory[{index}]"
        if not isinstance(entry, dict):
            problems.append(
                scenario_problem(file, label, f"a mapping with one of: {', '.join(ACTIONS)}", line)
            )
            continue
        actions = [key for key in entry if key in ACTIONS]
        unknown = [key for key in entry if key not in ACTIONS and key != "where"]
        if unknown or len(actions) != 1:
            problems.append(
                scenario_problem(
                    file,
                    label,
                    f"exactly one of {', '.join(ACTIONS)} (and an optional where); "
                    f"found {', '.join(map(str, entry)) or 'nothing'}",
                    line,
                )
            )
            continue
        action = actions[0]
        argument = entry[action]
        message = _argument_problem(action, argument)
        if message:
            if "(got " not in message:
                message = f"{message} {_got(argument)}"
            problems.append(scenario_problem(file, f"{label}.{action}", message, line, argument))
            continue
        if action == "add" and "where" in entry:
            problems.append(scenario_problem(file, f"{label}.where", "no filter for add", line))
            continue
        if action == "drop" and "where" not in entry:
            problems.append(
                scenario_problem(file, f"{label}.where", "a filter: drop needs to know what", line)
            )
            continue
        filters = entry.get("where", {})
        if "where" in entry and (not isinstance(filters, dict) or not filters):
            problems.append(
                scenario_problem(
                    file,
                    f"{label}.where",
                    f"a mapping of columns to values {_got(filters)}",
                    line,
                    filters,
                )
            )
            continue
        accepted = {
            str(column): list(value) if isinstance(value, list) else [value]
            for column, value in filters.items()
        }
        out.append(InventoryChange(action, argument, accepted, index, line))
    return out


SHOWN_VALUE_CHARS = 80
"""How much of a value a message quotes (a change's argument as written; the JSON record
holds it whole)."""


def _got(value: Any) -> str:
    """``(got VALUE)`` for a message: the value as read, its type where YAML made it text
    (``1e3`` without a decimal point is text in YAML 1.1: write ``1.0e3``), cut short."""
    shown = repr(value)
    if len(shown) > SHOWN_VALUE_CHARS:
        shown = shown[: SHOWN_VALUE_CHARS - 3] + "..."
    kind = " (text)" if isinstance(value, str) else ""
    return f"(got {shown}{kind})"


def _exponent_hint(value: Any) -> str:
    """Why a number came out as text, where it did: YAML 1.1 reads ``1e3`` (an exponent with no
    decimal point) as text."""
    if isinstance(value, str) and re.fullmatch(r"[-+]?\d+[eE][-+]?\d+", value.strip()):
        return f": YAML reads an exponent without a decimal point as text; write {_as_float(value)}"
    return ""


def _as_float(text: str) -> str:
    """``1e3`` written as YAML reads a number: ``1.0e3``."""
    mantissa, exponent = re.split("[eE]", text.strip())
    return f"{mantissa}.0e{exponent}"


def _argument_problem(action: str, argument: Any) -> str | None:
    """What is wrong with an action's argument, or None."""
    if action == "scale":
        if not isinstance(argument, dict) or set(argument) != {"column", "by"}:
            return "a mapping {column: NAME, by: FACTOR}"
        by = argument["by"]
        if isinstance(by, bool) or not isinstance(by, int | float):
            return f"by: a number >= 0 {_got(by)}{_exponent_hint(by)}"
        if not math.isfinite(by):  # NaN compares false with everything: checked first
            return f"by: a finite number >= 0 {_got(by)}"
        if by < 0:
            return f"by: a number >= 0 {_got(by)}"
    elif action == "set":
        if not isinstance(argument, dict) or set(argument) != {"column", "value"}:
            return "a mapping {column: NAME, value: VALUE}"
        if isinstance(argument["value"], list | dict):
            return "value: one value (a number, a text, true/false or null), not a list or mapping"
        if isinstance(argument["value"], float) and not math.isfinite(argument["value"]):
            return "value: a finite number"
    elif action in ("pin", "profile"):
        if argument is not None and not isinstance(argument, str):
            return "a name (or null to clear it)"
    elif action == "drop":
        if argument is not True:
            return "true"
    elif action == "add" and (
        not isinstance(argument, list) or not all(isinstance(r, dict) for r in argument)
    ):
        return "a list of workloads, each a mapping of columns to values"
    return None


def read_scenarios(paths: Sequence[str | Path]) -> list[Scenario]:
    """Several scenario files, every file's problems in one error (``read_scenario``); at most
    ``MAX_SCENARIOS``."""
    if len(paths) > MAX_SCENARIOS:
        raise ScenarioError(
            [
                Problem(
                    f"{len(paths):,} scenario files: expected at most {MAX_SCENARIOS:,} in one "
                    "comparison (split them into several runs)",
                    expected=f"at most {MAX_SCENARIOS:,} scenarios",
                )
            ]
        )
    scenarios, problems = [], []
    for path in paths:
        try:
            scenarios.append(read_scenario(path))
        except ScenarioError as err:
            problems.extend(err.problems)
    if problems:
        raise ScenarioError(problems)
    return scenarios

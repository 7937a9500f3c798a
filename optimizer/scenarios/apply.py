"""Apply a scenario: its catalog settings to a catalog, its changes to an inventory.

The inventory changes work on the validated inventory's columns as the user wrote them (the
derived ``needs_*`` columns are recomputed), in order, and the result is validated again as a
whole, so an added workload or a scaled column meets every rule a file does. Problems name
the scenario file and the entry.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from typing import Any

import pandas as pd

from placement.catalog import CatalogSource, catalog_with_settings, read_catalog
from placement.errors import PlacementInputError, Problem
from placement.models.catalog import Catalog
from placement.reading import Inventory, read_inventory
from placement.reading.problems import InputError, InputProblem
from placement.reading.tables import FEATURE_COLUMNS
from placement.scenarios.files import InventoryChange, Scenario, ScenarioError, scenario_problem

_ACTION_COLUMN = {"pin": "pinned_accelerator", "profile": "load_profile"}


def scenario_catalog(
    given: Catalog | CatalogSource | None, scenario: Scenario
) -> Catalog | CatalogSource | None:
    """The catalog with the scenario's settings applied before its own ``--set`` overrides
    (``given`` itself when the scenario sets nothing); a bad path or value names the scenario
    file and entry."""
    if not scenario.settings:
        return given
    if given is None:
        return read_catalog(settings=scenario.settings)
    if isinstance(given, CatalogSource):
        origin = given.origin
        return read_catalog(
            origin.path, origin.overrides, via=origin.via, settings=scenario.settings
        )
    return catalog_with_settings(given, scenario.settings)


def apply_scenario(
    given: Catalog | CatalogSource | None,
    scenario: Scenario,
    inventory_for: Callable[[Catalog], Inventory],
) -> tuple[Catalog | CatalogSource, Inventory]:
    """The catalog with the scenario's settings and the inventory (``inventory_for`` reads it
    for a catalog) with its changes: the one way a scenario is applied, so that every problem
    of the file comes in one message, its entries' (found when it was read), its settings'
    and its changes' (checked against the given catalog where the settings are wrong).

    A problem of the inventory file itself is the inventory's, raised by ``inventory_for``."""
    problems: list[Problem] = list(scenario.problems)
    given = given if given is not None else read_catalog()
    changed: Catalog | CatalogSource = given
    try:
        changed = scenario_catalog(given, scenario) or given
    except PlacementInputError as err:
        problems.extend(err.problems)
    model = changed.catalog if isinstance(changed, CatalogSource) else changed
    inventory = inventory_for(model)
    try:
        inventory = scenario_inventory(
            inventory, scenario, list(model.accelerators), model.profile_kinds()
        )
    except ScenarioError as err:
        problems.extend(err.problems)
    if problems:
        raise ScenarioError(problems)
    return changed, inventory


def check_scenario(inventory: Inventory, catalog: CatalogSource, scenario: Scenario) -> None:
    """Apply the scenario only to raise its problems (before a batch of solves starts)."""
    apply_scenario(catalog, scenario, lambda _: inventory)


def scenario_inventory(
    inventory: Inventory,
    scenario: Scenario,
    accelerator_names: Collection[str] | None = None,
    load_profiles: Mapping[str, str] | None = None,
) -> Inventory:
    """The inventory with the scenario's changes applied and validated again; the inventory
    itself when the scenario changes none."""
    if not scenario.changes:
        return inventory
    columns = [c for c in inventory.workloads.columns if c not in FEATURE_COLUMNS]
    frame = inventory.workloads[columns].copy()
    problems: list[Problem] = []
    for change in scenario.changes:
        frame = _apply(frame, change, scenario.path, problems)
    if problems:
        raise ScenarioError(problems)
    frame = frame.reset_index(drop=True)
    try:
        changed = read_inventory(frame, accelerator_names, load_profiles=load_profiles)
    except InputError as err:
        raise ScenarioError(
            [_after_changes(p, frame, inventory.source, scenario.path) for p in err.problems]
        ) from None
    return replace(
        changed,
        source=inventory.source,
        sha256=inventory.sha256,
        input_format=inventory.input_format,
        sheet=inventory.sheet,
    )


def _after_changes(
    problem: InputProblem, frame: pd.DataFrame, source: str, scenario_path: str
) -> Problem:
    """An inventory problem the scenario's changes brought, named by workload id (rows moved)."""
    where = []
    if problem.row is not None and 0 < problem.row <= len(frame):
        where.append(f"workload {frame['id'].iloc[problem.row - 1]!r}")
    if problem.column is not None:
        where.append(f"column {problem.column!r}")
    what = f"got {problem.value!r}; " if problem.about_value and problem.value is not None else ""
    return Problem(
        f"{scenario_path}: after its inventory changes to {source}, {', '.join(where)}: "
        f"{what}expected {problem.expected}",
        scenario_path,
        column=problem.column,
        value=problem.value,
        expected=problem.expected,
    )


def _problem(file: str, change: InventoryChange, message: str, value: Any = None) -> Problem:
    return scenario_problem(file, change.label, message, change.line, value)


def matching(frame: pd.DataFrame, change: InventoryChange, file: str) -> pd.Series:
    """The rows the change's ``where`` selects (every row without one)."""
    selected = pd.Series(True, index=frame.index)
    for column, accepted in change.where.items():
        if column not in frame.columns:
            known = ", ".join(frame.columns)
            raise ScenarioError(
                [_problem(file, change, f"where: no column {column!r}; columns: {known}", column)]
            )
        # A text that is some row's value (case aside) names that value alone, not a pattern:
        # an id holding "[", "*" or "?" ("[prod] llama-70b") is named as written.
        present = {v.lower() for v in frame[column] if isinstance(v, str)}
        literal = {w.lower() for w in accepted if isinstance(w, str) and w.lower() in present}
        selected &= frame[column].map(lambda v, a=accepted, t=literal: _matches(v, a, t))
    return selected


def text_matches(value: str, wanted: str) -> bool:
    """Whether a text is the one wanted, case aside: the same text, or one a shell-style
    pattern (``llama-*``) matches."""
    value, wanted = value.lower(), wanted.lower()
    return value == wanted or fnmatch.fnmatchcase(value, wanted)


def _matches(value: Any, accepted: list[Any], literal: set[str]) -> bool:
    """Whether ``value`` is one of ``accepted``; a text of ``literal`` (lower case) only as
    written, any other as a pattern too."""
    for wanted in accepted:
        if wanted is None:
            if value is None or (isinstance(value, float) and math.isnan(value)):
                return True
        elif isinstance(wanted, str) and isinstance(value, str):
            if wanted.lower() in literal:
                if value.lower() == wanted.lower():
                    return True
            elif text_matches(value, wanted):
                return True
        elif isinstance(wanted, bool) or isinstance(value, bool):
            if value is wanted or (isinstance(value, bool) and value == wanted):
                return True
        elif (
            isinstance(wanted, int | float)
            and isinstance(value, int | float)
            and not math.isnan(float(value))
            and float(value) == float(wanted)
        ):
            return True
    return False


def _apply(
    frame: pd.DataFrame, change: InventoryChange, file: str, problems: list[Problem]
) -> pd.DataFrame:
    if change.action == "add":
        known = set(frame.columns)
        for i, record in enumerate(change.argument):
            unknown = sorted(set(record) - known)
            if unknown:
                problems.append(
                    _problem(file, change, f"workload {i}: unknown columns {', '.join(unknown)}")
                )
        added = pd.DataFrame(change.argument)
        return pd.concat([frame, added], ignore_index=True)
    try:
        selected = matching(frame, change, file)
    except ScenarioError as err:
        problems.extend(err.problems)
        return frame
    if not selected.any():
        problems.append(_problem(file, change, "where matches no workload", change.where))
        return frame
    if change.action == "drop":
        return frame[~selected]
    if change.action in _ACTION_COLUMN:
        frame = frame.copy()
        frame[_ACTION_COLUMN[change.action]] = frame[_ACTION_COLUMN[change.action]].astype(object)
        frame.loc[selected, _ACTION_COLUMN[change.action]] = change.argument
        return frame
    column = str(change.argument["column"])
    if column not in frame.columns:
        problems.append(
            _problem(file, change, f"no column {column!r}; columns: {', '.join(frame.columns)}")
        )
        return frame
    frame = frame.copy()
    if change.action == "scale":
        if not pd.api.types.is_numeric_dtype(frame[column]) or frame[column].dtype == bool:
            problems.append(_problem(file, change, f"column {column!r} is not a number", column))
            return frame
        frame.loc[selected, column] = frame.loc[selected, column] * float(change.argument["by"])
        return frame
    frame[column] = frame[column].astype(object)
    frame.loc[selected, column] = change.argument["value"]
    return frame

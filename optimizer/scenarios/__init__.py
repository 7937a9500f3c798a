"""What-if scenarios: read a scenario file, apply it to a catalog and an inventory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
    from placement.scenarios.apply import check_scenario, scenario_catalog, scenario_inventory
    from placement.scenarios.files import InventoryChange, Scenario, ScenarioError, read_scenario

__all__ = [
    "InventoryChange",
    "Scenario",
    "ScenarioError",
    "check_scenario",
    "read_scenario",
    "scenario_catalog",
    "scenario_inventory",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "InventoryChange": "placement.scenarios.files",
        "Scenario": "placement.scenarios.files",
        "ScenarioError": "placement.scenarios.files",
        "check_scenario": "placement.scenarios.apply",
        "read_scenario": "placement.scenarios.files",
        "scenario_catalog": "placement.scenarios.apply",
        "scenario_inventory": "placement.scenarios.apply",
    },
)

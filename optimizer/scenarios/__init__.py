"""What-if scenarios: read a scenario file, apply it to a catalog and an inventory."""

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

"""What-if scenarios: read a scenario file, apply it to a catalog and an inventory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
    from placement.scenarios.apply import (
        apply_scenario,
        check_scenario,
        scenario_catalog,
        scenario_inventory,
    )
    from placement.scenarios.files import (
        InventoryChange,
        Scenario,
        ScenarioError,
        read_scenario,
        read_scenarios,
    )

__all__ = [
    "InventoryChange",
    "Scenario",
    "ScenarioError",
    "apply_scenario",
    "check_scenario",
    "read_scenario",
    "read_scenarios",
    "scenario_catalog",
    "scenario_inventory",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "InventoryChange": "placement.scenarios.files",
        "Scenario": "placement.scenarios.files",
        "ScenarioError": "placement.scenarios.files",
        "apply_scenario": "placement.scenarios.apply",
        "check_scenario": "placement.scenarios.apply",
        "read_scenario": "placement.scenarios.files",
        "read_scenarios": "placement.scenarios.files",
        "scenario_catalog": "placement.scenarios.apply",
        "scenario_inventory": "placement.scenarios.apply",
    },
)

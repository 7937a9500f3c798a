"""Reading: the pipeline's first stage, from an inventory file to a validated inventory.

Every format (CSV, XLSX, JSON, YAML, Parquet, or a DataFrame from a notebook) is first turned
into the same plain table of cells as written (``formats``), its header matched to the known
columns (``columns``), then validated by one function (``validate``), so the rules and the
messages cannot differ between formats. ``inventory`` is the entry point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
    from placement.reading.inventory import (
        inventory_from_records,
        inventory_summary,
        read_inventory,
    )
    from placement.reading.problems import InputError, InputProblem
    from placement.reading.sources import INPUT_FORMATS, STDIN, SUFFIXES
    from placement.reading.tables import FEATURE_COLUMNS, FRAME_COLUMNS, Inventory

__all__ = [
    "FEATURE_COLUMNS",
    "FRAME_COLUMNS",
    "INPUT_FORMATS",
    "STDIN",
    "SUFFIXES",
    "InputError",
    "InputProblem",
    "Inventory",
    "inventory_from_records",
    "inventory_summary",
    "read_inventory",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "FEATURE_COLUMNS": "placement.reading.tables",
        "FRAME_COLUMNS": "placement.reading.tables",
        "INPUT_FORMATS": "placement.reading.sources",
        "InputError": "placement.reading.problems",
        "InputProblem": "placement.reading.problems",
        "Inventory": "placement.reading.tables",
        "STDIN": "placement.reading.sources",
        "SUFFIXES": "placement.reading.sources",
        "inventory_from_records": "placement.reading.inventory",
        "inventory_summary": "placement.reading.inventory",
        "read_inventory": "placement.reading.inventory",
    },
)

"""Reading: the pipeline's first stage, from an inventory file to a validated inventory.

Every format (CSV, XLSX, JSON, YAML, Parquet, or a DataFrame from a notebook) is first turned
into the same plain table of cells as written (``formats``), its header matched to the known
columns (``columns``), then validated by one function (``validate``), so the rules and the
messages cannot differ between formats. ``inventory`` is the entry point.
"""

from placement.reading.formats import INPUT_FORMATS
from placement.reading.inventory import inventory_from_records, inventory_summary, read_inventory
from placement.reading.problems import InputError, InputProblem
from placement.reading.tables import FEATURE_COLUMNS, FRAME_COLUMNS, STDIN, SUFFIXES, Inventory

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

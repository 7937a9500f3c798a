"""The catalog (the price book and hardware model): loading the packaged default or a user's
file, ``--set`` overrides, and the catalog as records and YAML for ``catalog show`` and
``catalog export``.

The names a user imports (``from placement.catalog import read_catalog``) are re-exported here.
"""

from placement.catalog.files import (
    CatalogOrigin,
    CatalogSource,
    catalog_to_yaml,
    catalog_with_settings,
    default_catalog_text,
    load_catalog,
    read_catalog,
)
from placement.catalog.records import catalog_records
from placement.catalog.settings import Setting, apply_overrides

__all__ = [
    "CatalogOrigin",
    "CatalogSource",
    "Setting",
    "apply_overrides",
    "catalog_records",
    "catalog_to_yaml",
    "catalog_with_settings",
    "default_catalog_text",
    "load_catalog",
    "read_catalog",
]

"""The catalog (the price book and hardware model): loading the packaged default or a user's
file, ``--set`` overrides, and the catalog as records and YAML for ``catalog show`` and
``catalog export``.

The names a user imports (``from placement.catalog import read_catalog``) are re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CatalogOrigin": "placement.catalog.files",
        "CatalogSource": "placement.catalog.files",
        "Setting": "placement.catalog.settings",
        "apply_overrides": "placement.catalog.settings",
        "catalog_records": "placement.catalog.records",
        "catalog_to_yaml": "placement.catalog.files",
        "catalog_with_settings": "placement.catalog.files",
        "default_catalog_text": "placement.catalog.files",
        "load_catalog": "placement.catalog.files",
        "read_catalog": "placement.catalog.files",
    },
)

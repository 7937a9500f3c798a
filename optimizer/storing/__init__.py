"""Planning cycles: saved runs in a database (SQLite by default, any SQLAlchemy URL), a schema
upgraded by Alembic migrations, and what changed between two cycles."""

from __future__ import annotations

from typing import TYPE_CHECKING

from placement.exports import lazy_exports

if TYPE_CHECKING:
    from placement.storing.history import History, SavedRun, database_url, default_database_url

__all__ = [
    "History",
    "SavedRun",
    "database_url",
    "default_database_url",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "History": "placement.storing.history",
        "SavedRun": "placement.storing.history",
        "database_url": "placement.storing.history",
        "default_database_url": "placement.storing.history",
    },
)

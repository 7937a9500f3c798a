"""Planning cycles: saved runs in a database (SQLite by default, any SQLAlchemy URL), a schema
upgraded by Alembic migrations, and what changed between two cycles."""

from placement.storing.history import History, SavedRun, database_url, default_database_url

__all__ = ["History", "SavedRun", "database_url", "default_database_url"]

"""Alembic environment: migrations run on the connection ``placement.storing`` hands over."""

from __future__ import annotations

from alembic import context

from placement.storing.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()

"""A run's risk: the result of ``placement risk --save`` beside its point plan.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

COLUMNS = (
    ("risk_samples", sa.Integer),
    ("risk_pays_probability", sa.Float),
    ("risk_held_p50_usd", sa.Float),
    ("risk_held_p90_usd", sa.Float),
    ("risk_json", sa.Text),
)


def upgrade() -> None:
    # Nullable columns: every run saved before has no risk, and SQLite adds them in place.
    for name, kind in COLUMNS:
        op.add_column("runs", sa.Column(name, kind))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        for name, _ in reversed(COLUMNS):
            batch.drop_column(name)

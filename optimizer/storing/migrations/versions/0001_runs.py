"""The runs table: one saved planning run per row.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("cycle", sa.String(200), nullable=False),
        sa.Column("saved_at", sa.String(32), nullable=False),
        sa.Column("scenario", sa.String(200)),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("objective_monthly_usd", sa.Float),
        sa.Column("workloads", sa.Integer, nullable=False),
        sa.Column("input_path", sa.Text),
        sa.Column("input_sha256", sa.String(64)),
        sa.Column("catalog_sha256", sa.String(64), nullable=False),
        sa.Column("tool_version", sa.String(64), nullable=False),
        sa.Column("inventory_json", sa.Text, nullable=False),
        sa.Column("catalog_json", sa.Text, nullable=False),
        sa.Column("scenario_yaml", sa.Text),
        sa.Column("plan_json", sa.Text, nullable=False),
    )
    op.create_index("ix_runs_cycle", "runs", ["cycle"])


def downgrade() -> None:
    op.drop_index("ix_runs_cycle", "runs")
    op.drop_table("runs")

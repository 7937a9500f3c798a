"""The tables of the history database (SQLAlchemy Core). Changes go through a new Alembic
migration in ``migrations/versions``, never by editing a database by hand."""

from __future__ import annotations

from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text

from placement.models.labels import MAX_LABEL_CHARS

metadata = MetaData()

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("cycle", String(MAX_LABEL_CHARS), nullable=False, index=True),
    Column("saved_at", String(32), nullable=False),  # ISO 8601 UTC
    Column("scenario", String(MAX_LABEL_CHARS)),
    Column("status", String(32), nullable=False),
    Column("objective_monthly_usd", Float),
    Column("workloads", Integer, nullable=False),
    Column("input_path", Text),
    Column("input_sha256", String(64)),
    Column("catalog_sha256", String(64), nullable=False),  # of the effective catalog
    Column("tool_version", String(64), nullable=False),
    Column("inventory_json", Text, nullable=False),  # the planned inventory, columns and rows
    Column("catalog_json", Text, nullable=False),  # the effective catalog, validated
    Column("scenario_yaml", Text),  # the scenario file's text, if one was applied
    Column("plan_json", Text, nullable=False),  # the plan JSON, provenance included
    # ``placement risk --save`` (migration 0002): the point plan's risk, summed up and whole.
    Column("risk_samples", Integer),
    Column("risk_pays_probability", Float),  # probability_beats_all_h100
    Column("risk_held_p50_usd", Float),  # base_plan_cost_usd.p50
    Column("risk_held_p90_usd", Float),
    Column("risk_json", Text),  # the risk result's JSON
)

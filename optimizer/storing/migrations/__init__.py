"""The history database's schema migrations (Alembic), run by ``placement.storing``."""

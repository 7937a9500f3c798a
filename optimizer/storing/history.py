"""Saved planning runs: save, list, load, and explain what changed between two cycles.

A saved run holds everything needed to re-solve it: the inventory as planned (after any
scenario), the effective catalog (validated, every override and scenario setting applied), the
scenario file's text, and the plan JSON with its provenance. ``diff`` splits the change between
two runs into the effect of the inventory and the effect of the catalog by re-solving the
second inventory with the first catalog:

.. math:: \\Delta = \\underbrace{(C(I_B, K_A) - C(I_A, K_A))}_{\\text{inventory}}
    + \\underbrace{(C(I_B, K_B) - C(I_B, K_A))}_{\\text{catalog}}

where ``C(I_A, K_A)`` and ``C(I_B, K_B)`` are the saved objectives. The two effects add up to
the change exactly.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    Engine,
    RowMapping,
    create_engine,
    event,
    insert,
    inspect,
    make_url,
    select,
    text,
)
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError
from sqlalchemy.pool import NullPool

from placement.analysing.provenance import catalog_fingerprint, now_utc, tool_version
from placement.catalog import Setting, catalog_with_settings
from placement.comparing.diff import (
    CostChange,
    FigureChange,
    PlanDiff,
    catalog_changes,
    cost_changes,
    plan_diff,
)
from placement.errors import PlacementInputError
from placement.models.catalog import Catalog
from placement.models.plan import Plan
from placement.models.risk import RiskResult
from placement.pipeline import PlanResult, SolverOptions, plan
from placement.reading import Inventory, read_inventory
from placement.storing.schema import runs

DB_ENV = "PLACEMENT_DB"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_ADVISORY_LOCK = 7_301_955  # any fixed number: the PostgreSQL lock that serialises upgrades
_LOCAL = threading.Lock()
MAX_RUN_ID = 2**63 - 1
"""The largest id a database's integer key holds: a larger number names no run."""


def default_database_url() -> str:
    """``$PLACEMENT_DB``, else an SQLite file in the user's data folder
    (``$XDG_DATA_HOME/placement/history.sqlite``, ``~/.local/share/...`` without it)."""
    if os.environ.get(DB_ENV):
        return database_url(os.environ[DB_ENV])
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return database_url(os.path.join(base, "placement", "history.sqlite"))


def database_url(given: str) -> str:
    """A SQLAlchemy URL as given, or a file path read as an SQLite file."""
    if "://" in given:
        return given
    return f"sqlite:///{Path(given).expanduser().resolve()}"


@dataclass(frozen=True)
class SavedRun:
    """One saved run: its row, and what it takes to re-solve it."""

    id: int
    cycle: str
    saved_at: str
    scenario: str | None
    plan: Plan
    inventory: Inventory
    catalog: Catalog
    scenario_yaml: str | None
    risk: RiskResult | None = None  # saved by ``placement risk --save``

    @property
    def objective(self) -> float | None:
        return self.plan.objective_monthly_usd


@dataclass(frozen=True)
class CycleDiff:
    """What changed from run A to run B, and the change split by its cause."""

    a: SavedRun
    b: SavedRun
    plans: PlanDiff
    inventory_effect_usd: float | None
    catalog_effect_usd: float | None
    inventory_changed: bool
    catalog_changed: bool
    figures: list[FigureChange] = field(default_factory=list)
    workloads: list[CostChange] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        return {
            "run_a": self.a.id,
            "run_b": self.b.id,
            "cycle_a": self.a.cycle,
            "cycle_b": self.b.cycle,
            "objective_a": self.a.objective,
            "objective_b": self.b.objective,
            "inventory_changed": self.inventory_changed,
            "catalog_changed": self.catalog_changed,
            "inventory_effect_usd": self.inventory_effect_usd,
            "catalog_effect_usd": self.catalog_effect_usd,
            "catalog_figures": [f.record() for f in self.figures],
            "workloads_cost_moved_most": [w.record() for w in self.workloads],
            **self.plans.record(),
        }


def _inventory_json(inventory: Inventory) -> str:
    frame = inventory.workloads
    return json.dumps(
        {
            "columns": list(frame.columns),
            "dtypes": {c: str(t) for c, t in frame.dtypes.items()},
            "extra_columns": list(inventory.extra_columns),
            "source": inventory.source,
            "data": json.loads(frame.to_json(orient="values", double_precision=15)),
        }
    )


def _inventory_from(text_: str, catalog: Catalog) -> Inventory:
    stored = json.loads(text_)
    frame = pd.DataFrame(stored["data"], columns=stored["columns"])
    features = [c for c in frame.columns if c.startswith("needs_")]
    frame = frame.drop(columns=features)
    inventory = read_inventory(
        frame, list(catalog.accelerators), load_profiles=catalog.profile_kinds()
    )
    return Inventory(
        inventory.workloads, inventory.extra_columns, stored["source"], None, None, None
    )


class History:
    """The saved runs of one database (created and upgraded to the latest schema on first
    use). ``create=False`` (what only reads: the listing, ``show``, ``diff``): an SQLite file
    that does not exist is not made, nor its folder; it holds no runs."""

    engine: Engine

    def __init__(self, url: str | None = None, create: bool = True) -> None:
        if url is not None and not url.strip():
            # An unset variable in a script (--db "$DB"): never the default database instead.
            raise PlacementInputError(
                ["--db '': expected a database URL or file path, got an empty value"],
                title="invalid option",
            )
        self.url = database_url(url) if url is not None else default_database_url()
        self.shown_url = redacted(self.url)
        if _in_memory(self.url):
            raise PlacementInputError(
                [
                    f"--db {self.shown_url}: an in-memory database keeps nothing after the "
                    "command; expected a file path or a server's URL"
                ],
                title="invalid option",
            )
        self.file = _sqlite_file(self.url, self.shown_url)
        self.absent = not create and self.file is not None and not self.file.exists()
        if self.absent:
            return  # nothing saved there: nothing to open, and nothing is made
        try:
            self.engine = self._engine()
        except (ArgumentError, ValueError) as err:
            raise PlacementInputError(
                [
                    f"--db {self.shown_url}: not a database URL or file path "
                    f"({self.scrubbed(str(err))})"
                ],
                title="invalid option",
            ) from None
        except ImportError as err:
            dialect = self.url.split("://", 1)[0]
            raise PlacementInputError(
                [
                    f"--db {self.shown_url}: the driver for {dialect} is not installed "
                    f"({self.scrubbed(str(err))}); SQLite needs none, PostgreSQL comes with "
                    "pip install 'placement[postgres]'"
                ],
                title="invalid option",
            ) from None
        self.upgrade()

    def scrubbed(self, text: str) -> str:
        """``text`` (a driver's error) with every secret of the URL as ``***``: its password
        as parsed, the whole text between the user's ``:`` and the host's ``@`` (a password
        with an unencoded ``@``), and a ``password=`` query parameter."""
        for secret in _secrets(self.url):
            text = text.replace(secret, "***")
        return text

    def _engine(self) -> Engine:
        if self.file is not None:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(self.url, connect_args={"timeout": 60}, poolclass=NullPool)

            @event.listens_for(engine, "connect")
            def _transactional_ddl(dbapi_connection: Any, _: Any) -> None:
                # Python's sqlite3 runs DDL outside any transaction: a schema migration killed
                # half-way left tables without their version. SQLAlchemy's recipe for
                # transactional DDL: no implicit BEGIN from the driver, our own below.
                dbapi_connection.isolation_level = None

            @event.listens_for(engine, "begin")
            def _begin(connection: Any) -> None:
                connection.exec_driver_sql("BEGIN")

            return engine
        # No pool: a command opens a few connections, and none should outlive its use.
        return create_engine(self.url, poolclass=NullPool)

    @contextmanager
    def _upgrade_lock(self) -> Iterator[Any]:
        """One process at a time upgrades the schema: a file lock beside an SQLite file, an
        advisory lock on PostgreSQL (other databases rely on their own DDL locking)."""
        with _LOCAL, self.engine.connect() as connection:
            if self.file is not None:
                with open(f"{self.file}.lock", "w") as handle:
                    fcntl.flock(handle, fcntl.LOCK_EX)
                    yield connection
                return
            if connection.dialect.name == "postgresql":
                connection.execute(text(f"SELECT pg_advisory_lock({_ADVISORY_LOCK})"))
                connection.commit()
                try:
                    yield connection
                finally:
                    connection.execute(text(f"SELECT pg_advisory_unlock({_ADVISORY_LOCK})"))
                    connection.commit()
                return
            yield connection

    def _config(self) -> Config:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        return config

    def revision(self) -> str | None:
        """The schema version the database is at."""
        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    def head(self) -> str | None:
        return ScriptDirectory.from_config(self._config()).get_current_head()

    def _refuse_foreign(self) -> str | None:
        """Refuse, before changing anything, a database this version cannot own: one at a
        schema revision it does not know (a newer placement's), or one holding another
        application's tables and no placement schema. Returns the revision it is at."""
        script = ScriptDirectory.from_config(self._config())
        known = {r.revision for r in script.walk_revisions()}
        with self.engine.connect() as connection:
            # Tables first: a schema another process commits between the two reads then
            # shows its revision too (tables and revision are committed together).
            tables = set(inspect(connection).get_table_names()) - {"alembic_version"}
            current = MigrationContext.configure(connection).get_current_revision()
        if current is not None and current not in known:
            raise PlacementInputError(
                [
                    f"--db {self.shown_url}: its schema revision {current!r} is not one this "
                    f"placement knows (up to {self.head()!r}): written by a newer placement "
                    "(upgrade placement to use it) or by another application; left unchanged"
                ],
                title="invalid option",
            )
        if current is None and tables:
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise PlacementInputError(
                [
                    f"--db {self.shown_url}: holds another application's tables ({shown}), "
                    "not a placement history database; left unchanged: give another --db"
                ],
                title="invalid option",
            )
        return current

    def upgrade(self) -> None:
        """Bring the schema to the latest migration (nothing to do when it is there)."""
        try:
            if self.revision() == self.head():
                return
            # Before the lock, so nothing (not even a lock file) is made beside a database
            # that is not ours; again under it, as another process may have made the schema.
            self._refuse_foreign()
            with self._upgrade_lock() as connection:
                if self._refuse_foreign() == self.head():
                    return
                if self.url.startswith("sqlite"):
                    # Set once, when the schema is made (the mode is kept in the file): writers
                    # queue on SQLite's lock (up to the timeout) rather than fail. Not on open,
                    # which would change a file that is not ours before it is refused.
                    raw = self.engine.raw_connection()
                    try:
                        raw.execute("PRAGMA journal_mode=WAL")
                    finally:
                        raw.close()
                config = self._config()
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
                connection.commit()
        except OperationalError as err:
            raise PlacementInputError(
                [
                    f"--db {self.shown_url}: cannot open the database "
                    f"({self.scrubbed(str(err.orig))})"
                ],
                title="invalid option",
            ) from None
        except DatabaseError as err:
            # Not a database, truncated or corrupt: nothing was changed in it.
            raise PlacementInputError(
                [
                    f"--db {self.shown_url}: not a usable placement history database "
                    f"({self.scrubbed(str(err.orig))}); give another --db, or move this file"
                ],
                title="invalid option",
            ) from None

    def check_writable(self) -> None:
        """Refuse, before a solve, a database a save would fail on: a read-only SQLite file or
        folder (taking SQLite's write lock and letting it go; a lock another process holds
        longer than the busy timeout fails here too), or a PostgreSQL role that may not
        insert runs."""
        try:
            if self.url.startswith("sqlite"):
                raw = self.engine.raw_connection()
                try:
                    raw.execute("BEGIN IMMEDIATE")
                    raw.execute("ROLLBACK")
                finally:
                    raw.close()
                return
            with self.engine.connect() as connection:
                if connection.dialect.name == "postgresql":
                    allowed = connection.execute(
                        text("SELECT has_table_privilege(current_user, 'runs', 'INSERT')")
                    ).scalar()
                    if not allowed:
                        raise PlacementInputError(
                            [f"--db {self.shown_url}: this user may not save runs (no INSERT "
                             "on table runs)"],
                            title="invalid option",
                        )  # fmt: skip
        except (OperationalError, sqlite3.OperationalError) as err:
            reason = getattr(err, "orig", err)
            raise PlacementInputError(
                [
                    f"--db {self.shown_url}: cannot save to it "
                    f"({self.scrubbed(str(reason))}); nothing was solved"
                ],
                title="invalid option",
            ) from None

    def save(
        self,
        result: PlanResult,
        cycle: str,
        scenario_yaml: str | None = None,
        risk: RiskResult | None = None,
    ) -> int:
        """Store a run (with ``risk``, the risk result of its plan); returns its id."""
        plan_ = result.plan
        row = {
            "cycle": cycle,
            "saved_at": now_utc(),
            "scenario": plan_.run.scenario if plan_.run else None,
            "status": str(plan_.status),
            "objective_monthly_usd": plan_.objective_monthly_usd,
            "workloads": len(result.inventory.workloads),
            "input_path": result.inventory.source,
            "input_sha256": result.inventory.sha256,
            "catalog_sha256": catalog_fingerprint(result.catalog),
            "tool_version": tool_version(),
            "inventory_json": _inventory_json(result.inventory),
            "catalog_json": result.catalog.model_dump_json(),
            "scenario_yaml": scenario_yaml,
            "plan_json": plan_.model_dump_json(),
            **_risk_columns(risk),
        }
        with self.engine.begin() as connection:
            key = connection.execute(insert(runs).values(**row)).inserted_primary_key
        assert key is not None
        return int(key[0])

    def list(self) -> pd.DataFrame:
        """Every saved run, oldest first (no plan bodies); none where the database is
        ``absent``."""
        columns = [
            runs.c.id,
            runs.c.cycle,
            runs.c.saved_at,
            runs.c.scenario,
            runs.c.status,
            runs.c.objective_monthly_usd,
            runs.c.workloads,
            runs.c.input_path,
            runs.c.catalog_sha256,
            runs.c.tool_version,
            runs.c.risk_samples,
            runs.c.risk_pays_probability,
            runs.c.risk_held_p50_usd,
            runs.c.risk_held_p90_usd,
        ]
        rows: Sequence[RowMapping] = []
        if not self.absent:
            with self.engine.connect() as connection:
                rows = connection.execute(select(*columns).order_by(runs.c.id)).mappings().all()
        frame = pd.DataFrame([dict(r) for r in rows], columns=[c.name for c in columns])
        # A whole number, also beside runs saved without a risk (missing, not NaN).
        return frame.astype({"risk_samples": "Int64"})

    def get(self, run: int | str) -> SavedRun:
        """A saved run by id, or the latest of a cycle by its label."""
        by_cycle = select(runs).where(runs.c.cycle == str(run)).order_by(runs.c.id.desc()).limit(1)
        row: RowMapping | None = None
        if self.absent:
            raise PlacementInputError(
                [f"run {run!r}: no such run: {self.shown_url} does not exist (nothing has been "
                 "saved there; plan INV --save --cycle LABEL saves a run)"],
                title="invalid run",
            )  # fmt: skip
        with self.engine.connect() as connection:
            if (isinstance(run, int) or str(run).isdigit()) and int(run) <= MAX_RUN_ID:
                by_id = select(runs).where(runs.c.id == int(run))
                row = connection.execute(by_id).mappings().first()
            # A number names a run by its id; where no run has it, a cycle so labelled.
            if row is None:
                row = connection.execute(by_cycle).mappings().first()
        if row is None:
            known = (
                ", ".join(f"{r.id} ({r.cycle})" for r in self.list().itertuples())
                or "none saved yet"
            )
            raise PlacementInputError(
                [f"run {run!r}: no such run in {self.shown_url}; runs: {known}"],
                title="invalid run",
            )
        catalog = Catalog.model_validate_json(row["catalog_json"])
        return SavedRun(
            id=int(row["id"]),
            cycle=str(row["cycle"]),
            saved_at=str(row["saved_at"]),
            scenario=row["scenario"],
            plan=Plan.model_validate_json(row["plan_json"]),
            inventory=_inventory_from(row["inventory_json"], catalog),
            catalog=catalog,
            scenario_yaml=row["scenario_yaml"],
            risk=None
            if row["risk_json"] is None
            else RiskResult.model_validate_json(row["risk_json"]),
        )

    def diff(
        self, run_a: int | str, run_b: int | str, solver: SolverOptions | None = None
    ) -> CycleDiff:
        """What changed from ``run_a`` to ``run_b``, split into the inventory's effect and the
        catalog's (one re-solve: B's inventory with A's catalog)."""
        a, b = self.get(run_a), self.get(run_b)
        inventory_changed = _frame_bytes(a.inventory) != _frame_bytes(b.inventory)
        catalog_changed = a.catalog != b.catalog
        inventory_effect: float | None
        catalog_effect: float | None
        solver = solver or SolverOptions()
        # The same kind of plan as B's: a roadmap over its horizon, or the steady state.
        horizon = b.plan.run.horizon_months if b.plan.run is not None else None
        middle: float | None = a.objective  # B's inventory at A's catalog
        if a.objective is None or b.objective is None:
            inventory_effect = catalog_effect = None
        elif not catalog_changed:
            inventory_effect, catalog_effect = b.objective - a.objective, 0.0
        elif not inventory_changed:
            inventory_effect, catalog_effect = 0.0, b.objective - a.objective
        else:
            mixed = plan(b.inventory, a.catalog, solver, horizon=horizon).plan
            middle = mixed.objective_monthly_usd
            if middle is None:
                inventory_effect = catalog_effect = None
            else:
                inventory_effect = middle - a.objective
                catalog_effect = b.objective - middle
        figures = catalog_changes(a.catalog, b.catalog) if catalog_changed else []
        if middle is not None and catalog_effect is not None:
            figures = [
                _attributed(f, b.inventory, a.catalog, middle, solver, horizon)
                if i < MAX_ATTRIBUTED
                else f
                for i, f in enumerate(figures)
            ]
        return CycleDiff(
            a,
            b,
            plan_diff(a.plan, b.plan),
            None if inventory_effect is None else round(inventory_effect, 2),
            None if catalog_effect is None else round(catalog_effect, 2),
            inventory_changed,
            catalog_changed,
            figures,
            cost_changes(a.plan, b.plan),
        )


MAX_ATTRIBUTED = 12
"""Changed catalog figures given their own effect (one re-solve each); the rest are listed."""


def _risk_columns(risk: RiskResult | None) -> dict[str, Any]:
    """A risk result as the runs table keeps it: its summary, and the whole as JSON."""
    if risk is None:
        return {}
    return {
        "risk_samples": risk.samples,
        "risk_pays_probability": risk.probability_beats_all_h100,
        "risk_held_p50_usd": risk.base_plan_cost_usd.p50,
        "risk_held_p90_usd": risk.base_plan_cost_usd.p90,
        "risk_json": risk.model_dump_json(),
    }


def _attributed(
    change: FigureChange,
    inventory: Inventory,
    catalog: Catalog,
    middle: float,
    solver: SolverOptions,
    horizon: int | None,
) -> FigureChange:
    """The change with its effect on its own: B's inventory at A's catalog with only this
    figure at B's value, re-solved, against the same at A's value (``middle``). A change of a
    range's bounds (the point unchanged) moves no plan: 0. None where it cannot be set alone."""
    if change.bounds_only:
        return replace(change, effect_usd=0.0)  # the model uses the point
    if change.old is None or change.new is None:
        return change
    setting = Setting(change.path, change.new, str(change.new), "diff", f"diff {change.path}")
    try:
        alone = plan(inventory, catalog_with_settings(catalog, [setting]), solver,
                     horizon=horizon).plan  # fmt: skip
    except PlacementInputError:
        return change
    cost = alone.objective_monthly_usd
    return change if cost is None else replace(change, effect_usd=round(cost - middle, 2))


# The user's password: from the ``:`` after the user to the netloc's last ``@`` (a password
# may hold an unencoded ``@``); and a ``password=`` query parameter.
_PASSWORD = re.compile(r"^([^:/]+://[^:/@?#]*:)([^/?#]*)@")
_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&#]*)", re.I)


def _secrets(url: str) -> list[str]:
    """Every secret text in ``url``, longest first (each replaced whole)."""
    found = [m.group(2) for m in (_PASSWORD.search(url), _QUERY_PASSWORD.search(url)) if m]
    try:
        parsed = make_url(url)
        found += [str(parsed.password or ""), str(parsed.query.get("password") or "")]
    except (ArgumentError, ValueError):
        pass
    # A password with an unencoded '@' is parsed as part of the host: its pieces show up
    # in a driver's errors on their own.
    pieces = [p for f in found for p in f.split("@") if len(p) >= 3]
    return sorted({f for f in [*found, *pieces] if f}, key=len, reverse=True)


def redacted(url: str) -> str:
    """The URL as messages show it: every secret (``_secrets``) as ``***``, never in clear."""
    shown = _QUERY_PASSWORD.sub(r"\1***", _PASSWORD.sub(r"\1***@", url))
    for secret in _secrets(url):
        shown = shown.replace(secret, "***")
    return shown


def _sqlite_file(url: str, shown: str) -> Path | None:
    """The file of an SQLite URL (None for a server's). A query string is refused: the
    driver ignores what it does not know (``?mode=ro`` would open the file for writing)."""
    if not url.startswith("sqlite:///"):
        return None
    path, query = url.removeprefix("sqlite:///"), ""
    if "?" in path:
        path, query = path.split("?", 1)
    if query:
        raise PlacementInputError(
            [f"--db {shown}: an SQLite file takes no URL arguments here (got ?{query}); "
             "expected the file's path alone"],
            title="invalid option",
        )  # fmt: skip
    return Path(path)


def _in_memory(url: str) -> bool:
    """Whether ``url`` is SQLite's in-memory database (``sqlite://``, ``sqlite:///:memory:``)."""
    return url.startswith("sqlite") and (
        url.split("://", 1)[1] in ("", "/") or ":memory:" in url or "mode=memory" in url
    )


def _frame_bytes(inventory: Inventory) -> bytes:
    buffer = io.StringIO()
    inventory.workloads.to_csv(buffer, index=False)
    return buffer.getvalue().encode()

"""The ``run`` block of a plan: tool version, input and catalog fingerprints, overrides,
scenario, solver options and library versions, so that two plans can be told apart and one
re-run later.

Everything here is the same for two runs of the same inputs except ``started_at``; the plan's
other timing, ``solver.time_s``, lives outside this block.
"""

from __future__ import annotations

import hashlib
import platform
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version

from placement.catalog import CatalogOrigin
from placement.models.catalog import Catalog
from placement.models.plan import (
    CatalogInfo,
    InputInfo,
    RunInfo,
    ScenarioInfo,
    SolverOptionsInfo,
)
from placement.reading import Inventory
from placement.scenarios.files import Scenario

LIBRARIES = ("pulp", "highspy", "pandas", "pydantic", "numpy")
"""The libraries whose versions can change a plan's numbers (the solver stack)."""


def _version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "not installed"


def tool_version() -> str:
    """The installed version of placement ("0+unknown" from an uninstalled checkout)."""
    version_ = _version("placement")
    return "0+unknown" if version_ == "not installed" else version_


def catalog_fingerprint(catalog: Catalog) -> str:
    """SHA-256 of the validated catalog's canonical JSON: equal means the same figures."""
    return hashlib.sha256(catalog.model_dump_json().encode("utf-8")).hexdigest()


def now_utc() -> str:
    """The current time, ISO 8601 in UTC to the second (``2026-12-03T01:02:03Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_info(
    inventory: Inventory,
    catalog: Catalog,
    origin: CatalogOrigin | None,
    solver: str,
    time_limit_s: float | None,
    gap: float,
    started_at: str,
    scenario: Scenario | None = None,
) -> RunInfo:
    """The provenance of one planning run."""
    catalog_info = CatalogInfo(
        name=catalog.name,
        path=origin.path if origin else None,
        via=origin.via if origin else "api",
        sha256=origin.sha256 if origin else None,
        effective_sha256=catalog_fingerprint(catalog),
    )
    return RunInfo(
        tool_version=tool_version(),
        started_at=started_at,
        input=InputInfo(
            path=inventory.source,
            format=inventory.input_format,
            sheet=inventory.sheet,
            sha256=inventory.sha256,
            workloads=len(inventory.workloads),
        ),
        catalog=catalog_info,
        overrides=list(origin.overrides) if origin else [],
        scenario=scenario.name if scenario else None,
        scenario_file=ScenarioInfo(
            name=scenario.name,
            description=scenario.description,
            path=scenario.path,
            sha256=scenario.sha256,
            catalog_settings=[f"{s.path}={s.raw}" for s in scenario.settings],
            inventory_changes=len(scenario.changes),
        )
        if scenario
        else None,
        solver_options=SolverOptionsInfo(solver=solver, time_limit_s=time_limit_s, gap=gap),
        libraries={"python": platform.python_version()}
        | {name: _version(name) for name in LIBRARIES},
    )

"""placement: cost-optimal placement of ML workloads on Trainium2 and H100.

The Python API the ``placement`` command line is a thin layer over::

    from placement import plan, load_catalog
    catalog = load_catalog(overrides=["economics.amortization_months=24"])
    result = plan("inputs/sample_inventory.csv", catalog)
    result.plan.objective_monthly_usd

The names below are imported on first use (PEP 562), so that importing one stage, or starting
the command line for ``--help``, does not load the solver, pandas and every other stage.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from placement.exports import lazy_exports

if TYPE_CHECKING:
    from placement.analysing.checks import check_plan
    from placement.catalog import load_catalog
    from placement.estimating import estimate
    from placement.pipeline import PlanResult, SolverOptions, plan
    from placement.reading import InputError, read_inventory

__all__ = [
    "InputError",
    "PlanResult",
    "SolverOptions",
    "__version__",
    "check_plan",
    "estimate",
    "load_catalog",
    "plan",
    "read_inventory",
]

_getattr, __dir__ = lazy_exports(
    __name__,
    {
        "InputError": "placement.reading",
        "PlanResult": "placement.pipeline",
        "SolverOptions": "placement.pipeline",
        "check_plan": "placement.analysing.checks",
        "estimate": "placement.estimating",
        "load_catalog": "placement.catalog",
        "plan": "placement.pipeline",
        "read_inventory": "placement.reading",
    },
)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from placement.analysing.provenance import tool_version

        return tool_version()
    return _getattr(name)

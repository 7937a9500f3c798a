"""placement: cost-optimal placement of ML workloads on Trainium2 and H100.

The Python API the ``placement`` command line is a thin layer over::

    from placement import plan, load_catalog
    catalog = load_catalog(overrides=["economics.amortization_months=24"])
    result = plan("inputs/sample_inventory.csv", catalog)
    result.plan.objective_monthly_usd
"""

from placement.analysing.checks import check_plan
from placement.analysing.provenance import tool_version
from placement.catalog import load_catalog
from placement.estimating import estimate
from placement.pipeline import PlanResult, SolverOptions, plan
from placement.reading import InputError, read_inventory

__version__ = tool_version()

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

"""placement: cost-optimal placement of ML workloads on Trainium2 and H100.

The Python API the ``placement`` command line is a thin layer over::

    from optimizer import plan, load_catalog
    catalog = load_catalog(overrides=["economics.amortization_months=24"])
    result = plan("inputs/sample_inventory.csv", catalog)
    result.plan.objective_monthly_usd
"""

from optimizer.catalog import load_catalog
from optimizer.checks import check_plan
from optimizer.estimates import estimate
from optimizer.inventory import InputError, read_inventory
from optimizer.pipeline import PlanResult, SolverOptions, plan

__all__ = [
    "InputError",
    "PlanResult",
    "SolverOptions",
    "check_plan",
    "estimate",
    "load_catalog",
    "plan",
    "read_inventory",
]

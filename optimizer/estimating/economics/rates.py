"""Rates from the catalog: USD per chip-hour of an accelerator under a pricing option, on demand
or committed.

An accelerator's list rate ``c_a`` (``on_demand_usd_per_chip_hour``) under an option of discount
``d_{p,a}`` costs ``c_a (1 - d_{p,a})`` per chip-hour; a reservation with the legacy
``usable_fraction`` ``u`` covers only ``u`` of its chips, so each chip-hour it covers costs
``c_a (1 - d_{p,a}) / u``.
"""

from __future__ import annotations

from placement.models.catalog import Catalog


def discounted_rate(catalog: Catalog, pricing: str, accelerator: str) -> float:
    """USD per chip-hour of ``accelerator`` at ``pricing``'s discount: ``c_a (1 - d_{p,a})``."""
    option = catalog.pricing_options[pricing]
    return catalog.accelerators[accelerator].on_demand_usd_per_chip_hour.value * (
        1 - option.discount_for(accelerator)
    )


def on_demand_rate(catalog: Catalog, accelerator: str) -> float:
    """USD per chip-hour on demand (the accelerator's on-demand option, with its discount)."""
    return discounted_rate(catalog, catalog.on_demand_option(accelerator), accelerator)


def on_demand_rates(catalog: Catalog) -> dict[str, float]:
    """Every accelerator's on-demand USD per chip-hour."""
    return {name: on_demand_rate(catalog, name) for name in catalog.accelerators}


def covered_rate(catalog: Catalog, pricing: str, accelerator: str) -> float:
    """USD per chip-hour of ``accelerator`` covered under ``pricing`` (a reservation's legacy
    usable fraction makes each covered chip-hour dearer)."""
    option = catalog.pricing_options[pricing]
    rate = discounted_rate(catalog, pricing, accelerator)
    if option.kind == "reserved" and option.usable_fraction is not None:
        rate /= option.usable_fraction.value
    return rate

"""Time to first token: unloaded at a replica's size, and under load at its utilisation.

* Unloaded, for replica size ``s`` chips: ``ttft7b_a (P_a / 7)^e x c(x) / s^t / factor``:
  prefill grows with the active parameters and with the prompt (``x = L / L_0`` tokens, each
  costing ``c(x) = (1 - a) + a x``, attention's share growing with the context), shrinks with the
  chips that share it (tensor and pipeline parallel), and slows with every feature the platform
  runs slower.
* Under load: a request waits for the work ahead of it on its replica. With Poisson arrivals and
  a deterministic service time equal to the unloaded TTFT ``S`` (an M/D/1 queue), at utilisation
  ``u`` the mean wait is ``u S / (2 (1 - u))`` (Pollaczek-Khinchine), so
  ``ttft(u) = S (1 + u / (2 (1 - u)))``. Meeting an SLO at ``k = SLO / S > 1`` allows a
  utilisation up to ``2 (k - 1) / (2 k - 1)``.
"""

from __future__ import annotations

import numpy as np

from placement.models.catalog import Catalog


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def ttft_7b_ms(catalog: Catalog, accelerator: str) -> float:
    """The accelerator's 7B TTFT at the catalog's start mode, after SDK graph caching if any."""
    acc = catalog.accelerators[accelerator]
    platform = catalog.platforms[acc.platform]
    mode = catalog.latency.start_mode
    caching = platform.graph_caching
    if (
        caching is not None
        and platform.sdk_version is not None
        and version_tuple(platform.sdk_version) >= version_tuple(caching.from_sdk_version)
    ):
        reference = catalog.accelerators[catalog.reference_accelerator]
        ref_ms = reference.ttft_7b_ms_warm if mode == "warm" else reference.ttft_7b_ms_cold
        return caching.ttft_ratio_to_reference.value * ref_ms.value
    return (acc.ttft_7b_ms_warm if mode == "warm" else acc.ttft_7b_ms_cold).value


def ttft_per_chip_power(
    catalog: Catalog,
    accelerator: str,
    active_params_b: np.ndarray,
    prompt_cost: np.ndarray,
    factor: np.ndarray,
) -> np.ndarray:
    """The unloaded TTFT of a one-chip replica (ms); divide by ``s^t`` for ``s`` chips.

    ``prompt_cost``: the prompt's prefill relative to the benchmark prompt's, ``x c(x)``.
    """
    lat = catalog.latency
    return np.asarray(
        ttft_7b_ms(catalog, accelerator)
        * (active_params_b / lat.reference_params_b.value) ** lat.params_exponent.value
        * prompt_cost
        / factor
    )


def loaded_ttft(unloaded: np.ndarray, utilization: np.ndarray) -> np.ndarray:
    """``S (1 + u / (2 (1 - u)))``: the M/D/1 mean TTFT at utilisation ``u`` (infinite at 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(unloaded * (1 + utilization / (2 * (1 - utilization))))


def utilization_for_slo(unloaded: np.ndarray, slo: np.ndarray) -> np.ndarray:
    """The highest utilisation at which ``loaded_ttft <= slo``: ``2 (k-1) / (2k-1)`` for
    ``k = slo / unloaded``; 0 where even an idle replica misses it, 1 where there is no SLO."""
    with np.errstate(divide="ignore", invalid="ignore"):
        k = slo / unloaded
        allowed = np.where(k > 1, 2 * (k - 1) / (2 * k - 1), 0.0)
    return np.asarray(np.where(np.isnan(slo), 1.0, allowed))

"""Time to first token."""

from __future__ import annotations

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

"""Systematic, solver-safe names for variables and constraints, built from cleaned ids."""

from __future__ import annotations

import re
from collections.abc import Iterable

_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


def clean(text: str) -> str:
    """Keep letters, digits, ``_`` and ``.``; everything else becomes ``_``."""
    return _UNSAFE.sub("_", str(text)).strip("_") or "_"


def unique_clean(ids: Iterable[str]) -> list[str]:
    """Cleaned ids, made unique with ``.n`` suffixes where cleaning made two equal."""
    used: set[str] = set()
    out: list[str] = []
    for raw in ids:
        base = clean(raw)
        candidate, n = base, 0
        while candidate in used:
            n += 1
            candidate = f"{base}.{n}"
        used.add(candidate)
        out.append(candidate)
    return out


def name_map(keys: Iterable[str]) -> dict[str, str]:
    """Raw key -> unique cleaned name, assigned in sorted order so names are reproducible."""
    ordered = sorted(set(keys))
    return dict(zip(ordered, unique_clean(ordered), strict=True))


def name(family: str, *keys: str) -> str:
    """``family(k1,k2,...)``: e.g. ``assign(job_1,trn2,reserved_1yr)``."""
    return f"{family}({','.join(keys)})"

"""Systematic, solver-safe names for variables and constraints, built from cleaned ids."""

from __future__ import annotations

import re
from collections.abc import Iterable

_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


def clean(text: str) -> str:
    """Keep letters, digits, ``_`` and ``.``; everything else becomes ``_``."""
    return _UNSAFE.sub("_", str(text)).strip("_") or "_"


def unique_clean(ids: Iterable[str]) -> list[str]:
    """Cleaned ids, made unique with ``~n`` suffixes where cleaning made two equal."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for raw in ids:
        name = clean(raw)
        count = seen.get(name, 0)
        seen[name] = count + 1
        out.append(name if count == 0 else f"{name}.{count}")
    return out


def name(family: str, *keys: str) -> str:
    """``family(k1,k2,...)``: e.g. ``assign(job_1,trn2,reserved_1yr)``."""
    return f"{family}({','.join(keys)})"

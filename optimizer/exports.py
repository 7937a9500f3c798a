"""A package's public names, imported on first use (PEP 562).

A package ``__init__`` re-exports the names users import (``from placement.catalog import
read_catalog``). Imported eagerly, importing any one module of the package, or starting the
command line for ``--help``, would load every stage below it (pandas, the solver, the pydantic
models): half a second before anything is done. So each ``__init__`` lists its names and the
module each lives in, and imports a module only when one of its names is first read::

    __getattr__, __dir__ = lazy_exports(__name__, {"read_catalog": "placement.catalog.files"})

Type checkers read the same names from an ``if TYPE_CHECKING:`` import block beside it.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``.

    ``exports`` maps each public name to the module that defines it; a name is imported once,
    then kept in the package's namespace so that later reads do not come here.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__

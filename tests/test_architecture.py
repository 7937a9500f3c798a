"""The package's layout cannot drift: the stages import downwards only, nothing imports in a
circle, and the package root holds only what a user imports, the pipeline and the errors.

The contracts live in pyproject.toml (``[tool.importlinter]``) and ``lint-imports`` checks them;
the tests below run it, and check the same rules again from the import graph itself (grimp's,
type-checking imports included) so that a contract edited into vacuity is still caught.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "placement"
MAX_ROOT_MODULES = 5  # __init__, __main__, pipeline, errors, exports


def _contracts() -> list[dict[str, object]]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        config = tomllib.load(handle)["tool"]["importlinter"]
    assert config["root_package"] == PACKAGE
    contracts: list[dict[str, object]] = config["contracts"]
    return contracts


def _layers() -> list[list[str]]:
    """The stage layers, highest first, each a list of the stages in it."""
    [stages] = [c for c in _contracts() if c["type"] == "layers"]
    assert stages["containers"] == [PACKAGE]
    layers = stages["layers"]
    assert isinstance(layers, list)
    return [[name.strip() for name in layer.split("|")] for layer in layers]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(PACKAGE, exclude_type_checking_imports=False, cache_dir=None)


def _imports(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    return sorted(
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
    )


def _stage(module: str) -> str:
    """The stage a module belongs to: the package or root module under ``placement``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _circles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    successors: dict[str, list[str]] = {}
    for a, b in edges:
        if a != b:
            successors.setdefault(a, []).append(b)
            successors.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in successors[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(successors):
        if node not in index:
            visit(node)
    return found


def _upward(edges: Iterable[tuple[str, str]], layers: list[list[str]]) -> list[str]:
    """Imports from a stage into one listed above it, or between siblings of a layer."""
    level = {stage: i for i, layer in enumerate(layers) for stage in layer}
    problems = []
    for importer, imported in edges:
        a, b = _stage(importer), _stage(imported)
        if not a or not b or a == b:
            continue  # the package's own __init__ re-exports the API; a stage may import itself
        if level[b] <= level[a]:
            problems.append(f"{importer} -> {imported} ({a} is not above {b})")
    return problems


def test_lint_imports_keeps_every_contract() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint), "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"Contracts: {len(_contracts())} kept, 0 broken." in result.stdout


def test_the_graph_is_the_whole_package(graph: grimp.ImportGraph) -> None:
    # Guards the checks below against an empty or partial graph.
    assert "placement.models.plan" in graph.modules
    assert "placement.formulating.commitments" in graph.modules
    assert ("placement.pipeline", "placement.formulating.build") in _imports(graph)
    assert len(_imports(graph)) > 300


def test_every_stage_has_its_layer(graph: grimp.ImportGraph) -> None:
    listed = {stage for layer in _layers() for stage in layer}
    stages = {_stage(m) for m in graph.modules} - {""}
    assert stages - {"data"} == listed


def test_no_module_imports_upwards(graph: grimp.ImportGraph) -> None:
    assert _upward(_imports(graph), _layers()) == []


def test_no_circle_between_modules(graph: grimp.ImportGraph) -> None:
    assert _circles(_imports(graph)) == []


def test_no_circle_between_stages(graph: grimp.ImportGraph) -> None:
    edges = [(_stage(a), _stage(b)) for a, b in _imports(graph) if _stage(a) and _stage(b)]
    assert _circles(edges) == []


def test_the_checks_catch_what_they_forbid(graph: grimp.ImportGraph) -> None:
    edges = _imports(graph)
    upward = ("placement.reading.inventory", "placement.pipeline")
    assert _upward([*edges, upward], _layers()) == [
        "placement.reading.inventory -> placement.pipeline (reading is not above pipeline)"
    ]
    sibling = ("placement.reporting.plan", "placement.storing.history")
    assert len(_upward([*edges, sibling], _layers())) == 1
    assert _circles([*edges, ("placement.errors", "placement.reading.problems")]) == [
        ["placement.errors", "placement.reading.problems"]
    ]


def test_the_root_holds_only_the_api_the_pipeline_and_the_errors() -> None:
    # (and exports.py, the helper that imports the API's names on first use)
    import placement

    root = Path(placement.__file__).parent
    loose = sorted(p.name for p in root.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "errors.py", "exports.py", "pipeline.py"]
    assert len(loose) <= MAX_ROOT_MODULES


def test_no_lazy_export_is_named_like_a_module_of_its_package() -> None:
    """A name imported on first use (``placement.exports``) that is also a submodule's name is
    shadowed by the submodule once anything imports it (``from placement.comparing import
    whatif`` gave the module, not the function): such a package imports its names eagerly."""
    import importlib
    import pkgutil

    import placement

    clashes = []
    for package in [placement, *_packages(placement)]:
        exports = getattr(package, "__all__", [])
        uses_lazy = "__getattr__" in vars(package)
        modules = {info.name for info in pkgutil.iter_modules(package.__path__)}
        if uses_lazy:
            clashes += [f"{package.__name__}.{name}" for name in exports if name in modules]
            for name in exports:  # and every name resolves to what it names
                assert getattr(importlib.import_module(package.__name__), name) is not None
    assert clashes == []


def _packages(root: object) -> list[object]:
    import importlib
    import pkgutil

    path = getattr(root, "__path__", [])
    prefix = getattr(root, "__name__", "") + "."
    return [
        importlib.import_module(info.name)
        for info in pkgutil.walk_packages(path, prefix)
        if info.ispkg and ".migrations" not in info.name
    ]

"""Every example of the README works as written: the first thing a new user runs.

The shell lines of the README's set-up and use blocks run in order in a scratch folder, with
the placeholder files they name made from the sample (``inv.csv``, ``inv.xlsx``, ``big.csv``)
and ``export-inventory`` standing for a command that prints an inventory. Each must exit 0 (or
3 where the README says some workloads cannot be placed), print no internal error, and leave
the files it promises. The Python example runs too. Installing (``pip install``) and the
development commands that rewrite the repository's own files are left to CI and their tests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"

# Lines of the README's shell blocks not run here, and why.
NOT_RUN = {
    "pip install": "installing is what CI's fresh environment does",
    "ruff check": "lint, run by CI's own step",
    "lint-imports": "tests/test_architecture.py",
    "python -m benchmarks.run": "a benchmark: minutes, and it rewrites docs/performance.md",
    "python scripts/": "tests/test_docs.py checks the generated files",
    "PLACEMENT_UPDATE_GOLDEN": "tests/test_sample.py",
    "placement reference --write-inputs": "tests/test_reference.py (it rewrites inputs/)",
    "eval ": "shell completion, docs/outputs.md",
}
# Commands whose documented outcome is exit 3 (a sample scenario pins a family to Trainium2
# and adds a workload: some workloads cannot be placed there, listed with reasons).
MAY_EXIT_3 = ("placement whatif",)


@dataclass(frozen=True)
class Example:
    line: str
    block: str


def _blocks(text: str) -> list[tuple[str, str]]:
    """The README's fenced blocks: (language, body)."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]


def _shell_examples() -> list[Example]:
    examples = []
    for language, body in _blocks(README.read_text(encoding="utf-8")):
        if language:
            continue
        for raw in body.splitlines():
            line = re.split(r"\s{2,}#", raw)[0].strip()
            if line:
                examples.append(Example(line, body.splitlines()[0]))
    return examples


def _skipped(line: str) -> str | None:
    return next((why for start, why in NOT_RUN.items() if line.startswith(start)), None)


EXAMPLES = _shell_examples()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "inputs", folder / "inputs")
    shutil.copy(SAMPLE, folder / "inv.csv")
    shutil.copy(SAMPLE, folder / "big.csv")
    frame = pd.read_csv(SAMPLE, keep_default_na=False, dtype=str)
    frame.to_excel(folder / "inv.xlsx", index=False)
    tools = folder / "bin"
    tools.mkdir()
    exporter = tools / "export-inventory"
    exporter.write_text(f"#!/bin/sh\ncat {folder / 'inv.csv'}\n", encoding="utf-8")
    exporter.chmod(0o755)
    return folder


@pytest.fixture(scope="module")
def outcomes(scratch: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every example run in order (an ``export`` carries over to the lines after it)."""
    env = {
        **os.environ,
        "PATH": f"{scratch / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}"
        + os.environ.get("PATH", ""),
        "HOME": str(scratch),
        "PLACEMENT_DB": str(scratch / "history.sqlite"),
        "COLUMNS": "100",
    }
    env.pop("PLACEMENT_CATALOG", None)
    done: dict[str, subprocess.CompletedProcess[str]] = {}
    for example in EXAMPLES:
        if _skipped(example.line):
            continue
        exported = re.fullmatch(r"export (\w+)=(\S+)", example.line)
        if exported:
            env[exported.group(1)] = exported.group(2)
            continue
        done[example.line] = subprocess.run(
            ["bash", "-c", example.line],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    return done


def test_the_readme_has_examples() -> None:
    lines = [e.line for e in EXAMPLES]
    assert "placement plan inputs/sample_inventory.csv" in lines
    assert any(line.startswith("placement whatif") for line in lines)
    assert any(line.startswith("placement sweep") for line in lines)
    assert sum(1 for line in lines if not _skipped(line)) >= 15


@pytest.mark.parametrize("line", [e.line for e in EXAMPLES if not _skipped(e.line)])
def test_readme_example_runs(
    line: str, outcomes: dict[str, subprocess.CompletedProcess[str]]
) -> None:
    if line.startswith("export "):
        return
    result = outcomes[line]
    allowed = {0, 3} if line.startswith(MAY_EXIT_3) else {0}
    assert result.returncode in allowed, result.stderr[-3000:]
    assert "internal error" not in result.stderr
    assert "Traceback" not in result.stderr


def test_readme_examples_write_what_they_promise(
    scratch: Path, outcomes: dict[str, subprocess.CompletedProcess[str]]
) -> None:
    assert outcomes  # every example ran first
    assert '"objective_monthly_usd"' in (scratch / "plan.json").read_text(encoding="utf-8")
    assert (scratch / "plan.csv").exists() and (scratch / "plan.purchases.csv").exists()
    assert "accelerators:" in (scratch / "my_catalog.yaml").read_text(encoding="utf-8")
    assert (scratch / "history.sqlite").exists()


def test_readme_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    [code] = [body for language, body in _blocks(README.read_text()) if language == "python"]
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {}
    exec(compile(code, str(README), "exec"), namespace)
    result = namespace["result"]
    assert result.plan.objective_monthly_usd > 0  # type: ignore[attr-defined]

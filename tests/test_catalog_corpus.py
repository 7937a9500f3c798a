"""The malformed-catalog corpus (tests/corpus/catalog): every case through the CLI.

``cases.yaml`` lists catalog files (``placement catalog show --catalog FILE``), and
``set_cases.yaml`` lists ``--set`` arguments; each case gives the exit code, substrings the
message must hold and, optionally, how many problems are reported. Commands run from the corpus
folder, so messages show the file names as the cases give them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from placement.cli.main import cli

CORPUS = Path(__file__).resolve().parent / "corpus" / "catalog"
# A manifest of at least this many cases each, as the corpus was asked to cover.
MIN_FILE_CASES = 18
MIN_SET_CASES = 8


def _cases(manifest: str) -> list[dict[str, Any]]:
    return yaml.safe_load((CORPUS / manifest).read_text(encoding="utf-8"))["cases"]


FILE_CASES = _cases("cases.yaml")
SET_CASES = _cases("set_cases.yaml")


def _check(args: list[str], case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CORPUS)
    result = CliRunner().invoke(cli, ["catalog", "show", *args])
    assert result.exit_code == case["exit"], result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    shown = result.stderr if case["exit"] else result.stdout
    for text in case["expect"]:
        assert text in shown, shown
    if "problems" in case:
        counted = re.search(r"invalid catalog: (\d+) problems?\n", result.stderr)
        assert counted is not None and int(counted.group(1)) == case["problems"], result.stderr


@pytest.mark.parametrize("case", FILE_CASES, ids=[c["file"] for c in FILE_CASES])
def test_catalog_file_case(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    _check(["--catalog", case["file"]], case, monkeypatch)


@pytest.mark.parametrize("case", SET_CASES, ids=[" ".join(c["args"]) for c in SET_CASES])
def test_set_case(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    _check(list(case["args"]), case, monkeypatch)


def test_the_manifests_cover_the_corpus() -> None:
    files = {path.name for path in CORPUS.glob("*.yaml")} - {"cases.yaml", "set_cases.yaml"}
    listed = [case["file"] for case in FILE_CASES]
    assert sorted(listed) == sorted(files)  # every file listed once, none missing
    assert sum(case["exit"] == 2 for case in FILE_CASES) >= MIN_FILE_CASES
    assert sum(case["exit"] == 2 for case in SET_CASES) >= MIN_SET_CASES
    for case in FILE_CASES:
        if case["exit"] == 2:
            assert any(case["file"] in text for text in case["expect"]), case["file"]
    for case in SET_CASES:
        assert {"args", "exit", "expect"} <= case.keys()

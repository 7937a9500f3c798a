"""Every file of tests/corpus/inventory/ does what cases.yaml says: valid files are read as
written and planned, malformed ones are refused (exit 2) with a message naming the file and
the place, never a traceback, never an output file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from placement.cli.main import cli
from placement.reading import read_inventory

CORPUS = Path(__file__).parent / "corpus" / "inventory"
CASES: list[dict[str, Any]] = yaml.safe_load((CORPUS / "cases.yaml").read_text(encoding="utf-8"))


def _case_id(case: dict[str, Any]) -> str:
    return case["file"] + ("[" + " ".join(case["args"]) + "]" if case.get("args") else "")


def test_the_corpus_covers_every_file_and_format() -> None:
    files = {p.name for p in CORPUS.iterdir() if p.name != "cases.yaml"}
    assert files == {case["file"] for case in CASES}
    suffixes = {Path(name).suffix for name in files}
    assert suffixes == {".csv", ".json", ".yaml", ".xlsx", ".parquet"}
    assert len(files) >= 60


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_corpus_case(case: dict[str, Any], tmp_path: Path) -> None:
    path = CORPUS / case["file"]
    args = [str(a) for a in case.get("args", [])]
    runner = CliRunner()
    checked = runner.invoke(cli, ["validate", str(path), *args, "--format", "json"])
    target = tmp_path / "plan.json"
    planned = runner.invoke(cli, ["plan", str(path), *args, "--format", "json", "-o", str(target)])
    for result in (checked, planned):
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output
        assert result.exit_code == case["exit"], result.output
    if case["exit"] == 2:
        message = checked.stderr
        assert str(path) in message
        for fragment in case["expect"]:
            assert fragment in message, (fragment, message)
        assert json.loads(checked.stdout)["status"] == "error"
        assert not target.exists()  # no output file on failure
        assert planned.stderr == checked.stderr
        return
    assert target.exists()
    sheet = args[args.index("--sheet") + 1] if "--sheet" in args else None
    inventory = read_inventory(path, sheet=sheet)
    if "ids" in case:
        assert inventory.workloads["id"].tolist() == case["ids"]
    if "sheet" in case:
        assert inventory.sheet == case["sheet"]
    if "extra_columns" in case:
        assert list(inventory.extra_columns) == case["extra_columns"]

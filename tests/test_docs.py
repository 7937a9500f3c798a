"""The docs cannot drift from the code.

* docs/cli.md is exactly what scripts/gen_cli_docs.py generates from the click command tree;
* docs/plan.schema.json is exactly what scripts/gen_schema.py generates from the plan models,
  and real plans (optimal, with unplaced workloads, with no solution) validate against it;
* every command and sub-command has a working ``--help`` and its section in docs/cli.md;
* every constraint function (``add_*_constraints``) and ``set_objective`` in
  optimizer/formulating/ has a section of its own name in docs/formulation.md, every such
  section names a function that exists, and the variable and constraint names each function
  builds appear in its section.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import click
import jsonschema
import pytest
from click.testing import CliRunner, Result

from placement.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
CLI_DOC = ROOT / "docs" / "cli.md"
FORMULATION_DOC = ROOT / "docs" / "formulation.md"
FORMULATION_SRC = ROOT / "optimizer" / "formulating"
PLAN_SCHEMA = ROOT / "docs" / "plan.schema.json"

DOCUMENTED_FUNCTION = re.compile(r"^(add_\w+_constraints|set_objective)$")
IDENTIFIER = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_cli_docs = _load_script("gen_cli_docs")
gen_schema = _load_script("gen_schema")


# --- the CLI reference -----------------------------------------------------------------------


def _command_paths(
    command: click.Command = cli, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, ...]]:
    """Every visible command path, walked independently of the generator's own walk."""
    yield path
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name="placement")
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _command_paths(sub, (*path, name))


COMMAND_PATHS = list(_command_paths())


def _help(path: tuple[str, ...]) -> Result:
    return CliRunner().invoke(
        cli, [*path, "--help"], prog_name="placement", terminal_width=gen_cli_docs.WIDTH
    )


def test_cli_doc_is_up_to_date() -> None:
    assert CLI_DOC.read_text(encoding="utf-8") == gen_cli_docs.render(), (
        "docs/cli.md is out of date; run: python scripts/gen_cli_docs.py"
    )


def test_generator_check_mode(tmp_path: Path) -> None:
    target = tmp_path / "cli.md"
    assert gen_cli_docs.main(["--check", "--output", str(target)]) == 1  # missing
    assert gen_cli_docs.main(["--output", str(target)]) == 0
    assert gen_cli_docs.main(["--check", "--output", str(target)]) == 0
    target.write_text(target.read_text(encoding="utf-8") + "stale\n", encoding="utf-8")
    assert gen_cli_docs.main(["--check", "--output", str(target)]) == 1


def test_every_command_is_walked() -> None:
    assert COMMAND_PATHS[0] == ()
    assert {path for path, _ in gen_cli_docs.iter_commands()} == set(COMMAND_PATHS)


@pytest.mark.parametrize(
    "path", COMMAND_PATHS, ids=[" ".join(("placement", *p)) for p in COMMAND_PATHS]
)
def test_command_help_works_and_is_documented(path: tuple[str, ...]) -> None:
    result = _help(path)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: " + " ".join(("placement", *path)))
    doc = CLI_DOC.read_text(encoding="utf-8")
    heading = "## " + " ".join(("placement", *path))
    assert heading + "\n" in doc.splitlines(keepends=True), f"{heading!r} missing from docs/cli.md"
    assert f"{heading}\n\n```text\n{result.output.rstrip()}\n```\n" in doc


def test_cli_doc_has_no_section_for_a_missing_command() -> None:
    expected = {"## " + " ".join(("placement", *p)) for p in COMMAND_PATHS}
    found = {
        line.rstrip("\n")
        for line in CLI_DOC.read_text(encoding="utf-8").splitlines()
        if line.startswith("## ")
    }
    assert found == expected


# --- the formulation -------------------------------------------------------------------------


def _functions() -> dict[str, ast.FunctionDef]:
    """The top-level functions of every module of the steady-state formulation."""
    functions: dict[str, ast.FunctionDef] = {}
    for module in sorted(FORMULATION_SRC.glob("*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                assert node.name not in functions, f"{node.name} is defined twice"
                functions[node.name] = node
    return functions


def _documented_functions() -> list[str]:
    return [name for name in _functions() if DOCUMENTED_FUNCTION.match(name)]


def _sections() -> dict[str, tuple[int, str]]:
    """Headings whose text is a bare identifier: name -> (level, section text up to the next
    heading of the same or a higher level)."""
    lines = FORMULATION_DOC.read_text(encoding="utf-8").splitlines()
    headings = []
    in_fence = False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if match:
            headings.append((i, len(match.group(1)), match.group(2).strip("`")))
    sections = {}
    for k, (start, level, text) in enumerate(headings):
        end = next((i for i, lvl, _ in headings[k + 1 :] if lvl <= level), len(lines))
        if IDENTIFIER.match(text):
            sections[text] = (level, "\n".join(lines[start:end]))
    return sections


def _built_names(function: ast.FunctionDef) -> set[str]:
    """Variable and constraint names a function builds: ``name("x", ...)`` gives ``x(``, a
    literal constraint name in ``addConstraint(expr, "y")`` gives ``y``."""
    names = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "name" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(f"`{first.value}(")
        if isinstance(func, ast.Attribute) and func.attr == "addConstraint" and len(node.args) > 1:
            second = node.args[1]
            if isinstance(second, ast.Constant) and isinstance(second.value, str):
                names.add(f"`{second.value}`")
    return names


def test_formulation_has_constraint_functions() -> None:
    # Guards the tests below against a rename that would make them vacuous.
    assert "set_objective" in _documented_functions()
    assert any(name.startswith("add_") for name in _documented_functions())


@pytest.mark.parametrize("function", _documented_functions())
def test_constraint_function_has_its_section(function: str) -> None:
    sections = _sections()
    assert function in sections, f"docs/formulation.md needs a '## {function}' section"
    level, text = sections[function]
    assert level == 2, f"'{function}' should be a level-2 heading (##)"
    for built in sorted(_built_names(_functions()[function])):
        assert built in text, f"the {function} section should name {built}"


def test_every_function_heading_names_a_function() -> None:
    functions = _functions()
    unknown = sorted(name for name in _sections() if name not in functions)
    assert not unknown, f"docs/formulation.md has sections for missing functions: {unknown}"


def test_every_variable_and_constraint_name_is_documented() -> None:
    doc = FORMULATION_DOC.read_text(encoding="utf-8")
    missing = sorted(
        built
        for function in _functions().values()
        for built in _built_names(function)
        if built not in doc
    )
    assert not missing, f"docs/formulation.md does not mention {missing}"


# --- the plan JSON schema ----------------------------------------------------------------


def test_plan_schema_is_up_to_date() -> None:
    assert PLAN_SCHEMA.read_text(encoding="utf-8") == gen_schema.render(), (
        "docs/plan.schema.json is out of date; run: python scripts/gen_schema.py"
    )


UNPLACEABLE = """\
id,kind,model_family,params_b,monthly_tokens_b,serving,ttft_slo_ms,features,pinned_accelerator
spec-on-trn2,inference,llama,8,3,online,200,speculative_decoding,trn2
ok-train,training,llama,8,3,,,,
"""


@pytest.mark.parametrize(
    ("inventory", "options", "status"),
    [
        ("sample_inventory.csv", [], "optimal"),
        ("unplaceable.csv", [], "optimal"),
        ("sample_inventory.yaml", ["--time-limit", "0.000001"], "no_solution"),
    ],
)
def test_real_plans_validate_against_the_schema(
    tmp_path: Path, inventory: str, options: list[str], status: str
) -> None:
    (tmp_path / "unplaceable.csv").write_text(UNPLACEABLE, encoding="utf-8")
    path = tmp_path / inventory if inventory == "unplaceable.csv" else ROOT / "inputs" / inventory
    result = CliRunner().invoke(cli, ["plan", str(path), *options, "--format", "json"])
    assert result.exit_code in (0, 3), result.output
    document = json.loads(result.stdout)
    assert document["status"] == status
    assert bool(document["unplaced"]) == (inventory == "unplaceable.csv")
    schema = json.loads(PLAN_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(document, schema)
    assert document["schema_version"] == schema["properties"]["schema_version"]["default"]

"""The installed package: one ``placement`` namespace, typed, versioned, licensed.

Builds the wheel (not an editable install, which would hide packaging mistakes), installs it
into a brand-new virtual environment and uses it from a directory that has packages of its own
named ``models`` and ``optimizer``, as most ML repositories do.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import placement

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"


def _run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **env},
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy: an in-tree build would leave build/ and egg-info in the checkout.
    source = tmp_path_factory.mktemp("source") / "placement"
    shutil.copytree(
        ROOT,
        source,
        symlinks=True,
        ignore=shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__"),
    )
    out = tmp_path_factory.mktemp("wheel")
    run = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(source)],
        cwd=out,
    )
    assert run.returncode == 0, run.stderr
    (built,) = out.glob("placement-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel; its dependencies come from this environment's site dir.

    The dependencies are made visible through a ``.pth`` path line, which adds the directory to
    ``sys.path`` without running that directory's own ``.pth`` files: the editable install of
    this checkout stays invisible, so only the wheel can provide ``placement``.
    """
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    run = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            str(wheel),
        ],
        cwd=env_dir,
    )
    assert run.returncode == 0, run.stderr
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        cwd=env_dir,
    ).stdout.strip()
    deps = "\n".join(site.getsitepackages())
    Path(purelib, "zz_test_dependencies.pth").write_text(deps + "\n", encoding="utf-8")
    return env_dir


@pytest.fixture()
def user_project(tmp_path: Path) -> Path:
    """A user's repository with its own ``models`` and ``optimizer`` packages."""
    for name in ("models", "optimizer"):
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text(f"OWNER = 'user {name}'\n", encoding="utf-8")
    return tmp_path


def test_wheel_installs_one_namespace_with_types_data_and_licence(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        top_level = {name.split("/")[0] for name in names if not name.startswith("placement-")}
        metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(metadata_name).decode()
    assert top_level == {"placement"}
    for member in (
        "placement/__init__.py",
        "placement/__main__.py",
        "placement/py.typed",
        "placement/models/__init__.py",
        "placement/models/plan.py",
        "placement/data/default_catalog.yaml",
        "placement/data/aws_2026_catalog.yaml",  # a packaged catalog chosen by name
    ):
        assert member in names
    for folder, package in (("optimizer", "placement"), ("models", "placement/models")):
        for module in (ROOT / folder).rglob("*.py"):
            relative = module.relative_to(ROOT / folder)
            if relative.parts[0] != "models":  # optimizer/models is the symlink to models/
                assert f"{package}/{relative.as_posix()}" in names, relative
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: Apache-2.0" in metadata
    assert "Project-URL: Source," in metadata
    assert f"Version: {placement.__version__}" in metadata


def test_wheel_imports_beside_a_users_own_models_and_optimizer(
    installed: Path, user_project: Path
) -> None:
    script = (
        "import json, models, optimizer, placement, placement.models\n"
        "from placement import plan\n"
        "from placement.models import Plan\n"
        "result = plan('" + str(SAMPLE) + "')\n"
        "print(json.dumps({'models': models.OWNER, 'optimizer': optimizer.OWNER,\n"
        "  'placement': placement.__file__, 'placement_models': placement.models.__file__,\n"
        "  'version': placement.__version__, 'status': result.plan.status,\n"
        "  'plan_type': isinstance(result.plan, Plan)}))\n"
    )
    run = _run([str(installed / "bin" / "python"), "-c", script], cwd=user_project)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["models"] == "user models"
    assert seen["optimizer"] == "user optimizer"
    assert Path(seen["placement"]).is_relative_to(installed)
    assert Path(seen["placement_models"]).is_relative_to(installed)
    assert seen["version"] == placement.__version__
    assert seen["status"] == "optimal"
    assert seen["plan_type"] is True


def test_installed_command_and_python_m_placement(installed: Path, user_project: Path) -> None:
    python = str(installed / "bin" / "python")
    version = _run([python, "-m", "placement", "--version"], user_project)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"placement, version {placement.__version__}"
    run = _run(
        [str(installed / "bin" / "placement"), "plan", str(SAMPLE), "--format", "json"],
        user_project,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["status"] == "optimal"

"""docs/assumptions.md lists every catalog figure as the default catalog has it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_assumptions_table_is_up_to_date() -> None:
    script = ROOT / "scripts" / "gen_assumptions.py"
    done = subprocess.run([sys.executable, str(script), "--check"], cwd=ROOT, check=False)
    assert done.returncode == 0, "run: python scripts/gen_assumptions.py"

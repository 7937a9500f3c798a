"""Writing the model out: the MILP as an MPS or CPLEX LP text, for inspection."""

from __future__ import annotations

import os
import tempfile

from placement.formulating.model import PlacementModel


def model_file_text(model: PlacementModel, path: str | os.PathLike[str]) -> str:
    """The MILP as MPS (``path`` ending ``.mps``) or CPLEX LP (anything else), for inspection.

    PuLP writes only to a path, so it writes into a private folder and the text is returned
    for the caller to write by the safe-file rules (placement.writing.files).
    """
    with tempfile.TemporaryDirectory() as folder:
        if str(path).lower().endswith(".mps"):
            scratch = os.path.join(folder, "model.mps")
            model.problem.writeMPS(scratch)
        else:
            scratch = os.path.join(folder, "model.lp")
            model.problem.writeLP(scratch)
        with open(scratch, encoding="utf-8") as handle:
            return handle.read()

"""Independent HiGHS solves run several at a time (``solving.solver.run_highs_together``)."""

from __future__ import annotations

from collections.abc import Iterator

import highspy
import numpy as np
import pytest

from placement.solving.solver import SOLVES_LEFT_RUNNING, run_highs_together


def _lp(demand: float) -> highspy.Highs:
    """min 3 x + 2 y s.t. x + y >= demand, y <= 1, x, y >= 0: the optimum 3 demand - 1 for a
    demand of at least 1."""
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    inf = highspy.kHighsInf
    highs.addVars(2, np.zeros(2), np.array([inf, 1.0]))
    highs.changeColsCost(2, np.array([0, 1], dtype=np.int32), np.array([3.0, 2.0]))
    highs.addRow(demand, inf, 2, np.array([0, 1], dtype=np.int32), np.array([1.0, 1.0]))
    return highs


@pytest.mark.parametrize("at_once", [1, 2, 5])
def test_every_model_is_solved_to_its_own_optimum(at_once: int) -> None:
    demands = [1.0 + k for k in range(9)]
    models = [_lp(d) for d in demands]
    run_highs_together(iter(models), at_once)
    for highs, demand in zip(models, demands, strict=True):
        assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
        assert highs.getInfo().objective_function_value == pytest.approx(3 * demand - 1)
    assert not SOLVES_LEFT_RUNNING


def test_a_failure_while_building_stops_the_batch_and_is_raised() -> None:
    solved = [_lp(2.0), _lp(3.0)]

    def models() -> Iterator[highspy.Highs]:
        yield from solved
        raise ValueError("bad model")

    with pytest.raises(ValueError, match="bad model"):
        run_highs_together(models(), 2)

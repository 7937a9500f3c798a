"""Analysing a solved model: the solution read back, the plan's reasons, commitments, showback
and FinOps measures, recommended moves, provenance, and re-checking a plan from its content."""

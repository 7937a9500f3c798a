"""Formulating the MILP from the estimates: one module per constraint family group, the model
they share (``model``), the names of its variables and constraints (``naming``)."""

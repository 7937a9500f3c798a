"""Roadmaps over a horizon of months (``plan --horizon N``): the roadmap MILP (``model``,
``formulation``, ``demand``), its search (``solve``, ``start``), the roadmap read back and
re-checked (``roadmap``, ``checks``), and time and the SDK's releases over months (``timeline``,
``releases``)."""

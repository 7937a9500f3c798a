"""Decisions under uncertainty: the catalog's ranges sampled, each sample planned, and what the
samples say about the plan (``placement risk``)."""

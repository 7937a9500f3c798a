"""The ``placement`` command line (``main``: the group and the entry point)."""

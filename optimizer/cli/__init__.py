"""The ``placement`` command line, one module per command group (``plan``, ``catalog``,
``reference``, ``whatif``, ``sweep``, ``history``), the options and helpers they share
(``shared``), and the group that registers them with the entry point (``main``)."""

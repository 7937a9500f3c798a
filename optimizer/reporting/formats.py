"""The output formats a user can choose: plain values, so that the command line can offer them
in ``--help`` without loading the renderers."""

from __future__ import annotations

FORMATS = ("table", "json", "csv", "md")
CHART_FORMATS = {".svg": "svg", ".png": "png"}
"""A chart file's format by its suffix."""

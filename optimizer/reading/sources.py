"""Where an inventory can come from: file suffixes, stdin, a DataFrame, and the formats read.
Plain values, so that the command line can offer them in ``--help`` without loading pandas."""

from __future__ import annotations

SUFFIXES: tuple[str, ...] = (".csv", ".xlsx", ".json", ".yaml", ".yml", ".parquet")
INPUT_FORMATS: tuple[str, ...] = ("csv", "xlsx", "json", "yaml", "parquet")
"""The formats ``--input-format`` names; ``formats.READERS`` has one reader for each."""
DATAFRAME_SOURCE = "<DataFrame>"
STDIN = "-"
STDIN_SOURCE = "<stdin>"

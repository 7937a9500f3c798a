"""A label people give (a planning cycle, a scenario's name): one line of text, short enough to
store in every database the history supports."""

from __future__ import annotations

import unicodedata

MAX_LABEL_CHARS = 200
"""The longest label: the history database's column width (PostgreSQL enforces it; a label is
a name to pick a run by, not a description)."""


def label_problem(text: str) -> str | None:
    """What is wrong with ``text`` as a label, completing "expected ...", or None.

    Control characters (a NUL, a newline, a tab) are refused: PostgreSQL cannot store a NUL,
    and a label is shown on one line in every table."""
    if not text.strip():
        return "a non-empty label"
    if len(text) > MAX_LABEL_CHARS:
        return f"a label of at most {MAX_LABEL_CHARS} characters (this one has {len(text):,})"
    controls = sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Cc"})
    if controls:
        return f"a label on one line without control characters (found {', '.join(controls)})"
    return None

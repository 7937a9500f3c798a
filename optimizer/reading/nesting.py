"""How deeply a settings file (a catalog, a scenario) may nest its mappings and lists, checked
before the file is parsed for real.

The YAML parsers build their documents recursively: 20,000 nested brackets (a few dozen kB)
exhaust Python's stack, and the ``RecursionError`` would surface as an internal error, or be
caught somewhere it was never meant to be. The nesting is therefore measured first from the
parser's event stream, which has no recursion (libyaml's, when installed: a millisecond for the
packaged catalog), and a file nested deeper than :data:`MAX_NESTING` is refused with the line
where it goes too deep.
"""

from __future__ import annotations

from typing import Any

MAX_NESTING = 100
"""Levels of mappings and lists a catalog or scenario file may nest: the packaged catalog nests
six, a scenario four. A hundred is far beyond any real file and far below where the parsers,
and the walks over their documents (a few Python frames a level), reach Python's recursion
limit of 1,000 frames."""


def nesting_too_deep(text: str, limit: int = MAX_NESTING) -> int | None:
    """The line (from 1) where the YAML (or JSON) ``text`` first nests deeper than ``limit``
    levels, or None where it does not. A syntax error stops the count: the reader's own parser
    reports it, with its line."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    depth = 0
    events = yaml.parse(text, Loader=loader)
    try:
        for event in events:
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > limit:
                    return _line(event.start_mark)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as err:
        # libyaml's own limit (1,000 levels) is above ours: met only with a larger ``limit``.
        return _line(err.problem_mark) if "nesting depth" in str(err.problem) else None
    except yaml.YAMLError:
        return None
    return None


def _line(mark: Any) -> int:
    """A parser's mark as a line from 1 (the first where it has none)."""
    return max(1, int(getattr(mark, "line", 0)) + 1)

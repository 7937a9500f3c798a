"""Rich consoles for results: the terminal's width and colour on a terminal, plain elsewhere.

Rich decides what a terminal is and reads ``COLUMNS``, ``NO_COLOR``, ``FORCE_COLOR`` and
``TERM`` itself; this module only chooses which console a result is drawn on and how tables
are framed:

- on a terminal: its width, colour unless ``NO_COLOR``, rich's box-drawing frames;
- piped, or written to a file: no colour, ``COLUMNS`` wide (80 if unset), ASCII frames, so that
  every line's byte length is its column count and ``awk '{print length}'`` agrees.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

# rich.box.SIMPLE_HEAD drawn with '-': a rule under the header and nothing else.
ASCII_SIMPLE_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)


def stdout_console() -> Console:
    """A console on standard output; rich detects the terminal, its width and colours."""
    return Console(highlight=False)


def file_console() -> Console:
    """A console for text written to a file: plain, ``COLUMNS`` wide or 80."""
    return Console(file=io.StringIO(), color_system=None, force_terminal=False, highlight=False)


def stderr_console() -> Console:
    """Status lines and progress go to standard error, never into a result."""
    return Console(stderr=True, highlight=False)


def new_table(console: Console, title: str | None = None, *, framed: bool = True) -> Table:
    """A table framed for its console: box drawing on a terminal, ASCII elsewhere; unframed
    (no header, no rules) for label/value lists."""
    shown = None if title is None else Text(title)  # a label in a title is text, not markup
    if not framed:
        return _FoldingTable(title=shown, box=None, show_header=False, title_justify="left")
    frame = box.HEAVY_HEAD if console.is_terminal else ASCII_SIMPLE_HEAD
    return _FoldingTable(title=shown, box=frame, title_justify="left")


class _FoldingTable(Table):
    """Every cell folds when the terminal is narrow: rich's default would cut text with an
    ellipsis, and a cut number ("14…") is worse than a folded one."""

    def add_column(self, header: RenderableType = "", *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("overflow", "fold")
        super().add_column(plain(header), *args, **kwargs)

    def add_row(self, *renderables: RenderableType | None, **kwargs: Any) -> None:
        super().add_row(*(None if r is None else plain(r) for r in renderables), **kwargs)


def plain(renderable: RenderableType) -> RenderableType:
    """A string as literal text: rich would read ``[prod] llama`` or ``[/x]`` in a workload id,
    a scenario name or a cycle label as markup (dropping it, or failing on it)."""
    return Text(renderable) if isinstance(renderable, str) else renderable


def render_text(console: Console, renderables: Iterable[RenderableType]) -> str:
    """Draw the renderables on ``console`` and return the text (with colour codes if any)."""
    with console.capture() as captured:
        for renderable in renderables:
            console.print(plain(renderable))
    # rich pads every line to the full width; trailing blanks only make diffs and logs noisy.
    return "".join(line.rstrip() + "\n" for line in captured.get().splitlines())

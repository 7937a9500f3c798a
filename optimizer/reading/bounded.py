"""Reading a settings file without trusting its size: ``/dev/zero``, a FIFO that never ends or
a multi-gigabyte file passed by mistake is refused after a bounded read, not read whole."""

from __future__ import annotations

import os

MAX_SETTINGS_BYTES = 4_000_000
"""A catalog or scenario file's largest size (the packaged catalog is about 60 kB)."""


class TooLarge(Exception):
    """The file holds more than the bound (its first bytes were read, no more)."""


def read_bounded(path: str | os.PathLike[str], limit: int = MAX_SETTINGS_BYTES) -> bytes:
    """The file's bytes, read once (a pipe cannot be read twice), at most ``limit`` of them;
    :class:`TooLarge` where there are more."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(path)
    return data

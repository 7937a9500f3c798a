"""Reading a file without trusting its size or its writer: ``/dev/zero``, a multi-gigabyte file
passed by mistake, a FIFO that never ends or one nothing ever writes to is refused after a
bounded read and a bounded wait, never read whole nor waited on for ever.

A regular file is read at once. Anything else (a named pipe, a process substitution
``<(...)``, a device, standard input) is opened without blocking and read as its data comes,
as long as something comes within :data:`WAIT_SECONDS`.
"""

from __future__ import annotations

import errno
import os
import select
import stat
import time
from collections.abc import Callable
from typing import BinaryIO

MAX_SETTINGS_BYTES = 4_000_000
"""A catalog or scenario file's largest size (the packaged catalog is about 60 kB)."""

MAX_RESULT_BYTES = 200_000_000
"""A result file's largest size (``report --sweep`` and ``--risk`` read the JSON of ``sweep`` and
``risk``): the largest sweep (500 x 500 points) is about 90 MB of JSON with five accelerators
(some 350 bytes a point), a risk run's JSON about 15 MB at its most samples (100,000: it keeps a
cost per sample, not each sample's plan)."""

WAIT_SECONDS = 5.0
"""How long a pipe or device may stay silent (no byte and no end) before it is refused: a
command writing a scenario into ``<(...)`` starts within a second; a FIFO nothing writes to
would otherwise hold the command for ever."""

CHUNK_BYTES = 1 << 20
"""Bytes asked of a pipe or device at a time."""

Watch = Callable[[bytes], None]
"""Called with each chunk of a pipe or device as it is read; it may raise to stop the read
(an inventory's row count, checked as its lines come)."""


class TooLarge(Exception):
    """The file holds more than the bound (its first bytes were read, no more)."""

    def __init__(self, path: object, limit: int) -> None:
        super().__init__(path)
        self.limit = limit

    @property
    def reason(self) -> str:
        """Why it is refused, in words every reader's message shares."""
        return f"larger than {self.limit:,} bytes"


class Silent(Exception):
    """A pipe or device that gave nothing (no byte and no end) within ``seconds``."""

    def __init__(self, path: str, what: str, seconds: float) -> None:
        super().__init__(path)
        self.what = what
        self.seconds = seconds

    @property
    def reason(self) -> str:
        """Why it is refused, in words every reader's message shares."""
        return (
            f"{self.what}, not a regular file, and nothing came from it within "
            f"{self.seconds:g} seconds: is anything writing to it?"
        )


def kind_of_file(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def read_bounded(
    path: str | os.PathLike[str],
    limit: int = MAX_SETTINGS_BYTES,
    wait: float | None = WAIT_SECONDS,
    watch: Watch | None = None,
) -> bytes:
    """The file's bytes, read once (a pipe cannot be read twice), at most ``limit`` of them;
    :class:`TooLarge` where there are more, :class:`Silent` where a pipe or device gives
    nothing for ``wait`` seconds (None: waits as long as it takes), ``OSError`` where it cannot
    be read (a directory included). ``watch`` sees a pipe's or device's chunks as they come."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if stat.S_ISREG(mode):
            with os.fdopen(os.dup(fd), "rb") as handle:
                data = handle.read(limit + 1)
        else:
            data = _read_stream(fd, limit, wait, os.fspath(path), kind_of_file(mode), watch)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise TooLarge(path, limit)
    return data


def read_stream_bounded(stream: BinaryIO, limit: int, watch: Watch | None = None) -> bytes:
    """At most ``limit`` bytes of an open stream (standard input), read as they come, for as
    long as they take (a user may be typing); :class:`TooLarge` where there are more."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit and (chunk := stream.read(min(CHUNK_BYTES, limit + 1 - size))):
        chunks.append(chunk)
        size += len(chunk)
        if watch is not None:
            watch(chunk)
    if size > limit:
        raise TooLarge(getattr(stream, "name", "<stream>"), limit)
    return b"".join(chunks)


def _read_stream(
    fd: int, limit: int, wait: float | None, name: str, what: str, watch: Watch | None = None
) -> bytes:
    """Read ``fd`` (non-blocking) until its end or ``limit`` + 1 bytes, waiting at most
    ``wait`` seconds for each chunk."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        if not _readable(fd, wait):
            raise Silent(name, what, wait or 0.0)
        try:
            chunk = os.read(fd, min(CHUNK_BYTES, limit + 1 - size))
        except BlockingIOError:
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if watch is not None:
            watch(chunk)
    if size > limit:  # before the join: no second copy of what is refused
        raise TooLarge(name, limit)
    return b"".join(chunks)


def _readable(fd: int, wait: float | None) -> bool:
    """Whether ``fd`` has data or its end within ``wait`` seconds (None: waits for it). Polled:
    a FIFO nothing has ever written to stays silent, where a plain read would report its end
    at once."""
    deadline = None if wait is None else time.monotonic() + wait
    if not hasattr(select, "poll"):
        ready, _, _ = select.select([fd], [], [], wait)
        return bool(ready)
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return False
        if poller.poll(None if left is None else left * 1000):
            return True

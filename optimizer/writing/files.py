"""Write output files safely: atomically, keeping permissions, following links, never replacing
what is not a regular file.

Every file a command writes goes through here (``--output``, ``--write-model``, the CSV tables
beside a CSV plan, ``reference --write-inputs``). The rules (DESIGN.md, "Files written"):

- ``-`` is standard output.
- A regular file, or a new one, is written atomically: the bytes go to a temporary file in the
  target's own folder, are flushed to disk, and the temporary file is renamed over the target.
  A reader sees the old content or the new, never a part; on any failure the old file is intact
  and the temporary file is removed. The temporary file's name carries the writer's PID, so one
  left by a writer that was killed (SIGKILL, power loss) is removed by the next write of the
  same target once no process has that PID.
- An existing file keeps its permission bits (and, where the user may, its owner and group); a
  new file gets ``0666`` less the umask, like any file a shell redirection creates.
- A symlink is followed (to the end of a chain) and the file it points to is replaced; the link
  stays a link. A file with several hard links is staged the same way, then copied into place,
  so that every one of its names sees the new content.
- A read-only file is refused, as a shell's ``>`` refuses it.
- Anything else (a FIFO, ``/dev/stdout``, a device, a socket's path) is opened and written
  directly, never replaced: replacing ``/dev/null`` with a regular file would break the machine.

click's ``open_file(atomic=True)`` was the candidate library helper; it is not used because it
creates the temporary file beside the symlink rather than its target (a rename across file
systems fails), replaces the target even when the writer raised, and replaces FIFOs.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from placement.errors import PlacementInputError, Problem

STDOUT = "-"


@dataclass(frozen=True)
class TextParts:
    """Text given a part at a time, written as it comes: a large output (a plan's JSON at
    100,000 workloads is over 400 MB) is never whole in memory, nor held again as bytes. Only
    a staged file is written part by part; standard output and other special targets get the
    whole text at once, so that a failure while rendering never leaves a part of it there."""

    parts: Iterable[str]

    def encoded(self) -> Iterable[bytes]:
        return (part.encode("utf-8") for part in self.parts)


Content = str | bytes | TextParts
"""What an output holds: text (written as UTF-8), bytes, or text a part at a time."""


class OutputError(PlacementInputError):
    """An output path cannot be written; the message names the path and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        problem = Problem(
            f"{path}: cannot write the file ({reason})",
            file=path,
            expected=f"a writable output path ({reason})",
        )
        super().__init__([problem], title="cannot write")


def _umask() -> int:
    # os.umask can only be read by setting it; set it straight back (the CLI is single-threaded).
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


@dataclass(frozen=True)
class _Target:
    """Where the bytes for one requested path go, decided before anything is written."""

    requested: str
    real: Path  # the path after following every symlink
    existing: os.stat_result | None
    special: bool = False  # a FIFO, a device, /dev/stdout: written in place, never replaced
    descriptor: int | None = None  # for /dev/stdout and the like: the inherited descriptor


def _resolve(path: str | os.PathLike[str]) -> _Target:
    requested = os.fspath(path)
    if not requested:
        raise OutputError("''", "an empty path")
    if requested == STDOUT:
        return _Target(requested, Path(requested), None, special=True, descriptor=1)
    try:
        existing: os.stat_result | None = os.stat(requested)  # follows every link
    except FileNotFoundError:
        existing = None
    except OSError as err:
        raise OutputError(requested, _reason(err)) from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise OutputError(requested, "it is a directory; give a file name")
    descriptor = _inherited_descriptor(requested)
    if descriptor is not None or (existing is not None and not stat.S_ISREG(existing.st_mode)):
        return _Target(requested, Path(requested), existing, special=True, descriptor=descriptor)
    real = Path(os.path.realpath(requested))
    if existing is None and not real.parent.is_dir():
        raise OutputError(requested, f"no folder {str(real.parent)!r}")
    if existing is not None and not os.access(real, os.W_OK):
        # A shell's '>' refuses a read-only file; replacing it by rename would not.
        raise OutputError(requested, "the file is read-only; make it writable or choose another")
    return _Target(requested, real, existing)


_DESCRIPTOR_PATH = re.compile(r"/dev/(?P<std>stdout|stderr)|/(dev|proc/self)/fd/(?P<fd>\d+)")


def _inherited_descriptor(requested: str) -> int | None:
    """The open descriptor that /dev/stdout, /dev/stderr or /dev/fd/N names, if any.

    These are written through the descriptor the shell handed over, never reopened: reopening
    a shell's ``>> log`` redirect through /proc would truncate the log, and renaming over what
    it resolves to would detach the file from the shell.
    """
    match = _DESCRIPTOR_PATH.fullmatch(os.path.abspath(requested))
    if match is None:
        return None
    if match["std"]:
        return 1 if match["std"] == "stdout" else 2
    return int(match["fd"])


def _folder_not_writable(target: _Target, reason: str) -> OutputError:
    return OutputError(
        target.requested,
        f"{reason}: the folder {str(target.real.parent)!r} must be writable, because the new "
        "content is written beside the old file and renamed over it",
    )


_STAGED_SUFFIX = ".tmp"
_MKSTEMP_RANDOM = r"[a-z0-9_]{8}"
"""What ``tempfile.mkstemp`` puts between its prefix and suffix: eight of these characters,
never a dot, so a staged file's name tells its target and its PID apart unambiguously."""


def _is_running(pid: int) -> bool:
    """Whether a process has this PID; one we may not signal (another user's) is running."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return True


def _remove_stale_staged(real: Path) -> None:
    """Remove the temporary files that writers of ``real`` killed mid-write left beside it.

    A temporary file is removed on every failure and on Ctrl-C or SIGTERM, but not when its
    writer is killed outright (SIGKILL, power loss): without this, each such kill would leave
    a hidden file, as large as the output, in the folder for ever. Only a regular file named
    exactly as this process would stage ``real`` (``.NAME.PID.RANDOM.tmp``), under the PID of
    no running process, is removed: a writer still at work, this process's own files, other
    targets' files, symlinks and anything else are left alone. A PID reused since is taken as
    running, and the file kept. Removing is a courtesy: no error here stops the write.
    """
    pid_and_random = r"(?P<pid>[0-9]+)\." + _MKSTEMP_RANDOM
    pattern = re.compile(re.escape(f".{real.name}.") + pid_and_random + re.escape(_STAGED_SUFFIX))
    with contextlib.suppress(OSError):
        with os.scandir(real.parent) as entries:
            names = [entry.name for entry in entries]
        for name in names:
            match = pattern.fullmatch(name)
            if match is None:
                continue
            pid = int(match["pid"])
            if pid <= 0 or pid == os.getpid():  # kill(0, ...) would signal our process group
                continue
            with contextlib.suppress(OSError, OverflowError):
                path = real.parent / name
                if stat.S_ISREG(os.lstat(path).st_mode) and not _is_running(pid):
                    os.unlink(path)


def _stage(target: _Target, data: bytes | TextParts) -> str:
    """Write ``data`` to a temporary file beside the real target; return its path.

    The temporary file gets the final permissions before it is renamed, so the target is never
    visible with the wrong ones.
    """
    _remove_stale_staged(target.real)
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=f".{target.real.name}.{os.getpid()}.",
            suffix=_STAGED_SUFFIX,
            dir=target.real.parent,
        )
    except OSError as err:
        raise _folder_not_writable(target, _reason(err)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            for part in data.encoded() if isinstance(data, TextParts) else (data,):
                handle.write(part)
            handle.flush()
            if target.existing is None:
                os.fchmod(handle.fileno(), 0o666 & ~_umask())
            else:
                _keep_owner(handle.fileno(), target.existing)
                os.fchmod(handle.fileno(), stat.S_IMODE(target.existing.st_mode))
            os.fsync(handle.fileno())
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise OutputError(target.requested, _reason(err)) from None
        raise
    return tmp


def _keep_owner(fd: int, existing: os.stat_result) -> None:
    """Give the new file the old one's owner and group where allowed (root, or own group)."""
    with contextlib.suppress(OSError):
        os.fchown(fd, existing.st_uid, existing.st_gid)


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable; not every file system lets a folder be opened for this."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _hard_linked(target: _Target) -> bool:
    """A file with other names: renaming over one would leave the others with the old plan."""
    return target.existing is not None and target.existing.st_nlink > 1


def _copy_in_place(staged: str, real: Path) -> None:
    """Copy a complete staged file into a hard-linked target, keeping its inode (and so every
    name of it). Only the copy itself, not the rendering, can be interrupted half-way."""
    with open(staged, "rb") as source, open(real, "r+b") as target:
        shutil.copyfileobj(source, target)
        target.truncate()
        target.flush()
        os.fsync(target.fileno())


def _write_special(target: _Target, data: bytes) -> None:
    """Write in place: through the inherited descriptor, or opened without truncating or
    creating (a FIFO's reader or a device gets the bytes; nothing is replaced)."""
    if target.descriptor == 1:
        _write_stdout(data)
        return
    try:
        if target.descriptor is not None:
            _write_all(target.descriptor, data)
            return
        fd = os.open(target.real, os.O_WRONLY)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    except OSError as err:
        raise OutputError(target.requested, _reason(err)) from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _write_stdout(data: bytes) -> None:
    stream: BinaryIO = sys.stdout.buffer
    sys.stdout.flush()
    stream.write(data)
    stream.flush()


def write_files(files: Mapping[str, Content]) -> None:
    """Write several outputs as one step: every regular file is staged before any is replaced.

    If any path is unusable, or any staging fails, nothing is replaced. Text is written as UTF-8.
    """
    payloads = [
        (path, content.encode("utf-8") if isinstance(content, str) else content)
        for path, content in files.items()
    ]
    targets = [(_resolve(path), data) for path, data in payloads]
    staged: list[tuple[str, _Target]] = []
    try:
        for target, data in targets:
            if not target.special:
                staged.append((_stage(target, data), target))
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    for tmp, target in staged:
        try:
            if _hard_linked(target):
                _copy_in_place(tmp, target.real)
            else:
                os.replace(tmp, target.real)
        except OSError as err:
            raise OutputError(target.requested, _reason(err)) from None
        finally:
            Path(tmp).unlink(missing_ok=True)
        _fsync_folder(target.real.parent)
    for target, data in targets:
        if target.special:
            whole = b"".join(data.encoded()) if isinstance(data, TextParts) else data
            _write_special(target, whole)


def write_output(path: str | os.PathLike[str], content: Content) -> None:
    """Write one output by the rules above (``-`` for standard output)."""
    write_files({os.fspath(path): content})


def check_output_path(path: str | os.PathLike[str]) -> None:
    """Refuse an unusable output path before any work is done (a long solve, say).

    The same checks run again when the file is written; this only makes the refusal early.
    """
    target = _resolve(path)
    if not target.special and not os.access(target.real.parent, os.W_OK):
        raise _folder_not_writable(target, "Permission denied")


def is_regular_target(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a regular file (or a new one), as opposed to stdout, a FIFO or a
    device: only a regular file can have files written beside it."""
    return not _resolve(path).special

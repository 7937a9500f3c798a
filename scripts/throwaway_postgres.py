"""Start (and stop) a throwaway PostgreSQL cluster on loopback, for the history tests.

::

    eval "$(python scripts/throwaway_postgres.py start)"   # exports PLACEMENT_TEST_POSTGRES_URL
    python scripts/throwaway_postgres.py stop "$PLACEMENT_TEST_POSTGRES_DIR"

The server binaries are found on PATH or under /usr/lib/postgresql/*/bin; where there are none
and this runs as root, they are installed from the system packages (``apt-get install
postgresql``). PostgreSQL refuses to run as root, so as root the cluster belongs to the
``postgres`` user the package creates. The cluster trusts local connections, listens on
127.0.0.1 on a free port and keeps its socket and data in a temporary folder; ``stop`` removes
it. ``start`` prints a reason on stderr and exits 1 where no server can be started.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

USER = "placement"


class Unavailable(RuntimeError):
    """No PostgreSQL server can be started here (the reason is the message)."""


def _bin_dir() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(candidates[-1]).parent if candidates else None


def _install() -> None:
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise Unavailable("PostgreSQL is not installed and cannot be installed here (not root)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", "postgresql"]):
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise Unavailable(f"{' '.join(command)} failed: {done.stderr.strip()[-300:]}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_owner(command: list[str]) -> list[str]:
    """As root, run as the ``postgres`` user (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser") is None:
        raise Unavailable("running as root without runuser to drop to the postgres user")
    return ["runuser", "-u", "postgres", "--", *command]


def start() -> tuple[str, str]:
    """Start a cluster; returns (its SQLAlchemy URL, its folder)."""
    bin_dir = _bin_dir()
    if bin_dir is None:
        _install()
        bin_dir = _bin_dir()
        if bin_dir is None:
            raise Unavailable("postgresql installed, but no initdb found")
    folder = tempfile.mkdtemp(prefix="placement-pg-")
    os.chmod(folder, 0o777)  # the postgres user writes here when this runs as root
    data = os.path.join(folder, "data")
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            raise Unavailable("running as root and there is no postgres user") from None
    port = _free_port()

    def run(command: list[str]) -> None:
        done = subprocess.run(_as_owner(command), capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise Unavailable(f"{command[0]} failed: {(done.stderr or done.stdout).strip()[-400:]}")

    run([str(bin_dir / "initdb"), "-D", data, "-A", "trust", "-U", USER, "--no-sync"])
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    run(
        [
            str(bin_dir / "pg_ctl"),
            "-D",
            data,
            "-o",
            options,
            "-l",
            os.path.join(folder, "log"),
            "-w",
            "start",
        ]
    )
    # The cluster's own "postgres" database serves: createdb is not always installed.
    return f"postgresql+psycopg://{USER}@127.0.0.1:{port}/postgres", folder


def stop(folder: str) -> None:
    """Stop the cluster in ``folder`` and remove it."""
    bin_dir = _bin_dir()
    data = os.path.join(folder, "data")
    if bin_dir is not None and os.path.isdir(data):
        subprocess.run(
            _as_owner([str(bin_dir / "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]),
            capture_output=True,
            check=False,
        )
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    if len(sys.argv) >= 2 and sys.argv[1] == "start":
        try:
            url, folder = start()
        except Unavailable as err:
            print(f"no PostgreSQL for the tests: {err}", file=sys.stderr)
            sys.exit(1)
        print(f"export PLACEMENT_TEST_POSTGRES_URL='{url}'")
        print(f"export PLACEMENT_TEST_POSTGRES_DIR='{folder}'")
    elif len(sys.argv) == 3 and sys.argv[1] == "stop":
        stop(sys.argv[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()

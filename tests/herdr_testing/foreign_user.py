"""Another local user for the peer-credential tests: a squatting listener and a client.

Both run as uid 65534 (nobody) through ``subprocess.Popen(user=...)``, which needs
root; tests skip with :data:`NEEDS_ROOT` otherwise. The squatter binds the socket
path in a sticky, world-writable directory (like /tmp), answers every connection
with a convincing pong at once, and records every byte it receives, so a test can
prove that a client sent it nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from herdr import PROTOCOL_VERSION
from herdr_testing.waits import wait_until

NOBODY = 65534
# The foreign processes need an interpreter another user may run (ours may live under
# /root); they use nothing but the standard library.
PYTHON = next(
    (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.path.exists(p)),
    sys.executable,
)
NEEDS_ROOT = pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root to run a process as another uid (65534)"
)

_SQUATTER = r"""
import os, socket, sys
path, record, accepted, pong = sys.argv[1:5]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
os.chmod(path, 0o777)
srv.listen(64)
with open(record, "ab", buffering=0) as out, open(accepted, "a", buffering=1) as log:
    log.write("ready\n")
    while True:
        conn, _ = srv.accept()
        with conn:
            try:
                conn.sendall(pong.encode() + b"\n")  # the bait: a pong, before any request
                conn.settimeout(5)
                while chunk := conn.recv(65536):
                    out.write(chunk)
            except OSError:
                pass
        log.write("served\n")
"""

_CLIENT = r"""
import socket, sys
path, data = sys.argv[1], sys.argv[2].encode()
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.settimeout(10)
sock.connect(path)
if data:
    try:
        sock.sendall(data)
    except OSError:
        pass
reply = b""
try:
    while chunk := sock.recv(65536):
        reply += chunk
except OSError:
    pass
sys.stdout.buffer.write(reply)
"""


@dataclass
class Squatter:
    """A listener of uid 65534 at ``path``; ``received()`` is every byte sent to it."""

    proc: subprocess.Popen[bytes]
    dir: Path
    path: Path
    record: Path
    accepted: Path

    def received(self) -> bytes:
        return self.record.read_bytes()

    def served(self) -> int:
        """Connections it has accepted, answered and finished reading."""
        return self.accepted.read_text().count("served\n")


def sticky_dir() -> Path:
    """A fresh world-writable sticky directory, like /tmp."""
    path = Path(tempfile.mkdtemp(prefix="hsq", dir="/tmp"))
    path.chmod(0o1777)
    return path


@contextlib.contextmanager
def squatter() -> Iterator[Squatter]:
    """Run a squatting listener as uid 65534 at ``<sticky dir>/herdr.sock``."""
    directory = sticky_dir()
    path = directory / "herdr.sock"
    record = directory / "received"
    accepted = directory / "accepted"
    for file in (record, accepted):
        file.touch()
        os.chown(file, NOBODY, NOBODY)
    pong = (
        f'{{"id":"cli:ping","result":{{"type":"pong","version":"0.1.0",'
        f'"protocol":{PROTOCOL_VERSION}}}}}'
    )
    proc = subprocess.Popen(
        [PYTHON, "-I", "-c", _SQUATTER, str(path), str(record), str(accepted), pong],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        cwd="/",
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_until(lambda: "ready" in accepted.read_text(), message="squatter did not start")
        yield Squatter(proc, directory, path, record, accepted)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        for file in (path, record, accepted):
            file.unlink(missing_ok=True)
        directory.rmdir()


def run_as_nobody(path: Path, data: bytes, timeout: float = 20.0) -> tuple[int, bytes]:
    """Connect to ``path`` as uid 65534, send ``data``, return (pid, everything read)."""
    proc = subprocess.Popen(
        [PYTHON, "-I", "-c", _CLIENT, str(path), data.decode()],
        user=NOBODY,
        group=NOBODY,
        extra_groups=[],
        cwd="/",
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, "the foreign client could not connect"
    return proc.pid, out


@contextlib.contextmanager
def reachable_by_others(socket_path: Path, top: Path) -> Iterator[None]:
    """Open ``socket_path`` and every directory from ``top`` down to it to other users
    (only for a test of what the server does when they get through anyway)."""
    chain = [socket_path.parent]
    while chain[-1] != top and chain[-1] != chain[-1].parent:
        chain.append(chain[-1].parent)
    modes = {p: p.stat().st_mode & 0o7777 for p in [*chain, socket_path]}
    try:
        for directory in chain:
            directory.chmod(modes[directory] | 0o011)
        socket_path.chmod(0o666)
        yield
    finally:
        for path, mode in modes.items():
            with contextlib.suppress(FileNotFoundError):
                path.chmod(mode)

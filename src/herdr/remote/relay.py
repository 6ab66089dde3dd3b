"""A private local socket whose every connection is handed to an ssh to another machine.

``herdr --remote`` runs the TUI locally against this socket: each connection the
client opens (its attach stream, each short request) becomes the stdin and stdout of
one ``ssh ... herdr api proxy`` (the attach stream on an ssh connection of its own, the
requests on the attach's ControlMaster). ssh reads and writes the client's socket
itself, so no byte passes through this process: the relay only accepts, peeks at the
request line (without consuming it) to pick the kind of stream, starts ssh and reaps
it. When ssh ends (a lost connection), the client sees the socket close.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import subprocess
import threading
from collections.abc import Callable

from herdr.remote.ssh_stream import reap

BACKLOG = 16
MAX_FIRST_LINE = 1024 * 1024
PEEK_WAIT_S = 5.0

# (the connection's first request line, the connection's fd) -> the ssh serving it
Spawn = Callable[[bytes, int], subprocess.Popen[bytes]]


def peek_first_line(conn: socket.socket, timeout: float = PEEK_WAIT_S) -> bytes:
    """The client's request line, left unread for ssh (the client sends it at once)."""
    data = b""
    while b"\n" not in data and len(data) < MAX_FIRST_LINE:
        ready, _, _ = select.select([conn], [], [], timeout)
        if not ready:
            break
        more = conn.recv(MAX_FIRST_LINE, socket.MSG_PEEK)
        if len(more) == len(data):  # nothing new yet (a line still arriving) or EOF
            if not more:
                break
            threading.Event().wait(0.005)
        data = more
    return data


class Relay:
    """Listens at ``<dir>/relay.sock`` (mode 0600 in a 0700 dir) until :meth:`close`."""

    def __init__(self, directory: str, spawn: Spawn) -> None:
        self.path = os.path.join(directory, "relay.sock")
        self._spawn = spawn
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.path)
        os.chmod(self.path, 0o600)
        self._listener.listen(BACKLOG)
        self._lock = threading.Lock()
        self._procs: set[subprocess.Popen[bytes]] = set()
        self._closed = False
        self._thread = threading.Thread(target=self._accept, name="herdr-relay", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.setblocking(True)
                proc = self._spawn(peek_first_line(conn), conn.fileno())
        except Exception:  # ssh could not start: the client sees the socket close
            return
        with self._lock:
            if self._closed:
                proc.kill()
            self._procs.add(proc)
        try:
            proc.wait()
        finally:
            reap(proc)
            with self._lock:
                self._procs.discard(proc)

    def close(self) -> None:
        """Stop listening and end every relayed stream (their ssh processes by pid)."""
        with self._lock:
            self._closed = True
            procs = list(self._procs)
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        with contextlib.suppress(OSError):
            os.unlink(self.path)

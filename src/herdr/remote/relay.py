"""A private local socket whose every connection is relayed to another machine.

``herdr --remote`` runs the TUI locally against this socket: the client's attach
stream and each of its short requests become one ``ssh ... herdr api proxy`` stream
(multiplexed on the attach's ControlMaster), so the TUI needs no remote awareness
and draws every keystroke's echo locally from the rows it receives. One thread per
connection copies both ways in bounded chunks and passes half-closes on; when the
ssh side ends (a lost connection), the local side is closed and the TUI notices.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import socket
import subprocess
import threading
from collections.abc import Callable

from herdr.remote.ssh_stream import reap

CHUNK = 64 * 1024
BACKLOG = 16

MAX_FIRST_LINE = 1024 * 1024
# (the connection's first request line) -> (our end's fd, its ssh process)
OpenStream = Callable[[bytes], tuple[int, subprocess.Popen[bytes]]]


def read_first_line(conn: socket.socket) -> bytes:
    """The client's request line (it sends it at once), to pick the stream's kind."""
    data = bytearray()
    while b"\n" not in data and len(data) <= MAX_FIRST_LINE:
        chunk = conn.recv(CHUNK)
        if not chunk:
            break
        data += chunk
    return bytes(data)


class Relay:
    """Listens at ``<dir>/relay.sock`` (mode 0600 in a 0700 dir) until :meth:`close`."""

    def __init__(self, directory: str, open_stream: OpenStream) -> None:
        self.path = os.path.join(directory, "relay.sock")
        self._open = open_stream
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
            first = read_first_line(conn)
            fd, proc = self._open(first)
        except Exception:  # ssh could not start: the client sees EOF
            conn.close()
            return
        with self._lock:
            if self._closed:
                proc.kill()
            self._procs.add(proc)
        peer = socket.socket(fileno=fd)
        try:
            peer.sendall(first)
            pump(conn, peer)
        finally:
            conn.close()
            peer.close()
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


def pump(a: socket.socket, b: socket.socket) -> None:
    """Copy ``a`` <-> ``b`` until both directions ended (or one side failed)."""
    a.setblocking(True)
    b.setblocking(True)
    other = {a.fileno(): b, b.fileno(): a}
    own = {a.fileno(): a, b.fileno(): b}
    with selectors.DefaultSelector() as sel:
        sel.register(a, selectors.EVENT_READ)
        sel.register(b, selectors.EVENT_READ)
        open_ends = 2
        while open_ends:
            for key, _ in sel.select():
                src = own[key.fd]
                dst = other[key.fd]
                try:
                    data = src.recv(CHUNK)
                except OSError:
                    return
                if not data:
                    sel.unregister(src)
                    open_ends -= 1
                    if src is b:
                        return  # the remote side ended: close the local one at once
                    with contextlib.suppress(OSError):
                        dst.shutdown(socket.SHUT_WR)
                    continue
                try:
                    dst.sendall(data)
                except OSError:
                    return

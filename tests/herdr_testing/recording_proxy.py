"""A Unix-socket proxy in front of a real server that records what clients send.

Tests point a client (the CLI through ``HERDR_SOCKET_PATH``, the SDK through its
``socket_path``) at the proxy: every byte is forwarded both ways unchanged, so the
client talks to the real server, and each request line it wrote is kept for checking.
When the server's socket file goes away (it stopped), the proxy's goes too, so a client
waiting for the server to be gone sees it gone.
Threads only; :meth:`RecordingProxy.close` stops them and closes every socket.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from pathlib import Path
from typing import Any


class RecordingProxy:
    """Forward connections on ``path`` to ``upstream``; record client-to-server lines."""

    def __init__(self, upstream: Path, path: Path) -> None:
        self.upstream = upstream
        self.path = path
        self._sent: list[bytes] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._sockets: list[socket.socket] = []
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(path))
        self._listener.listen(64)
        self._listener.settimeout(0.1)
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def requests(self) -> list[dict[str, Any]]:
        """Every complete line clients sent so far, parsed (in arrival order per client)."""
        with self._lock:
            chunks = list(self._sent)
        found: list[dict[str, Any]] = []
        for blob in chunks:
            for line in blob.split(b"\n"):
                if line.strip():
                    found.append(json.loads(line))
        return found

    def clear(self) -> None:
        with self._lock:
            self._sent.clear()

    def close(self) -> None:
        self._closing.set()
        for thread in self._threads:
            thread.join(5)
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _accept(self) -> None:
        while not self._closing.is_set():
            if not self.upstream.exists():  # the server stopped: so does the proxy
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                self._listener.close()
                return
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                server.connect(str(self.upstream))
            except OSError:
                client.close()
                server.close()
                continue
            with self._lock:
                self._sockets += [client, server]
                index = len(self._sent)
                self._sent.append(b"")
            for source, sink, record in ((client, server, index), (server, client, None)):
                thread = threading.Thread(
                    target=self._pump, args=(source, sink, record), daemon=True
                )
                thread.start()

    def _pump(self, source: socket.socket, sink: socket.socket, record: int | None) -> None:
        """Copy ``source`` to ``sink`` until EOF, then half-close ``sink``."""
        source.settimeout(0.2)
        while not self._closing.is_set():
            try:
                data = source.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            if record is not None:
                with self._lock:
                    self._sent[record] += data
            try:
                sink.sendall(data)
            except OSError:
                break
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

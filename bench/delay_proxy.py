"""An ssh ``ProxyCommand`` that adds a fixed network delay: ``delay_proxy.py HOST PORT MS``.

Relays stdin -> TCP ``HOST:PORT`` and back, holding every chunk ``MS`` milliseconds in
each direction (so ``MS`` is half the round trip it simulates) and keeping the order.
Only the bench's own ssh connections pass through it (plain ssh and herdr alike); the
machine's loopback and network settings are never touched.
"""

from __future__ import annotations

import os
import queue
import socket
import sys
import threading
import time


def pump(read: object, write: object, delay_s: float, done: threading.Event) -> None:
    """Two threads: one reads and stamps, one writes each chunk once its time comes."""
    assert callable(read) and callable(write)
    held: queue.Queue[tuple[float, bytes]] = queue.Queue()

    def reader() -> None:
        while True:
            try:
                data = read()
            except OSError:
                data = b""
            held.put((time.monotonic() + delay_s, data))
            if not data:
                return

    def writer() -> None:
        while True:
            due, data = held.get()
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            if not data:
                done.set()
                return
            try:
                write(data)
            except OSError:
                done.set()
                return

    threading.Thread(target=reader, daemon=True).start()
    threading.Thread(target=writer, daemon=True).start()


def main() -> int:
    host, port, delay_ms = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    delay_s = delay_ms / 1000
    done = threading.Event()

    def to_stdout(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(1, view) :]

    pump(lambda: os.read(0, 65536), sock.sendall, delay_s, done)
    pump(lambda: sock.recv(65536), to_stdout, delay_s, done)
    done.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

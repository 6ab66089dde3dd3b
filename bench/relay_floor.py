"""The floor under any Python multiplexer of herdr's shape: a relay that does nothing.

``python bench/relay_floor.py SOCKET`` runs a client on this terminal and forks a
server that owns a PTY running ``/bin/sh``: keys go client → Unix socket → server →
PTY, output comes PTY → server → socket → client → terminal, with no emulator, no
composition and no framing. ``keystroke_latency.py`` times it beside tmux and herdr,
so a ratio can be read as "herdr's own work" versus "the cost of the process shape in
Python". It runs on uvloop when importable (as herdr does) and exits on ctrl+b.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import sys
import tty
from typing import Any


async def _server(path: str) -> None:
    loop = asyncio.get_running_loop()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv("/bin/sh", ["/bin/sh"])
    os.set_blocking(fd, False)
    peers: list[asyncio.Transport] = []
    done = loop.create_future()

    class Peer(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            peers.append(transport)

        def data_received(self, data: bytes) -> None:
            os.write(fd, data)

        def connection_lost(self, exc: Exception | None) -> None:
            if not done.done():
                done.set_result(None)

    def on_output() -> None:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(fd)
            if not done.done():
                done.set_result(None)
            return
        for transport in peers:
            transport.write(data)

    loop.add_reader(fd, on_output)
    server = await loop.create_unix_server(Peer, path)
    try:
        await done
    finally:
        server.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, 9)
        os.waitpid(pid, 0)


async def _client(path: str) -> None:
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    class Stream(asyncio.Protocol):
        def data_received(self, data: bytes) -> None:
            os.write(1, data)

        def connection_lost(self, exc: Exception | None) -> None:
            if not done.done():
                done.set_result(None)

    for _ in range(200):
        try:
            transport, _protocol = await loop.create_unix_connection(Stream, path)
            break
        except OSError:
            await asyncio.sleep(0.02)
    else:
        raise SystemExit("relay server did not start")
    os.set_blocking(0, False)

    def on_input() -> None:
        data = os.read(0, 65536)
        if not data or data == b"\x02":
            if not done.done():
                done.set_result(None)
            return
        transport.write(data)

    loop.add_reader(0, on_input)
    await done
    transport.close()


def _run(coro: Any) -> None:
    try:
        import uvloop
    except ImportError:
        asyncio.run(coro)
        return
    uvloop.run(coro)


def main() -> None:
    path = sys.argv[1]
    if os.fork() == 0:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for target in (0, 1, 2):
            os.dup2(null, target)
        try:
            _run(_server(path))
        finally:
            os._exit(0)
    tty.setraw(0)
    try:
        _run(_client(path))
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


if __name__ == "__main__":
    main()

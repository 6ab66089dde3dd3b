"""NDJSON over a Unix socket: one request line per connection, one answer, close.

The transport enforces the spec's bounds (first line <= 1 MiB within 5 s); a peer that
breaks them is dropped without an answer, as herdr does, and nothing it sends can raise
out of here. Held methods (subscriptions, waits) keep the connection and get told when
the peer goes away.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import SupportsIndex

from herdr.api import protocol

log = logging.getLogger("herdr.server.transport")

WRITE_TIMEOUT_S = 5.0
READ_CHUNK = 64 * 1024

LineHandler = Callable[[bytes, "Connection"], Awaitable[bytes | None]]


class PushReader(asyncio.StreamReader):
    """A stream reader that can hand later input straight to a callback.

    Normal requests read lines with ``await``. A held connection whose peer streams
    input (the TUI's keystrokes) switches to :meth:`push_to`: each chunk then reaches
    the handler inside the protocol callback, without waking a reader task — a loop
    round trip saved on every keystroke.
    """

    _on_data: Callable[[bytes], None] | None = None
    _on_end: Callable[[], None] | None = None

    def push_to(self, on_data: Callable[[bytes], None], on_end: Callable[[], None]) -> None:
        """Route input to ``on_data`` from now on (bytes already buffered first) and
        call ``on_end`` once at EOF or on a connection error."""
        self._on_data, self._on_end = on_data, on_end
        buffer: bytearray = vars(self)["_buffer"]  # StreamReader's own (not in its stubs)
        pending = bytes(buffer)  # only what followed the request line
        buffer.clear()
        if pending:
            on_data(pending)
        if self.at_eof() or self.exception() is not None:
            self._end()

    def _end(self) -> None:
        on_end, self._on_end, self._on_data = self._on_end, None, None
        if on_end is not None:
            on_end()

    def feed_data(self, data: Iterable[SupportsIndex]) -> None:
        on_data = self._on_data
        if on_data is None:
            super().feed_data(data)
        else:
            on_data(bytes(data))

    def feed_eof(self) -> None:
        super().feed_eof()
        self._end()

    def set_exception(self, exc: Exception) -> None:
        super().set_exception(exc)
        self._end()


class Connection:
    """One accepted client; knows when its peer has gone away."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.closed = False
        self._close_callbacks: list[Callable[[], None]] = []
        self._eof_task: asyncio.Task[None] | None = None

    def add_close_callback(self, callback: Callable[[], None]) -> None:
        if self.closed:
            callback()
        else:
            self._close_callbacks.append(callback)

    def _mark_closed(self) -> None:
        if self.closed:
            return
        self.closed = True
        callbacks, self._close_callbacks = self._close_callbacks, []
        for callback in callbacks:
            callback()

    def watch_eof(self) -> None:
        """Read and discard further input until EOF, then mark the connection closed."""
        if self._eof_task is None:
            self._eof_task = asyncio.get_running_loop().create_task(self._discard())

    async def _discard(self) -> None:
        try:
            while await self.reader.read(READ_CHUNK):
                pass
        except (OSError, asyncio.LimitOverrunError, ValueError):
            pass
        self._mark_closed()

    def write(self, data: bytes) -> None:
        if not self.closed and not self.writer.is_closing():
            self.writer.write(data)

    def writelines(self, lines: list[bytes]) -> None:
        if not self.closed and not self.writer.is_closing():
            self.writer.writelines(lines)

    async def drain(self) -> bool:
        """Wait until written data is handed to the kernel; False once the peer is gone."""
        try:
            await self.writer.drain()
        except (OSError, RuntimeError):
            self._mark_closed()
            return False
        return not self.closed

    async def close(self) -> None:
        """Flush (bounded by ``WRITE_TIMEOUT_S``) and close; never waits on a stuck peer."""
        if self._eof_task is not None:
            self._eof_task.cancel()
        self._mark_closed()
        transport = self.writer.transport
        if transport.is_closing():
            return
        if transport.get_write_buffer_size():
            timer = asyncio.get_running_loop().call_later(WRITE_TIMEOUT_S, transport.abort)
            try:
                await self.writer.drain()
            except (OSError, RuntimeError):
                transport.abort()
                return
            finally:
                timer.cancel()
        self.writer.close()  # the transport closes once its (now empty) buffer is sent

    def abort(self) -> None:
        self._mark_closed()
        self.writer.transport.abort()


async def read_request_line(
    reader: asyncio.StreamReader, transport: asyncio.WriteTransport
) -> bytes | None:
    """The first line, or ``None`` when the peer sent nothing usable within the bounds.

    A final line without a newline before EOF still counts (``printf '{..}' | nc -U``).
    The 5 s bound is a timer that aborts the transport (cheaper than ``wait_for``, which
    costs a task per request).
    """
    timer = asyncio.get_running_loop().call_later(protocol.FIRST_LINE_TIMEOUT_S, transport.abort)
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        line = exc.partial if not transport.is_closing() else b""
    except asyncio.LimitOverrunError:
        log.debug("request line exceeds %d bytes; dropping", protocol.MAX_REQUEST_LINE_BYTES)
        return None
    except (OSError, ValueError):
        return None
    finally:
        timer.cancel()
    if len(line) > protocol.MAX_REQUEST_LINE_BYTES + 1:
        return None
    line = line.strip()
    return line or None


class Listener:
    """The accept loop: each connection runs ``handle_line`` once and is closed."""

    def __init__(self, handle_line: LineHandler) -> None:
        self._handle_line = handle_line
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, path: Path) -> None:
        loop = asyncio.get_running_loop()

        def factory() -> asyncio.StreamReaderProtocol:
            reader = PushReader(limit=protocol.MAX_REQUEST_LINE_BYTES + 1, loop=loop)
            return asyncio.StreamReaderProtocol(reader, self._on_connect, loop=loop)

        self._server = await loop.create_unix_server(factory, path=str(path))

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        conn = Connection(reader, writer)
        try:
            line = await read_request_line(reader, writer.transport)
            if line is None:
                conn.abort()
                return
            response = await self._handle_line(line, conn)
            if response is not None:
                conn.write(response)
            await conn.close()
        except asyncio.CancelledError:
            conn.abort()
            raise
        except Exception:  # the server survives anything a client triggers
            log.exception("connection handler failed")
            conn.abort()
        finally:
            if task is not None:
                self._tasks.discard(task)

    @property
    def connection_count(self) -> int:
        return len(self._tasks)

    async def close(self) -> None:
        """Stop accepting and end every open connection."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)

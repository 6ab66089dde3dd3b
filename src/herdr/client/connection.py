"""The TUI's connections to its server: the held attach stream and short requests.

The attach stream is an :class:`asyncio.Protocol` whose complete lines go to a
callback from ``data_received``: no reader task in between, so the rows of a
keystroke's echo are applied and drawn in the callback that received them. Commands
(split, close, focus…) are public requests, each on a connection of its own.

Every connection checks the server's uid before it sends anything
(:class:`UntrustedServer`), and a connect that finds the listen backlog full is
retried for about a second (:func:`retry_busy`), as the CLI and the SDK do.
"""

from __future__ import annotations

import _socket
import asyncio
import contextlib
import json
import socket
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import msgspec

from herdr import PROTOCOL_VERSION
from herdr.api import peercred
from herdr.api.attach_messages import (
    AttachParams,
    AttachStarted,
    ClientMessage,
    Input,
    encode_line,
)

READ_LIMIT = 64 * 1024 * 1024
BUSY_RETRY_DELAYS_S = (0.005, 0.01, 0.02, 0.04, 0.08, 0.12, 0.16, 0.2, 0.2, 0.2)

_T = TypeVar("_T")


class UntrustedServer(ConnectionError):
    """The socket is served by another user (neither us nor root); nothing was sent."""


async def retry_busy(connect: Callable[[], Awaitable[_T]]) -> _T:
    """Retry a connect that found the server's listen backlog full (EAGAIN) for ~1 s,
    as the CLI does, instead of failing an attach or a command under a request flood."""
    for delay in BUSY_RETRY_DELAYS_S:
        try:
            return await connect()
        except BlockingIOError:
            await asyncio.sleep(delay)
    return await connect()


def check_server(sock: peercred.SockOpt, path: str) -> None:
    """Raise :class:`UntrustedServer` when ``sock``'s peer is another (non-root) user."""
    uid = peercred.untrusted_server_uid(sock)
    if uid is not None:
        raise UntrustedServer(f"server_untrusted: {peercred.untrusted_message(path, uid)}")


class StreamProtocol(asyncio.Protocol):
    """The attach connection: complete lines go to ``on_lines`` from ``data_received``."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.first: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.on_lines: Callable[[list[bytes]], None] | None = None
        self.on_lost: Callable[[str], None] | None = None
        self.queued: list[bytes] = []  # lines that arrived before on_lines was set
        self.lost: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        on_lines = self.on_lines
        if not buffer and on_lines is not None and data.endswith(b"\n") and self.first.done():
            on_lines(data[:-1].split(b"\n"))  # whole lines, as nearly always: no copies
            return
        buffer += data
        end = buffer.rfind(b"\n")
        if end < 0:
            if len(buffer) > READ_LIMIT:
                self._lose("attach stream line too long")
            return
        lines = bytes(buffer[:end]).split(b"\n")
        del buffer[: end + 1]
        if not self.first.done():
            self.first.set_result(lines.pop(0))
        if self.on_lines is None:
            self.queued += lines
        elif lines:
            self.on_lines(lines)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lose(str(exc) if exc else "the server closed the connection")

    def _lose(self, detail: str) -> None:
        if self.transport is not None:
            self.transport.abort()
        if not self.first.done():
            self.first.set_result(b"")
        if self.lost is None:
            self.lost = detail
            if self.on_lost is not None:
                self.on_lost(detail)


class Connection:
    """The attach stream plus short request connections for commands."""

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path
        # the launcher pinged this server a moment ago: the next attach need not again
        self.protocol_checked = False
        self.stream: StreamProtocol | None = None
        self._seq = 0
        self._input_parts: dict[str | None, tuple[bytes, bytes]] = {}
        self._input_lines: dict[tuple[str | None, bytes], bytes] = {}

    async def attach(self, params: AttachParams) -> AttachStarted:
        """Open the stream; returns the server's ``attach_started`` (raises
        ``ConnectionError`` for an error answer or a closed connection)."""
        if not self.protocol_checked:
            await self.check_protocol()
        self.protocol_checked = False  # a later attach (after a handoff) asks again
        loop = asyncio.get_running_loop()
        transport, stream = await retry_busy(
            lambda: loop.create_unix_connection(StreamProtocol, self.socket_path)
        )
        self.stream = stream
        try:
            check_server(transport.get_extra_info("socket"), self.socket_path)
        except BaseException:
            transport.abort()
            raise
        request = {"id": "tui:attach", "method": "client.attach", "params": params}
        transport.write(msgspec.json.encode(request) + b"\n")
        line = await stream.first
        if not line:
            raise ConnectionError(stream.lost or "the server closed the connection")
        doc: dict[str, Any] = json.loads(line)
        if "error" in doc:
            err = doc["error"]
            raise ConnectionError(f"{err.get('code')}: {err.get('message')}")
        return msgspec.convert(doc.get("result"), AttachStarted)

    async def adopt(self, raw: _socket.socket, first: bytes, rest: bytes) -> None:
        """Take over an attach stream opened before the loop (the launcher's first frame:
        :mod:`herdr.client.first_frame`): ``first`` is its ``attach_started`` line,
        ``rest`` what was read but not applied; they come before anything read later."""
        whole, _, tail = rest.rpartition(b"\n")

        def stream() -> StreamProtocol:
            protocol = StreamProtocol()
            protocol.first.set_result(first)
            protocol.queued = whole.split(b"\n") if whole else []
            protocol.buffer += tail
            return protocol

        sock = socket.socket(fileno=raw.detach())
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        _, self.stream = await loop.create_unix_connection(stream, sock=sock)

    async def check_protocol(self) -> None:
        """Refuse a server of another protocol (``ConnectionError`` saying what to do)."""
        envelope = await self.call("ping", {})
        result = envelope.get("result")
        protocol = result.get("protocol") if isinstance(result, dict) else None
        if protocol != PROTOCOL_VERSION:
            raise ConnectionError(
                f"protocol_mismatch: the server at {self.socket_path} speaks protocol "
                f"{protocol}, this client speaks {PROTOCOL_VERSION}; run `herdr server stop`, "
                "then start it again"
            )

    def listen(
        self, on_lines: Callable[[list[bytes]], None], on_lost: Callable[[str], None]
    ) -> None:
        """Hand every later line of the attach stream to ``on_lines`` (as it arrives)."""
        stream = self.stream
        assert stream is not None
        stream.on_lines = on_lines
        stream.on_lost = on_lost
        queued, stream.queued = stream.queued, []
        if queued:
            on_lines(queued)
        if stream.lost is not None:
            on_lost(stream.lost)

    def send(self, msg: ClientMessage) -> None:
        """One message on the attach stream (dropped once it is closing)."""
        transport = self.stream.transport if self.stream is not None else None
        if transport is not None and not transport.is_closing():
            transport.write(encode_line(msg))

    def send_input(self, pane_id: str | None, data: bytes) -> None:
        """Typed bytes for ``pane_id``: ``send(Input(...))`` with the line's constant
        parts encoded once per pane (the per-key path)."""
        transport = self.stream.transport if self.stream is not None else None
        if transport is None or transport.is_closing():
            return
        line = self._input_lines.get((pane_id, data))
        if line is not None:
            transport.write(line)
            return
        parts = self._input_parts.get(pane_id)
        if parts is None:
            head, _, tail = encode_line(Input(pane_id=pane_id, data="\x00")).rpartition(
                b'"\\u0000"'
            )
            parts = self._input_parts[pane_id] = (head, tail)
        line = b"".join((parts[0], msgspec.json.encode(data.decode("latin-1")), parts[1]))
        if len(data) == 1 and len(self._input_lines) < 4096:
            self._input_lines[pane_id, data] = line  # the keys typed one at a time
        transport.write(line)

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One public request on its own connection; returns the envelope."""
        self._seq += 1
        reader, writer = await retry_busy(
            lambda: asyncio.open_unix_connection(self.socket_path, limit=READ_LIMIT)
        )
        try:
            check_server(writer.get_extra_info("socket"), self.socket_path)
            request = {"id": f"tui:{self._seq}", "method": method, "params": params}
            writer.write(json.dumps(request).encode() + b"\n")
            await writer.drain()
            line = await reader.readline()
            envelope: dict[str, Any] = json.loads(line) if line else {}
            return envelope
        finally:
            writer.close()

    def close(self) -> None:
        stream = self.stream
        if stream is not None and stream.transport is not None:
            stream.on_lines = None
            stream.on_lost = None
            with contextlib.suppress(Exception):
                stream.transport.close()

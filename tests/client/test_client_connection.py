"""The attach stream's per-key shortcuts send and deliver what the general path does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from herdr.api.attach_messages import Input, encode_line
from herdr.client.connection import Connection, StreamProtocol


class _Transport:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        self.sent.append(data)


KEYS = {
    "letter": b"a",
    "quote": b'"',
    "backslash": b"\\",
    "control": b"\x00",
    "escape-sequence": b"\x1b[A",
    "latin-1-byte": b"\xe9",
    "utf-8-bytes": "é漢".encode(),
    "empty": b"",
    "many": b"ls -la\r",
}


@pytest.mark.parametrize("data", list(KEYS.values()), ids=list(KEYS))
@pytest.mark.parametrize("pane_id", ["w1:p1", None, 'odd"\\u0000"id'])
def test_send_input_sends_the_input_message_line(data: bytes, pane_id: str | None) -> None:
    async def scenario() -> None:
        conn = Connection("unused.sock")
        stream = conn.stream = StreamProtocol()
        transport = _Transport()
        stream.transport = transport  # type: ignore[assignment]
        for _ in range(2):  # the second time from the remembered line
            conn.send_input(pane_id, data)
        want = encode_line(Input(pane_id=pane_id, data=data.decode("latin-1")))
        assert transport.sent == [want, want]

    asyncio.run(scenario())


CHUNKS = {
    "one-line": [b'{"a":1}\n'],
    "two-lines": [b'{"a":1}\n{"b":2}\n'],
    "split-line": [b'{"a"', b":1}\n"],
    "split-after-lines": [b'{"a":1}\n{"b"', b":2}\n", b'{"c":3}\n'],
    "empty-line": [b"\n", b'{"a":1}\n'],
}


@pytest.mark.parametrize("chunks", list(CHUNKS.values()), ids=list(CHUNKS))
def test_stream_delivers_each_complete_line_once(chunks: list[bytes]) -> None:
    async def scenario() -> list[bytes]:
        stream = StreamProtocol()
        stream.data_received(b'{"first":true}\n')
        got: list[bytes] = []
        stream.on_lines = got.extend
        for chunk in chunks:
            stream.data_received(chunk)
        assert not stream.buffer
        return got

    got: Any = asyncio.run(scenario())
    assert got == b"".join(chunks).rstrip(b"\n").split(b"\n")

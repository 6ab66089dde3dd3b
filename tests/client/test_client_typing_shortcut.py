"""The typing shortcut in ``App._read_stdin`` sends what the parser and mode machine
would: the same stream lines, the same terminal output, the same mode afterwards.

Each read is replayed on two fresh clients wired to a real socket pair: one as shipped,
one with the shortcut turned off (every byte through ``InputParser`` and the
``KeyMachine``). Control keys (enter, backspace, ctrl+u…) take the shortcut too; ESC,
the prefix and UTF-8 pieces must not.
"""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest

from herdr.api.attach_messages import State, encode_line
from herdr.client.app import App
from herdr.client.connection import StreamProtocol
from herdr.client.settings import UiSettings
from herdr_testing.state_docs import one_pane_state

DOC = one_pane_state("/a")

READS: list[bytes] = [bytes([b]) for b in range(0x80)] + [
    b"ls -l\r",
    b"\x15abc\x7f\x7f\r",
    b"\x03\x04\x1a\t",
    b"a\x02",  # the prefix at the end of a read: the machine decides
    b"\x02\x02x",  # the prefix twice: a literal prefix
    "é€漢".encode(),
    b"\x1b[A",
    b"\x00\x1c\x1f",
]


def _replay(
    tmp_path: Path, reads: list[bytes], *, shortcut: bool
) -> tuple[bytes, bytes, list[str]]:
    """Stream bytes, terminal bytes, the mode after each read, and the reads the parser saw."""
    out_path = tmp_path / ("fast.out" if shortcut else "slow.out")
    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    read_fd, write_fd = os.pipe()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    modes: list[str] = []

    async def scenario() -> bytes:
        loop = asyncio.get_running_loop()
        app = App(str(tmp_path / "none.sock"), settings=UiSettings(), fd_in=read_fd, fd_out=out_fd)
        app._done = loop.create_future()
        app.cols, app.rows = 80, 24
        _, stream = await loop.create_unix_connection(StreamProtocol, sock=ours)
        app.conn.stream = stream
        if not shortcut:
            app._plain = lambda data: False  # type: ignore[method-assign]
        app._on_stream_lines([encode_line(State(state=DOC)).rstrip(b"\n")])
        for data in reads:
            os.write(write_fd, data)
            app._read_stdin()
            if app.parser.pending:
                app._flush_input()
            modes.append(app.machine.mode)
            if app.machine.mode != "terminal":  # back to typing for the next read
                app.handle_events(app.parser.feed(b"\x1b"))
                app._flush_input()
            await asyncio.sleep(0)
        assert not app._done.done(), app.exit_detail
        app.conn.close()
        await asyncio.sleep(0)
        theirs.setblocking(False)
        got = b""
        while True:
            try:
                chunk = theirs.recv(65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            got += chunk
        return got

    try:
        sent = asyncio.run(scenario())
    finally:
        for fd in (out_fd, read_fd, write_fd):
            os.close(fd)
        theirs.close()
    return sent, out_path.read_bytes(), modes


@pytest.mark.parametrize("reads", [READS[:0x40], READS[0x40:0x80], READS[0x80:]])
def test_shortcut_sends_what_the_parser_and_machine_send(
    tmp_path: Path, reads: list[bytes]
) -> None:
    fast = _replay(tmp_path, reads, shortcut=True)
    slow = _replay(tmp_path, reads, shortcut=False)
    assert fast == slow
    assert fast[0].count(b'"t":"in"') >= 1


def test_control_keys_take_the_shortcut(tmp_path: Path) -> None:
    """Enter, backspace, tab and ctrl+letters skip the parser; ESC and the prefix do not."""
    read_fd, write_fd = os.pipe()
    out_fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT, 0o600)

    async def scenario() -> None:
        app = App(str(tmp_path / "none.sock"), settings=UiSettings(), fd_in=read_fd, fd_out=out_fd)
        app._done = asyncio.get_running_loop().create_future()
        for byte in (0x0D, 0x7F, 0x09, 0x15, 0x03, 0x01, 0x00):
            assert app._plain(bytes([byte])), hex(byte)
        assert app._plain(b"ls -l\r\x15")
        for data in (b"\x1b", b"\x02", b"a\x02", "é".encode()[:1]):
            assert not app._plain(data), data

    try:
        asyncio.run(scenario())
    finally:
        for fd in (out_fd, read_fd, write_fd):
            os.close(fd)

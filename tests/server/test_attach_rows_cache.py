"""The attach row cache (`_Screen`): the rows a client one refresh behind is sent come
from the last refresh's changed rows, and equal what scanning every row's version gives,
for every version a client may hold."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from herdr.server.attach import _Screen
from herdr.server.terminals import Terminal
from herdr.terminal.emulator import Emulator

LINES = b"".join(b"row %d\r\n" % i for i in range(12))

SEQUENCES = [
    pytest.param([b"$ ", b"a", b"b", b"\r\n$ ", b"c"], id="typing"),
    pytest.param([b"a", b"\x1b[3;1Hx", b"\x1b[1;1Hy\x1b[5;1Hz", b"\x1b[2J"], id="scattered"),
    pytest.param([LINES, b"more\r\n", b"\x1b[31mred\x1b[0m"], id="scrolling"),
    pytest.param([b"a", b"\ra", b"b"], id="identical-rewrite"),
    pytest.param([b"x", b"\x1b[?1049h", b"full", b"\x1b[?1049l"], id="alt-screen"),
]


def _scan(screen: _Screen, ver: int) -> list[tuple[int, str]]:
    return [(y, r) for y, r in enumerate(screen.rows) if screen.vers[y] > ver]


@pytest.mark.parametrize("chunks", SEQUENCES)
def test_rows_since_equals_a_scan_for_every_version(chunks: list[bytes]) -> None:
    term = Terminal("term_t", Emulator(20, 6))
    screen = _Screen()
    screen.refresh(term)
    for chunk in chunks:
        term.emulator.feed(chunk)
        screen.refresh(term)
        for ver in range(-1, screen.ver + 1):
            assert screen.rows_since(ver) == _scan(screen, ver), (chunk, ver)
        assert screen.rows == term.emulator.ansi_rows()


def test_a_scrolled_viewport_and_back_keep_rows_since_exact() -> None:
    term = Terminal("term_t", Emulator(20, 6))
    em = term.emulator
    screen = _Screen()
    em.feed(LINES)
    screen.refresh(term)
    moves: list[Callable[[], None]] = [
        lambda: em.scroll_viewport(-3),
        lambda: em.feed(b"new\r\n"),
        em.scroll_to_bottom,
    ]
    for move in moves:
        move()
        screen.invalidate()
        screen.refresh(term)
        for ver in range(-1, screen.ver + 1):
            assert screen.rows_since(ver) == _scan(screen, ver)
    assert screen.offset == 0 and screen.rows == em.ansi_rows()


def test_meta_carries_what_a_rows_message_carries_besides_rows() -> None:
    term = Terminal("term_t", Emulator(20, 6))
    screen = _Screen()
    term.emulator.feed(b"ab\x1b[?1000h")
    screen.refresh(term)
    assert screen.meta == ((20, 6), (2, 0), 1000, False, 0, 0, 0, 6, False)
    term.emulator.feed(b"\x1b[?25l")
    screen.refresh(term)
    assert screen.meta[1] is None  # a hidden cursor

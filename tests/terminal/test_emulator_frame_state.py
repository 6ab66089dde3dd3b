"""The emulator's per-frame reads: one call for cursor and scrollbar, the cached scroll
offset while the viewport follows the bottom, and styled rows from the fixed formatter
options. Each is checked against the library's own separate answers."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from herdr.terminal.emulator import Emulator, EmulatorError, lib

Step = Callable[[Emulator], object]


def _both(scroll: Callable[[int], None], rows: int, then: Callable[[], object]) -> None:
    scroll(rows)
    then()


LINES = b"".join(b"line %d\r\n" % i for i in range(40))

STEPS: list[tuple[str, Step]] = [
    ("fill", lambda e: e.feed(LINES)),
    ("up-3", lambda e: e.scroll_viewport(-3)),
    ("output-while-up", lambda e: e.feed(b"more\r\nmore\r\n")),
    ("down-2", lambda e: e.scroll_viewport(2)),
    ("down-past-bottom", lambda e: e.scroll_viewport(100)),
    ("output", lambda e: e.feed(b"x\r\n")),
    ("to-offset-5", lambda e: e.scroll_to_offset(5)),
    ("to-offset-0", lambda e: e.scroll_to_offset(0)),
    ("output-at-bottom", lambda e: e.feed(b"y\r\n" * 3)),
    ("up-then-bottom", lambda e: _both(e.scroll_viewport, -4, e.scroll_to_bottom)),
    ("resize", lambda e: e.resize(12, 7)),
    ("output-after-resize", lambda e: e.feed(b"z\r\n" * 9)),
    ("alt-screen", lambda e: e.feed(b"\x1b[?1049h\x1b[5;3Hfull")),
    ("alt-output", lambda e: e.feed(b"q\r\n" * 12)),
    ("alt-leave", lambda e: e.feed(b"\x1b[?1049l")),
    ("up-then-clear", lambda e: _both(e.scroll_viewport, -2, lambda: e.feed(b"\x1b[3J"))),
    ("output-after-clear", lambda e: e.feed(b"w\r\n" * 3)),
    ("hide-cursor", lambda e: e.feed(b"\x1b[?25l")),
    ("move-hidden-cursor", lambda e: e.feed(b"\x1b[2;4H")),
    ("show-cursor", lambda e: e.feed(b"\x1b[?25h")),
    ("clear-action", lambda e: e.clear_screen_and_history()),
    ("up-1", lambda e: e.scroll_viewport(-1)),
]


def _library(e: Emulator) -> tuple[int, int, tuple[int, int] | None]:
    """The same three answers read the slow way, one library call each."""
    bar = e._get_struct(lib.GHOSTTY_TERMINAL_DATA_SCROLLBAR, e._scrollbar)
    offset = max(0, int(bar.total) - int(bar.offset) - int(bar.len))
    return offset, e.total_rows, e.cursor if e.cursor_visible else None


def test_frame_state_and_cached_offset_match_the_library_after_every_step() -> None:
    e = Emulator(20, 5)
    assert e.frame_state() == _library(e)
    for name, step in STEPS:
        step(e)
        expected = _library(e)
        assert e.frame_state() == expected, name
        assert e.scroll_offset == expected[0], name
        assert e.scroll_state[0] == expected[0], name


@pytest.mark.parametrize(
    "output",
    [
        pytest.param(b"", id="blank"),
        pytest.param(b"$ echo hi", id="prompt"),
        pytest.param(b"\x1b[1;31mred\x1b[0m plain \x1b[44mblue", id="styles"),
        pytest.param(b"\x1b[38;2;1;2;3mrgb\r\n\x1b[4munder\r\nline", id="carried-over-lines"),
        pytest.param("日本語 ✓ wide".encode(), id="wide"),
        pytest.param(b"\x1b]8;;https://x.test\x07link\x1b]8;;\x07 after", id="hyperlink"),
        pytest.param(b"x" * 50, id="wrapped"),
    ],
)
def test_styled_rows_equal_the_general_formatter_output(output: bytes) -> None:
    """``ansi_rows`` runs the formatter with options set once; it reads exactly what the
    general ``_format`` (options set per call, no pen) reads."""
    e = Emulator(16, 4)
    e.feed(output)
    text = e._format(
        0, 3, lib.GHOSTTY_POINT_TAG_ACTIVE, ansi=True, unwrap=False, trim=False, pen=False
    )
    assert e.ansi_rows() == _rows_of(text, 4)
    for first in range(4):
        assert e.ansi_rows(first, first) == _rows_of(text, 4)[first : first + 1]


def test_a_selection_read_between_row_reads_leaves_them_alone() -> None:
    """Plain selection reads set the shared formatter options; row reads do not use them."""
    e = Emulator(16, 4)
    e.feed(b"\x1b[31mred\x1b[0m\r\nplain")
    before = e.ansi_rows()
    assert e.selection_text((0, 0), (1, 4)) == "red\nplain"
    assert e.ansi_rows() == before


def _rows_of(text: str, count: int) -> list[str]:
    if text.endswith("\x1b[0m"):
        text = text[: -len("\x1b[0m")]
    rows = [
        r + "\x1b[0m" if "\x1b[" in r and not r.endswith("\x1b[0m") else r
        for r in text.split("\r\n")
    ]
    return (rows + [""] * count)[:count]


CHANGES = [
    pytest.param(b"a", id="key"),
    pytest.param(b"\r\nline\r\nline", id="few-lines"),
    pytest.param(b"\r\n".join(b"scroll %d" % i for i in range(12)), id="scrolling"),
    pytest.param(b"\x1b[2J", id="clear"),
    pytest.param(b"\x1b[?1049h\x1b[2;2Halt", id="screen-switch"),
    pytest.param(b"\x1b[31m", id="style-only"),
    pytest.param(b"\x1b[1;1Hx", id="identical-rewrite"),
]


@pytest.mark.parametrize("chunk", CHANGES)
def test_changed_rows_are_exactly_the_rows_whose_text_changed(chunk: bytes) -> None:
    """Whether the library says some rows or all rows are dirty, what is handed out is
    every row that reads differently now, and nothing else."""
    e = Emulator(16, 6)
    e.feed(b"x\r\n\x1b[32mgreen\x1b[0m")
    e.take_changed_rows()
    before = e.ansi_rows()
    e.feed(chunk)
    after = e.ansi_rows()
    assert e.take_changed_rows() == {y: r for y, r in enumerate(after) if r != before[y]}
    assert e.take_changed_rows() == {}


def test_a_failing_library_call_still_raises() -> None:
    """The hot reads build their error message only on failure; a failure still raises."""
    e = Emulator(10, 3)
    with pytest.raises(EmulatorError, match="grid_ref 0,99 failed"):
        e._grid_ref(0, 99, lib.GHOSTTY_POINT_TAG_ACTIVE)

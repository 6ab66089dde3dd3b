"""The emulator's OSC 8 lookup and its clear (screen + scrollback, prompt row kept)."""

from __future__ import annotations

import pytest

from herdr.terminal.emulator import Emulator

OSC8 = b"ab \x1b]8;;https://x.test/a\x1b\\LINK\x1b]8;;\x1b\\ z"


@pytest.mark.parametrize(
    ("col", "row", "uri"),
    [
        (3, 0, "https://x.test/a"),
        (6, 0, "https://x.test/a"),
        (2, 0, None),
        (7, 0, None),
        (0, 1, None),
        (40, 0, None),
        (-1, 0, None),
        (0, 5, None),
    ],
    ids=[
        "first-cell",
        "last-cell",
        "before",
        "after",
        "other-row",
        "col-past-edge",
        "neg",
        "row-past",
    ],
)
def test_hyperlink_at(col: int, row: int, uri: str | None) -> None:
    emulator = Emulator(40, 5)
    emulator.feed(OSC8)
    assert emulator.hyperlink_at(col, row) == uri


def test_hyperlink_follows_the_viewport_when_scrolled() -> None:
    emulator = Emulator(40, 3)
    emulator.feed(b"\x1b]8;;https://old.test/\x1b\\OLD\x1b]8;;\x1b\\\r\n" + b"x\r\n" * 5)
    assert emulator.hyperlink_at(0, 0) is None
    emulator.scroll_viewport(-100)
    assert emulator.hyperlink_at(0, 0) == "https://old.test/"


def test_clear_keeps_the_cursor_row_and_forgets_the_rest() -> None:
    emulator = Emulator(20, 5, scrollback_bytes=1 << 20)
    emulator.feed(b"".join(b"line%d\r\n" % i for i in range(12)) + b"$ ")
    assert emulator.scrollback_rows > 0
    revision = emulator.revision
    assert emulator.clear_screen_and_history()
    assert emulator.scrollback_rows == 0
    assert emulator.cursor == (2, 0)
    assert emulator.screen_text(0, 100) == "$"
    assert emulator.revision > revision
    emulator.feed(b"echo hi\r\nhi\r\n$ ")
    assert emulator.screen_text(0, 100) == "$ echo hi\nhi\n$"


def test_clear_refuses_the_alternate_screen() -> None:
    emulator = Emulator(20, 5)
    emulator.feed(b"keep\r\n\x1b[?1049hfull screen")
    assert not emulator.clear_screen_and_history()
    assert "full screen" in emulator.active_text()


def test_row_wraps_marks_soft_wrapped_rows_only() -> None:
    emulator = Emulator(10, 4)
    emulator.feed(b"https://wrap.test/x\r\nshort\r\n")
    assert [emulator.row_wraps(r) for r in range(4)] == [True, False, False, False]
    assert emulator.row_wraps(-1) is False and emulator.row_wraps(4) is False


def test_an_oversized_osc8_uri_is_no_link() -> None:
    """libghostty-vt bounds an OSC body; a huge printed URI must not become a link."""
    emulator = Emulator(40, 3)
    emulator.feed(b"\x1b]8;;https://big.test/" + b"a" * 100_000 + b"\x1b\\BIG\x1b]8;;\x1b\\")
    assert emulator.hyperlink_at(0, 0) is None


@pytest.mark.parametrize(
    ("printed", "uri"),
    [
        (b"\x1b]8;id=a1;https://id.test/\x1b\\X\x1b]8;;\x1b\\", "https://id.test/"),
        (b"\x1b]8;;https://bel.test/\x07X\x1b]8;;\x07", "https://bel.test/"),
        (b"\x1b]8;;javascript:alert(1)\x1b\\X\x1b]8;;\x1b\\", "javascript:alert(1)"),
    ],
    ids=["with-id-param", "bel-terminated", "any-scheme-is-reported"],
)
def test_osc8_forms(printed: bytes, uri: str) -> None:
    emulator = Emulator(20, 2)
    emulator.feed(printed)
    assert emulator.hyperlink_at(0, 0) == uri

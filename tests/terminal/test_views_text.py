"""Text post-processing of the read sources (detection-spec §3.1, herdr-spec §3.3)."""

from __future__ import annotations

import pytest

from herdr.terminal.emulator import Emulator
from herdr.terminal.views import (
    blank_kitty_placeholders,
    clean_row,
    detection_text,
    drop_trailing_blank_rows,
    last_ansi_lines,
    recent,
    recent_unwrapped,
    rows_to_text,
    split_plain,
)


@pytest.mark.parametrize(
    ("rows", "lines", "expected"),
    [
        pytest.param([], None, "", id="empty"),
        pytest.param(["", "  ", "\u3000"], None, "", id="all-blank"),
        pytest.param(["a", "b"], None, "a\nb\n", id="final-newline"),
        pytest.param(["a  ", "b\t", ""], None, "a\nb\n", id="trailing-ws-and-blank-rows"),
        pytest.param(["", "a", "", "b", "", ""], None, "\na\n\nb\n", id="inner-blanks-kept"),
        pytest.param(["a\u00a0", "b\u2003"], None, "a\nb\n", id="unicode-whitespace"),
        pytest.param(["x\x1c"], None, "x\x1c\n", id="not-python-strip"),
        pytest.param(["1", "2", "3", ""], 2, "2\n3\n", id="last-lines-after-trim"),
        pytest.param(["1", "2"], 0, "", id="zero-lines"),
        pytest.param(["  lead"], None, "  lead\n", id="leading-space-kept"),
    ],
)
def test_rows_to_text(rows: list[str], lines: int | None, expected: str) -> None:
    assert rows_to_text(rows, lines) == expected


def test_detection_text_never_contains_cr() -> None:
    assert "\r" not in rows_to_text(["a\r", "b"])  # \r is Unicode White_Space at row end


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("plain", "plain"),
        ("a\U0010eeee\u0305\u030db", "a b"),
        ("\U0010eeee\U0010eeee\u0305x", "  x"),
        ("é\u0301", "é\u0301"),
    ],
)
def test_blank_kitty_placeholders(row: str, expected: str) -> None:
    assert blank_kitty_placeholders(row) == expected


def test_clean_row() -> None:
    assert clean_row("ab \U0010eeee\u0305 ") == "ab"


@pytest.mark.parametrize(
    ("rows", "expected"),
    [([], []), (["a", " ", ""], ["a"]), (["", "a"], ["", "a"])],
)
def test_drop_trailing_blank_rows(rows: list[str], expected: list[str]) -> None:
    assert drop_trailing_blank_rows(rows) == expected


@pytest.mark.parametrize(("text", "expected"), [("", []), ("a", ["a"]), ("a\n\nb", ["a", "", "b"])])
def test_split_plain(text: str, expected: list[str]) -> None:
    assert split_plain(text) == expected


@pytest.mark.parametrize(
    ("text", "lines", "expected"),
    [("a\r\nb\r\nc", 2, "b\r\nc"), ("a", 5, "a"), ("a\r\nb", 0, "")],
)
def test_last_ansi_lines(text: str, lines: int, expected: str) -> None:
    assert last_ansi_lines(text, lines) == expected


# -- ``recent`` over a real emulator: the blank screen below the cursor ------------------


def _emulator_with(text: str, cols: int = 40, rows: int = 10) -> Emulator:
    emulator = Emulator(cols, rows)
    emulator.feed(text.encode())
    return emulator


def test_recent_does_not_count_blank_rows_below_the_cursor() -> None:
    """herdr-spec §3.3: ``--lines 3`` on a mostly empty screen is the last 3 text rows."""
    emulator = _emulator_with("one\r\ntwo\r\n\r\nthree\r\nfour\r\n")
    assert recent(emulator, 3) == "\nthree\nfour\n"  # inner blank rows still count
    assert recent(emulator, 2) == "three\nfour\n"
    assert recent(emulator, 1) == "four\n"
    assert recent(emulator, 80) == "one\ntwo\n\nthree\nfour\n"
    assert recent_unwrapped(emulator, 2) == "three\nfour\n"
    assert "four" in recent(emulator, 1, ansi=True)
    assert "three" not in recent(emulator, 1, ansi=True)


def test_recent_sees_text_below_a_cursor_moved_up() -> None:
    emulator = _emulator_with("top\r\nmiddle\r\n\r\n\r\nbottom\x1b[1;1H")  # full-screen style
    assert emulator.cursor == (0, 0)
    assert recent(emulator, 1) == "bottom\n"
    assert recent(emulator, 4) == "middle\n\n\nbottom\n"


def test_recent_reaches_into_scrollback_past_a_blank_screen() -> None:
    lines = "".join(f"line{i}\r\n" for i in range(30)) + "\r\n" * 25  # text scrolled off
    emulator = _emulator_with(lines)
    assert emulator.total_rows > emulator.rows
    assert recent(emulator, 2) == "line28\nline29\n"


def test_recent_of_an_empty_screen_is_empty() -> None:
    emulator = _emulator_with("")
    assert recent(emulator, 3) == ""
    assert recent(emulator, 3, ansi=True) == ""


def test_detection_text_keeps_the_bottom_of_the_buffer() -> None:
    """Detection still looks at the screen's own rows, not text scrolled off above it."""
    emulator = _emulator_with("".join(f"line{i}\r\n" for i in range(30)) + "\r\n" * 25)
    assert detection_text(emulator) == ""

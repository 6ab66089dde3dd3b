"""Pure text post-processing of the read sources (detection-spec §3.1)."""

from __future__ import annotations

import pytest

from herdr.terminal.views import (
    blank_kitty_placeholders,
    clean_row,
    drop_trailing_blank_rows,
    last_ansi_lines,
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

"""The emulator's copy-mode reads, fed byte strings: rows with their soft-wrap flags,
a selection's text between two cells, and setting the viewport's scroll offset."""

from __future__ import annotations

import pytest

from herdr.terminal.emulator import Emulator


def fed(data: bytes, cols: int = 10, rows: int = 4) -> Emulator:
    em = Emulator(cols, rows)
    em.feed(data)
    return em


def test_screen_rows_carry_the_soft_wrap_flag() -> None:
    em = fed("a界b\r\n0123456789abc\r\n012345678界z\r\n\r\n".encode())
    assert em.screen_rows(0, 99) == [
        ("a界b", False),
        ("0123456789", True),
        ("abc", False),
        ("012345678", True),  # the wide glyph did not fit: the last cell is its spacer
        ("界z", False),
        ("", False),
        ("", False),
    ]
    assert em.screen_rows(1, 2) == [("0123456789", True), ("abc", False)]
    assert em.screen_rows(50, 60) == []


@pytest.mark.parametrize(
    ("start", "end", "text"),
    [
        ((0, 0), (0, 1), "a界"),
        ((0, 2), (0, 0), "a界"),  # reading order whichever end comes first
        ((0, 3), (1, 4), "b\n01234"),
        ((1, 8), (2, 9), "89abc"),  # a soft wrap is joined, the row's blanks trimmed
        ((2, 0), (2, 500), "abc"),  # a column past the width is the row's last cell
    ],
    ids=["wide", "reversed", "lines", "wrap-joined", "past-width"],
)
def test_selection_text(start: tuple[int, int], end: tuple[int, int], text: str) -> None:
    em = fed("a界b\r\n0123456789abc\r\n".encode())
    assert em.selection_text(start, end) == text


def test_scroll_to_offset_clamps_and_reports_a_move() -> None:
    em = fed(b"".join(b"%d\r\n" % i for i in range(50)))
    _, most, rows = em.scroll_state
    assert most > 0 and rows == 4
    assert em.scroll_to_offset(3) is True
    assert em.scroll_state == (3, most, 4)
    assert em.scroll_to_offset(3) is False  # already there
    assert em.scroll_to_offset(10**12) is True
    assert em.scroll_offset == most
    assert em.viewport_text().split("\n")[0] == "0"
    assert em.scroll_to_offset(0) is True
    assert em.scroll_offset == 0

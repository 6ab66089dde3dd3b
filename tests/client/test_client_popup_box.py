"""The plugin popup over the layout (pure): a titled bordered box at the server's rect,
offset by the pane area, the popup's rows inside, the cursor in it; keys routed."""

from __future__ import annotations

import pytest

from herdr.client.ansi import strip_ansi
from herdr.client.mirror import PaneMirror
from herdr.client.popup_box import PopupShown, inner_size, key_route, overlay, paste_part
from herdr.client.view import Frame
from herdr.runtime.layout import Rect

COLS, HEIGHT = 40, 12
LAYOUT = tuple(chr(ord("a") + y) * COLS for y in range(HEIGHT))
PANE_AREA = Rect(10, 1, 30, 11)  # beside a 10-column sidebar, under a 1-row tab bar


def _frame(area: Rect = PANE_AREA) -> Frame:
    return Frame(cols=COLS, rows=LAYOUT, cursor=(0, 0), pane_area=area)


def test_the_box_is_drawn_at_its_rect_inside_the_pane_area() -> None:
    popup = PopupShown("popup_1", "Pick", (5, 2, 12, 5))
    mirror = PaneMirror(rows=("hello", "world", "third"), cursor=(2, 1), size=(10, 3))
    out = overlay(_frame(), popup, mirror, "cyan")
    text = [strip_ansi(row) for row in out.rows]
    assert all(len(row) == COLS for row in text)
    # pane area starts at (10, 1): the box's top-left corner is at (15, 3)
    assert text[3][15:27] == "╭ Pick ────╮"
    assert text[4][15:27] == "│hello     │"
    assert text[5][15:27] == "│world     │"
    assert text[6][15:27] == "│third     │"
    assert text[7][15:27] == "╰──────────╯"
    assert out.cursor == (15 + 1 + 2, 3 + 1 + 1)
    # everything outside the box is the layout, untouched
    for y, row in enumerate(text):
        outside = row[:15] + row[27:] if 3 <= y <= 7 else row
        assert outside == (LAYOUT[y][:15] + LAYOUT[y][27:] if 3 <= y <= 7 else LAYOUT[y])


def test_a_long_title_is_cut_and_a_box_without_rows_is_blank() -> None:
    popup = PopupShown("popup_1", "A very long popup title indeed", (0, 0, 10, 3))
    out = overlay(_frame(), popup, None, "cyan")
    text = [strip_ansi(row) for row in out.rows]
    assert text[1][10:20].startswith("╭ ") and text[1][19] == "╮"
    assert text[2][10:20] == "│        │"
    assert out.cursor is None


@pytest.mark.parametrize(
    "rect",
    [(0, 0, 2, 5), (0, 0, 10, 2), (-1, 0, 10, 5)],
    ids=["too-narrow", "too-short", "off-screen"],
)
def test_a_box_that_cannot_be_drawn_leaves_the_frame(rect: tuple[int, int, int, int]) -> None:
    frame = _frame(Rect(0, 0, COLS, HEIGHT))
    assert overlay(frame, PopupShown("p", "t", rect), None, "cyan") is frame


def test_a_box_past_the_frame_is_cut_to_it() -> None:
    popup = PopupShown("p", "t", (30, 8, 20, 10))
    out = overlay(_frame(Rect(0, 0, COLS, HEIGHT)), popup, None, "cyan")
    text = [strip_ansi(row) for row in out.rows]
    assert text[8][30] == "╭" and text[8][39] == "╮" and text[11][30] == "╰"


def test_inner_size_is_inside_the_border() -> None:
    assert inner_size(PopupShown("p", "t", (0, 0, 12, 5))) == (10, 3)


@pytest.mark.parametrize(
    ("data", "route"),
    [
        (b"\x1b", "close"),
        (b"\x1b[A", "popup"),
        (b"abc", "popup"),
        (b"\r", "popup"),
        (b"\x1b[I", "host"),
        (b"\x1b[O", "host"),
        (b"\x1b[<0;3;4M", "drop"),
        (b"\x1b[M !!", "drop"),
    ],
    ids=["esc", "arrow", "text", "enter", "focus-in", "focus-out", "sgr-mouse", "x10-mouse"],
)
def test_key_routes(data: bytes, route: str) -> None:
    assert key_route(data) == route


@pytest.mark.parametrize(
    ("reads", "expected"),
    [
        ([b"abc"], [(None, False)]),
        ([b"\x1b[200~hi there\x1b[201~"], [(b"hi there", False)]),
        (
            [b"\x1b[200~first ", b"middle ", b"last\x1b[201~", b"x"],
            [(b"first ", True), (b"middle ", True), (b"last", False), (None, False)],
        ),
        ([b"\x1b[200~\x1b[201~"], [(b"", False)]),
    ],
    ids=["not-a-paste", "one-read", "several-reads", "empty"],
)
def test_paste_parts(reads: list[bytes], expected: list[tuple[bytes | None, bool]]) -> None:
    pasting = False
    got = []
    for data in reads:
        body, pasting = paste_part(data, pasting)
        got.append((body, pasting))
    assert got == expected

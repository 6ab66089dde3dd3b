"""Mouse selection state, words under the pointer, drawing (pure)."""

from __future__ import annotations

import pytest

from herdr.client import copymode as cm
from herdr.client import mouse_select as ms
from herdr.client.ansi import strip_ansi


@pytest.mark.parametrize(
    ("row", "col", "span"),
    [
        ("echo hello world", 6, (5, 9)),
        ("echo hello world", 4, None),  # a blank
        ("see /tmp/a-b.txt now", 7, (4, 15)),  # a path is one word
        ("x == y", 3, (2, 3)),  # a run of punctuation
        ("\x1b[31mred\x1b[0m text", 1, (0, 2)),  # styles do not count
        ("日本語 x", 3, (0, 5)),  # the right half of a wide character
        ("short", 40, None),
    ],
    ids=["word", "blank", "path", "punct", "styled", "wide", "past-the-end"],
)
def test_word_at(row: str, col: int, span: tuple[int, int] | None) -> None:
    assert ms.word_at(row, col) == span


@pytest.mark.parametrize(
    ("size", "scroll", "top"),
    [((80, 24), (0, 24), 0), ((80, 24), (0, 100), 76), ((80, 24), (10, 100), 66)],
    ids=["no-history", "bottom", "scrolled"],
)
def test_top_row(size: tuple[int, int], scroll: tuple[int, int], top: int) -> None:
    assert ms.top_row(size, scroll) == top


def test_a_backwards_drag_is_normalised_and_painted() -> None:
    sel = ms.drag(ms.start("p1", (11, 4)), (10, 2))
    assert sel.normalised() == cm.Selection(10, 2, 11, 4)
    painted = ms.paint(("abcdef", "ghijkl", "mnop"), 10, 6, sel)
    assert painted[0].startswith("ab" + cm.SELECT_SGR)
    assert painted[1].startswith(cm.SELECT_SGR + "ghijk")
    assert painted[2] == "mnop"
    assert [strip_ansi(r).rstrip() for r in painted] == ["abcdef", "ghijkl", "mnop"]


@pytest.mark.parametrize(
    ("pane_id", "before", "after", "cleared"),
    [("p1", 76, 77, True), ("p1", 76, 76, False), ("p2", 76, 77, False)],
    ids=["its-pane-scrolled", "its-pane-redrawn-in-place", "another-pane-scrolled"],
)
def test_scrolling_its_pane_clears_the_selection(
    pane_id: str, before: int, after: int, cleared: bool
) -> None:
    sel = ms.MouseSelection("p1", (80, 0), (80, 4), done=True)
    assert ms.cleared_by_rows(sel, pane_id, before, after) is cleared
    assert ms.cleared_by_rows(None, pane_id, before, after) is False


@pytest.mark.parametrize(
    ("pane_id", "cleared"),
    [("p1", True), ("p2", False), (None, False)],
    ids=["its", "other", "none"],
)
def test_typing_into_its_pane_clears_the_selection(pane_id: str | None, cleared: bool) -> None:
    sel = ms.MouseSelection("p1", (3, 0), (3, 4), done=True)
    assert ms.cleared_by_input(sel, pane_id) is cleared

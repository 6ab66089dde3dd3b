"""Selecting text with the mouse in a pane (drag, double-click a word) (PURE).

Points are absolute ``(row, col)`` like copy mode's, so a selection stays on its text
while output scrolls the pane; the server reads the text (``pane.selection.read``)
over the whole scrollback. This module keeps the state, finds a word's span and draws
the selection in reverse video.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct
from msgspec.structs import replace

from herdr.client import copymode as cm
from herdr.client.ansi import strip_ansi

DOUBLE_CLICK_S = 0.4  # a second press on the same cell within this is a double click

Point = tuple[int, int]


class MouseSelection(Struct, frozen=True):
    pane_id: str
    anchor: Point
    cursor: Point
    done: bool = False  # the button was released (the selection stays shown)

    @property
    def empty(self) -> bool:
        return self.anchor == self.cursor and not self.done

    def normalised(self) -> cm.Selection:
        first, last = sorted((self.anchor, self.cursor))
        return cm.Selection(first[0], first[1], last[0], last[1])


def top_row(size: tuple[int, int], scroll: tuple[int, int]) -> int:
    """The absolute row shown on the pane's first row (from a rows message)."""
    height = max(1, size[1])
    offset, total = scroll
    return max(0, max(total, height) - height - offset)


def start(pane_id: str, point: Point) -> MouseSelection:
    return MouseSelection(pane_id, point, point)


def drag(sel: MouseSelection, point: Point) -> MouseSelection:
    return replace(sel, cursor=point)


def word_at(row: str, col: int) -> tuple[int, int] | None:
    """Cells ``[first, last]`` of the word under ``col`` in a styled row (None on a
    blank). Letters, digits and ``_``, or a run of the same punctuation, make a word."""
    cells = cm.row_cells(strip_ansi(row))
    if not 0 <= col < len(cells):
        return None
    while col > 0 and cells[col] == "":
        col -= 1  # the right half of a wide character
    kind = _kind(cells[col])
    if kind == 0:
        return None
    first = col
    while first > 0 and (cells[first - 1] == "" or _kind(cells[first - 1]) == kind):
        first -= 1
    last = col
    while last + 1 < len(cells) and (cells[last + 1] == "" or _kind(cells[last + 1]) == kind):
        last += 1
    return first, last


def _kind(cell: str) -> int:
    if cell == "" or cell.isspace():
        return 0
    return 1 if cell.isalnum() or cell in "_-./~:@" else 2


def cleared_by_input(sel: MouseSelection | None, pane_id: str | None) -> bool:
    """Typing or pasting into the selection's pane clears it (as in tmux)."""
    return sel is not None and sel.pane_id == pane_id


def cleared_by_rows(
    sel: MouseSelection | None, pane_id: str, top_before: int, top_after: int
) -> bool:
    """The selection's pane scrolled (its first row shows another absolute row): the
    highlight would no longer mark what was copied, so it goes."""
    return sel is not None and sel.pane_id == pane_id and top_before != top_after


def paint(rows: Sequence[str], top: int, width: int, sel: MouseSelection) -> tuple[str, ...]:
    """The pane's rows with ``sel`` in reverse video."""
    out = list(rows)
    span = sel.normalised()
    for y in range(len(out)):
        cells = span.span(top + y, width)
        if cells is not None:
            out[y] = cm.restyle(out[y], width, [(cells[0], cells[1], cm.SELECT_SGR)])
    return tuple(out)

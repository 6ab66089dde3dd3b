"""What the client holds of each visible pane (PURE): one :class:`PaneMirror` per pane.

The server sends a pane's changed rows and its input modes (:class:`Rows`); the mirror
is the pane as last told: its rows, cursor, the modes the host terminal mirrors for
the focused pane, and its size and scroll position (for copy mode).
"""

from __future__ import annotations

from msgspec import Struct

from herdr.api.attach_messages import Rows


class PaneMirror(Struct, frozen=True):
    """One pane as the attach stream last described it."""

    rows: tuple[str, ...] = ()  # styled ANSI rows, top to bottom
    cursor: tuple[int, int] | None = None  # (x, y); None = hidden
    mouse: int = 0  # the pane's mouse tracking mode: clicks go to its program
    app_cursor: bool = False  # DECCKM, mirrored on the host while focused
    keyboard: tuple[int, int] = (0, 0)  # (kitty flags, modifyOtherKeys level), likewise
    size: tuple[int, int] = (0, 0)  # (cols, rows)
    scroll: tuple[int, int] = (0, 0)  # (offset into the scrollback, total rows)
    alt: bool = False  # on the alternate screen (less, man): the wheel sends arrow keys


def apply_rows(before: PaneMirror | None, msg: Rows) -> PaneMirror:
    """The pane after ``msg``: its changed rows laid over the ones it had (all rows
    blank first when ``msg`` is full or the pane is new)."""
    height = msg.size[1]
    if msg.full or before is None:
        rows = [""] * height
    else:
        rows = list(before.rows)
        if len(rows) != height:
            rows = (rows + [""] * height)[:height]
    for y, row in msg.rows:
        if 0 <= y < height:
            rows[y] = row
    return PaneMirror(
        rows=tuple(rows),
        cursor=msg.cursor,
        mouse=msg.mouse,
        app_cursor=msg.app_cursor,
        keyboard=(msg.kitty, msg.mok),
        size=msg.size,
        scroll=(msg.offset, msg.total or height),
        alt=msg.alt,
    )

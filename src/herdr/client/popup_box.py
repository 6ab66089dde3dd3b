"""The plugin popup drawn over the layout (PURE).

The server places the popup's box in pane-area cells (``popup_opened``'s ``rect``,
border included) and streams the rows of the terminal inside it; :func:`overlay` lays
a bordered box with the plugin's title over the composed frame, offset by the frame's
pane area, and moves the cursor into it. Nothing of the layout under it is changed:
the next frame without the popup is the layout as it was, and the renderer's diff
repaints exactly the cells the box covered.
"""

from __future__ import annotations

from msgspec import Struct
from msgspec.structs import replace

from herdr.client.ansi import RESET, color_sgr, sanitize, sgr, slice_ansi, text_width, truncate
from herdr.client.mirror import PaneMirror
from herdr.client.view import Frame


class PopupShown(Struct, frozen=True):
    """What the client knows of the open popup."""

    popup_id: str
    title: str
    rect: tuple[int, int, int, int]  # x, y, width, height in pane-area cells, border included


def overlay(frame: Frame, popup: PopupShown, mirror: PaneMirror | None, accent: str) -> Frame:
    """``frame`` with the popup's bordered box over its pane area, the cursor in it."""
    area = frame.pane_area
    x, y, width, height = popup.rect
    x0, y0 = area.x + x, area.y + y
    width = min(width, frame.cols - x0)
    height = min(height, frame.height - y0)
    if width < 3 or height < 3 or x0 < 0 or y0 < 0:
        return frame
    inner = width - 2
    edge = sgr(color_sgr(accent))
    title = truncate(sanitize(popup.title), max(0, inner - 2))
    label = f" {title} " if title else ""
    top = f"{edge}╭{label}{'─' * (inner - text_width(label))}╮{RESET}"
    bottom = f"{edge}╰{'─' * inner}╯{RESET}"
    side = f"{edge}│{RESET}"
    body = mirror.rows if mirror is not None else ()
    rows = list(frame.rows)
    for dy in range(height):
        if dy == 0:
            line = top
        elif dy == height - 1:
            line = bottom
        else:
            content = body[dy - 1] if dy - 1 < len(body) else ""
            line = side + slice_ansi(content, 0, inner) + side
        row = rows[y0 + dy]
        rest = frame.cols - x0 - width
        rows[y0 + dy] = slice_ansi(row, 0, x0) + line + slice_ansi(row, x0 + width, rest)
    cursor = None
    if mirror is not None and mirror.cursor is not None:
        cx, cy = mirror.cursor
        if 0 <= cx < inner and 0 <= cy < height - 2:
            cursor = (x0 + 1 + cx, y0 + 1 + cy)
    return replace(frame, rows=tuple(rows), cursor=cursor)


def inner_size(popup: PopupShown) -> tuple[int, int]:
    """The popup terminal's (cols, rows) inside the border."""
    return max(0, popup.rect[2] - 2), max(0, popup.rect[3] - 2)


CLOSE_KEY = b"\x1b"  # a lone Esc closes the popup (the program gets every other key)
_HOST_REPORTS = (b"\x1b[I", b"\x1b[O")  # focus in/out: the client's own business


def key_route(data: bytes) -> str:
    """Where bytes read from the host go while a popup is open: ``close`` (Esc),
    ``host`` (focus reports, handled as without a popup), ``drop`` (mouse reports:
    the layout under the popup takes no clicks) or ``popup``."""
    if data == CLOSE_KEY:
        return "close"
    if data in _HOST_REPORTS:
        return "host"
    if data.startswith((b"\x1b[<", b"\x1b[M")):
        return "drop"
    return "popup"


PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"


def paste_part(data: bytes, pasting: bool) -> tuple[bytes | None, bool]:
    """A host read while a popup is open, as paste: (the pasted bytes without the host's
    brackets, still pasting after it) — ``None`` when ``data`` is no part of a paste.
    The server re-brackets a paste only for a program that asked (mode 2004)."""
    if not pasting and not data.startswith(PASTE_START):
        return None, False
    ended = PASTE_END in data
    body = data.replace(PASTE_START, b"").replace(PASTE_END, b"")
    return body, not ended

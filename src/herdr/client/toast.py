"""The toast overlay (PURE): a small box in a corner of the frame for a few seconds.

``notification.show`` reaches the foreground client as a ``toast`` line; the app keeps
it as a :class:`Toast` until it expires and lays it over every frame it draws with
:func:`overlay`. Text is sanitised again here: a server is not trusted to have done it.
"""

from __future__ import annotations

from msgspec import Struct
from msgspec.structs import replace

from herdr.client.ansi import RESET, color_sgr, sgr, slice_ansi, text_width
from herdr.client.style import BOLD, fit_segments
from herdr.client.view import Frame
from herdr.runtime.client_text import (
    NOTIFICATION_BODY_MAX,
    NOTIFICATION_TITLE_MAX,
    notification_text,
)

POSITIONS = ("top-left", "top-right", "bottom-left", "bottom-right")
MAX_WIDTH = 48
MIN_WIDTH = 12


class Toast(Struct, frozen=True):
    """A toast to draw: one title line and an optional body line."""

    title: str
    body: str = ""
    position: str = "bottom-right"


def make_toast(title: str, body: str, position: str | None, default: str) -> Toast | None:
    """A toast from what the server sent; ``None`` when no printable title is left."""
    clean = notification_text(title, NOTIFICATION_TITLE_MAX)
    if clean is None:
        return None
    where = position if position in POSITIONS else default
    if where not in POSITIONS:
        where = "bottom-right"
    return Toast(clean, notification_text(body, NOTIFICATION_BODY_MAX) or "", where)


def box_width(toast: Toast, cols: int) -> int:
    """The box's width in cells; 0 when ``cols`` is too narrow for a useful one."""
    content = max(text_width(toast.title), text_width(toast.body))
    width = min(MAX_WIDTH, max(MIN_WIDTH, content + 4), cols - 2)
    return width if width >= MIN_WIDTH else 0


def box(toast: Toast, cols: int, accent: str = "cyan") -> list[str]:
    """The toast's rows, each exactly :func:`box_width` cells (``[]`` when too narrow)."""
    width = box_width(toast, cols)
    if not width:
        return []
    inner = width - 2
    edge = sgr(color_sgr(accent))
    side = f"{edge}│{RESET}"
    lines = [f"{edge}╭{'─' * inner}╮{RESET}"]
    lines.append(side + fit_segments([(" " + toast.title, BOLD)], inner) + side)
    if toast.body:
        lines.append(side + fit_segments([(" " + toast.body, "")], inner) + side)
    lines.append(f"{edge}╰{'─' * inner}╯{RESET}")
    return lines


def overlay(frame: Frame, toast: Toast, accent: str = "cyan") -> Frame:
    """``frame`` with ``toast`` drawn in its corner, one cell in from the edges."""
    cols, height = frame.cols, frame.height
    lines = box(toast, cols, accent)
    if not lines or len(lines) + 2 > height:
        return frame
    width = box_width(toast, cols)
    x0 = 1 if toast.position.endswith("left") else cols - width - 1
    y0 = 1 if toast.position.startswith("top") else height - len(lines) - 1
    rows = list(frame.rows)
    for i, line in enumerate(lines):
        row = rows[y0 + i]
        rest = cols - x0 - width
        rows[y0 + i] = slice_ansi(row, 0, x0) + line + slice_ansi(row, x0 + width, rest)
    return replace(frame, rows=tuple(rows))

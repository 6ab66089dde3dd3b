"""The config-problems banner: the whole ``file:line:col`` text, wrapped, over the bottom
rows of the frame, shown from start-up until a reload finds the file fixed.

A one-line notice in the tab bar cuts a TOML error off at half the width; the user then
cannot tell what is wrong. The banner wraps every line and names the fix (``prefix+R``).
"""

from __future__ import annotations

from msgspec.structs import replace

from herdr.client.ansi import RESET, fit, sanitize, sgr, text_width
from herdr.client.view import Frame

_STYLE = sgr(30, 43)  # black on yellow: a warning that is not an agent state
MAX_ROWS = 8


def wrap(text: str, width: int) -> list[str]:
    """Plain ``text`` broken into pieces of at most ``width`` cells (at spaces if it can)."""
    text = sanitize(text)
    if width <= 0:
        return []
    out: list[str] = []
    while text_width(text) > width:
        cut = _fits(text, width)
        space = text.rfind(" ", 0, cut + 1)
        if space > width // 3:
            cut = space
        out.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    if text or not out:
        out.append(text)
    return out


def _fits(text: str, width: int) -> int:
    """How many characters of ``text`` fit ``width`` cells."""
    used = 0
    for i, ch in enumerate(text):
        used += text_width(ch)
        if used > width:
            return max(1, i)
    return len(text)


def banner_rows(lines: tuple[str, ...], cols: int, max_rows: int = MAX_ROWS) -> list[str]:
    """The banner's styled rows, each exactly ``cols`` cells (empty without ``lines``)."""
    if not lines or cols <= 0:
        return []
    head = "config.toml problems (fix the file, then prefix+R to reload):"
    pieces = wrap(head, cols - 2)
    for line in lines:
        pieces.extend(wrap(line, cols - 2))
    if len(pieces) > max_rows:
        pieces = [*pieces[: max_rows - 1], "… more: run `herdr config check`"]
    return [
        f"{_STYLE} {fit(piece, cols - 2)} {RESET}" if cols >= 2 else fit(piece, cols)
        for piece in pieces
    ]


def overlay_banner(frame: Frame, lines: tuple[str, ...]) -> Frame:
    """``frame`` with the banner over its bottom rows (at most half of them)."""
    rows = banner_rows(lines, frame.cols, max(1, min(MAX_ROWS, frame.height // 2)))
    if not rows or frame.height == 0:
        return frame
    out = list(frame.rows)
    start = len(out) - len(rows)
    out[start:] = rows
    cursor = frame.cursor
    if cursor is not None and cursor[1] >= start:
        cursor = None
    return replace(frame, rows=tuple(out), cursor=cursor)

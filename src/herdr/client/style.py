"""Shared look of the chrome: status marks, words, colours and a segment line layout.

States never rely on colour alone: every mark has a distinct shape (symbols) or sits
next to its word, blocked is red and loud, done green, and marks nobody has seen yet
are inverted until looked at.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from herdr.client.ansi import RESET, sgr, text_width, truncate

_GLYPHS = {
    "symbols": {"blocked": "!", "done": "✓", "working": "●", "idle": "○", "unknown": "·"},
    "dots": {"blocked": "●", "done": "●", "working": "●", "idle": "○", "unknown": "·"},
}
WORDS = {"blocked": "blocked", "done": "done", "working": "working", "idle": "idle"}
PRIORITY = {"blocked": 0, "done": 1, "working": 2, "idle": 3, "unknown": 4}
STATUS_STYLE = {
    "blocked": sgr(1, 91),
    "done": sgr(1, 32),
    "working": sgr(33),
    "idle": sgr(2),
    "unknown": sgr(2),
}
_UNSEEN_STYLE = {"blocked": sgr(1, 97, 41), "done": sgr(1, 30, 42)}
DIM = sgr(2)
BORDER = sgr(90)
BOLD = sgr(1)
REVERSE = sgr(7)


def status_style(status: str, seen: bool) -> str:
    if not seen and status in _UNSEEN_STYLE:
        return _UNSEEN_STYLE[status]
    return STATUS_STYLE.get(status, DIM)


def glyph(status: str, indicators: str) -> str:
    return _GLYPHS.get(indicators, _GLYPHS["dots"]).get(status, "·")


Seg: TypeAlias = tuple[str, str]  # (plain text, SGR style or "")


def fit_segments(
    left: Sequence[Seg],
    width: int,
    right: Sequence[Seg] = (),
    *,
    fill: str = " ",
    fill_style: str = "",
    base: str = "",
    min_left: int | None = None,
) -> str:
    """Styled segments laid out in exactly ``width`` cells: ``left`` truncated with an
    ellipsis when needed, ``right`` right-aligned. ``right`` is dropped when it would
    leave ``left`` fewer than ``min_left`` cells (default: all of ``left``). The gap is
    filled with ``fill``; ``base`` is applied under every segment (selection)."""
    if width <= 0:
        return ""
    right_w = sum(text_width(t) for t, _ in right)
    left_w = sum(text_width(t) for t, _ in left)
    need = left_w if min_left is None else min(left_w, min_left)
    if need + right_w > width:
        right, right_w = (), 0
    out: list[str] = []
    used = 0
    for text, style in left:
        room = width - used - right_w
        if room <= 0:
            break
        piece = text if text_width(text) <= room else truncate(text, room)
        if not piece:
            continue
        out.append(f"{base}{style}{piece}{RESET}" if (style or base) else piece)
        used += text_width(piece)
    gap = width - used - right_w
    if gap > 0:
        pad = fill * gap
        out.append(f"{base}{fill_style}{pad}{RESET}" if (fill_style or base) else pad)
    for text, style in right:
        out.append(f"{base}{style}{text}{RESET}" if (style or base) else text)
    return "".join(out)

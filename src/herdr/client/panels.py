"""A modal list box over the frame: the session navigator and the settings (PURE).

One drawing for both: a title, rows (one selected, kept in view by scrolling) and a
footer line of hints. The caller decides what the rows mean.
"""

from __future__ import annotations

from herdr.client.ansi import RESET, color_sgr, fit, sgr, slice_ansi, text_width
from herdr.client.style import BOLD, DIM, REVERSE, fit_segments
from herdr.client.view import Panel
from herdr.runtime.rect import Rect

__all__ = ["Panel", "overlay", "window"]


def window(count: int, selected: int | None, height: int) -> int:
    """The first row shown so that ``selected`` is visible (centred when it can be)."""
    if count <= height or selected is None:
        return 0
    return min(max(0, selected - height // 2), count - height)


def overlay(
    out: list[str], cols: int, rows: int, panel: Panel, accent: str
) -> tuple[list[str], Rect | None]:
    """``out`` with the panel drawn centred (at most 80 columns wide)."""
    widest = max((text_width(r) for r in panel.rows), default=text_width(panel.empty))
    box_w = min(cols - 2, max(40, min(80, widest + 4), text_width(panel.footer) + 4))
    box_h = min(rows - 2, max(len(panel.rows), 1) + 4)
    if box_w < 16 or box_h < 5:
        return out, None
    inner = box_w - 2
    body = box_h - 4
    first = window(len(panel.rows), panel.selected, body)
    color = sgr(color_sgr(accent))
    side = f"{color}│{RESET}"
    lines = [
        f"{color}┌{RESET}"
        + fit_segments([(f" {panel.title} ", BOLD)], inner, fill="─", fill_style=color)
        + f"{color}┐{RESET}",
    ]
    shown = panel.rows[first : first + body]
    if not shown:
        lines.append(side + fit_segments([(f" {panel.empty}", DIM)], inner) + side)
        body -= 1
    for i, text in enumerate(shown):
        style = REVERSE if first + i == panel.selected else ""
        lines.append(side + fit_segments([(" " + fit(text, inner - 1), style)], inner) + side)
    lines.extend(side + " " * inner + side for _ in range(body - len(shown)))
    more = len(panel.rows) - first - len(shown)
    hint = panel.footer + (f" · {more} more below" if more > 0 else "")
    lines.append(side + " " * inner + side)
    lines.append(side + fit_segments([(f" {hint}", DIM)], inner) + side)
    lines.append(f"{color}└{'─' * inner}┘{RESET}")
    lines = lines[:box_h]
    x0 = (cols - box_w) // 2
    y0 = (rows - box_h) // 2
    for i, line in enumerate(lines):
        y = y0 + i
        row = out[y]
        out[y] = slice_ansi(row, 0, x0) + line + slice_ansi(row, x0 + box_w, cols - x0 - box_w)
    return out, Rect(x0, y0, box_w, box_h)

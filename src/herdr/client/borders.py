"""Pane borders and title lines: where the dividers run and what each title says.

With the layout's 1-cell dividers and no outer frame, a pane's title line is the row
above it — a horizontal divider or the header row above the pane area. It carries the
agent, its state as a word, the pane's title and id, and the zoom badge; the focused
pane's title and the dividers around it are drawn in the accent colour. Built once per
layout/focus/title change, never per output frame.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TypeAlias

from msgspec import Struct

from herdr.client.ansi import RESET, color_sgr, sanitize, sgr
from herdr.client.style import (
    BOLD,
    BORDER,
    DIM,
    STATUS_STYLE,
    WORDS,
    Seg,
    fit_segments,
    glyph,
    status_style,
)
from herdr.client.view import Region, Target
from herdr.runtime.rect import Rect


class PaneKey(Struct, frozen=True):
    pane_id: str
    rect: Rect
    title: str
    agent: str
    agent_status: str
    seen: bool


class MainKey(Struct, frozen=True):
    width: int
    height: int  # main rows: header (if any) + pane area
    header: bool
    panes: tuple[PaneKey, ...]
    focused_pane_id: str | None
    zoomed: bool
    indicators: str
    accent: str


# A template item: static styled text, or (pane index, pane row, first cell, width).
Item: TypeAlias = str | tuple[int, int, int, int]

_BOX = {
    # (up, down, left, right)
    (True, True, False, False): "│",
    (False, False, True, True): "─",
    (True, True, True, True): "┼",
    (False, True, True, True): "┬",
    (True, False, True, True): "┴",
    (True, True, False, True): "├",
    (True, True, True, False): "┤",
    (False, True, False, True): "┌",
    (False, True, True, False): "┐",
    (True, False, False, True): "└",
    (True, False, True, False): "┘",
    (True, False, False, False): "│",
    (False, True, False, False): "│",
    (False, False, True, False): "─",
    (False, False, False, True): "─",
    (False, False, False, False): " ",
}


@lru_cache(maxsize=8)
def main_template(key: MainKey) -> tuple[tuple[tuple[Item, ...], ...], tuple[Region, ...]]:
    """Per main row, the static border/title pieces and the pane slices between them.

    Rebuilt only when geometry, focus or a title changes — never per output frame.
    """
    width, height = key.width, key.height
    top = 1 if key.header else 0
    if width <= 0 or height <= 0:
        return ((),) * max(0, height), ()
    if not key.panes:  # nothing to show yet (connecting, empty session): a blank area
        return ((" " * width,),) * height, ()
    owner = [[-1] * width for _ in range(height)]
    rects: list[Rect | None] = []
    for index in range(len(key.panes) - 1, -1, -1):  # the first pane wins overlaps
        r = key.panes[index].rect
        x0, x1 = max(0, r.x), min(width, r.x + r.width)
        y0, y1 = max(top, r.y + top), min(height, r.y + r.height + top)
        if x0 >= x1 or y0 >= y1:
            continue
        for y in range(y0, y1):
            owner[y][x0:x1] = [index] * (x1 - x0)
    for pane in key.panes:
        r = pane.rect
        x0, x1 = max(0, r.x), min(width, r.x + r.width)
        y0, y1 = max(top, r.y + top), min(height, r.y + r.height + top)
        rects.append(Rect(x0, y0, x1 - x0, y1 - y0) if x0 < x1 and y0 < y1 else None)

    focused = next(
        (i for i, p in enumerate(key.panes) if p.pane_id == key.focused_pane_id and rects[i]),
        None,
    )
    accent = sgr(color_sgr(key.accent))
    border = BORDER
    ring = rects[focused] if focused is not None else None

    # The layout's extent: past it (a smaller session size set by another client) the
    # cells are unused, drawn blank and never joined into border junctions.
    ext_w = max((r.right for r in rects if r is not None), default=width)
    ext_h = max((r.bottom for r in rects if r is not None), default=height)

    def gap(x: int, y: int) -> bool:
        return 0 <= x < ext_w and 0 <= y < ext_h and owner[y][x] < 0

    # Title runs: the gap cells right above each pane's top row.
    titles: dict[int, list[tuple[int, int, str]]] = {}
    regions: list[Region] = []
    for index, rect in enumerate(rects):
        if rect is None:
            continue
        regions.append(Region(rect, Target("pane", key.panes[index].pane_id)))
        ty = rect.y - 1
        if ty < 0:
            continue
        x = rect.x
        while x < rect.right and not gap(x, ty):
            x += 1
        start = x
        while x < rect.right and gap(x, ty):
            x += 1
        if x > start:
            text = _title(key, index, x - start, focused=index == focused)
            titles.setdefault(ty, []).append((start, x, text))
            regions.append(
                Region(Rect(start, ty, x - start, 1), Target("pane", key.panes[index].pane_id))
            )

    rows: list[tuple[Item, ...]] = []
    for y in range(height):
        row_owner = owner[y]
        row_titles = sorted(titles.get(y, []))
        items: list[Item] = []
        x = 0
        ti = 0
        while x < width:
            if ti < len(row_titles) and row_titles[ti][0] == x:
                _, end, text = row_titles[ti]
                items.append(text)
                x = end
                ti += 1
                continue
            o = row_owner[x]
            if o >= 0:
                end = x
                while end < width and row_owner[end] == o:
                    end += 1
                rect = rects[o]
                assert rect is not None
                items.append((o, y - rect.y, x - rect.x, end - x))
                x = end
                continue
            stop = row_titles[ti][0] if ti < len(row_titles) else width
            cells: list[str] = []
            styles: list[str] = []
            while x < stop and row_owner[x] < 0:
                if x >= ext_w or y >= ext_h:
                    cells.append(" ")
                    styles.append("")
                    x += 1
                    continue
                up, down = gap(x, y - 1), gap(x, y + 1)
                left, right = gap(x - 1, y), gap(x + 1, y)
                cells.append(_BOX[(up, down, left, right)])
                near = ring is not None and (
                    ring.x - 1 <= x <= ring.right and ring.y - 1 <= y <= ring.bottom
                )
                styles.append(accent if near else border)
                x += 1
            items.append(_styled_run(cells, styles))
        rows.append(tuple(_merge(items)))
    return tuple(rows), tuple(regions)


def _styled_run(cells: list[str], styles: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(cells):
        j = i
        while j < len(cells) and styles[j] == styles[i]:
            j += 1
        out.append(f"{styles[i]}{''.join(cells[i:j])}{RESET}")
        i = j
    return "".join(out)


def _merge(items: list[Item]) -> list[Item]:
    out: list[Item] = []
    for item in items:
        if isinstance(item, str) and out and isinstance(out[-1], str):
            out[-1] = out[-1] + item
        else:
            out.append(item)
    return out


def _title(key: MainKey, index: int, width: int, *, focused: bool) -> str:
    """``─ ● claude working · ~/src/api ──── ZOOM ─``: the pane's title line."""
    pane = key.panes[index]
    accent, border = sgr(color_sgr(key.accent)), BORDER
    line_style = accent if focused else border
    left: list[Seg] = [("─ ", line_style)] if width >= 8 else []
    if pane.agent:
        style = status_style(pane.agent_status, pane.seen)
        left.append((glyph(pane.agent_status, key.indicators), style))
        left.append((" ", ""))
        left.append((sanitize(pane.agent), BOLD if focused else ""))
        word = WORDS.get(pane.agent_status, "")
        if word:
            left.append((" " + word, STATUS_STYLE.get(pane.agent_status, DIM)))
        title = sanitize(pane.title)
        if title and title != pane.agent:
            left.append((" · ", DIM))
            left.append((title, "" if focused else DIM))
    else:
        left.append((sanitize(pane.title) or "shell", BOLD if focused else DIM))
    left.append((" ", ""))
    right: list[Seg] = []
    if key.zoomed and focused:
        right += [(" ZOOM ", sgr(1, 7) + accent), ("─", line_style)]
    short = pane.pane_id.rsplit(":", 1)[-1]
    right = [(f" {short} ", DIM), ("─", line_style), *right] if width >= 24 else right
    return fit_segments(left, width, right, fill="─", fill_style=line_style)

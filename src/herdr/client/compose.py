"""Compose one TUI frame from the view state (PURE).

The server never draws (DESIGN.md §2): it streams pane rows already styled by its
emulator plus runtime state, and this module lays them out with the client's chrome —
a sidebar of workspaces and the active workspace's tabs and agents, a tab bar, pane
borders whose title lines carry each pane's agent state, focus and zoom, and a help
overlay. Every row of a :class:`Frame` is an ANSI string exactly ``cols`` cells wide,
so the renderer can diff rows as plain strings.

Attention is the product: a blocked agent is loud (red, with the word "blocked"), a
done agent is distinct (green ✓/●, "done"), marks not yet seen are inverted until the
user looks, and counts of what needs attention stay visible even when the sidebar
overflows. States never rely on colour alone. Nothing animates: a static frame costs
nothing to keep on screen.

Geometry: pane rectangles are the layout's *content* rectangles (runtime.layout), in
pane-area coordinates, separated by 1-cell dividers. Each pane's title line is the
row above it — a horizontal divider, or the header row this module reserves at the
top of the pane area — so the pane area (see :func:`pane_area`) is what the app
reports to the server as its size.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Literal, NamedTuple, TypeAlias

from msgspec import Struct, field

from herdr.client import panels
from herdr.client.ansi import RESET, clip_ansi, color_sgr, fit, sgr, slice_ansi, text_width
from herdr.client.borders import Item, MainKey, PaneKey, main_template
from herdr.client.sidebar import SidebarKey, TabBarKey, sidebar, tab_bar
from herdr.client.style import BOLD, DIM, Seg, fit_segments
from herdr.client.view import (
    AgentStatus,
    AgentView,
    Chrome,
    Frame,
    MachineSection,
    PaneView,
    Region,
    SidebarMode,
    TabView,
    Target,
    TargetKind,
    ViewState,
    WorkspaceView,
    chrome,
    pane_area,
)
from herdr.runtime.rect import Rect

TYPE_CHECKING = False
if TYPE_CHECKING:
    from herdr.client.prompt import Prompt

__all__ = [
    "AgentStatus",
    "AgentView",
    "Chrome",
    "Frame",
    "PaneView",
    "Region",
    "SidebarMode",
    "TabView",
    "Target",
    "TargetKind",
    "ViewState",
    "WorkspaceView",
    "chrome",
    "compose",
    "pane_area",
    "patch",
]


class _Static(Struct, frozen=True):
    """Everything of a frame except pane contents: rebuilt only when state changes (made
    in C: a dataclass here would import ``dataclasses`` before the first frame)."""

    chrome: Chrome
    plans: tuple[tuple[_Plan, ...], ...]  # per frame row
    template: tuple[tuple[Item, ...], ...]  # main rows (for the cursor)
    offset_y: int  # frame row of main row 0
    widths: tuple[int, ...]  # per pane: the width its column is clipped to
    regions: tuple[Region, ...]
    uses: tuple[tuple[tuple[int, int], ...], ...]  # per pane: (frame row, pane row) it fills
    index: dict[str, int]  # pane id → its index in the panes (for :func:`patch`), -1: twice
    rows_at: tuple[dict[int, tuple[int, ...]], ...]  # per pane: pane row → frame rows
    rects: tuple[Rect, ...]  # per pane
    focused: int | None  # the index of the focused pane
    # The last rows composed on this static part, with the pane rows they came from:
    # a frame that changes one row of one pane (typing) recomposes only that row.
    memo: list[tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]] = field(default_factory=list)
    # The focused pane's cursor → frame cell, for :func:`patch`.
    cells: dict[tuple[int, int], tuple[int, int] | None] = field(default_factory=dict)


# A row plan item: static text, a whole clipped pane row (pane, row), or a part of one
# (pane, row, first cell, width) when panes overlap (a layout lagging a resize).
_Plan: TypeAlias = str | tuple[int, int] | tuple[int, int, int, int]


class _StaticKey(NamedTuple):
    cols: int
    rows: int
    sidebar_visible: bool
    sidebar_width: int
    sidebar_collapsed_mode: Literal["compact", "hidden"]
    tab_bar_position: Literal["top", "bottom"]
    hide_tab_bar_when_single_tab: bool
    workspaces: tuple[WorkspaceView, ...]
    active_workspace_id: str | None
    selected_workspace_id: str | None
    mode: str
    tabs: tuple[TabView, ...]
    active_tab_id: str | None
    agents: tuple[AgentView, ...]
    focused_pane_id: str | None
    zoomed: bool
    indicators: str
    sort: str
    accent: str
    message: str
    panes: tuple[PaneKey, ...]
    copy_position: str
    agents_title: str = "Agents"
    session: str = ""
    machines: tuple[MachineSection, ...] = ()


def compose(view: ViewState, panes: tuple[PaneView, ...] | None = None) -> Frame:
    """The whole frame for ``view``: exactly ``view.rows`` rows of ``view.cols`` cells.

    ``panes`` stands in for ``view.panes`` (the app swaps pane contents on a cached
    view without copying it). Per output frame only the changed rows of the changed
    pane are clipped and joined again; sidebar, tab bar, borders and titles come from
    caches keyed by the state they show.
    """
    if panes is None:
        panes = view.panes
    cols, rows = max(0, view.cols), max(0, view.rows)
    if cols == 0 or rows == 0:
        return Frame(cols, ("",) * rows if cols == 0 else ())
    key = _StaticKey(
        cols,
        rows,
        view.sidebar_visible,
        view.sidebar_width,
        view.sidebar_collapsed_mode,
        view.tab_bar_position,
        view.hide_tab_bar_when_single_tab,
        view.workspaces,
        view.active_workspace_id,
        view.selected_workspace_id,
        view.mode,
        view.tabs,
        view.active_tab_id,
        view.agents,
        view.focused_pane_id,
        view.zoomed,
        view.status_indicators,
        view.agent_panel_sort,
        view.accent,
        view.message,
        tuple(PaneKey(p.pane_id, p.rect, p.title, p.agent, p.agent_status, p.seen) for p in panes),
        view.copy_position,
        view.agents_title,
        view.session,
        view.machines,
    )
    last = _last_static
    if last and last[0][0] == key:  # equal parts are mostly the same objects: cheap
        static = last[0][1]
    else:
        static = _static(key)
        last[:] = [(key, static)]
    sources = tuple(p.rows for p in panes)
    widths = static.widths
    memo = static.memo
    if memo and len(memo[0][0]) == len(sources):
        old_sources, old_out = memo[0]
        out = list(old_out)
        for y in _changed_rows(static.uses, old_sources, sources):
            out[y] = _row(static.plans[y], widths, sources)
    else:
        out = [_row(plan, widths, sources) for plan in static.plans]
    composed = tuple(out)
    static.memo[:] = [(sources, composed)]
    cursor = _cursor(view, panes, static.chrome, static.template, static.offset_y)
    regions = static.regions
    if view.prompt is None and not (view.help_visible and view.help) and view.panel is None:
        return Frame(cols, composed, cursor, static.chrome.pane_area, regions)
    if view.prompt is not None:
        out, cursor = _overlay_prompt(out, view, view.prompt, static.chrome)
    if view.help_visible and view.help:
        out, box = _overlay_help(out, view)
        if box is not None:
            regions = (*regions, Region(box, Target("help")))
            cursor = None
    if view.panel is not None:
        out, box = panels.overlay(out, cols, rows, view.panel, view.accent)
        if box is not None:
            regions = (*regions, Region(box, Target("help")))
            if view.prompt is None:
                cursor = None
    return Frame(cols, tuple(out), cursor, static.chrome.pane_area, regions)


PaneChange: TypeAlias = tuple[str, tuple[str, ...], "tuple[int, int] | None", Iterable[int] | None]
"""(pane id, its rows now, its cursor, the pane rows that may differ: ``None`` for any)."""


def patch(frame: Frame, changes: Iterable[PaneChange]) -> tuple[Frame, list[int]] | None:
    """``frame`` with each changed pane now showing its rows (and cursor, for the
    focused pane), and the frame rows recomposed; ``None`` when only :func:`compose`
    can tell.

    The rows-only fast path: ``frame`` must be the last one :func:`compose` (or this)
    returned, with no overlay (anything else is refused), and the view it was composed
    from otherwise unchanged — the caller's part. Each pane's rows that may differ are
    given (every row that is not the same string object when ``None``); only the frame
    rows showing one are recomposed, each once however many of its panes changed (16
    streaming panes in a grid: a frame row shows four), and the frame is what
    ``compose`` would return.
    """
    last = _last_static
    if not last:
        return None
    static = last[0][1]
    memo = static.memo
    if not memo or memo[0][1] is not frame.rows:
        return None
    old_sources, old_out = memo[0]
    sources: list[tuple[str, ...]] | None = None
    dirty: dict[int, None] = {}
    new_cursor = frame.cursor
    for pane_id, rows, cursor, changed in changes:
        index = static.index.get(pane_id)
        if index is None:
            continue  # not on screen
        if index < 0:
            return None
        before = old_sources[index]
        height = len(rows)
        if len(before) != height:
            return None
        if sources is None:
            sources = list(old_sources)
        sources[index] = rows
        rows_at = static.rows_at[index]
        for row in range(height) if changed is None else changed:
            ys = rows_at.get(row)
            if ys is None or not 0 <= row < height or before[row] is rows[row]:
                continue
            for y in ys:
                dirty[y] = None
        if index == static.focused:
            new_cursor = _pane_cursor(static, index, cursor)
    if sources is None:
        return frame, []
    new_sources = tuple(sources)
    composed = old_out
    if dirty:
        out = list(old_out)
        plans, widths = static.plans, static.widths
        for y in dirty:
            out[y] = _row(plans[y], widths, new_sources)
        composed = tuple(out)
    memo[:] = [(new_sources, composed)]
    if not dirty and new_cursor == frame.cursor:
        return frame, []
    return Frame(frame.cols, composed, new_cursor, frame.pane_area, frame.regions), list(dirty)


def _row(plan: tuple[_Plan, ...], widths: tuple[int, ...], sources: _Sources) -> str:
    """One frame row: static text, and pane rows clipped to their column (cached)."""
    parts: list[str] = []
    for item in plan:
        if isinstance(item, str):
            parts.append(item)
        elif len(item) == 2:
            index, row = item
            texts = sources[index]
            parts.append(_clip_row(texts[row] if row < len(texts) else "", widths[index]))
        else:
            index, row, start, width = item
            texts = sources[index]
            parts.append(slice_ansi(texts[row] if row < len(texts) else "", start, width))
    return "".join(parts)


_Sources: TypeAlias = tuple[tuple[str, ...], ...]


def _changed_rows(
    uses: tuple[tuple[tuple[int, int], ...], ...], old: _Sources, new: _Sources
) -> set[int]:
    """Frame rows showing a pane row that differs between ``old`` and ``new``."""
    changed: set[int] = set()
    for index, (before, after) in enumerate(zip(old, new, strict=True)):
        if before is after:
            continue
        if len(before) != len(after):
            changed.update(y for y, _ in uses[index])
            continue
        for y, row in uses[index]:
            if row < len(after) and before[row] != after[row]:
                changed.add(y)
    return changed


@lru_cache(maxsize=8192)
def _clip_row(row: str, width: int) -> str:
    """One row clipped, cached: a keystroke's echo changes one row of a pane, and
    clipping a styled row walks it cell by cell, so the other rows must not be redone."""
    return clip_ansi(row, width)


# The key and static part of the previous frame: comparing a key with the last one
# (identity shortcuts) is much cheaper than hashing it for the cache below.
_last_static: list[tuple[_StaticKey, _Static]] = []


@lru_cache(maxsize=8)
def _static(key: _StaticKey) -> _Static:
    skeleton = ViewState(
        key.cols,
        key.rows,
        sidebar_visible=key.sidebar_visible,
        sidebar_width=key.sidebar_width,
        sidebar_collapsed_mode=key.sidebar_collapsed_mode,
        tab_bar_position=key.tab_bar_position,
        hide_tab_bar_when_single_tab=key.hide_tab_bar_when_single_tab,
        tabs=key.tabs,
    )
    ch = chrome(skeleton)
    main_w = key.cols - ch.sidebar_cols
    side_rows, side_regions = sidebar(
        SidebarKey(
            ch.sidebar_mode,
            ch.sidebar_cols,
            key.rows,
            key.workspaces,
            key.active_workspace_id,
            key.selected_workspace_id,
            key.mode == "navigate",
            key.tabs,
            key.active_tab_id,
            key.agents,
            key.focused_pane_id,
            key.indicators,
            key.sort,
            key.accent,
            key.agents_title,
            key.session,
            key.machines,
        )
    )
    main_ys = [y for y in range(key.rows) if y != ch.tab_bar_y]
    template, main_regions = main_template(
        MainKey(
            main_w,
            len(main_ys),
            ch.header_y is not None,
            key.panes,
            key.focused_pane_id,
            key.zoomed,
            key.indicators,
            key.accent,
        )
    )
    offset_y = main_ys[0] if main_ys else 0  # main rows are contiguous
    regions: list[Region] = list(side_regions)
    regions.append(Region(ch.pane_area, Target("pane_area")))
    for region in main_regions:
        r = region.rect
        moved = Rect(r.x + ch.sidebar_cols, r.y + offset_y, r.width, r.height)
        regions.append(Region(moved, region.target))
    widths = tuple(max(0, min(p.rect.width, main_w)) for p in key.panes)
    plans: list[tuple[_Plan, ...]] = []
    uses: list[list[tuple[int, int]]] = [[] for _ in key.panes]
    for y in range(key.rows):
        if y == ch.tab_bar_y:
            bar, bar_regions = tab_bar(
                TabBarKey(
                    main_w,
                    key.tabs,
                    key.active_tab_id,
                    key.mode,
                    key.zoomed,
                    key.message,
                    key.indicators,
                    key.accent,
                    key.copy_position,
                )
            )
            plans.append((side_rows[y] + bar,))
            for region in bar_regions:
                r = region.rect
                moved = Rect(r.x + ch.sidebar_cols, y, r.width, r.height)
                regions.append(Region(moved, region.target))
            continue
        m = y - offset_y
        items: list[_Plan] = [side_rows[y]]
        for item in template[m] if 0 <= m < len(template) else (" " * main_w,):
            last = items[-1]
            if isinstance(item, str):
                if isinstance(last, str):
                    items[-1] = last + item
                else:
                    items.append(item)
                continue
            index, pane_row, start, width = item
            whole = start == 0 and width == widths[index]
            items.append((index, pane_row) if whole else item)
            uses[index].append((y, pane_row))
        plans.append(tuple(items))
    rows_at: list[dict[int, tuple[int, ...]]] = []
    for pane_uses in uses:
        at: dict[int, tuple[int, ...]] = {}
        for y, pane_row in pane_uses:
            at[pane_row] = (*at.get(pane_row, ()), y)
        rows_at.append(at)
    indexes: dict[str, int] = {}
    for i, pane in enumerate(key.panes):
        indexes[pane.pane_id] = -1 if pane.pane_id in indexes else i  # -1: shown twice
    return _Static(
        ch,
        tuple(plans),
        template,
        offset_y,
        widths,
        tuple(regions),
        tuple(tuple(u) for u in uses),
        indexes,
        tuple(rows_at),
        tuple(p.rect for p in key.panes),
        indexes.get(key.focused_pane_id) if key.focused_pane_id is not None else None,
    )


def _cursor(
    view: ViewState,
    panes: tuple[PaneView, ...],
    ch: Chrome,
    template: tuple[tuple[Item, ...], ...],
    offset_y: int,
) -> tuple[int, int] | None:
    """The focused pane's cursor in frame cells, if it is visible and not covered."""
    for index, pane in enumerate(panes):
        if pane.pane_id != view.focused_pane_id or pane.cursor is None:
            continue
        return _cell(index, pane.rect, pane.cursor, ch=ch, template=template, offset_y=offset_y)
    return None


Cursor: TypeAlias = tuple[int, int] | None


def _pane_cursor(static: _Static, index: int, cursor: tuple[int, int] | None) -> Cursor:
    """:func:`_cursor` for pane ``index`` of ``static`` showing ``cursor`` (remembered:
    typing moves the cursor along one row)."""
    if cursor is None:
        return None
    cells = static.cells
    known = cells.get(cursor, _UNKNOWN)
    if known is not _UNKNOWN:
        return known
    if len(cells) > 4096:
        cells.clear()
    cell = cells[cursor] = _cell(
        index,
        static.rects[index],
        cursor,
        ch=static.chrome,
        template=static.template,
        offset_y=static.offset_y,
    )
    return cell


_UNKNOWN = (-1, -1)


def _cell(
    index: int,
    r: Rect,
    cursor: tuple[int, int],
    *,
    ch: Chrome,
    template: tuple[tuple[Item, ...], ...],
    offset_y: int,
) -> Cursor:
    """Pane ``index``'s cell ``cursor`` in frame cells, unless off the pane or covered."""
    cx, cy = cursor
    if not (0 <= cx < r.width and 0 <= cy < r.height):
        return None
    m = r.y + cy + (1 if ch.header_y is not None else 0)
    if m >= len(template):
        return None
    x = r.x + cx
    for item in template[m]:
        if isinstance(item, str):
            continue
        pane_index, _, start, width = item
        if pane_index == index and r.x + start <= x < r.x + start + width:
            return ch.sidebar_cols + x, offset_y + m
    return None


def _overlay_prompt(
    out: list[str], view: ViewState, prompt: Prompt, ch: Chrome
) -> tuple[list[str], tuple[int, int] | None]:
    """The rename prompt over the tab bar row (or the top/bottom row when there is no
    tab bar), with the host cursor on the insertion point."""
    cols, rows = view.cols, view.rows
    if ch.tab_bar_y is not None:
        y = ch.tab_bar_y
    else:
        y = rows - 1 if view.tab_bar_position == "bottom" else 0
    x0 = ch.sidebar_cols if cols - ch.sidebar_cols >= 24 else 0
    width = cols - x0
    accent = color_sgr(view.accent)
    badge = f" {prompt.title.upper()} "
    hint = [(" enter ok · esc cancel ", DIM)]
    if prompt.kind == "search" and view.copy_position:
        hint = [(f" {view.copy_position} · enter ok · esc back ", DIM)]
    if prompt.kind == "confirm":
        hint = [(" y: yes · any other key: no ", DIM)]
    room = width - text_width(badge) - 2
    if room - text_width(hint[0][0]) >= 16:
        room -= text_width(hint[0][0])
    else:
        hint = []
    if room < 1:
        return out, None
    head, tail = prompt.text[: prompt.cursor], prompt.text[prompt.cursor :]
    while head and text_width(head) > room - 1:
        head = head[1:]  # scroll: the cursor stays visible
    shown = head + tail
    while shown and text_width(shown) > room:
        shown = shown[:-1]
    text_style = sgr(7) if prompt.selected else sgr(4)  # selected: typing replaces it
    if prompt.kind == "confirm":
        text_style = sgr(1)
    line = fit_segments(
        [(badge, sgr(1, 7, accent)), (" ", ""), (shown, text_style)], width, hint, min_left=0
    )
    out[y] = slice_ansi(out[y], 0, x0) + line
    if prompt.kind == "confirm":
        return out, None
    return out, (x0 + text_width(badge) + 1 + text_width(head), y)


def _overlay_help(out: list[str], view: ViewState) -> tuple[list[str], Rect | None]:
    """A centred box listing the key bindings in as many columns as fit (modal: it may
    cover the sidebar too)."""
    cols, rows = view.cols, view.rows
    area_x, area_w = 0, cols
    keys_w = min(18, max((text_width(k) for k, _ in view.help), default=0))
    desc_w = min(30, max((text_width(d) for _, d in view.help), default=0))
    cell_w = 1 + keys_w + 2 + desc_w + 2
    body_rows = max(1, min(len(view.help), rows - 6))
    columns = max(1, min((area_w - 4) // cell_w, -(-len(view.help) // body_rows)))
    body_rows = -(-len(view.help) // columns)
    box_w = min(area_w - 2, columns * cell_w + 2)
    box_h = min(rows - 2, body_rows + 4)
    if box_w < 16 or box_h < 5:
        return out, None
    body_rows = box_h - 4
    inner = box_w - 2
    cell_w = max(8, inner // columns)
    keys_w = min(keys_w, max(4, cell_w // 2))
    capacity = body_rows * columns
    offset = min(max(0, view.help_offset), max(0, len(view.help) - capacity))
    entries = list(view.help[offset : offset + capacity])
    below = len(view.help) - offset - len(entries)
    footer = " any key closes"
    if offset or below:
        footer = f" j/k, pgup/pgdn scroll ({offset} above, {below} below) · other keys close"
    x0 = area_x + (area_w - box_w) // 2
    y0 = (rows - box_h) // 2
    accent = sgr(color_sgr(view.accent))
    side = f"{accent}│{RESET}"
    lines = [
        f"{accent}┌{RESET}"
        + fit_segments([(" keys ", BOLD)], inner, fill="─", fill_style=accent)
        + f"{accent}┐{RESET}",
        side + " " * inner + side,
    ]
    for r in range(body_rows):
        cells: list[Seg] = []
        for c in range(columns):
            i = c * body_rows + r
            if i >= len(entries):
                break
            keys_text, desc = entries[i]
            width = cell_w if c < columns - 1 else inner - cell_w * (columns - 1)
            cells.append((" " + fit(keys_text, keys_w), sgr(1) + accent))
            cells.append((fit("  " + desc, max(0, width - 1 - keys_w)), ""))
        lines.append(side + fit_segments(cells, inner) + side)
    lines.append(side + fit_segments([(footer, DIM)], inner) + side)
    lines.append(f"{accent}└{'─' * inner}┘{RESET}")
    for i, line in enumerate(lines[:box_h]):
        y = y0 + i
        row = out[y]
        out[y] = slice_ansi(row, 0, x0) + line + slice_ansi(row, x0 + box_w, cols - x0 - box_w)
    return out, Rect(x0, y0, box_w, box_h)

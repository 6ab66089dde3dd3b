"""State → view (PURE): the :class:`ViewState` a frame is composed from.

Inputs are plain values: the attach stream's state document, the client's own
choices (:class:`Presentation`: size, sidebar, mode, its workspace and tab…) and the
pane mirrors. The view is built in two parts so the app can cache the first: the
part that depends only on the state document and the choices (:func:`view_base`:
sidebar, tabs, agents, the visible panes' slots), and the panes with their rows
(:func:`pane_views`), which is all a frame of typing or output rebuilds.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any, Literal, get_args

from msgspec import Struct
from msgspec.structs import replace

from herdr.api.attach_messages import Record, SplitHandle, StateDoc, TabLayout
from herdr.client.ansi import text_width
from herdr.client.mirror import PaneMirror
from herdr.client.names import tab_name
from herdr.client.view import (
    AgentStatus,
    AgentView,
    MachineSection,
    Panel,
    PaneView,
    TabView,
    ViewState,
    WorkspaceView,
)
from herdr.runtime import agent_view
from herdr.runtime.rect import Rect

TYPE_CHECKING = False
if TYPE_CHECKING:
    from herdr.client.actions import Mode
    from herdr.client.prompt import Prompt

# The view's status words (the same as herdr.vocab's, tested): importing the vocabulary's
# enums would cost ~2.5 ms before the first frame.
_STATUSES: frozenset[str] = frozenset(get_args(AgentStatus))


class Look(Struct, frozen=True):
    """The ``[ui]`` settings a frame shows, and the help text (fixed until a reload)."""

    sidebar_width: int = 26
    sidebar_min_width: int = 18
    sidebar_max_width: int = 36
    sidebar_collapsed_mode: Literal["compact", "hidden"] = "compact"
    tab_bar_position: Literal["top", "bottom"] = "top"
    hide_tab_bar_when_single_tab: bool = False
    status_indicators: Literal["dots", "symbols"] = "dots"
    agent_panel_sort: Literal["spaces", "priority"] = "spaces"
    help: tuple[tuple[str, str], ...] = ()


class Presentation(Struct, frozen=True):
    """The client's own choices a frame depends on (besides the state and the rows)."""

    cols: int
    rows: int
    look: Look = Look()
    sidebar_visible: bool = True
    mode: Mode = "terminal"
    message: str = ""
    prompt: Prompt | None = None
    workspace_id: str | None = None
    tab_id: str | None = None
    selected_workspace_id: str | None = None  # the navigate-mode selection
    copy_position: str = ""
    panel: Panel | None = None  # the navigator or the settings
    help_offset: int = 0
    session: str = ""  # the session's name, shown in the sidebar header
    machines: tuple[MachineSection, ...] = ()  # other machines' sidebar sections


class Slot(Struct, frozen=True):
    """A visible pane without its contents."""

    pane_id: str
    rect: Rect
    title: str
    agent: str
    agent_status: AgentStatus
    seen: bool


class ViewBase(Struct, frozen=True):
    """The view without pane contents, the visible panes' slots and the focused pane."""

    view: ViewState
    slots: tuple[Slot, ...] = ()
    focused: str | None = None


Overlay = tuple[tuple[str, ...], tuple[int, int] | None]
"""Rows and cursor drawn instead of a pane's own (copy mode's selection)."""


def tab_layout(doc: StateDoc | None, tab_id: str | None) -> TabLayout | None:
    if doc is None or tab_id is None:
        return None
    return doc.layouts.get(tab_id)


def focused_pane_id(doc: StateDoc | None, tab_id: str | None) -> str | None:
    layout = tab_layout(doc, tab_id)
    return None if layout is None else layout.focused_pane_id


def pane_at(layout: TabLayout, area: Rect, x: int, y: int) -> tuple[str, int, int] | None:
    """The pane at frame cell (x, y) of a pane area placed at ``area``, and the cell
    inside it."""
    for pane_id, px, py, w, h in layout.panes:
        rect = Rect(area.x + px, area.y + py, w, h)
        if rect.contains(x, y):
            return pane_id, x - rect.x, y - rect.y
    return None


def split_at(layout: TabLayout, area: Rect, x: int, y: int) -> SplitHandle | None:
    """The split whose divider is at frame cell (x, y), for a border drag."""
    for split in layout.splits:
        dx, dy, dw, dh = split[2]
        if Rect(area.x + dx, area.y + dy, dw, dh).contains(x, y):
            return split
    return None


def drag_ratio(split: SplitHandle, area: Rect, x: int, y: int) -> float:
    """The ratio a border drag of ``split`` to frame cell (x, y) asks for (0.05..0.95)."""
    _path, direction, _divider, (sx, sy, sw, sh) = split
    if direction == "right":
        ratio = (x - area.x - sx) / max(1, sw)
    else:
        ratio = (y - area.y - sy) / max(1, sh)
    return min(0.95, max(0.05, ratio))


def build_view(
    doc: StateDoc | None,
    presentation: Presentation,
    mirrors: Mapping[str, PaneMirror],
    overlays: Mapping[str, Overlay] | None = None,
) -> ViewState:
    """The whole view: :func:`view_base` with :func:`pane_views` filled in."""
    base = view_base(doc, presentation)
    return replace(base.view, panes=pane_views(base, mirrors, overlays or {}))


def pane_views(
    base: ViewBase, mirrors: Mapping[str, PaneMirror], overlays: Mapping[str, Overlay]
) -> tuple[PaneView, ...]:
    """The visible panes with their rows (the cursor only on the focused one)."""
    empty = _EMPTY
    panes: list[PaneView] = []
    for slot in base.slots:
        pane_id = slot.pane_id
        overlay = overlays.get(pane_id) if overlays else None
        if overlay is not None:
            rows, cursor = overlay
        else:
            mirror = mirrors.get(pane_id, empty)
            rows, cursor = mirror.rows, mirror.cursor
        panes.append(
            PaneView(
                pane_id,
                slot.rect,
                rows=rows,
                title=slot.title,
                agent=slot.agent,
                agent_status=slot.agent_status,
                seen=slot.seen,
                cursor=cursor if pane_id == base.focused else None,
            )
        )
    return tuple(panes)


_EMPTY = PaneMirror()
SIDEBAR_COLLAPSE_COLS = 100  # narrower terminals show the sidebar's marks only
_SIDEBAR_EXTRA = 8  # lead, mark, gap and the agent count beside a workspace name


def sidebar_shown(cols: int, visible: bool, narrow_visible: bool) -> bool:
    """Whether the sidebar is expanded: below :data:`SIDEBAR_COLLAPSE_COLS` it shows
    its marks only unless the user expanded it there (``prefix+b``), each width
    keeping its own choice."""
    return visible if cols >= SIDEBAR_COLLAPSE_COLS else narrow_visible


def sidebar_width(look: Look, labels: list[str]) -> int:
    """The expanded sidebar's width: ``sidebar_width``, grown to fit the longest
    workspace name, within ``sidebar_min_width``..``sidebar_max_width``."""
    low = min(look.sidebar_min_width, look.sidebar_max_width)
    high = max(look.sidebar_min_width, look.sidebar_max_width)
    want = max((text_width(label) + _SIDEBAR_EXTRA for label in labels), default=0)
    return min(max(look.sidebar_width, want, low), max(high, look.sidebar_width))


def _focused_record(doc: StateDoc, records: dict[str, Record], tab_id: str) -> Record | None:
    layout = doc.layouts.get(tab_id)
    return records.get(layout.focused_pane_id) if layout is not None else None


def view_base(doc: StateDoc | None, p: Presentation) -> ViewBase:
    """Everything but the panes' rows and cursor (one constructor call: it runs for
    every state document, ``dataclasses.replace`` costs as much as the rest)."""
    look = p.look
    if doc is None:
        return ViewBase(
            _view(
                p,
                workspaces=(),
                tabs=(),
                agents=(),
                title="Agents",
                focused=None,
                zoomed=False,
                width=look.sidebar_width,
            )
        )
    records = {r["pane_id"]: r for r in doc.panes}
    agent_panes: dict[str, int] = {}
    for r in records.values():
        if r.get("agent"):
            agent_panes[r["workspace_id"]] = agent_panes.get(r["workspace_id"], 0) + 1
    workspaces = tuple(
        WorkspaceView(
            w["workspace_id"],
            str(w.get("label", "")),
            _status(w.get("agent_status")),
            agent_panes.get(w["workspace_id"], 0),
            seen=w.get("agent_status") != "done",
        )
        for w in doc.workspaces
    )
    tabs = tuple(
        TabView(
            t["tab_id"],
            tab_name(t, _focused_record(doc, records, t["tab_id"])),
            _status(t.get("agent_status")),
            seen=t.get("agent_status") != "done",
        )
        for t in doc.tabs
        if t["workspace_id"] == p.workspace_id
    )
    agents = tuple(
        AgentView(
            r["pane_id"],
            r["tab_id"],
            str(r.get("display_agent") or r.get("agent")),
            _status(r.get("agent_status")),
            name=str(r.get("name") or ""),
            seen=r.get("agent_status") != "done",
        )
        for r in records.values()
        if r["workspace_id"] == p.workspace_id and r.get("agent")
    )
    sort: Literal["spaces", "priority", "view"] = look.agent_panel_sort
    title = "Agents"
    if doc.agent_view is not None:
        agents = _agent_view(doc, p)
        sort = "view"
        title = str(doc.agent_view.get("label") or doc.agent_view.get("source") or title)
    layout = tab_layout(doc, p.tab_id)
    slots: list[Slot] = []
    focused = None
    zoomed = False
    if layout is not None:
        focused = layout.focused_pane_id
        zoomed = layout.zoomed
        for pane_id, x, y, w, h in layout.panes:
            rec = records.get(pane_id, {})
            slots.append(
                Slot(
                    pane_id,
                    Rect(x, y, w, h),
                    _title(pane_id, rec),
                    str(rec.get("display_agent") or rec.get("agent") or ""),
                    _status(rec.get("agent_status")),
                    rec.get("agent_status") != "done",
                )
            )
    view = _view(
        p,
        workspaces=workspaces,
        tabs=tabs,
        agents=agents,
        title=title,
        focused=focused,
        zoomed=zoomed,
        width=sidebar_width(look, [w.label for w in workspaces]),
        sort=sort,
        doc=True,
    )
    return ViewBase(view, tuple(slots), focused)


def _view(
    p: Presentation,
    *,
    workspaces: tuple[WorkspaceView, ...],
    tabs: tuple[TabView, ...],
    agents: tuple[AgentView, ...],
    title: str,
    focused: str | None,
    zoomed: bool,
    width: int,
    sort: Literal["spaces", "priority", "view"] | None = None,
    doc: bool = False,
) -> ViewState:
    """The :class:`ViewState` of ``p`` and a document's parts (none: not connected)."""
    look = p.look
    return ViewState(
        cols=p.cols,
        rows=p.rows,
        workspaces=workspaces,
        active_workspace_id=p.workspace_id if doc else None,
        tabs=tabs,
        active_tab_id=p.tab_id if doc else None,
        agents=agents,
        panes=(),
        focused_pane_id=focused,
        zoomed=zoomed,
        sidebar_visible=p.sidebar_visible,
        sidebar_width=width,
        sidebar_collapsed_mode=look.sidebar_collapsed_mode,
        tab_bar_position=look.tab_bar_position,
        hide_tab_bar_when_single_tab=look.hide_tab_bar_when_single_tab,
        status_indicators=look.status_indicators,
        agent_panel_sort=look.agent_panel_sort if sort is None else sort,
        agents_title=title,
        mode=p.mode,
        selected_workspace_id=p.selected_workspace_id if doc and p.mode == "navigate" else None,
        help_visible=p.mode == "help" and p.panel is None,
        help=look.help,
        help_offset=p.help_offset,
        panel=p.panel,
        message=p.message if doc else (p.message or "connecting…"),
        prompt=p.prompt,
        copy_position=p.copy_position,
        session=p.session,
        machines=p.machines,
    )


def _agent_view(doc: StateDoc, p: Presentation) -> tuple[AgentView, ...]:
    """The agents of every workspace an ``agent.view.set`` view keeps, in its order."""
    assert doc.agent_view is not None
    ws_order = {w["workspace_id"]: i for i, w in enumerate(doc.workspaces)}
    tab_order = _numbered(doc.tabs, "tab_id")
    pane_order = _numbered(doc.panes, "pane_id")
    entries: list[dict[str, Any]] = []
    for r in doc.panes:
        if not r.get("agent"):
            continue
        status = _status(r.get("agent_status"))
        entries.append(
            {
                "status": status,
                "workspace_id": r["workspace_id"],
                "tab_id": r["tab_id"],
                "pane_id": r["pane_id"],
                "agent": r.get("agent"),
                "seen": status != "done",
                "state_change_seq": r.get("state_change_seq"),
                "tokens": r.get("tokens") or {},
                "workspace_order": ws_order.get(r["workspace_id"]),
                "tab_order": tab_order.get(r["tab_id"]),
                "pane_order": pane_order.get(r["pane_id"]),
                "record": r,
            }
        )
    context = {"current_workspace_id": p.workspace_id, "current_tab_id": p.tab_id}
    kept = agent_view.apply(doc.agent_view, entries, context)
    return tuple(
        AgentView(
            e["pane_id"],
            e["tab_id"],
            str(e["record"].get("display_agent") or e["agent"]),
            e["status"],
            name=str(e["record"].get("name") or ""),
            seen=e["seen"],
        )
        for e in kept
    )


def _numbered(records: list[dict[str, Any]], key: str) -> dict[str, int]:
    """Each record's 1-based position among its workspace's records."""
    count: dict[str, int] = {}
    out: dict[str, int] = {}
    for r in records:
        ws = r["workspace_id"]
        count[ws] = count.get(ws, 0) + 1
        out[r[key]] = count[ws]
    return out


def _title(pane_id: str, rec: Mapping[str, Any]) -> str:
    """The pane's label, else its terminal title, else its directory's name."""
    return str(
        rec.get("label")
        or rec.get("terminal_title_stripped")
        or _basename(rec.get("cwd"))
        or pane_id
    )


def _status(value: Any) -> AgentStatus:
    return value if value in _STATUSES else "unknown"


def _basename(path: Any) -> str:
    if not isinstance(path, str) or not path:
        return ""
    return posixpath.basename(path.rstrip("/")) or path

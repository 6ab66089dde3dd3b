"""What the TUI shows, as plain values: the view state, the frame, the fixed layout.

The app builds a :class:`ViewState` from the attach stream and its own presentation
state; :func:`herdr.client.compose.compose` turns it into a :class:`Frame`. Pane
rectangles are the layout's *content* rectangles (runtime.layout), in pane-area
coordinates; :func:`pane_area` says where that area is, and its size is what the app
reports to the server.
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from herdr.runtime.rect import Rect

TYPE_CHECKING = False
if TYPE_CHECKING:
    from herdr.client.prompt import Prompt

AgentStatus = Literal["working", "blocked", "done", "idle", "unknown"]
SidebarMode = Literal["expanded", "compact", "hidden"]

# ----------------------------------------------------------------------------- state


class WorkspaceView(Struct, frozen=True):
    """One sidebar entry; ``agent_status`` is the workspace rollup (spec §1.4)."""

    workspace_id: str
    label: str
    agent_status: AgentStatus = "unknown"
    agent_count: int = 0
    seen: bool = True  # False while a blocked/done mark in it was not looked at


class TabView(Struct, frozen=True):
    """A tab of the active workspace, with its rolled-up state."""

    tab_id: str
    label: str
    agent_status: AgentStatus = "unknown"
    seen: bool = True


class AgentView(Struct, frozen=True):
    """An agent pane of the active workspace (any tab) for the sidebar's agent list."""

    pane_id: str
    tab_id: str
    agent: str  # display label, e.g. "claude"
    agent_status: AgentStatus = "unknown"
    name: str = ""  # the agent's unique name, when it has one
    seen: bool = True


class PaneView(Struct, frozen=True):
    """A visible pane of the active tab: where it goes and what it shows."""

    pane_id: str
    rect: Rect  # content rectangle in pane-area coordinates (the PTY size)
    rows: tuple[str, ...] = ()  # styled ANSI rows from the server, top to bottom
    title: str = ""  # pane label or terminal title
    agent: str = ""  # display agent label; "" for a plain shell
    agent_status: AgentStatus = "unknown"
    seen: bool = True
    cursor: tuple[int, int] | None = None  # (x, y) inside the pane; None = hidden


class MachineSection(Struct, frozen=True):
    """Another machine's workspaces in the sidebar; ``note`` says why there are none
    (unreachable, no server), "" when they were read."""

    name: str
    workspaces: tuple[WorkspaceView, ...] = ()
    note: str = ""


class Panel(Struct, frozen=True):
    """A modal list (:mod:`herdr.client.panels` draws it)."""

    title: str
    rows: tuple[str, ...]  # plain text, one entry per line
    selected: int | None = None
    footer: str = ""
    empty: str = "nothing here"


class ViewState(Struct, frozen=True):
    """Everything a frame depends on; cheap to build, hashable piece by piece."""

    cols: int
    rows: int
    workspaces: tuple[WorkspaceView, ...] = ()
    active_workspace_id: str | None = None
    tabs: tuple[TabView, ...] = ()
    active_tab_id: str | None = None
    agents: tuple[AgentView, ...] = ()
    panes: tuple[PaneView, ...] = ()
    focused_pane_id: str | None = None
    zoomed: bool = False
    sidebar_visible: bool = True
    sidebar_width: int = 26
    sidebar_collapsed_mode: Literal["compact", "hidden"] = "compact"
    tab_bar_position: Literal["top", "bottom"] = "top"
    hide_tab_bar_when_single_tab: bool = False
    status_indicators: Literal["dots", "symbols"] = "dots"
    agent_panel_sort: Literal["spaces", "priority", "view"] = "spaces"  # view: agent.view.set's
    agents_title: str = "Agents"  # the agent list's heading (an agent view's label)
    accent: str = "cyan"
    mode: Literal["terminal", "prefix", "navigate", "help", "prompt", "resize", "copy"] = "terminal"
    selected_workspace_id: str | None = None  # navigate-mode selection
    help_visible: bool = False
    help: tuple[tuple[str, str], ...] = ()  # (keys, description), see keys.help_entries
    message: str = ""  # one-line notice in the tab bar (config errors, server lost…)
    prompt: Prompt | None = None  # an open rename prompt, drawn over the tab bar
    copy_position: str = ""  # copy mode's "[offset/history]", shown by its badge
    panel: Panel | None = None  # the navigator or the settings, drawn over everything
    help_offset: int = 0  # help entries scrolled past (j/k in the help overlay)
    session: str = ""  # the session's name (sidebar header)
    machines: tuple[MachineSection, ...] = ()  # other machines' sections (sidebar)


# ----------------------------------------------------------------------------- frame

TargetKind = Literal[
    "workspace", "tab", "pane", "agent", "pane_area", "sidebar", "sidebar_edge", "help"
]


class Target(Struct, frozen=True):
    """What a mouse click at some cell means (``id`` = workspace/tab/pane id)."""

    kind: TargetKind
    id: str = ""


class Region(Struct, frozen=True):
    rect: Rect
    target: Target


_NO_AREA = Rect(0, 0, 0, 0)


class Frame(Struct, frozen=True):
    """``rows`` ANSI strings, each exactly ``cols`` cells; cursor in frame cells."""

    cols: int
    rows: tuple[str, ...]
    cursor: tuple[int, int] | None = None
    pane_area: Rect = _NO_AREA
    regions: tuple[Region, ...] = ()

    @property
    def height(self) -> int:
        return len(self.rows)

    def target_at(self, x: int, y: int) -> Target | None:
        """The topmost clickable thing at cell (x, y). Dividers are inside
        ``pane_area`` but outside every pane: use runtime.layout.hit_test there."""
        for region in reversed(self.regions):
            if region.rect.contains(x, y):
                return region.target
        return None


class Chrome(Struct, frozen=True):
    """Where the fixed parts go for a terminal size and the UI settings."""

    sidebar_mode: SidebarMode
    sidebar_cols: int  # including its separator column
    tab_bar_y: int | None
    header_y: int | None  # title row of the panes at the top of the pane area
    pane_area: Rect  # frame coordinates


COMPACT_SIDEBAR = 3
MIN_MAIN_COLS = 20


def chrome(view: ViewState) -> Chrome:
    """The frame's fixed layout; depends on size and settings, not on pane content."""
    cols, rows = max(0, view.cols), max(0, view.rows)
    mode: SidebarMode
    if view.sidebar_visible:
        mode = "expanded"
    else:
        mode = "compact" if view.sidebar_collapsed_mode == "compact" else "hidden"
    width = {"expanded": max(8, view.sidebar_width), "compact": COMPACT_SIDEBAR, "hidden": 0}
    if mode == "expanded" and cols - width["expanded"] < MIN_MAIN_COLS:
        mode = "compact"
    if mode == "compact" and cols - COMPACT_SIDEBAR < MIN_MAIN_COLS // 2:
        mode = "hidden"
    side = min(width[mode], cols)
    show_tabs = rows >= 3 and not (view.hide_tab_bar_when_single_tab and len(view.tabs) <= 1)
    tab_y: int | None = None
    top = 0
    bottom = rows
    if show_tabs:
        if view.tab_bar_position == "bottom":
            tab_y = rows - 1
            bottom -= 1
        else:
            tab_y = 0
            top = 1
    header_y: int | None = None
    if bottom - top >= 2:
        header_y = top
        top += 1
    area = Rect(side, top, cols - side, max(0, bottom - top))
    return Chrome(mode, side, tab_y, header_y, area)


def pane_area(view: ViewState) -> Rect:
    """The rectangle the panes share, in frame cells: its size is what the app
    reports to the server (the layout is computed in it with origin 0,0)."""
    return chrome(view).pane_area

"""Wire records of the model (PURE): WorkspaceInfo, TabInfo, PaneInfo, PaneLayoutSnapshot
and LayoutDescription (spec §3.2, §1.3).

Builders are plain functions of entities and the facts the session knows about them
(position, focus, area); they read and never write. Agent status is the caller's: it
passes a ``status_of`` per pane, and tabs and workspaces roll it up with `vocab.rollup`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TypeAlias

from herdr.runtime import layout as lay
from herdr.runtime.layout import Leaf, Node, Rect
from herdr.runtime.model.entities import Pane, PaneLoc, Tab, Workspace
from herdr.vocab import AgentStatus, rollup

StatusOf: TypeAlias = Callable[[Pane], str]
Record: TypeAlias = dict[str, object]


def rollup_panes(panes: Iterable[Pane], status_of: StatusOf | None) -> str:
    """A tab's or workspace's ``agent_status``; without a status source, ``unknown``."""
    if status_of is None:
        return AgentStatus.UNKNOWN.value
    return rollup(status_of(pane) for pane in panes).value


def workspace_info(
    ws: Workspace, *, position: int, focused: bool, status_of: StatusOf | None
) -> Record:
    """WorkspaceInfo (``number`` is the 1-based position, as herdr reports it)."""
    record: Record = {
        "workspace_id": ws.id,
        "number": position,
        "label": ws.display_label(),
        "focused": focused,
        "active_tab_id": ws.tab_id(ws.active()),
        "tab_count": len(ws.tabs),
        "pane_count": ws.pane_count(),
        "agent_status": rollup_panes((pane for _, pane in ws.iter_panes()), status_of),
    }
    if ws.worktree is not None:
        record["worktree"] = ws.worktree.record()
    return record


def tab_info(
    ws: Workspace, tab: Tab, *, position: int, focused: bool, status_of: StatusOf | None
) -> Record:
    """TabInfo (``number`` is the 1-based position; the label defaults to that number)."""
    return {
        "tab_id": ws.tab_id(tab),
        "workspace_id": ws.id,
        "number": position,
        "label": tab.label or str(position),
        "focused": focused,
        "pane_count": len(tab.panes),
        "agent_status": rollup_panes(tab.panes.values(), status_of),
    }


def pane_info(
    loc: PaneLoc,
    *,
    focused: bool,
    agent_status: str,
    revision: int,
    extra: Mapping[str, object] | None,
) -> Record:
    """PaneInfo; runtime fields (agent, title, tokens, scroll...) come in ``extra``."""
    record: Record = {
        "pane_id": loc.pane_id,
        "terminal_id": loc.pane.terminal_id,
        "workspace_id": loc.workspace_id,
        "tab_id": loc.tab_id,
        "focused": focused,
        "agent_status": agent_status,
        "revision": revision,
    }
    if loc.pane.label is not None:
        record["label"] = loc.pane.label
    if loc.pane.cwd is not None:
        record["cwd"] = loc.pane.cwd
    if loc.pane.foreground_cwd is not None:
        record["foreground_cwd"] = loc.pane.foreground_cwd
    if extra:
        record.update(extra)
    return record


def pane_layout(ws: Workspace, tab: Tab, area: Rect, geo: lay.Geometry[int]) -> Record:
    """PaneLayoutSnapshot: the unzoomed rects in ``geo`` plus the ``zoomed`` flag."""
    return {
        "workspace_id": ws.id,
        "tab_id": ws.tab_id(tab),
        "zoomed": tab.zoomed,
        "area": area.to_dict(),
        "focused_pane_id": ws.pane_id(tab.panes[tab.focused]),
        "panes": [
            {
                "pane_id": ws.pane_id(tab.panes[k]),
                "focused": k == tab.focused,
                "rect": r.to_dict(),
            }
            for k, r in geo.panes.items()
        ],
        "splits": [
            {"id": d.id, "direction": d.direction, "ratio": d.ratio, "rect": d.area.to_dict()}
            for d in geo.dividers
        ],
    }


def layout_description(ws: Workspace, tab: Tab) -> Record:
    """LayoutDescription (layout.export): a portable LayoutNode tree."""
    return {
        "workspace_id": ws.id,
        "tab_id": ws.tab_id(tab),
        "zoomed": tab.zoomed,
        "focused_pane_id": ws.pane_id(tab.panes[tab.focused]),
        "root": _layout_node(ws, tab, tab.root),
    }


def _layout_node(ws: Workspace, tab: Tab, node: Node[int]) -> Record:
    if isinstance(node, Leaf):
        pane = tab.panes[node.key]
        command = list(pane.command) if pane.command is not None else None
        return {
            "type": "pane",
            "pane_id": ws.pane_id(pane),
            "label": pane.label,
            "cwd": pane.cwd,
            "command": command,
            "env": {},  # launch env may hold secrets; herdr does not export it
        }
    return {
        "type": "split",
        "direction": node.direction,
        "ratio": node.ratio,
        "first": _layout_node(ws, tab, node.first),
        "second": _layout_node(ws, tab, node.second),
    }

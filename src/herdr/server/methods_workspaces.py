"""``workspace.*``, ``tab.*`` and ``session.snapshot``: containers of panes.

Each handler lets the model validate and change first (it raises ``ModelError``, which
dispatch turns into the error envelope, before changing anything), then starts or
stops terminals and publishes the lifecycle events of §3.5.
"""

from __future__ import annotations

import os
from typing import Any

from herdr import PROTOCOL_VERSION, __version__
from herdr.api import protocol
from herdr.runtime import model as m
from herdr.server.core import ApiError, Result
from herdr.server.panes import PaneHost
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode


def check_cwd(cwd: Any, field: str = "cwd") -> str | None:
    """An absolute, existing directory (the CLI expands relative paths, the API does not)."""
    if cwd is None:
        return None
    if not isinstance(cwd, str) or not cwd.startswith("/"):
        raise ApiError(protocol.INVALID_PARAMS, f"params.{field}: must be an absolute path")
    if not os.path.isdir(cwd):
        raise ApiError(protocol.INVALID_PARAMS, f"params.{field}: {cwd} is not a directory")
    return cwd


def start_or_undo(host: PaneHost, created: m.Created, code: str) -> None:
    """Spawn the new root pane; on failure take the model change back and report."""
    try:
        host.start(created.loc)
    except OSError as exc:
        if len(created.workspace.tabs) == 1:
            host.session.close_workspace(created.workspace.id)
        else:
            host.session.close_tab(created.workspace.tab_id(created.tab))
        raise ApiError(code, f"cannot start the pane's program: {exc}") from None


# --- workspaces -------------------------------------------------------------------------


def workspace_list(call: Call) -> Result:
    host = call.server.panes
    return {
        "type": "workspace_list",
        "workspaces": [host.workspace_record(ws) for ws in host.session.workspaces],
    }


def workspace_create(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    cwd = check_cwd(p.get("cwd")) or _follow_source(host, p.get("source_workspace_id"))
    before = host.session.focused_ids()
    created = host.session.create_workspace(
        cwd, label=p.get("label"), focus=bool(p.get("focus", False)), env=p.get("env")
    )
    start_or_undo(host, created, "workspace_create_failed")
    ws, tab = created.workspace, created.tab
    workspace = host.workspace_record(ws)
    tab_record = host.tab_record(ws, tab)
    pane = host.pane_record(created.loc)
    host.emit("workspace_created", {"workspace": dict(workspace)})
    host.emit("tab_created", {"tab": dict(tab_record)})
    host.emit("pane_created", {"pane": dict(pane)})
    host.emit_focus_changes(before)
    return {
        "type": "workspace_created",
        "workspace": workspace,
        "tab": tab_record,
        "root_pane": pane,
    }


def _follow_source(host: PaneHost, source_id: str | None) -> str:
    """``terminal.new_cwd`` from ``source_workspace_id``'s focused pane, not the UI's."""
    if source_id is None:
        return host.default_cwd()
    source = host.session.workspace(source_id)  # an unknown id is workspace_not_found
    if host.settings.new_cwd not in ("follow", "current"):
        return host.default_cwd()
    tab = source.active()
    loc = m.PaneLoc(source, tab, tab.panes[tab.focused])
    return host.working_dir(loc, source.identity_cwd) or source.identity_cwd


def _workspace_info(host: PaneHost, ws: m.Workspace) -> Result:
    return {"type": "workspace_info", "workspace": host.workspace_record(ws)}


def workspace_get(call: Call) -> Result:
    host = call.server.panes
    return _workspace_info(host, host.session.workspace(call.params["workspace_id"]))


def workspace_focus(call: Call) -> Result:
    host = call.server.panes
    before = host.session.focused_ids()
    ws = host.session.focus_workspace(call.params["workspace_id"])
    host.emit_focus_changes(before)
    return _workspace_info(host, ws)


def workspace_rename(call: Call) -> Result:
    host = call.server.panes
    ws = host.session.rename_workspace(call.params["workspace_id"], call.params["label"])
    host.emit("workspace_renamed", {"workspace_id": ws.id, "label": ws.display_label()})
    return _workspace_info(host, ws)


def close_group_of(session: m.Session, ws: m.Workspace) -> list[m.Workspace]:
    """What closing `ws` closes: a repository's main checkout takes its linked worktree
    workspaces with it (herdr's worktree group); any other workspace only itself."""
    member = ws.worktree
    if member is None or member.is_linked_worktree:
        return [ws]
    linked = [
        other
        for other in session.workspaces
        if other.worktree is not None
        and other.worktree.is_linked_worktree
        and other.worktree.repo_key == member.repo_key
    ]
    return [ws, *linked]


def workspace_close(call: Call) -> Result:
    host = call.server.panes
    ws = host.session.workspace(call.params["workspace_id"])
    group = close_group_of(host.session, ws)
    if len(group) > 1 and not call.params.get("close_group", False):
        raise ApiError(
            ErrorCode.WORKSPACE_GROUP_CLOSE_REQUIRED,
            f"workspace {ws.id} has linked worktree workspaces; use --group "
            "(close_group=true in the API) to close the group",
        )
    before = host.session.focused_ids()
    for member in group:
        host.emit_closed(host.session.close_workspace(member.id))
    host.emit_focus_changes(before)
    return {"type": "ok"}


def workspace_move(call: Call) -> Result:
    host = call.server.panes
    ws = host.session.workspace(call.params["workspace_id"])
    index = call.params["insert_index"]
    if host.session.move_workspace(ws.id, index):
        records = [host.workspace_record(w) for w in host.session.workspaces]
        host.emit(
            "workspace_moved",
            {"workspace_id": ws.id, "insert_index": index, "workspaces": records},
        )
    return workspace_list(call)


# --- tabs -------------------------------------------------------------------------------


def tab_list(call: Call) -> Result:
    host = call.server.panes
    workspace_id = call.params.get("workspace_id")
    spaces = (
        [host.session.workspace(workspace_id)]
        if workspace_id is not None
        else host.session.workspaces
    )
    return {
        "type": "tab_list",
        "tabs": [host.tab_record(ws, tab) for ws in spaces for tab in ws.tabs],
    }


def tab_create(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    cwd = check_cwd(p.get("cwd"))
    before = host.session.focused_ids()
    created = host.session.create_tab(
        p.get("workspace_id"),
        cwd=cwd,
        label=p.get("label"),
        focus=bool(p.get("focus", False)),
        env=p.get("env"),
    )
    start_or_undo(host, created, "tab_create_failed")
    tab = host.tab_record(created.workspace, created.tab)
    pane = host.pane_record(created.loc)
    host.emit("tab_created", {"tab": dict(tab)})
    host.emit("pane_created", {"pane": dict(pane)})
    host.emit_focus_changes(before)
    return {"type": "tab_created", "tab": tab, "root_pane": pane}


def tab_get(call: Call) -> Result:
    host = call.server.panes
    ws, tab = host.session.tab(call.params["tab_id"])
    return {"type": "tab_info", "tab": host.tab_record(ws, tab)}


def tab_focus(call: Call) -> Result:
    host = call.server.panes
    before = host.session.focused_ids()
    ws, tab = host.session.focus_tab(call.params["tab_id"])
    host.emit_focus_changes(before)
    return {"type": "tab_info", "tab": host.tab_record(ws, tab)}


def tab_rename(call: Call) -> Result:
    host = call.server.panes
    ws, tab = host.session.rename_tab(call.params["tab_id"], call.params["label"])
    record = host.tab_record(ws, tab)
    host.emit(
        "tab_renamed",
        {"tab_id": record["tab_id"], "workspace_id": ws.id, "label": record["label"]},
    )
    return {"type": "tab_info", "tab": record}


def tab_close(call: Call) -> Result:
    host = call.server.panes
    before = host.session.focused_ids()
    closed = host.session.close_tab(call.params["tab_id"])
    host.emit_closed(closed)
    host.emit_focus_changes(before)
    return {"type": "ok"}


def tab_move(call: Call) -> Result:
    host = call.server.panes
    ws, tab = host.session.tab(call.params["tab_id"])
    tab_id = ws.tab_id(tab)
    index = call.params["insert_index"]
    if host.session.move_tab(tab_id, index):
        host.emit(
            "tab_moved",
            {
                "tab_id": tab_id,
                "workspace_id": ws.id,
                "insert_index": index,
                "tabs": [host.tab_record(ws, t) for t in ws.tabs],
            },
        )
    return {"type": "tab_list", "tabs": [host.tab_record(ws, t) for t in ws.tabs]}


# --- snapshot ---------------------------------------------------------------------------


def session_snapshot(call: Call) -> Result:
    host = call.server.panes
    session = host.session
    ws_id, tab_id, pane_id = session.focused_ids()
    snapshot: dict[str, Any] = {
        "version": __version__,  # the build, as herdr 0.9 reports it (a string)
        "protocol": PROTOCOL_VERSION,
        "workspaces": [host.workspace_record(ws) for ws in session.workspaces],
        "tabs": [host.tab_record(ws, tab) for ws in session.workspaces for tab in ws.tabs],
        "panes": [host.pane_record(loc) for loc in session.iter_panes()],
        "layouts": [session.pane_layout(ws, tab) for ws in session.workspaces for tab in ws.tabs],
        "agents": [],
    }
    for key, value in (
        ("focused_workspace_id", ws_id),
        ("focused_tab_id", tab_id),
        ("focused_pane_id", pane_id),
    ):
        if value is not None:
            snapshot[key] = value
    return {"type": "session_snapshot", "snapshot": snapshot}

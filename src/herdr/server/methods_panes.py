"""``pane.*`` structure methods and ``layout.*``: split, close, focus, zoom, swap, move."""

from __future__ import annotations

from typing import Any

from herdr.api import protocol
from herdr.runtime import model as m
from herdr.server.core import ApiError, Result
from herdr.server.methods_workspaces import check_cwd
from herdr.server.panes import PaneHost
from herdr.server.wiring import Call
from herdr.terminal import procfs


def _target(host: PaneHost, ref: str | None) -> m.PaneLoc:
    """``ref``, or the focused pane when omitted (§3.1)."""
    if ref is not None:
        return host.session.pane(ref)
    loc = host.session.focused_pane()
    if loc is None:
        raise ApiError(protocol.PANE_NOT_FOUND, "no pane is focused (the session is empty)")
    return loc


def _layout(host: PaneHost, loc: m.PaneLoc) -> dict[str, Any]:
    return host.session.pane_layout(loc.workspace, loc.tab)


def _focused_pane_id(loc: m.PaneLoc) -> str:
    return loc.workspace.pane_id(loc.tab.panes[loc.tab.focused])


def _pane_info(host: PaneHost, loc: m.PaneLoc) -> Result:
    return {"type": "pane_info", "pane": host.pane_record(loc)}


def pane_list(call: Call) -> Result:
    host = call.server.panes
    locs = host.session.list_panes(call.params.get("workspace_id"))
    return {"type": "pane_list", "panes": [host.pane_record(loc) for loc in locs]}


def pane_get(call: Call) -> Result:
    host = call.server.panes
    return _pane_info(host, host.session.pane(call.params["pane_id"]))


def pane_current(call: Call) -> Result:
    host = call.server.panes
    loc = _target(host, call.params.get("caller_pane_id"))
    return {"type": "pane_current", "pane": host.pane_record(loc)}


def pane_split(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    session = host.session
    target = p.get("target_pane_id")
    if target is not None:
        source = session.pane(target)
    elif p.get("workspace_id") is not None:
        ws = session.workspace(p["workspace_id"])
        tab = ws.active()
        source = m.PaneLoc(ws, tab, tab.panes[tab.focused])
    else:
        source = _target(host, None)
    cwd = check_cwd(p.get("cwd")) or host.working_dir(source)
    before = session.focused_ids()
    loc = session.split_pane(
        source.pane_id,
        direction=p["direction"],
        ratio=p.get("ratio"),
        focus=bool(p.get("focus", False)),
        cwd=cwd,
        env=p.get("env"),
    )
    try:
        host.start(loc)
    except OSError as exc:
        session.close_pane(loc.pane_id)
        raise ApiError("pane_split_failed", f"cannot start the pane's program: {exc}") from None
    host.resize_tab(loc.workspace, loc.tab)
    record = host.pane_record(loc)
    host.emit("pane_created", {"pane": dict(record)})
    host.emit_layout(loc.workspace, loc.tab)
    host.emit_focus_changes(before)
    return {"type": "pane_info", "pane": record}


def pane_close(call: Call) -> Result:
    host = call.server.panes
    loc = host.session.pane(call.params["pane_id"])
    ws, tab = loc.workspace, loc.tab
    before = host.session.focused_ids()
    closed = host.session.close_pane(loc.pane_id)
    host.emit_closed(closed)
    if ws in host.session.workspaces and tab in ws.tabs:
        host.resize_tab(ws, tab)
        host.emit_layout(ws, tab)
    host.emit_focus_changes(before)
    return {"type": "ok"}


def pane_rename(call: Call) -> Result:
    host = call.server.panes
    loc = host.session.rename_pane(call.params["pane_id"], call.params.get("label"))
    record = host.pane_record(loc)
    host.emit("pane_updated", {"pane": dict(record)})
    return {"type": "pane_info", "pane": record}


def pane_focus(call: Call) -> Result:
    host = call.server.panes
    before = host.session.focused_ids()
    loc = host.session.focus_pane(call.params["pane_id"])
    host.emit_focus_changes(before)
    return _pane_info(host, loc)


def pane_layout(call: Call) -> Result:
    host = call.server.panes
    loc = _target(host, call.params.get("pane_id"))
    return {"type": "pane_layout", "layout": _layout(host, loc)}


def pane_zoom(call: Call) -> Result:
    host = call.server.panes
    before = host.session.focused_ids()
    ref = call.params.get("pane_id")
    result = host.session.zoom(_target(host, ref).pane_id, call.params.get("mode", "toggle"))
    loc = result.loc
    if result.zoom_changed:
        host.resize_tab(loc.workspace, loc.tab)
        host.emit_layout(loc.workspace, loc.tab)
    host.emit_focus_changes(before)
    zoom: dict[str, Any] = {
        "changed": result.changed,
        "zoom_changed": result.zoom_changed,
        "focus_changed": result.focus_changed,
        "pane_id": loc.pane_id,
        "focused_pane_id": _focused_pane_id(loc),
        "zoomed": result.zoomed,
        "layout": _layout(host, loc),
    }
    if result.reason is not None:
        zoom["reason"] = result.reason
    return {"type": "pane_zoom", "zoom": zoom}


def pane_swap(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    before = host.session.focused_ids()
    if p.get("direction") is not None:
        source = _target(host, p.get("pane_id") or p.get("source_pane_id"))
        result = host.session.swap_direction(source.pane_id, p["direction"])
    else:
        source_ref = p.get("source_pane_id") or p.get("pane_id")
        if p.get("target_pane_id") is None:
            raise ApiError(
                protocol.INVALID_PARAMS, "params: give direction, or source and target panes"
            )
        result = host.session.swap_panes(source_ref, p["target_pane_id"])
    anchor = result.source or result.target or _target(host, None)
    if result.changed:
        host.resize_tab(anchor.workspace, anchor.tab)
        host.emit_layout(anchor.workspace, anchor.tab)
    host.emit_focus_changes(before)
    swap: dict[str, Any] = {
        "changed": result.changed,
        "source_pane_id": result.source.pane_id if result.source else str(p.get("pane_id")),
        "target_pane_id": result.target.pane_id if result.target else None,
        "focused_pane_id": _focused_pane_id(anchor),
        "layout": _layout(host, anchor),
    }
    if result.reason is not None:
        swap["reason"] = result.reason
    return {"type": "pane_swap", "swap": swap}


def pane_resize(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    loc = _target(host, p.get("pane_id"))
    result = host.session.resize(loc.pane_id, p["direction"], p.get("amount"))
    if result.changed:
        host.resize_tab(loc.workspace, loc.tab)
        host.emit_layout(loc.workspace, loc.tab)
    resize: dict[str, Any] = {
        "changed": result.changed,
        "pane_id": loc.pane_id,
        "focused_pane_id": _focused_pane_id(loc),
        "layout": _layout(host, loc),
    }
    if not result.changed:
        resize["reason"] = "unchanged"
    return {"type": "pane_resize", "resize": resize}


def pane_neighbor(call: Call) -> Result:
    host = call.server.panes
    loc = _target(host, call.params.get("pane_id"))
    direction = call.params["direction"]
    other = host.session.neighbor(loc.pane_id, direction)
    return {
        "type": "pane_neighbor",
        "neighbor": {
            "pane_id": loc.pane_id,
            "direction": direction,
            "neighbor_pane_id": other.pane_id if other else None,
            "layout": _layout(host, loc),
        },
    }


def pane_edges(call: Call) -> Result:
    host = call.server.panes
    loc = _target(host, call.params.get("pane_id"))
    edges: dict[str, Any] = {str(k): v for k, v in host.session.edges(loc.pane_id).items()}
    edges.update(pane_id=loc.pane_id, layout=_layout(host, loc))
    return {"type": "pane_edges", "edges": edges}


def pane_focus_direction(call: Call) -> Result:
    host = call.server.panes
    before = host.session.focused_ids()
    loc = _target(host, call.params.get("pane_id"))
    result = host.session.focus_direction(loc.pane_id, call.params["direction"])
    host.emit_focus_changes(before)
    focus: dict[str, Any] = {
        "changed": result.changed,
        "source_pane_id": result.source.pane_id,
        "focused_pane_id": result.focused.pane_id,
        "layout": _layout(host, result.focused),
    }
    if result.reason is not None:
        focus["reason"] = result.reason
    return {"type": "pane_focus_direction", "focus": focus}


def pane_move(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    dest = p["destination"]
    focus = bool(p.get("focus", False))
    session = host.session
    before = session.focused_ids()
    source = session.pane(p["pane_id"])
    source_ws, source_tab = source.workspace, source.tab
    if dest["type"] == "tab":
        result = session.move_pane_to_tab(
            source.pane_id,
            dest["tab_id"],
            split=dest["split"],
            target_pane=dest.get("target_pane_id"),
            ratio=dest.get("ratio"),
            focus=focus,
        )
    elif dest["type"] == "new_tab":
        result = session.move_pane_to_new_tab(
            source.pane_id, workspace=dest.get("workspace_id"), label=dest.get("label"), focus=focus
        )
    else:
        result = session.move_pane_to_new_workspace(
            source.pane_id, label=dest.get("label"), tab_label=dest.get("tab_label"), focus=focus
        )
    loc = result.loc
    move: dict[str, Any] = {
        "changed": result.changed,
        "previous_pane_id": result.previous_pane_id,
        "previous_workspace_id": result.previous_workspace_id,
        "previous_tab_id": result.previous_tab_id,
        "pane": host.pane_record(loc),
        "focused_pane_id": _focused_pane_id(loc),
        "target_layout": _layout(host, loc),
        "closed_workspace_id": result.closed_workspace_id,
        "closed_tab_id": result.closed_tab_id,
        "created_workspace": host.workspace_record(loc.workspace)
        if result.created_workspace_id
        else None,
        "created_tab": host.tab_record(loc.workspace, loc.tab) if result.created_tab_id else None,
    }
    if result.reason is not None:
        move["reason"] = result.reason
    if result.changed:
        host.resize_tab(loc.workspace, loc.tab)
        if source_ws in session.workspaces and source_tab in source_ws.tabs:
            host.resize_tab(source_ws, source_tab)
            move["source_layout"] = session.pane_layout(source_ws, source_tab)
        event = {k: v for k, v in move.items() if k not in ("target_layout", "source_layout")}
        host.emit("pane_moved", event)
        host.emit_focus_changes(before)
    return {"type": "pane_move", "move_result": move}


def pane_process_info(call: Call) -> Result:
    host = call.server.panes
    loc = _target(host, call.params.get("pane_id"))
    term = host.terminal(loc)
    info: dict[str, Any] = {"pane_id": loc.pane_id}
    pid = term.shell_pid if term is not None and term.exit_status is None else None
    if pid is not None and term is not None and term.pty is not None:
        info["shell_pid"] = pid
        pgid = procfs.foreground_pgid(pid, term.pty.process.fd)
        info["foreground_process_group_id"] = pgid
        job = procfs.full_job(pid, pgid) if pgid is not None else None
        processes = []
        for proc in job.processes if job is not None else ():
            entry: dict[str, Any] = {"pid": proc.pid, "name": proc.name}
            if proc.argv:
                entry["argv"] = list(proc.argv)
            if proc.cmdline:
                entry["cmdline"] = proc.cmdline
            cwd = procfs.process_cwd(proc.pid)
            if cwd:
                entry["cwd"] = cwd
            processes.append(entry)
        info["foreground_processes"] = processes
    return {"type": "pane_process_info", "process_info": info}


# --- layout.* ---------------------------------------------------------------------------


def layout_export(call: Call) -> Result:
    host = call.server.panes
    layout = host.session.export_layout(
        tab=call.params.get("tab_id"), pane=call.params.get("pane_id")
    )
    return {"type": "layout_export", "layout": layout}


def layout_set_split_ratio(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    ws, tab = host.session.set_split_ratio(
        p["path"], p["ratio"], tab=p.get("tab_id"), pane=p.get("pane_id")
    )
    host.resize_tab(ws, tab)
    host.emit_layout(ws, tab)
    return {"type": "layout_split_ratio_set", "layout": host.session.layout_description(ws, tab)}


def layout_apply(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    before = host.session.focused_ids()
    result = host.session.apply_layout(
        p["root"],
        workspace=p.get("workspace_id"),
        tab=p.get("tab_id"),
        tab_label=p.get("tab_label"),
        focus=bool(p.get("focus", False)),
    )
    created = result.created
    ws, tab = created.workspace, created.tab
    started: list[m.PaneLoc] = []
    try:
        for key in tab.pane_keys():
            loc = m.PaneLoc(ws, tab, tab.panes[key])
            host.start(loc)
            started.append(loc)
    except OSError as exc:
        host.stop_soon(loc.pane.terminal_id for loc in started)
        host.session.close_tab(ws.tab_id(tab))
        raise ApiError("layout_apply_failed", f"cannot start a pane's program: {exc}") from None
    host.emit_closed(result.closed)
    host.emit("tab_created", {"tab": host.tab_record(ws, tab)})
    for loc in started:
        host.emit("pane_created", {"pane": host.pane_record(loc)})
    host.emit_layout(ws, tab)
    host.emit_focus_changes(before)
    return {"type": "layout_apply", "layout": host.session.layout_description(ws, tab)}

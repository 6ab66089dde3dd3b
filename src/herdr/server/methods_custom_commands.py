"""``custom_command.run``: a ``[[keys.command]]`` of type ``pane`` or ``popup``.

herdr (spec §7) runs a bound command through ``/bin/sh -c``: ``pane`` in a temporary
zoomed pane over the active one (closing it gives back the focus and zoom, as a plugin
overlay does), ``popup`` in the session's popup. Both get ``HERDR_ACTIVE_*`` naming the
pane the key was pressed over. The TUI sends the command here because the pane or
popup lives on the server; ``shell`` commands run detached in the TUI itself.
"""

from __future__ import annotations

import os
from typing import Any

from herdr.runtime import model as m
from herdr.runtime import popup_geometry as pg
from herdr.server.core import ApiError, Result
from herdr.server.popups import PopupBusy, PopupTooSmall
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode

MAX_COMMAND_BYTES = 8192
SHELL = "/bin/sh"


def check_command(command: Any) -> str:
    """A non-empty shell command line without NUL, at most 8 KiB of UTF-8."""
    if not isinstance(command, str) or not command.strip():
        raise ApiError(ErrorCode.INVALID_PARAMS, "params.command: must not be empty")
    if "\x00" in command:
        raise ApiError(ErrorCode.INVALID_PARAMS, "params.command: must not contain NUL")
    if len(command.encode("utf-8", "surrogatepass")) > MAX_COMMAND_BYTES:
        raise ApiError(
            ErrorCode.INVALID_PARAMS, f"params.command: longer than {MAX_COMMAND_BYTES} bytes"
        )
    return command


def active_env(record: dict[str, Any], loc: m.PaneLoc) -> dict[str, str]:
    """The ``HERDR_ACTIVE_*`` variables herdr gives a custom command."""
    env = {
        "HERDR_ACTIVE_WORKSPACE_ID": loc.workspace_id,
        "HERDR_ACTIVE_TAB_ID": loc.tab_id,
        "HERDR_ACTIVE_PANE_ID": loc.pane_id,
        "HERDR_ACTIVE_MACHINE": "local",
    }
    cwd = record.get("cwd")
    if isinstance(cwd, str) and cwd:
        env["HERDR_ACTIVE_PANE_CWD"] = cwd
    return env


def _cwd(record: dict[str, Any]) -> str:
    cwd = record.get("cwd")
    if isinstance(cwd, str) and cwd.startswith("/") and os.path.isdir(cwd):
        return cwd
    return os.path.expanduser("~")


async def custom_command_run(call: Call) -> Result:
    p = call.params
    command = check_command(p.get("command"))
    kind = p["type"]
    panes = call.server.panes
    session = panes.session
    pane_id = p.get("pane_id")
    under = session.pane(pane_id) if pane_id else session.focused_pane()
    if under is None:
        raise ApiError(ErrorCode.PANE_NOT_FOUND, "no active pane: a custom command opens over one")
    record = panes.pane_record(under)
    env = active_env(record, under)
    argv = [SHELL, "-c", command]
    title = str(p.get("description") or command)[:200]
    if kind == "popup":
        return _open_popup(call, argv, env, _cwd(record), title)
    return _open_overlay(call, under, argv, env, cwd=_cwd(record), title=title)


def _open_popup(call: Call, argv: list[str], env: dict[str, str], cwd: str, title: str) -> Result:
    p = call.params
    try:
        width = pg.check_size(p.get("width"), "width")
        height = pg.check_size(p.get("height"), "height")
    except pg.PopupSizeError as exc:
        raise ApiError(ErrorCode.INVALID_PARAMS, str(exc)) from None
    popups = call.server.panes.popups
    if popups.current is not None:
        raise ApiError(ErrorCode.UI_BUSY, "a popup is already open; close it first")
    try:
        popups.open(
            argv,
            cwd=cwd,
            env=call.server.panes.managed_env(env),
            title=title,
            plugin_id="",
            entrypoint="",
            width=width,
            height=height,
        )
    except PopupBusy:
        raise ApiError(ErrorCode.UI_BUSY, "a popup is already open; close it first") from None
    except PopupTooSmall as exc:
        raise ApiError(ErrorCode.COMMAND_FAILED, str(exc)) from None
    except OSError as exc:
        raise ApiError(ErrorCode.COMMAND_FAILED, f"cannot start {SHELL}: {exc}") from None
    return {"type": "ok"}


def _open_overlay(
    call: Call, under: m.PaneLoc, argv: list[str], env: dict[str, str], *, cwd: str, title: str
) -> Result:
    """A zoomed, focused split over ``under``; its close gives the focus and zoom back
    (the plugin host's overlay bookkeeping, shared with plugin overlays)."""
    if call.server.panes.popups.current is not None:
        raise ApiError(ErrorCode.UI_BUSY, "a popup is open; close it first")
    panes = call.server.panes
    session = panes.session
    before = session.focused_ids()
    under_zoomed = under.tab.zoomed  # splitting unzooms
    loc = session.split_pane(
        under.pane_id, direction="down", focus=True, cwd=cwd, label=title, command=argv, env=env
    )
    try:
        panes.start(loc)
    except OSError as exc:
        session.close_pane(loc.pane_id)
        session.focus_pane(under.pane_id)
        under.tab.zoomed = under_zoomed
        raise ApiError(ErrorCode.COMMAND_FAILED, f"cannot start {SHELL}: {exc}") from None
    session.zoom(loc.pane_id, "on")
    call.server.plugins.overlays[loc.pane.terminal_id] = (under.pane_id, under_zoomed)
    panes.resize_tab(loc.workspace, loc.tab)
    record = panes.pane_record(loc)
    panes.emit("pane_created", {"pane": dict(record)})
    panes.emit_layout(loc.workspace, loc.tab)
    panes.emit_focus_changes(before)
    return {"type": "pane_info", "pane": record}


METHODS: dict[str, Any] = {"custom_command.run": custom_command_run}

"""``command.invoke``, the dismissals, ``workspace.move_block`` and the removed graphics.

``command.invoke`` runs one entry of the TUI's command catalog
(`herdr.api.command_catalog`) through the method table, so it does exactly what the
method it names does (same checks, same events): the target (pane > tab > workspace,
as herdr resolves it) is checked first, then focused, then the command runs on it.
herdr 0.9's ``command.invoke`` only knows its custom-command manifest; our ids are the
TUI's command names, with herdr's error codes (``command_not_found``,
``command_target_mismatch``, ``command_failed``).

Dismissals are kept per user (`herdr.persist.dismissals`); herdr answers
``stale_release_notes`` / ``stale_announcement`` for anything that is not current.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any, Final

from herdr.api import command_catalog as cat
from herdr.api import protocol
from herdr.persist import dismissals
from herdr.persist.errors import PersistWriteError
from herdr.runtime import model as m
from herdr.server.core import ApiError, Result
from herdr.server.dispatch import Method
from herdr.server.info import ServerInfo
from herdr.server.panes import PaneHost
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode

# The product announcements this build carries: none yet, so every dismissal is stale
# (what herdr answers when the named announcement is not the current one).
CURRENT_ANNOUNCEMENTS: Final[frozenset[tuple[str, str]]] = frozenset()

GRAPHICS_REMOVED: Final = "pane graphics were removed in herdr 0.9.2"
_SHOWN_ID_CHARS: Final = 80

OK: Final[Result] = {"type": "ok"}


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN_ID_CHARS else text[: _SHOWN_ID_CHARS - 3] + "..."


# --- command.invoke -------------------------------------------------------------------


def _resolve(session: m.Session, params: Mapping[str, Any]) -> m.PaneLoc | None:
    """The explicit target's pane (pane > tab > workspace), checked, nothing changed;
    None when no target was named and the session has no focus either."""
    ws_ref, tab_ref, pane_ref = (params.get(k) for k in ("workspace_id", "tab_id", "pane_id"))
    if pane_ref is not None:
        loc = session.pane(pane_ref)
        if tab_ref is not None and session.tab(tab_ref)[1] is not loc.tab:
            raise ApiError(
                cat.COMMAND_TARGET_MISMATCH, "command pane does not belong to the requested tab"
            )
        if ws_ref is not None and session.workspace(ws_ref) is not loc.workspace:
            raise ApiError(
                cat.COMMAND_TARGET_MISMATCH,
                "command target does not belong to the requested workspace",
            )
        return loc
    if tab_ref is not None:
        ws, tab = session.tab(tab_ref)
        if ws_ref is not None and session.workspace(ws_ref) is not ws:
            raise ApiError(
                cat.COMMAND_TARGET_MISMATCH,
                "command target does not belong to the requested workspace",
            )
        return m.PaneLoc(ws, tab, tab.panes[tab.focused])
    if ws_ref is not None:
        ws = session.workspace(ws_ref)
        tab = ws.active()
        return m.PaneLoc(ws, tab, tab.panes[tab.focused])
    return session.focused_pane()


def _target(session: m.Session, loc: m.PaneLoc | None) -> cat.Target:
    workspace_ids = tuple(ws.id for ws in session.workspaces)
    if loc is None:
        return cat.Target(None, None, None, workspace_ids)
    tab_ids = tuple(loc.workspace.tab_id(tab) for tab in loc.workspace.tabs)
    return cat.Target(loc.workspace_id, loc.tab_id, loc.pane_id, workspace_ids, tab_ids)


def _focus_method(params: Mapping[str, Any]) -> tuple[str, str] | None:
    """herdr focuses the named target before the command runs: (method, id key)."""
    for key, method in (
        ("pane_id", "pane.focus"),
        ("tab_id", "tab.focus"),
        ("workspace_id", "workspace.focus"),
    ):
        if params.get(key) is not None:
            return method, key
    return None


async def _run(table: Mapping[str, Method], call: Call, name: str, params: dict[str, Any]) -> Any:
    """``name`` through the table, as if a client had sent it (its precheck, its events)."""
    method = table[name]
    if method.precheck is not None:
        method.precheck(params)
    inner = Call(call.id, name, params, call.server, call.conn, call.after_response)
    outcome = method.handler(inner)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    return outcome


async def command_invoke(table: Mapping[str, Method], call: Call) -> Result:
    command_id: str = call.params["command_id"]
    entry = cat.lookup(command_id)
    if entry is None:
        raise ApiError(cat.COMMAND_NOT_FOUND, f"unknown command {_shown(command_id)!r}")
    session = call.server.panes.session
    loc = _resolve(session, call.params)
    if entry.method is None or entry.params is None:
        raise ApiError(cat.COMMAND_FAILED, f"{entry.id} runs only in the TUI: {entry.hint}")
    if entry.method not in table:
        raise ApiError(
            cat.COMMAND_FAILED,
            f"{entry.id} runs {entry.method}, which this server does not support yet",
        )
    if entry.needs != "none" and loc is None:
        code = {"pane": ErrorCode.PANE_NOT_FOUND, "tab": ErrorCode.TAB_NOT_FOUND}.get(
            entry.needs, ErrorCode.WORKSPACE_NOT_FOUND
        )
        raise ApiError(code, f"{entry.id} needs a {entry.needs}, and there is none")
    focus = _focus_method(call.params)
    if focus is not None and focus[0] in table:
        name, key = focus
        await _run(table, call, name, {key: call.params[key]})
        loc = _resolve(session, {key: call.params[key]})
    await _run(table, call, entry.method, entry.params(_target(session, loc)))
    return dict(OK)


# --- dismissals -----------------------------------------------------------------------


def user_state_dir(info: ServerInfo) -> Path:
    """The per-user state dir (a named session's is ``<it>/sessions/<name>``): a
    dismissed note stays dismissed in every session."""
    if info.session is not None and info.state_dir.parent.name == "sessions":
        return info.state_dir.parent.parent
    return info.state_dir


def _save(info: ServerInfo, change: Any, what: str) -> None:
    directory = user_state_dir(info)
    try:
        dismissals.save(directory, change(dismissals.load(directory)))
    except PersistWriteError as exc:
        raise ApiError(f"{what}_failed", f"cannot record the dismissal: {exc}") from None


def release_notes_dismiss(call: Call) -> Result:
    version: str = call.params["version"]
    if version != call.server.info.version:
        raise ApiError(ErrorCode.STALE_RELEASE_NOTES, "the release notes are no longer current")
    _save(
        call.server.info,
        lambda d: d.with_release_notes(version),
        "release_notes_dismiss",
    )
    return dict(OK)


def product_announcement_dismiss(call: Call) -> Result:
    version: str = call.params["version"]
    ident: str = call.params["id"]
    if (version, ident) not in CURRENT_ANNOUNCEMENTS:
        raise ApiError(
            ErrorCode.STALE_ANNOUNCEMENT, "the product announcement is no longer current"
        )
    _save(
        call.server.info,
        lambda d: d.with_announcement(version, ident),
        "product_announcement_dismiss",
    )
    return dict(OK)


# --- workspace.move_block -------------------------------------------------------------


def workspace_move_block(call: Call) -> Result:
    host: PaneHost = call.server.panes
    session = host.session
    block, before, changed = session.move_workspace_block(
        call.params["workspace_ids"], call.params.get("before_workspace_id")
    )
    records = [host.workspace_record(ws) for ws in session.workspaces]
    if changed:
        host.emit(
            "workspace_reordered",
            {"workspace_ids": block, "before_workspace_id": before, "workspaces": records},
        )
    return {"type": "workspace_list", "workspaces": records}


# --- pane.graphics.* ------------------------------------------------------------------


def graphics_removed(call: Call) -> Result:
    """herdr 0.9.2 removed pane graphics; the methods stay in protocol 22 and refuse."""
    raise ApiError(protocol.FEATURE_DISABLED, GRAPHICS_REMOVED)


def command_methods(table: Mapping[str, Method]) -> dict[str, Method]:
    """This module's rows of the method table; ``command.invoke`` runs others from
    ``table`` (the finished table, so it sees every method)."""
    return {
        "command.invoke": Method(partial(command_invoke, table)),
        "release_notes.dismiss": Method(release_notes_dismiss),
        "product_announcement.dismiss": Method(product_announcement_dismiss),
        "workspace.move_block": Method(workspace_move_block),
        "pane.graphics.set": Method(graphics_removed),
        "pane.graphics.clear": Method(graphics_removed),
        "pane.graphics.info": Method(graphics_removed),
    }

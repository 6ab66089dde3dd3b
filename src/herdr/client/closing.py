"""Closing a pane, tab or workspace, asking first when something still runs in it.

With ``ui.confirm_close`` (on by default) the panes the close would end are checked
(:mod:`herdr.client.confirm`); a busy one opens a y/n prompt and the close waits for
``y``. An idle shell closes at once. A pane whose process cannot be read (a server
without ``pane.process_info``) counts by its agent alone, so a close is never blocked
by the check itself.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from herdr.client import confirm
from herdr.client.prompt import Prompt

if TYPE_CHECKING:
    from herdr.client.app import App

_METHODS: dict[confirm.Scope, tuple[str, str]] = {
    "pane": ("pane.close", "pane_id"),
    "tab": ("tab.close", "tab_id"),
    "workspace": ("workspace.close", "workspace_id"),
}


def close(app: App, scope: confirm.Scope, target: str | None) -> None:
    if target is None:
        app.unavailable(f"close_{scope}")
        return
    method, key = _METHODS[scope]
    params = {key: target}
    if not app.settings.confirm_close:
        app.request(method, params)
        return
    app.spawn(_check_then_close(app, scope, target, method, params))


async def _check_then_close(
    app: App, scope: confirm.Scope, target: str, method: str, params: dict[str, Any]
) -> None:
    labels = await busy(app, scope, target)
    if not labels:
        app.request(method, params)
        return
    app.pending_close = (method, params)
    text = confirm.question(scope, labels)
    prompt = Prompt("confirm", target, text, len(text), heading=f"close {scope}?")
    for action in app.machine.open_prompt(prompt):
        app.do(action)


async def busy(app: App, scope: confirm.Scope, target: str) -> list[str]:
    """Labels of what runs in the panes of ``target`` (empty: only idle shells)."""
    records = {str(p["pane_id"]): p for p in (app.doc.panes if app.doc else [])}
    ids = confirm.panes_in(records.values(), scope, target)
    infos = await asyncio.gather(*(_process_info(app, pane_id) for pane_id in ids))
    labels = [confirm.busy_label(records[i], info) for i, info in zip(ids, infos, strict=True)]
    return [label for label in labels if label is not None]


async def _process_info(app: App, pane_id: str) -> dict[str, Any] | None:
    try:
        envelope = await app.conn.call("pane.process_info", {"pane_id": pane_id})
    except (OSError, ValueError):
        return None
    result = envelope.get("result")
    info = result.get("process_info") if isinstance(result, dict) else None
    return info if isinstance(info, dict) else None


def confirmed(app: App) -> None:
    pending, app.pending_close = app.pending_close, None
    if pending is not None:
        app.request(*pending)


def kept(app: App) -> None:
    if app.pending_close is not None:
        app.pending_close = None
        app.notice("close cancelled")

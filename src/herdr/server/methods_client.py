"""The client-facing methods: toasts, window titles, surface leases, the agent view,
right-click routing and popups.

The effects that belong to one terminal (a toast, an OSC 2 window title) go to the
foreground client only, the most recently active attached TUI, as attach-stream
lines (:class:`~herdr.api.attach_messages.Toast`,
:class:`~herdr.api.attach_messages.WindowTitle`); the rest travel in the state
document every client gets. State lives in :class:`herdr.server.client_ui.ClientUi`.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any

from herdr.api import protocol
from herdr.api.attach_messages import Toast, WindowTitle, encode_line
from herdr.runtime import agent_view
from herdr.runtime.client_text import (
    NOTIFICATION_BODY_MAX,
    NOTIFICATION_TITLE_MAX,
    notification_text,
    window_title_text,
)
from herdr.server.attach import AttachedClient, AttachRegistry
from herdr.server.client_ui import TOAST_S
from herdr.server.core import ApiError, Result
from herdr.server.dispatch import Handler
from herdr.server.short_ids import peer_pid_of
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode


def _send(client: AttachedClient | None, line: bytes) -> bool:
    """Write one stream line to ``client``; False when there is none to take it."""
    if client is None or client.conn.closed:
        return False
    client.conn.write(line)
    return True


# ----------------------------------------------------------------------------- notification


def _shown(reason: str) -> Result:
    return {"type": "notification_show", "shown": reason == "shown", "reason": reason}


def notification_show(call: Call) -> Result:
    """Show a toast in the foreground client, as herdr does: ``disabled`` when
    ``ui.toast.delivery`` is off; with ``herdr`` delivery one toast lives at a time
    (``busy``) and at most one a second is shown (``rate_limited``); ``terminal`` and
    ``system`` delivery become an OSC 9 notice on the client's terminal (rate limited
    alike). ``no_foreground_client`` when no TUI is attached."""
    p = call.params
    title = notification_text(p["title"], NOTIFICATION_TITLE_MAX)
    if title is None:
        raise ApiError(protocol.INVALID_PARAMS, "notification title is empty")
    body = notification_text(p.get("body") or "", NOTIFICATION_BODY_MAX) or ""
    delivery = call.server.panes.settings.toast_delivery
    if delivery == "off":
        return _shown("disabled")
    registry = call.server.attach
    ui = registry.ui
    now = time.monotonic()
    herdr = delivery == "herdr"
    if herdr and ui.toast_live(now):
        return _shown("busy")
    if ui.rate_limited(now):
        return _shown("rate_limited")
    toast = Toast(
        title=title,
        body=body,
        position=p.get("position"),
        sound=p.get("sound") or "none",
        delivery="herdr" if herdr else "terminal",
        seconds=TOAST_S,
    )
    if not _send(registry.foreground(), encode_line(toast)):
        return _shown("no_foreground_client")
    ui.last_notification = now
    if herdr:
        ui.toast_until = now + TOAST_S
    return _shown("shown")


# ----------------------------------------------------------------------------- window title


def _window_title(registry: AttachRegistry, title: str | None) -> Result:
    ui = registry.ui
    ui.window_title = title  # kept for the next foreground client, or one attaching later
    foreground = registry.foreground()
    sent = _send(foreground, encode_line(WindowTitle(title=title)))
    ui.title_client = foreground.client_id if sent and foreground is not None else None
    reason = ("set" if title is not None else "cleared") if sent else "no_foreground_client"
    return {"type": "client_window_title", "changed": sent, "reason": reason}


def window_title_set(call: Call) -> Result:
    """The foreground client's host terminal title (OSC 2), sanitised; it stays until
    ``client.window_title.clear`` and follows the foreground: a client that becomes
    it (types, resizes, attaches) gets the title too."""
    title = window_title_text(call.params["title"])
    if title is None:
        raise ApiError(protocol.INVALID_PARAMS, "window title is empty")
    return _window_title(call.server.attach, title)


def window_title_clear(call: Call) -> Result:
    """Give the foreground client its own title back."""
    return _window_title(call.server.attach, None)


# ----------------------------------------------------------------------------- surface lease


def surface_set(call: Call) -> Result:
    """herdr 0.9 takes the surface-interest lease only on a client-shell endpoint
    connection and refuses it on a plain API connection, as here: one request, one
    answer, closed, so a lease could not outlive its answer. Our endpoint is the attach
    stream: a TUI sends it a ``surface`` line (:class:`~herdr.api.attach_messages.Surface`)
    and gets ``surface_set`` with the projection revision back."""
    raise ApiError(
        ErrorCode.CONNECTION_LOCAL_ONLY,
        "client_shell.surface.set is only available through a client shell endpoint",
    )


# ----------------------------------------------------------------------------- agent view


def _view_result(spec: dict[str, Any] | None) -> Result:
    return {
        "type": "agent_view",
        "active": spec is not None,
        "source": spec["source"] if spec else None,
        "label": spec["label"] if spec else None,
    }


def agent_view_precheck(params: dict[str, Any]) -> None:
    """Refuse a filter nested past herdr's limit before the schema walks it."""
    if agent_view.too_deep(params.get("filter")):
        raise ApiError(
            ErrorCode.INVALID_AGENT_VIEW,
            f"agent view filter may be nested at most {agent_view.MAX_FILTER_DEPTH} levels",
        )


def agent_view_set(call: Call) -> Result:
    """Replace the sidebar's agent list projection (filter + sort under a label)."""
    source = str(call.params.get("source", ""))
    try:
        spec = agent_view.validate(call.params)
    except agent_view.AgentViewError as exc:
        raise ApiError(ErrorCode.INVALID_AGENT_VIEW, str(exc)) from None
    if source.strip().startswith("plugin:"):
        raise ApiError(protocol.PLUGIN_NOT_FOUND, "plugin not found")  # we run no plugins
    registry = call.server.attach
    registry.ui.agent_view = spec
    registry.ui.bump()
    registry.state_changed()
    return _view_result(spec)


def agent_view_clear(call: Call) -> Result:
    """Remove the active view; with ``source``, only when that source set it."""
    registry = call.server.attach
    ui = registry.ui
    source = call.params.get("source")
    if source is not None:
        try:
            source = agent_view.normalize_source(source)
        except agent_view.AgentViewError as exc:
            raise ApiError(ErrorCode.INVALID_AGENT_VIEW, str(exc)) from None
    active = ui.agent_view
    if active is not None and source in (None, active["source"]):
        ui.agent_view = None
        ui.bump()
        registry.state_changed()
    return _view_result(ui.agent_view)


# ----------------------------------------------------------------------------- pane input


def pane_input_set(call: Call) -> Result:
    """Where a right click in the pane goes: ``herdr`` (the TUI handles it, the default)
    or ``pane`` (passed to the pane's program when it tracks the mouse)."""
    host = call.server.panes
    loc = host.session.pane(call.params["pane_id"])
    registry = call.server.attach
    routed = registry.ui.right_click_pane
    routed &= set(host.terminals)  # forget panes that are gone
    before = loc.pane.terminal_id in routed
    if call.params["right_click"] == "pane":
        routed.add(loc.pane.terminal_id)
    else:
        routed.discard(loc.pane.terminal_id)
    if before != (loc.pane.terminal_id in routed):
        registry.ui.bump()
        registry.state_changed()
    return {"type": "ok"}


def views_follow(handler: Handler) -> Handler:
    """A focus method run by a script (``herdr tab focus``, ``agent focus``) moves the
    attached TUIs' views too; an attached TUI's own switch moves only itself."""

    def follow(call: Call) -> None:
        transport = call.conn.transport
        sock = transport.get_extra_info("socket") if transport is not None else None
        call.server.attach.focus_requested(peer_pid_of(sock))

    def run(call: Call) -> Result | Awaitable[Result | None] | None:
        result = handler(call)
        if not inspect.isawaitable(result):
            follow(call)
            return result
        pending = result

        async def finish() -> Result | None:
            value = await pending
            follow(call)
            return value

        return finish()

    return run


def split_routes_right_click(split: Callable[[Call], Result]) -> Callable[[Call], Result]:
    """``pane.split`` with ``right_click: pane``: the new pane starts routing right
    clicks to its program, as after ``pane.input.set`` (the default, ``herdr``, is
    what every pane starts with)."""

    def handler(call: Call) -> Result:
        result = split(call)
        if call.params.get("right_click") == "pane":
            loc = call.server.panes.session.pane(result["pane"]["pane_id"])
            registry = call.server.attach
            registry.ui.right_click_pane.add(loc.pane.terminal_id)
            registry.ui.bump()
            registry.state_changed()
        return result

    return handler


# ----------------------------------------------------------------------------- popups


def popup_close(call: Call) -> Result:
    """Close the session's plugin popup (its process is ended); ``popup_not_open``
    when there is none, as herdr answers."""
    if not call.server.panes.popups.close():
        raise ApiError(protocol.POPUP_NOT_OPEN, "no popup is open")
    return {"type": "ok"}


METHODS: dict[str, Any] = {
    "notification.show": notification_show,
    "client.window_title.set": window_title_set,
    "client.window_title.clear": window_title_clear,
    "client_shell.surface.set": surface_set,
    "agent.view.set": agent_view_set,
    "agent.view.clear": agent_view_clear,
    "pane.input.set": pane_input_set,
    "popup.close": popup_close,
}

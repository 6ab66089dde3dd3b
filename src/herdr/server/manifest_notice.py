"""Applying a manifest reload for the whole server: restart, log, and tell the TUI.

Every way rules change (the background update, ``server.reload_agent_manifests``, a
watched file edit) ends here, so each one restarts only the changed agents' panes and
shows the spec's "Agent detection rules updated" toast (detection-spec §7.6) in the
foreground client when ``ui.toast.delivery = "herdr"``, within the busy/rate limits of
``notification.show`` (updates during a live toast coalesce into the next one).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from herdr.api.attach_messages import Toast, encode_line
from herdr.detect.manifest.changes import TOAST_TITLE, ManifestChange, toast_body
from herdr.runtime.client_text import NOTIFICATION_BODY_MAX, notification_text
from herdr.server.agents import AgentRuntime
from herdr.server.attach import AttachRegistry
from herdr.server.client_ui import TOAST_S
from herdr.server.wiring import Server

log = logging.getLogger(__name__)


def announce(attach: AttachRegistry, delivery: str, changes: list[ManifestChange]) -> bool:
    """Queue the changes for the toast and show it now if the foreground TUI is free;
    False when off, nothing changed, no TUI, or the toast waits.

    The toast keeps ``notification.show``'s limits (one toast at a time, one a second):
    while one is live, later reloads' changes gather in ``ui.pending_rules`` (an agent
    changed twice shows its latest version) and one toast lists them all when it ends.
    """
    if not changes or delivery != "herdr":
        return False
    ui = attach.ui
    for change in changes:
        ui.pending_rules[change.label] = change.shown()
    if ui.rules_timer is not None:
        return False  # a coalesced toast is already due
    return _show_or_wait(attach)


def _on_timer(attach: AttachRegistry) -> None:
    attach.ui.rules_timer = None
    _show_or_wait(attach)


def _show_or_wait(attach: AttachRegistry) -> bool:
    ui = attach.ui
    if not ui.pending_rules:
        return False
    now = time.monotonic()
    wait = ui.toast_wait(now)
    if wait > 0:
        loop = asyncio.get_running_loop()
        ui.rules_timer = loop.call_later(wait, _on_timer, attach)
        return False
    items = [ui.pending_rules[label] for label in sorted(ui.pending_rules)]
    ui.pending_rules.clear()
    client = attach.foreground()
    if client is None or client.conn.closed:
        return False  # as notification.show's no_foreground_client: nothing is kept
    body = notification_text(", ".join(items), NOTIFICATION_BODY_MAX) or ""
    client.conn.write(encode_line(Toast(title=TOAST_TITLE, body=body, seconds=TOAST_S)))
    ui.last_notification = now
    ui.toast_until = now + TOAST_S
    return True


class ManifestReloader:
    """``reload(why)``: re-read all layers, restart the changed panes, announce them."""

    def __init__(
        self, agents: AgentRuntime, attach: AttachRegistry, delivery: Callable[[], str]
    ) -> None:
        self.agents = agents
        self._attach = attach
        self._delivery = delivery

    async def reload(self, why: str) -> tuple[list[ManifestChange], list[str]]:
        """The changes and the restarted terminal ids (`AgentRuntime.reload_manifests`)."""
        changes, restarted = await self.agents.reload_manifests()
        if changes:
            log.info("agent detection rules updated (%s): %s", why, toast_body(changes))
            announce(self._attach, self._delivery(), changes)
        return changes, restarted


def for_server(server: Server) -> ManifestReloader:
    """The reloader of ``server`` (stateless: the lock lives in the agent runtime)."""
    return ManifestReloader(
        server.agents, server.attach, lambda: server.panes.settings.toast_delivery
    )

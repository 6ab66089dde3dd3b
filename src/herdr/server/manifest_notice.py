"""Applying a manifest reload for the whole server: restart, log, and tell the TUI.

Every way rules change (the background update, ``server.reload_agent_manifests``, a
watched file edit) ends here, so each one restarts only the changed agents' panes and
shows the spec's "Agent detection rules updated" toast (detection-spec §7.6) in the
foreground client when ``ui.toast.delivery = "herdr"``.
"""

from __future__ import annotations

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
    """Draw the toast in the foreground TUI; False when off, nothing changed or no TUI."""
    if not changes or delivery != "herdr":
        return False
    client = attach.foreground()
    if client is None or client.conn.closed:
        return False
    body = notification_text(toast_body(changes), NOTIFICATION_BODY_MAX) or ""
    client.conn.write(encode_line(Toast(title=TOAST_TITLE, body=body, seconds=TOAST_S)))
    now = time.monotonic()
    attach.ui.last_notification = now
    attach.ui.toast_until = now + TOAST_S
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

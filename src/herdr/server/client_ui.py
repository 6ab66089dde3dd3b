"""What the server keeps for its TUI clients' own surfaces (toasts, window title, agent
view, right-click routing, the projection revision); served by
:mod:`herdr.server.methods_client` and the attach stream.

Plain state, owned by the attach registry (whose state document carries the agent
view and right-click routing to every client). Times are ``time.monotonic()`` values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

NOTIFICATION_RATE_S = 1.0  # herdr: at most one API notification a second
TOAST_S = 3.0  # how long an API toast stays (herdr's UpdateInstalled kind)


@dataclass(eq=False)
class ClientUi:
    """Client-facing state of one server."""

    last_notification: float | None = None  # when an API notification was last shown
    toast_until: float = 0.0  # the live toast's end; another one before it is "busy"
    window_title: str | None = None  # the API title, kept for clients that attach later
    title_client: str | None = None  # the client id that was last given it
    agent_view: dict[str, Any] | None = None  # the validated agent.view.set spec
    right_click_pane: set[str] = field(default_factory=set)  # terminal ids: clicks to the app
    projection_revision: int = 0  # bumped on every change of what clients present
    # "Agent detection rules updated" items waiting for the busy/rate window to pass
    # (label -> "label version"), and the timer that shows them as one toast
    pending_rules: dict[str, str] = field(default_factory=dict)
    rules_timer: asyncio.TimerHandle | None = None

    def rate_limited(self, now: float) -> bool:
        last = self.last_notification
        return last is not None and now - last < NOTIFICATION_RATE_S

    def toast_live(self, now: float) -> bool:
        return now < self.toast_until

    def toast_wait(self, now: float) -> float:
        """Seconds until a herdr toast may be shown (0: now): the live toast's end and
        the one-a-second limit, as ``notification.show`` applies them."""
        last = self.last_notification
        free = max(self.toast_until, last + NOTIFICATION_RATE_S if last is not None else 0.0)
        return max(0.0, free - now)

    def bump(self) -> int:
        self.projection_revision += 1
        return self.projection_revision

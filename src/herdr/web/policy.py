"""Which socket methods the page may call, and which ones each mode refuses (PURE).

The page reaches the server's real dispatcher, so rules and error codes are the socket
API's own; this table only narrows what is offered: reads, answering agents (a prompt,
an approval) and, opt-in, typing. Everything else is refused before dispatch.
"""

from __future__ import annotations

from typing import Final

from herdr.vocab import ErrorCode

READS: Final = frozenset(
    {
        "ping",
        "session.snapshot",
        "workspace.list",
        "tab.list",
        "pane.list",
        "pane.get",
        "pane.read",
        "agent.list",
        "agent.get",
        "agent.approval",
    }
)
# Answering an agent: refused in read-only mode.
ACTS: Final = frozenset({"agent.prompt", "agent.approve"})
# Raw input: refused unless typing was allowed (and never when read-only).
TYPING: Final = frozenset({"pane.send_text", "pane.send_keys", "pane.send_input"})


def refusal(method: str, *, read_only: bool, allow_typing: bool) -> tuple[str, str] | None:
    """``(code, message)`` when the page may not call ``method`` now, else ``None``."""
    if method in READS:
        return None
    if method not in ACTS and method not in TYPING:
        shown = method if len(method) <= 80 else method[:77] + "..."
        return ErrorCode.WEB_METHOD_NOT_ALLOWED, f"the web view does not offer {shown!r}"
    if read_only:
        return ErrorCode.READ_ONLY, f"this web view is read-only: {method} refused"
    if method in TYPING and not allow_typing:
        return (
            ErrorCode.TYPING_DISABLED,
            "typing into panes is off for this web view (start it with --allow-typing)",
        )
    return None

"""The wheel over a full-screen program that did not ask for mouse events.

``less``, ``man`` or ``git log`` run on the alternate screen, which has no scrollback:
opening copy mode there shows nothing. As zellij (and tmux with its common bindings)
do, each notch becomes arrow keys for the program instead — ``lines`` up or down.
"""

from __future__ import annotations

UP, DOWN = "A", "B"


def wheel_keys(up: bool, lines: int, *, app_cursor: bool) -> str:
    """``lines`` arrow keys (SS3 form while the program set DECCKM, else CSI)."""
    lead = "\x1bO" if app_cursor else "\x1b["
    return (lead + (UP if up else DOWN)) * max(0, lines)


def sends_arrows(alt: bool, mouse: int) -> bool:
    """Whether the wheel becomes arrow keys: alternate screen and no mouse reporting."""
    return alt and not mouse

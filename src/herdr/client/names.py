"""Names the TUI shows for tabs and pane borders (PURE).

A tab nobody named (its label is still its number, herdr's default) is shown by what
runs in it, as tmux's automatic-rename does: its focused pane's agent, else the title
the program set (OSC 0/2), else its directory. A pane border shows the pane's label,
else the program's title, else its directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_NAME = 40


def _dir_name(pane: Mapping[str, Any]) -> str:
    cwd = str(pane.get("foreground_cwd") or pane.get("cwd") or "")
    return cwd.rstrip("/").rsplit("/", 1)[-1] or cwd


def pane_title(pane: Mapping[str, Any]) -> str:
    """A border's name: label, the program's OSC 0/2 title, else the directory."""
    for key in ("label", "terminal_title_stripped", "terminal_title"):
        value = pane.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:MAX_NAME]
    return _dir_name(pane)[:MAX_NAME]


def tab_name(tab: Mapping[str, Any], focused: Mapping[str, Any] | None) -> str:
    """What the tab bar shows for ``tab`` (``focused``: its focused pane's record)."""
    label = str(tab.get("label", ""))
    if label != str(tab.get("number", "")) or focused is None:
        return label  # named by someone: shown as it is
    agent = focused.get("display_agent") or focused.get("agent")
    if isinstance(agent, str) and agent:
        return agent[:MAX_NAME]
    return pane_title({**focused, "label": None}) or label

"""``ui.confirm_close``: what still runs in the panes a close would end (PURE).

A pane is busy when an agent runs in it or its foreground process group is not the
shell's own (``pane.process_info``: a shell is the leader of its group, so any other
group in the foreground is a program the user started — vim, top, a build). Closing
busy panes asks first; closing idle shells does not, as tmux users expect.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

Scope = Literal["pane", "tab", "workspace"]
MAX_NAMED = 3  # "vim, top, claude and 2 more"


def panes_in(doc_panes: Iterable[Mapping[str, Any]], scope: Scope, target: str) -> list[str]:
    """The pane ids a close of ``scope`` ``target`` ends."""
    key = {"pane": "pane_id", "tab": "tab_id", "workspace": "workspace_id"}[scope]
    return [str(p["pane_id"]) for p in doc_panes if p.get(key) == target]


def busy_label(record: Mapping[str, Any], info: Mapping[str, Any] | None) -> str | None:
    """What runs in one pane, or None for an idle shell (or a pane already gone)."""
    agent = record.get("display_agent") or record.get("agent")
    if isinstance(agent, str) and agent:
        return agent
    if info is None:
        return None
    shell, group = info.get("shell_pid"), info.get("foreground_process_group_id")
    if not isinstance(shell, int) or not isinstance(group, int) or group == shell:
        return None
    procs = info.get("foreground_processes")
    for proc in procs if isinstance(procs, list) else ():
        name = proc.get("name") if isinstance(proc, Mapping) else None
        if isinstance(name, str) and name:
            return name
    return "a program"


def question(scope: Scope, labels: list[str]) -> str:
    """``vim and claude are running`` (the prompt's text)."""
    named = labels[:MAX_NAMED]
    more = len(labels) - len(named)
    if more:
        text = f"{', '.join(named)} and {more} more"
    elif len(named) > 1:
        text = f"{', '.join(named[:-1])} and {named[-1]}"
    else:
        text = named[0] if named else "something"
    verb = "is" if len(labels) == 1 else "are"
    return f"{text} {verb} running in this {scope}"

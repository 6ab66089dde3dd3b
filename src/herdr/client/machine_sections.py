"""Other machines in the TUI: a sidebar section per saved machine, and ``prefix+m``'s
cycle order (PURE).

A section is built from the machine's ``session.snapshot`` (read over ``--machine``'s
ssh transport by :mod:`herdr.client.machines_probe`); the cycle goes local, then every
saved machine by name, then back to local.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from herdr.client.view import AgentStatus, MachineSection, WorkspaceView

_STATUSES: frozenset[str] = frozenset(("working", "blocked", "done", "idle", "unknown"))
MAX_NOTE = 60


def _status(value: Any) -> AgentStatus:
    return value if value in _STATUSES else "unknown"


def section_from_snapshot(name: str, snapshot: Any) -> MachineSection:
    """The machine's workspaces with their agent rollups and agent counts."""
    if not isinstance(snapshot, dict):
        return MachineSection(name, note="no snapshot")
    workspaces = [w for w in snapshot.get("workspaces") or () if isinstance(w, dict)]
    counts: dict[str, int] = {}
    for pane in snapshot.get("panes") or ():
        if isinstance(pane, dict) and pane.get("agent"):
            ws = str(pane.get("workspace_id"))
            counts[ws] = counts.get(ws, 0) + 1
    views = tuple(
        WorkspaceView(
            str(w.get("workspace_id", "")),
            str(w.get("label", "")),
            _status(w.get("agent_status")),
            counts.get(str(w.get("workspace_id")), 0),
            seen=w.get("agent_status") != "done",
        )
        for w in workspaces
    )
    return MachineSection(name, views, "" if views else "no workspaces")


def failed_section(name: str, code: str, message: str) -> MachineSection:
    """One line saying why the machine was not read."""
    words = {
        "machine_unreachable": "unreachable",
        "server_not_running": "no server",
        "remote_herdr_missing": "herdr missing",
        "timeout": "not answering",
    }
    note = words.get(code) or f"{code}: {message}"
    return MachineSection(name, note=" ".join(note.split())[:MAX_NOTE])


def next_machine(current: str | None, names: Sequence[str]) -> str | None:
    """The machine after ``current`` (``None`` = this computer) in local, then the
    saved names sorted, then local again. A current not saved (a typed target) is
    followed by the first saved name."""
    order: list[str | None] = [None, *sorted(names)]
    if current not in order:
        return order[1] if len(order) > 1 else None
    return order[(order.index(current) + 1) % len(order)]


def others(current: str | None, names: Sequence[str]) -> list[str]:
    """The saved machines the sidebar shows: all but the one this TUI is attached to."""
    return [n for n in sorted(names) if n != current]

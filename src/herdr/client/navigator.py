"""The session navigator (``prefix+g``): a filterable tree of the session (PURE).

session → workspaces → tabs → panes, each pane with its agent and state. Typing
filters: a row stays when its text holds the filter (case-insensitive) or when one of
its children does, so a match is always shown where it lives. Enter goes to the row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from herdr.api.attach_messages import StateDoc
from herdr.client.names import tab_name
from herdr.client.style import WORDS

EntryKind = Literal["session", "workspace", "tab", "pane"]


@dataclass(frozen=True, slots=True)
class Entry:
    kind: EntryKind
    target: str  # the workspace, tab or pane id ("" for the session)
    depth: int
    text: str
    parent: int | None = None  # index of the parent entry in the full list

    @property
    def line(self) -> str:
        return "  " * self.depth + self.text


def _pane_text(pane: Mapping[str, Any]) -> str:
    name = pane.get("label") or pane.get("terminal_title_stripped") or pane.get("title")
    if not name:
        cwd = pane.get("foreground_cwd") or pane.get("cwd") or ""
        name = str(cwd).rstrip("/").rsplit("/", 1)[-1] or str(cwd) or "shell"
    agent = pane.get("display_agent") or pane.get("agent")
    text = f"{name}"
    if agent:
        status = WORDS.get(str(pane.get("agent_status", "")), "")
        text += f"  · {agent}{f' {status}' if status else ''}"
    return f"{text}  [{pane.get('pane_id', '')}]"


def entries(doc: StateDoc | None, session: str) -> list[Entry]:
    """The whole tree in sidebar order."""
    out = [Entry("session", "", 0, f"session {session}")]
    if doc is None:
        return out
    records = {str(p["pane_id"]): p for p in doc.panes}
    for ws in doc.workspaces:
        ws_id = str(ws["workspace_id"])
        status = WORDS.get(str(ws.get("agent_status", "")), "")
        ws_index = len(out)
        label = str(ws.get("label") or ws_id)
        out.append(Entry("workspace", ws_id, 1, f"{label}{f'  · {status}' if status else ''}", 0))
        for tab in doc.tabs:
            if tab.get("workspace_id") != ws_id:
                continue
            tab_id = str(tab["tab_id"])
            tab_index = len(out)
            layout = doc.layouts.get(tab_id)
            focused = records.get(layout.focused_pane_id) if layout is not None else None
            out.append(Entry("tab", tab_id, 2, tab_name(tab, focused) or tab_id, ws_index))
            for pane in doc.panes:
                if pane.get("tab_id") == tab_id:
                    out.append(Entry("pane", str(pane["pane_id"]), 3, _pane_text(pane), tab_index))
    return out


def filtered(all_entries: Sequence[Entry], query: str) -> list[Entry]:
    """Rows matching ``query`` and their ancestors, in tree order."""
    needle = query.strip().casefold()
    if not needle:
        return list(all_entries)
    keep = set()
    for i, entry in enumerate(all_entries):
        if needle in entry.text.casefold():
            j: int | None = i
            while j is not None and j not in keep:
                keep.add(j)
                j = all_entries[j].parent
    return [e for i, e in enumerate(all_entries) if i in keep]


def first_match(shown: Sequence[Entry], query: str) -> int:
    """The row to select after typing: the first that matches itself (not an ancestor
    kept for context), deepest kinds win ties by order."""
    needle = query.strip().casefold()
    for i, entry in enumerate(shown):
        if entry.kind != "session" and needle in entry.text.casefold():
            return i
    return 0


def index_of(shown: Sequence[Entry], kind: EntryKind, target: str | None) -> int:
    for i, entry in enumerate(shown):
        if entry.kind == kind and entry.target == target:
            return i
    return 0

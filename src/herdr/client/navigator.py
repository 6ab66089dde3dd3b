"""The session navigator (``prefix+g``): a filterable tree of every session (PURE).

sessions → workspaces → tabs → panes, each pane with its agent and state: the attached
session first (from the attach stream's state), then the other sessions from their
``session.snapshot`` (:mod:`herdr.client.sessions_probe`), a stopped one as a single
row. Typing filters: a row stays when its text holds the filter (case-insensitive) or
when one of its children does, so a match is always shown where it lives. Enter goes to
the row (another session's row switches the TUI to that session).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from msgspec import Struct

from herdr.api.attach_messages import Record, StateDoc
from herdr.client.names import tab_name
from herdr.client.style import WORDS

EntryKind = Literal["session", "workspace", "tab", "pane"]


class Entry(Struct, frozen=True):
    kind: EntryKind
    target: str  # the workspace, tab or pane id ("" for the session)
    depth: int
    text: str
    parent: int | None = None  # index of the parent entry in the full list
    session: str | None = None  # another session's name (None: the attached one)

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


class OtherSession(Struct, frozen=True):
    """Another session as the probe found it: its snapshot, or why there is none."""

    name: str
    snapshot: Mapping[str, Any] | None = None  # session.snapshot's ``snapshot``
    note: str = "stopped"  # shown when there is no snapshot


def entries(doc: StateDoc | None, session: str, others: Sequence[OtherSession] = ()) -> list[Entry]:
    """The whole tree in sidebar order: this session, then the others by name."""
    out = [Entry("session", "", 0, f"session {session}")]
    if doc is not None:
        focused: dict[str, Any] = {t: lay.focused_pane_id for t, lay in doc.layouts.items()}
        _tree(
            out,
            0,
            session=None,
            workspaces=doc.workspaces,
            tabs=doc.tabs,
            panes=doc.panes,
            focused_of=focused,
        )
    for other in others:
        snap = other.snapshot
        note = "" if snap is not None else f"  · {other.note}"
        at = len(out)
        out.append(Entry("session", "", 0, f"session {other.name}{note}", None, other.name))
        if snap is not None:
            focused = {
                str(layout.get("tab_id")): layout.get("focused_pane_id")
                for layout in _records(snap.get("layouts"))
            }
            _tree(
                out,
                at,
                session=other.name,
                workspaces=_records(snap.get("workspaces")),
                tabs=_records(snap.get("tabs")),
                panes=_records(snap.get("panes")),
                focused_of=focused,
            )
    return out


def _records(value: object) -> list[Record]:
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def _tree(
    out: list[Entry],
    root: int,
    *,
    session: str | None,
    workspaces: Sequence[Record],
    tabs: Sequence[Record],
    panes: Sequence[Record],
    focused_of: Mapping[str, Any],
) -> None:
    records = {str(p.get("pane_id")): p for p in panes}
    for ws in workspaces:
        ws_id = str(ws.get("workspace_id"))
        status = WORDS.get(str(ws.get("agent_status", "")), "")
        ws_index = len(out)
        label = str(ws.get("label") or ws_id)
        text = f"{label}{f'  · {status}' if status else ''}"
        out.append(Entry("workspace", ws_id, 1, text, root, session))
        for tab in tabs:
            if tab.get("workspace_id") != ws_id:
                continue
            tab_id = str(tab.get("tab_id"))
            tab_index = len(out)
            focused = records.get(str(focused_of.get(tab_id)))
            out.append(Entry("tab", tab_id, 2, tab_name(tab, focused) or tab_id, ws_index, session))
            for pane in panes:
                if pane.get("tab_id") == tab_id:
                    pane_id = str(pane.get("pane_id"))
                    out.append(Entry("pane", pane_id, 3, _pane_text(pane), tab_index, session))


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
        if entry.kind == kind and entry.target == target and entry.session is None:
            return i
    return 0

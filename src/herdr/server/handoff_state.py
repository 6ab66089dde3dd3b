"""The live-handoff document (PURE): everything a new server needs to adopt a running one.

The old server captures it on its loop; the new one decodes it before it touches a
single PTY. It is versioned (`HANDOFF_VERSION`): a document of another version is
refused with `HandoffFormatError`, and then the old server keeps everything.

What it holds: the session model (workspaces, tabs, layout trees, focus, numbering,
aliases of moved panes), per terminal its child pid and process group, size, argv,
cwd, a replayable byte snapshot of the emulator (`Emulator.replay_snapshot`: screen +
scrollback + modes), the title/OSC state, and the agent arbitration state (identity,
authority, session, metadata, seen); the workspace metadata; the event log's
sequence counter and the logged events (so ``since_seq`` resumes on the new server).
Short ids need nothing: they are derived from the model.

The agent states and workspace metadata are nested dataclasses of the runtime; they
travel pickled (`agent_blob`), which is safe here because the document only ever
comes from our own parent process over an inherited socketpair, and tied to the
document version: a new herdr that cannot unpickle them starts those panes with a
fresh agent state (recorded as the pane's ``restore_error``), never with a guess.
"""

from __future__ import annotations

import base64
import binascii
import json
import pickle
from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import Struct

from herdr.runtime import layout as lay
from herdr.runtime.model import Pane, Session, Tab, Workspace, WorktreeMembership

HANDOFF_VERSION = 1
KIND = "herdr.live_handoff"


class HandoffFormatError(ValueError):
    """The document is not one this herdr can adopt (wrong version, malformed)."""


class PaneState(Struct, frozen=True):
    """One terminal as the new server must rebuild it."""

    terminal_id: str
    pid: int
    pgid: int | None
    cols: int
    rows: int
    argv: tuple[str, ...]
    cwd: str | None
    screen: bytes  # Emulator.replay_snapshot()
    terminal_title: str = ""
    osc_title: str = ""
    osc_progress: str = ""
    modify_other_keys: int = 0
    restore_error: str | None = None
    agent_blob: bytes | None = None  # pickled agent state + detection loop (handoff_old)
    revision: int = 0  # PaneInfo.revision continues (content_revision checks stay valid)


class LoggedEvent(Struct, frozen=True):
    seq: int
    kind: str
    data: dict[str, Any]


class HandoffDoc(Struct, frozen=True):
    """The whole handoff; ``panes`` are in the order their PTY fds were sent."""

    protocol: int
    herdr_version: str
    old_pid: int
    session: dict[str, Any]  # session_to_json()
    panes: tuple[PaneState, ...] = ()
    last_seq: int = 0
    evicted_upto: int = 0
    events: tuple[LoggedEvent, ...] = ()
    workspace_meta_blob: bytes | None = None
    version: int = HANDOFF_VERSION
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


# --------------------------------------------------------------------------- model


def _node_json(node: lay.Node[int]) -> dict[str, Any]:
    if isinstance(node, lay.Leaf):
        return {"leaf": node.key}
    return {
        "split": {
            "direction": node.direction,
            "ratio": node.ratio,
            "first": _node_json(node.first),
            "second": _node_json(node.second),
        }
    }


def _node(raw: Any, depth: int = 0) -> lay.Node[int]:
    if depth > 256 or not isinstance(raw, dict):
        raise HandoffFormatError("layout: expected a leaf or a split")
    if "leaf" in raw:
        return lay.Leaf(int(raw["leaf"]))
    split = raw["split"]
    direction = split["direction"]
    if direction not in lay.SPLIT_DIRECTIONS:
        raise HandoffFormatError(f"layout: unknown split direction {direction!r}")
    return lay.Split(
        direction,
        float(split["ratio"]),
        _node(split["first"], depth + 1),
        _node(split["second"], depth + 1),
    )


def _pane_json(pane: Pane) -> dict[str, Any]:
    return {
        "key": pane.key,
        "number": pane.number,
        "terminal_id": pane.terminal_id,
        "cwd": pane.cwd,
        "label": pane.label,
        "command": pane.command,
        "env": dict(pane.env),
        "foreground_cwd": pane.foreground_cwd,
    }


def _pane(raw: Mapping[str, Any]) -> Pane:
    command = raw.get("command")
    return Pane(
        key=int(raw["key"]),
        number=int(raw["number"]),
        terminal_id=str(raw["terminal_id"]),
        cwd=raw.get("cwd"),
        label=raw.get("label"),
        command=None if command is None else [str(a) for a in command],
        env={str(k): str(v) for k, v in dict(raw.get("env") or {}).items()},
        foreground_cwd=raw.get("foreground_cwd"),
    )


def _tab_json(tab: Tab) -> dict[str, Any]:
    return {
        "number": tab.number,
        "root": _node_json(tab.root),
        "panes": [_pane_json(p) for p in tab.panes.values()],
        "focused": tab.focused,
        "root_pane": tab.root_pane,
        "label": tab.label,
        "zoomed": tab.zoomed,
        "prev_focus": tab.prev_focus,
    }


def _tab(raw: Mapping[str, Any]) -> Tab:
    panes = [_pane(p) for p in raw["panes"]]
    tab = Tab(
        number=int(raw["number"]),
        root=_node(raw["root"]),
        panes={p.key: p for p in panes},
        focused=int(raw["focused"]),
        root_pane=int(raw["root_pane"]),
        label=raw.get("label"),
        zoomed=bool(raw.get("zoomed", False)),
        prev_focus=raw.get("prev_focus"),
    )
    if sorted(lay.leaves(tab.root)) != sorted(tab.panes):
        raise HandoffFormatError(f"tab {tab.number}: layout and panes disagree")
    return tab


def _ws_json(ws: Workspace) -> dict[str, Any]:
    return {
        "number": ws.number,
        "identity_cwd": ws.identity_cwd,
        "tabs": [_tab_json(t) for t in ws.tabs],
        "active_tab": ws.active_tab,
        "next_tab_number": ws.next_tab_number,
        "next_pane_number": ws.next_pane_number,
        "label": ws.label,
        "worktree": None if ws.worktree is None else ws.worktree.record(),
    }


def _ws(raw: Mapping[str, Any]) -> Workspace:
    tree = raw.get("worktree")
    return Workspace(
        number=int(raw["number"]),
        identity_cwd=str(raw["identity_cwd"]),
        tabs=[_tab(t) for t in raw["tabs"]],
        active_tab=int(raw["active_tab"]),
        next_tab_number=int(raw["next_tab_number"]),
        next_pane_number=int(raw["next_pane_number"]),
        label=raw.get("label"),
        worktree=None if tree is None else WorktreeMembership(**tree),
    )


def session_to_json(session: Session) -> dict[str, Any]:
    area = session.area
    return {
        "workspaces": [_ws_json(ws) for ws in session.workspaces],
        "active_workspace": session.active_workspace,
        "next_workspace_number": session.next_workspace_number,
        "next_pane_key": session.next_pane_key,
        "next_terminal_serial": session.next_terminal_serial,
        "aliases": dict(session.aliases),
        "area": [area.x, area.y, area.width, area.height],
    }


def session_from_json(raw: Mapping[str, Any]) -> Session:
    """The model as it was (indexes rebuilt); `HandoffFormatError` when malformed."""
    try:
        x, y, width, height = (int(v) for v in raw["area"])
        return Session(
            workspaces=[_ws(w) for w in raw["workspaces"]],
            active_workspace=raw.get("active_workspace"),
            next_workspace_number=int(raw["next_workspace_number"]),
            next_pane_key=int(raw["next_pane_key"]),
            next_terminal_serial=int(raw["next_terminal_serial"]),
            aliases={str(k): int(v) for k, v in dict(raw.get("aliases") or {}).items()},
            area=lay.Rect(x, y, width, height),
        )
    except HandoffFormatError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise HandoffFormatError(f"session model: {err!r}") from err


# --------------------------------------------------------------------------- blobs


def pack(obj: object) -> bytes:
    """A runtime dataclass as bytes (see the module docstring for why pickle is safe)."""
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(blob: bytes) -> object:
    return pickle.loads(blob)  # only from our own parent (see the module docstring)


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: object) -> bytes | None:
    if text is None:
        return None
    if not isinstance(text, str):
        raise HandoffFormatError("expected base64 text")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as err:
        raise HandoffFormatError(f"bad base64: {err}") from err


# --------------------------------------------------------------------------- document


def _pane_state_json(p: PaneState) -> dict[str, Any]:
    return {
        "terminal_id": p.terminal_id,
        "pid": p.pid,
        "pgid": p.pgid,
        "cols": p.cols,
        "rows": p.rows,
        "argv": list(p.argv),
        "cwd": p.cwd,
        "screen": _b64(p.screen),
        "terminal_title": p.terminal_title,
        "osc_title": p.osc_title,
        "osc_progress": p.osc_progress,
        "modify_other_keys": p.modify_other_keys,
        "restore_error": p.restore_error,
        "agent_blob": _b64(p.agent_blob),
        "revision": p.revision,
    }


def _pane_state(raw: Mapping[str, Any]) -> PaneState:
    return PaneState(
        terminal_id=str(raw["terminal_id"]),
        pid=int(raw["pid"]),
        pgid=None if raw.get("pgid") is None else int(raw["pgid"]),
        cols=int(raw["cols"]),
        rows=int(raw["rows"]),
        argv=tuple(str(a) for a in raw["argv"]),
        cwd=raw.get("cwd"),
        screen=_unb64(raw["screen"]) or b"",
        terminal_title=str(raw.get("terminal_title", "")),
        osc_title=str(raw.get("osc_title", "")),
        osc_progress=str(raw.get("osc_progress", "")),
        modify_other_keys=int(raw.get("modify_other_keys", 0)),
        restore_error=raw.get("restore_error"),
        agent_blob=_unb64(raw.get("agent_blob")),
        revision=int(raw.get("revision", 0)),
    )


def to_json(doc: HandoffDoc) -> dict[str, Any]:
    return {
        "kind": KIND,
        "version": doc.version,
        "protocol": doc.protocol,
        "herdr_version": doc.herdr_version,
        "old_pid": doc.old_pid,
        "session": doc.session,
        "panes": [_pane_state_json(p) for p in doc.panes],
        "last_seq": doc.last_seq,
        "evicted_upto": doc.evicted_upto,
        "events": [{"seq": e.seq, "kind": e.kind, "data": e.data} for e in doc.events],
        "workspace_meta_blob": _b64(doc.workspace_meta_blob),
        "extra": doc.extra,
    }


def from_json(raw: object) -> HandoffDoc:
    """Check kind and version first: nothing else is read from a foreign document."""
    if not isinstance(raw, dict) or raw.get("kind") != KIND:
        raise HandoffFormatError("not a herdr live-handoff document")
    if raw.get("version") != HANDOFF_VERSION:
        raise HandoffFormatError(
            f"handoff document version {raw.get('version')!r}; this herdr adopts "
            f"version {HANDOFF_VERSION}"
        )
    try:
        return HandoffDoc(
            protocol=int(raw["protocol"]),
            herdr_version=str(raw["herdr_version"]),
            old_pid=int(raw["old_pid"]),
            session=dict(raw["session"]),
            panes=tuple(_pane_state(p) for p in raw["panes"]),
            last_seq=int(raw["last_seq"]),
            evicted_upto=int(raw.get("evicted_upto", 0)),
            events=tuple(
                LoggedEvent(int(e["seq"]), str(e["kind"]), dict(e["data"])) for e in raw["events"]
            ),
            workspace_meta_blob=_unb64(raw.get("workspace_meta_blob")),
            extra=dict(raw.get("extra") or {}),
        )
    except HandoffFormatError:
        raise
    except (KeyError, TypeError, ValueError) as err:
        raise HandoffFormatError(f"handoff document: {err!r}") from err


def encode(doc: HandoffDoc) -> bytes:
    return json.dumps(to_json(doc), separators=(",", ":")).encode()


def decode(data: bytes) -> HandoffDoc:
    try:
        raw = json.loads(data)
    except (UnicodeDecodeError, ValueError) as err:
        raise HandoffFormatError(f"handoff document is not JSON: {err}") from err
    return from_json(raw)

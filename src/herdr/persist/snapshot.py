"""PURE ``session.json`` schema: typed snapshot values and their strict JSON form.

The shape follows herdr's own file (herdr-spec §6) so the field names mean the same
thing to anyone who knows it; the version number is ours. Decoding is all-or-nothing:
a document either yields a complete, internally consistent `SessionSnapshot` or raises
`SnapshotFormatError` naming the JSON path of the first problem, or
`SnapshotVersionError` when a newer herdr wrote it. `encode` runs the same checks, so
we never write a file that we would refuse to read back.

Document (version 1)::

    {"version": 1,
     "workspaces": [{"id": "w1", "custom_name": null, "identity_cwd": "/src",
                     "public_pane_numbers": {"7": 1}, "next_public_pane_number": 2,
                     "public_tab_numbers": [1], "next_public_tab_number": 2,
                     "tabs": [{"custom_name": null, "layout": {"Pane": 7},
                               "panes": {"7": {"cwd": "/src"}},
                               "zoomed": false, "focused": 7, "root_pane": 7}],
                     "active_tab": 0}],
     "active": 0, "selected": 0, "next_workspace_number": 2}

Pane keys (``7`` above) are the session-wide internal pane keys at save time; they
only link layout leaves, ``panes`` and ``public_pane_numbers`` inside one file. The
public ids that scripts see are ``id`` plus the public tab/pane numbers.
``{"Split": {"direction": "Horizontal" | "Vertical", "ratio", "first", "second"}}``
is a split; ``Horizontal`` = side by side (our ``right``), ``Vertical`` = stacked
(our ``down``). ``active``/``active_tab``/``selected`` are indexes.
``next_workspace_number`` is our addition (so a closed workspace's number is not
reused after a restart); readers without it derive it from the workspace ids.
Unknown members are ignored: adding an optional member does not bump the version;
renaming, removing or changing the meaning of one does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import orjson
from msgspec import Struct

from herdr.persist import _reader as r
from herdr.persist.errors import SnapshotFormatError, SnapshotVersionError
from herdr.runtime import ids
from herdr.runtime.agent_state import AgentSession, SessionRef
from herdr.runtime.layout import Leaf, Node, Split, SplitDirection

SNAPSHOT_VERSION = 1
MAX_LAYOUT_DEPTH = 128  # far beyond any usable split tree; bounds decoder recursion

_DIRECTION_TO_JSON: dict[SplitDirection, str] = {"right": "Horizontal", "down": "Vertical"}
_DIRECTION_FROM_JSON: dict[str, SplitDirection] = {v: k for k, v in _DIRECTION_TO_JSON.items()}
_REF_KINDS: dict[str, Literal["id", "path"]] = {"id": "id", "path": "path"}


# --------------------------------------------------------------------------- values


class PaneSnapshot(Struct, frozen=True):
    """One pane: where its shell starts and which agent session it can resume."""

    cwd: str
    label: str | None = None
    agent_name: str | None = None
    managed_agent_kind: str | None = None
    agent_session: AgentSession | None = None
    launch_argv: tuple[str, ...] | None = None


class TabSnapshot(Struct, frozen=True):
    """A tab's split tree; leaves and `panes` keys are internal pane keys."""

    layout: Node[int]
    panes: Mapping[int, PaneSnapshot]
    custom_name: str | None = None
    zoomed: bool = False
    focused: int | None = None
    root_pane: int | None = None


class WorktreeSpaceSnapshot(Struct, frozen=True):
    """A workspace's git worktree membership (herdr's ``worktree_space``)."""

    key: str
    label: str
    repo_root: str
    checkout_path: str
    is_linked_worktree: bool


class WorkspaceSnapshot(Struct, frozen=True):
    """A workspace with its public id and per-workspace number counters."""

    id: str
    identity_cwd: str
    tabs: tuple[TabSnapshot, ...]
    public_pane_numbers: Mapping[int, int]  # internal pane key -> public pane number
    public_tab_numbers: tuple[int, ...]  # public tab number of each tab, in order
    next_public_pane_number: int
    next_public_tab_number: int
    custom_name: str | None = None
    active_tab: int = 0  # index into `tabs`
    worktree_space: WorktreeSpaceSnapshot | None = None

    @property
    def number(self) -> int:
        """The workspace's public number (``w3`` -> 3)."""
        number = ids.parse_workspace_id(self.id)
        assert number is not None, self.id  # guaranteed by decode/encode validation
        return number


class SessionSnapshot(Struct, frozen=True):
    """Everything `session.json` holds."""

    workspaces: tuple[WorkspaceSnapshot, ...] = ()
    active: int | None = None  # index of the active workspace
    selected: int = 0  # sidebar selection index (kept for herdr compatibility)
    next_workspace_number: int | None = None  # None: one past the highest id

    def workspace_counter(self) -> int:
        """The next workspace number to issue: never one that a saved workspace has."""
        top = max((ws.number for ws in self.workspaces), default=0)
        return max(self.next_workspace_number or 1, top + 1)


# --------------------------------------------------------------------------- encode


def encode(snapshot: SessionSnapshot) -> bytes:
    """Serialize to indented UTF-8 JSON; raises `SnapshotFormatError` for an invalid
    snapshot (a bug in the caller) instead of writing a file we could not load."""
    doc = to_json(snapshot)
    _decode_doc(doc)  # the reader is the single definition of "valid"
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def to_json(snapshot: SessionSnapshot) -> dict[str, object]:
    """The JSON object model of a snapshot (no validation)."""
    doc: dict[str, object] = {
        "version": SNAPSHOT_VERSION,
        "workspaces": [_ws_json(ws) for ws in snapshot.workspaces],
        "active": snapshot.active,
        "selected": snapshot.selected,
    }
    if snapshot.next_workspace_number is not None:
        doc["next_workspace_number"] = snapshot.next_workspace_number
    return doc


def _ws_json(ws: WorkspaceSnapshot) -> dict[str, object]:
    doc: dict[str, object] = {
        "id": ws.id,
        "custom_name": _clean(ws.custom_name),
        "identity_cwd": _clean(ws.identity_cwd),
        "public_pane_numbers": {str(k): v for k, v in sorted(ws.public_pane_numbers.items())},
        "next_public_pane_number": ws.next_public_pane_number,
        "public_tab_numbers": list(ws.public_tab_numbers),
        "next_public_tab_number": ws.next_public_tab_number,
        "tabs": [_tab_json(tab) for tab in ws.tabs],
        "active_tab": ws.active_tab,
    }
    space = ws.worktree_space
    if space is not None:
        doc["worktree_space"] = {
            "key": _clean(space.key),
            "label": _clean(space.label),
            "repo_root": _clean(space.repo_root),
            "checkout_path": _clean(space.checkout_path),
            "is_linked_worktree": space.is_linked_worktree,
        }
    return doc


def _tab_json(tab: TabSnapshot) -> dict[str, object]:
    return {
        "custom_name": _clean(tab.custom_name),
        "layout": _layout_json(tab.layout),
        "panes": {str(k): _pane_json(p) for k, p in sorted(tab.panes.items())},
        "zoomed": tab.zoomed,
        "focused": tab.focused,
        "root_pane": tab.root_pane,
    }


def _layout_json(node: Node[int]) -> dict[str, object]:
    if isinstance(node, Leaf):
        return {"Pane": node.key}
    return {
        "Split": {
            "direction": _DIRECTION_TO_JSON[node.direction],
            "ratio": node.ratio,
            "first": _layout_json(node.first),
            "second": _layout_json(node.second),
        }
    }


def _pane_json(pane: PaneSnapshot) -> dict[str, object]:
    doc: dict[str, object] = {"cwd": _clean(pane.cwd)}
    if pane.label is not None:
        doc["label"] = _clean(pane.label)
    if pane.agent_name is not None:
        doc["agent_name"] = _clean(pane.agent_name)
    if pane.managed_agent_kind is not None:
        doc["managed_agent_kind"] = _clean(pane.managed_agent_kind)
    if pane.agent_session is not None:
        s = pane.agent_session
        doc["agent_session"] = {
            "source": _clean(s.source),
            "agent": _clean(s.agent),
            "kind": s.ref.kind,
            "value": _clean(s.ref.value),
        }
    if pane.launch_argv is not None:
        doc["launch_argv"] = [_clean(arg) for arg in pane.launch_argv]
    return doc


def _clean(text: str | None) -> str | None:
    """Lone surrogates (undecodable path bytes, ``"\\ud800"`` from a client) cannot be
    written as UTF-8; replace them rather than fail every save from now on."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


# --------------------------------------------------------------------------- decode


def decode(data: bytes | str) -> SessionSnapshot:
    """Parse and validate a whole document; nothing partial ever comes back."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise SnapshotFormatError("$", f"not valid JSON: {err}") from None
    return _decode_doc(raw)


def check_version(raw: object, supported: int, what: str) -> None:
    """Refuse newer documents before looking at anything else: their shape may differ."""
    doc = r.obj(raw, "$")
    version = r.integer(r.field(doc, "version", "$"), "$.version")
    if version > supported:
        raise SnapshotVersionError(version, supported, what)
    if version < 1:
        r.fail("$.version", f"unsupported version {version}")


def _decode_doc(raw: object) -> SessionSnapshot:
    check_version(raw, SNAPSHOT_VERSION, "session snapshot")
    doc = r.obj(raw, "$")
    items = r.lst(r.field(doc, "workspaces", "$"), "$.workspaces")
    workspaces = tuple(
        _decode_ws(item, r.index_path("$.workspaces", i)) for i, item in enumerate(items)
    )
    _check_unique_ids(workspaces)
    active = r.opt_integer(doc.get("active"), "$.active")
    if active is not None and active >= len(workspaces):
        r.fail("$.active", f"index {active} is out of range ({len(workspaces)} workspaces)")
    selected = r.integer(doc.get("selected", 0), "$.selected")
    if selected >= max(1, len(workspaces)):
        r.fail("$.selected", f"index {selected} is out of range ({len(workspaces)} workspaces)")
    counter = r.opt_integer(doc.get("next_workspace_number"), "$.next_workspace_number", minimum=1)
    top = max((ws.number for ws in workspaces), default=0)
    if counter is not None and counter <= top:
        r.fail(
            "$.next_workspace_number", f"must be greater than the highest workspace number {top}"
        )
    return SessionSnapshot(workspaces, active, selected, counter)


def _check_unique_ids(workspaces: tuple[WorkspaceSnapshot, ...]) -> None:
    seen_ws: set[str] = set()
    seen_keys: set[int] = set()
    for i, ws in enumerate(workspaces):
        path = r.index_path("$.workspaces", i)
        if ws.id in seen_ws:
            r.fail(f"{path}.id", f"duplicate workspace id {ws.id}")
        seen_ws.add(ws.id)
        keys = set(ws.public_pane_numbers)
        if seen_keys & keys:
            dup = min(seen_keys & keys)
            r.fail(f"{path}.public_pane_numbers", f"pane key {dup} is used by another workspace")
        seen_keys |= keys


def _decode_ws(raw: object, path: str) -> WorkspaceSnapshot:
    doc = r.obj(raw, path)
    ws_id = r.string(r.field(doc, "id", path), f"{path}.id")
    if ids.parse_workspace_id(ws_id) is None:
        r.fail(f"{path}.id", f"not a canonical workspace id: {ws_id!r}")
    custom_name = r.opt_string(doc.get("custom_name"), f"{path}.custom_name")
    identity_cwd = r.string(
        r.field(doc, "identity_cwd", path), f"{path}.identity_cwd", nonempty=True
    )
    tab_items = r.lst(r.field(doc, "tabs", path), f"{path}.tabs")
    if not tab_items:
        r.fail(f"{path}.tabs", "a workspace needs at least one tab")
    tabs = tuple(
        _decode_tab(item, r.index_path(f"{path}.tabs", i)) for i, item in enumerate(tab_items)
    )
    tab_numbers = _decode_tab_numbers(doc, path, len(tabs))
    next_tab = r.integer(
        r.field(doc, "next_public_tab_number", path), f"{path}.next_public_tab_number", minimum=1
    )
    if next_tab <= max(tab_numbers):
        r.fail(f"{path}.next_public_tab_number", f"must be greater than {max(tab_numbers)}")
    pane_numbers = _decode_pane_numbers(doc, path, tabs)
    next_pane = r.integer(
        r.field(doc, "next_public_pane_number", path), f"{path}.next_public_pane_number", minimum=1
    )
    top_pane = max(pane_numbers.values())
    if next_pane <= top_pane:
        r.fail(f"{path}.next_public_pane_number", f"must be greater than {top_pane}")
    active_tab = r.integer(r.field(doc, "active_tab", path), f"{path}.active_tab")
    if active_tab >= len(tabs):
        r.fail(f"{path}.active_tab", f"index {active_tab} is out of range ({len(tabs)} tabs)")
    return WorkspaceSnapshot(
        ws_id,
        identity_cwd,
        tabs,
        pane_numbers,
        tab_numbers,
        next_pane,
        next_tab,
        custom_name,
        active_tab,
        _decode_worktree_space(doc.get("worktree_space")),
    )


def _decode_worktree_space(raw: object) -> WorktreeSpaceSnapshot | None:
    """Lenient: a membership of another shape (another herdr's file) is dropped, not an
    error; the workspace is restored as a plain one."""
    if not isinstance(raw, dict):
        return None
    texts = [raw.get(name) for name in ("key", "label", "repo_root", "checkout_path")]
    linked = raw.get("is_linked_worktree")
    if not all(isinstance(t, str) and t for t in texts) or not isinstance(linked, bool):
        return None
    key, label, repo_root, checkout_path = (str(t) for t in texts)
    return WorktreeSpaceSnapshot(key, label, repo_root, checkout_path, linked)


def _decode_tab_numbers(doc: dict[str, object], path: str, count: int) -> tuple[int, ...]:
    where = f"{path}.public_tab_numbers"
    items = r.lst(r.field(doc, "public_tab_numbers", path), where)
    if len(items) != count:
        r.fail(where, f"has {len(items)} entries for {count} tabs")
    numbers = tuple(r.integer(v, r.index_path(where, i), minimum=1) for i, v in enumerate(items))
    if len(set(numbers)) != len(numbers):
        r.fail(where, "tab numbers must be unique")
    return numbers


def _decode_pane_numbers(
    doc: dict[str, object], path: str, tabs: tuple[TabSnapshot, ...]
) -> dict[int, int]:
    where = f"{path}.public_pane_numbers"
    raw = r.obj(r.field(doc, "public_pane_numbers", path), where)
    numbers = {
        r.int_key(k, where): r.integer(v, r.key_path(where, k), minimum=1) for k, v in raw.items()
    }
    keys: set[int] = set()
    for i, tab in enumerate(tabs):
        tab_keys = set(tab.panes)
        if keys & tab_keys:
            r.fail(f"{path}.tabs[{i}].panes", f"pane key {min(keys & tab_keys)} is in two tabs")
        keys |= tab_keys
    if set(numbers) != keys:
        odd = sorted(set(numbers) ^ keys)[0]
        r.fail(where, f"pane key {odd} must appear both here and in exactly one tab")
    if len(set(numbers.values())) != len(numbers):
        r.fail(where, "public pane numbers must be unique")
    return numbers


def _decode_tab(raw: object, path: str) -> TabSnapshot:
    doc = r.obj(raw, path)
    custom_name = r.opt_string(doc.get("custom_name"), f"{path}.custom_name")
    layout = _decode_layout(r.field(doc, "layout", path), f"{path}.layout", 1)
    order = _leaf_keys(layout)
    if len(set(order)) != len(order):
        r.fail(f"{path}.layout", "a pane appears twice in the layout")
    where = f"{path}.panes"
    raw_panes = r.obj(r.field(doc, "panes", path), where)
    panes = {
        r.int_key(k, where): _decode_pane(v, r.key_path(where, k)) for k, v in raw_panes.items()
    }
    if set(panes) != set(order):
        odd = sorted(set(panes) ^ set(order))[0]
        r.fail(where, f"pane key {odd} must appear both here and in the layout")
    zoomed = r.boolean(r.field(doc, "zoomed", path), f"{path}.zoomed")
    focused = r.opt_integer(doc.get("focused"), f"{path}.focused")
    if focused is not None and focused not in panes:
        r.fail(f"{path}.focused", f"pane key {focused} is not in this tab")
    root_pane = r.opt_integer(doc.get("root_pane"), f"{path}.root_pane")
    if root_pane is not None and root_pane not in panes:
        r.fail(f"{path}.root_pane", f"pane key {root_pane} is not in this tab")
    return TabSnapshot(layout, panes, custom_name, zoomed, focused, root_pane)


def _decode_layout(raw: object, path: str, depth: int) -> Node[int]:
    if depth > MAX_LAYOUT_DEPTH:
        r.fail(path, f"layout is nested deeper than {MAX_LAYOUT_DEPTH}")
    doc = r.obj(raw, path)
    if len(doc) != 1 or not ({"Pane", "Split"} >= doc.keys()):
        r.fail(path, 'expected exactly one of {"Pane": key} or {"Split": {...}}')
    if "Pane" in doc:
        return Leaf(r.integer(doc["Pane"], f"{path}.Pane"))
    spath = f"{path}.Split"
    split = r.obj(doc["Split"], spath)
    direction_raw = r.string(r.field(split, "direction", spath), f"{spath}.direction")
    direction = _DIRECTION_FROM_JSON.get(direction_raw)
    if direction is None:
        r.fail(f"{spath}.direction", f"expected Horizontal or Vertical, got {direction_raw!r}")
    ratio = r.number(r.field(split, "ratio", spath), f"{spath}.ratio")
    if not 0.0 < ratio < 1.0:
        r.fail(f"{spath}.ratio", f"must be between 0 and 1, got {ratio}")
    first = _decode_layout(r.field(split, "first", spath), f"{spath}.first", depth + 1)
    second = _decode_layout(r.field(split, "second", spath), f"{spath}.second", depth + 1)
    return Split(direction, ratio, first, second)


def _leaf_keys(node: Node[int]) -> list[int]:
    out: list[int] = []
    stack: list[Node[int]] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, Leaf):
            out.append(cur.key)
        else:
            stack.extend((cur.second, cur.first))
    return out


def _decode_pane(raw: object, path: str) -> PaneSnapshot:
    doc = r.obj(raw, path)
    cwd = r.string(r.field(doc, "cwd", path), f"{path}.cwd", nonempty=True)
    session_raw = doc.get("agent_session")
    argv_raw = doc.get("launch_argv")
    argv: tuple[str, ...] | None = None
    if argv_raw is not None:
        where = f"{path}.launch_argv"
        argv = tuple(
            r.string(a, r.index_path(where, i)) for i, a in enumerate(r.lst(argv_raw, where))
        )
    return PaneSnapshot(
        cwd,
        r.opt_string(doc.get("label"), f"{path}.label"),
        r.opt_string(doc.get("agent_name"), f"{path}.agent_name"),
        r.opt_string(doc.get("managed_agent_kind"), f"{path}.managed_agent_kind"),
        None if session_raw is None else _decode_session(session_raw, f"{path}.agent_session"),
        argv,
    )


def _decode_session(raw: object, path: str) -> AgentSession:
    """Shape only: whether the reference is usable is `resume`'s decision at restore."""
    doc = r.obj(raw, path)
    kind_raw = r.string(r.field(doc, "kind", path), f"{path}.kind")
    kind = _REF_KINDS.get(kind_raw)
    if kind is None:
        r.fail(f"{path}.kind", f"expected id or path, got {kind_raw!r}")
    return AgentSession(
        r.string(r.field(doc, "source", path), f"{path}.source", nonempty=True),
        r.string(r.field(doc, "agent", path), f"{path}.agent", nonempty=True),
        SessionRef(kind, r.string(r.field(doc, "value", path), f"{path}.value")),
    )

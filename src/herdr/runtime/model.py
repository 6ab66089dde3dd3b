"""PURE session model: session -> ordered workspaces -> ordered tabs -> split tree of panes.

The server owns one `Session`. Every operation validates first and raises
`ModelError(code, message)` (spec §3.6 codes) before changing anything, so a failed
request leaves the model exactly as it was. Nothing here does I/O or touches asyncio:
terminal ids come from a caller-provided factory (or a deterministic counter), the
screen area is a plain value, and agent state is passed in by the caller when records
are built.

Identity (spec §1.2): a pane has a session-wide internal `key` (stable across moves,
also the `raw` of legacy `p_<ws>_<raw>` ids) and a public `number` inside its
workspace. Workspace numbers are global and monotonic; tab and pane numbers are per
workspace, monotonic and never reused. Moving a pane to another workspace gives it a
new number there; its previous public id stays an alias of the same pane.
"""

from __future__ import annotations

import math
import posixpath
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, TypeAlias, TypeVar

from herdr.runtime import ids
from herdr.runtime import layout as lay
from herdr.runtime.layout import Direction, Leaf, Node, Rect, Split, SplitDirection

AgentStatus = Literal["idle", "working", "blocked", "done", "unknown"]
ZoomMode = Literal["toggle", "on", "off"]
T = TypeVar("T")
StatusOf: TypeAlias = Callable[["Pane"], AgentStatus]
Record: TypeAlias = dict[str, object]

# Error codes used here (spec §3.6).
WORKSPACE_NOT_FOUND = "workspace_not_found"
TAB_NOT_FOUND = "tab_not_found"
PANE_NOT_FOUND = "pane_not_found"
TARGET_PANE_NOT_FOUND = "target_pane_not_found"
LAYOUT_NOT_FOUND = "layout_not_found"
SPLIT_NOT_FOUND = "split_not_found"
INVALID_PARAMS = "invalid_params"
INVALID_RATIO = "invalid_ratio"
INVALID_ENV = "invalid_env"
INVALID_LAYOUT = "invalid_layout"
INVALID_TARGET = "invalid_target"

DEFAULT_AREA = Rect(0, 0, 120, 40)  # headless size, spec §1.1
DEFAULT_RESIZE_AMOUNT = 0.05
MAX_RESIZE_AMOUNT = 0.5
MAX_LAYOUT_PANES = 24
MAX_LAYOUT_DEPTH = 16

_ROLLUP: dict[str, int] = {"blocked": 4, "done": 3, "working": 2, "idle": 1, "unknown": 0}
_SPLIT_DIRECTIONS: dict[str, SplitDirection] = {"right": "right", "down": "down"}
_DIRECTIONS: dict[str, Direction] = {"left": "left", "right": "right", "up": "up", "down": "down"}
_ZOOM_MODES: dict[str, ZoomMode] = {"toggle": "toggle", "on": "on", "off": "off"}


class ModelError(Exception):
    """A rejected operation; `code` is the wire error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


# --------------------------------------------------------------------------- entities


@dataclass(slots=True)
class Pane:
    """A layout slot bound to one terminal (`term_<hex>`) for its whole life."""

    key: int
    number: int
    terminal_id: str
    cwd: str | None = None
    label: str | None = None
    command: list[str] | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Tab:
    """A split tree of panes with its own focus and zoom."""

    number: int
    root: Node[int]
    panes: dict[int, Pane]
    focused: int
    root_pane: int
    label: str | None = None
    zoomed: bool = False
    prev_focus: int | None = None  # where focus returns when the focused pane closes

    def pane_keys(self) -> list[int]:
        """Pane keys in tree order."""
        return lay.leaves(self.root)

    def set_focus(self, key: int) -> None:
        """Focus `key`, remembering the pane focus came from."""
        if key != self.focused:
            self.prev_focus = self.focused
            self.focused = key


@dataclass(slots=True)
class Workspace:
    """Ordered tabs plus the per-workspace number counters."""

    number: int
    identity_cwd: str
    tabs: list[Tab]
    active_tab: int  # tab number
    next_tab_number: int = 1
    next_pane_number: int = 1
    label: str | None = None  # custom name; None = derived from cwd

    @property
    def id(self) -> str:
        return ids.workspace_id(self.number)

    def tab_id(self, tab: Tab) -> str:
        """Canonical id of one of this workspace's tabs."""
        return ids.tab_id(self.id, tab.number)

    def pane_id(self, pane: Pane) -> str:
        """Canonical id of one of this workspace's panes."""
        return ids.pane_id(self.id, pane.number)

    def active(self) -> Tab:
        """The active tab."""
        for tab in self.tabs:
            if tab.number == self.active_tab:
                return tab
        raise AssertionError(f"{self.id}: active tab {self.active_tab} missing")

    def iter_panes(self) -> Iterator[tuple[Tab, Pane]]:
        """(tab, pane) pairs, tabs in order, panes in tree order."""
        for tab in self.tabs:
            for key in tab.pane_keys():
                yield tab, tab.panes[key]

    def pane_count(self) -> int:
        return sum(len(tab.panes) for tab in self.tabs)

    def display_label(self) -> str:
        """Custom name, else the basename of the root pane's cwd (or the identity cwd)."""
        if self.label:
            return self.label
        first = self.tabs[0] if self.tabs else None
        cwd = first.panes[first.root_pane].cwd if first else None
        return cwd_label(cwd or self.identity_cwd)


@dataclass(frozen=True, slots=True)
class PaneLoc:
    """A resolved pane with its containers."""

    workspace: Workspace
    tab: Tab
    pane: Pane

    @property
    def workspace_id(self) -> str:
        return self.workspace.id

    @property
    def tab_id(self) -> str:
        return self.workspace.tab_id(self.tab)

    @property
    def pane_id(self) -> str:
        return self.workspace.pane_id(self.pane)

    def __repr__(self) -> str:
        return f"PaneLoc({self.pane_id} in {self.tab_id}, {self.pane.terminal_id})"


def cwd_label(cwd: str) -> str:
    """Default workspace label: the last path component ("/" for the root)."""
    base = posixpath.basename(cwd.rstrip("/"))
    return base or cwd or "/"


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Created:
    """What a create/apply produced (workspace, tab and its root pane)."""

    workspace: Workspace
    tab: Tab
    pane: Pane

    @property
    def loc(self) -> PaneLoc:
        return PaneLoc(self.workspace, self.tab, self.pane)

    def __repr__(self) -> str:
        return f"Created({self.loc!r})"


@dataclass(frozen=True, slots=True)
class Closed:
    """Everything a close removed; `terminal_ids` are the processes to stop."""

    workspace_ids: tuple[str, ...] = ()
    tab_ids: tuple[str, ...] = ()
    pane_ids: tuple[str, ...] = ()
    terminal_ids: tuple[str, ...] = ()

    def __add__(self, other: Closed) -> Closed:
        return Closed(
            self.workspace_ids + other.workspace_ids,
            self.tab_ids + other.tab_ids,
            self.pane_ids + other.pane_ids,
            self.terminal_ids + other.terminal_ids,
        )


@dataclass(frozen=True, slots=True)
class ZoomResult:
    changed: bool
    zoom_changed: bool
    focus_changed: bool
    reason: str | None
    zoomed: bool
    loc: PaneLoc


@dataclass(frozen=True, slots=True)
class SwapResult:
    changed: bool
    reason: str | None
    source: PaneLoc | None
    target: PaneLoc | None


@dataclass(frozen=True, slots=True)
class FocusResult:
    changed: bool
    reason: str | None
    source: PaneLoc
    focused: PaneLoc


@dataclass(frozen=True, slots=True)
class ResizeResult:
    changed: bool
    loc: PaneLoc


@dataclass(frozen=True, slots=True)
class MoveResult:
    """Outcome of a pane move; ids are canonical, `loc` is where the pane is now."""

    changed: bool
    reason: str | None
    loc: PaneLoc
    previous_pane_id: str
    previous_workspace_id: str
    previous_tab_id: str
    created_workspace_id: str | None = None
    created_tab_id: str | None = None
    closed_workspace_id: str | None = None
    closed_tab_id: str | None = None


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """A layout applied as a fresh tab; `closed` is the replaced tab, if any."""

    created: Created
    closed: Closed


@dataclass(frozen=True, slots=True)
class PaneSpec:
    """Launch description of one pane in a layout tree (layout.apply)."""

    cwd: str | None = None
    label: str | None = None
    command: tuple[str, ...] | None = None
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class PaneSeed:
    """A pane being restored from a snapshot (number kept, fresh terminal)."""

    number: int
    cwd: str | None = None
    label: str | None = None
    command: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class TabSeed:
    """A tab being restored; `root` leaves are pane numbers."""

    number: int
    root: Node[int]
    panes: tuple[PaneSeed, ...]
    focused: int | None = None
    label: str | None = None
    zoomed: bool = False


# --------------------------------------------------------------------------- validation


def _split_direction(value: object) -> SplitDirection:
    if isinstance(value, str) and value in _SPLIT_DIRECTIONS:
        return _SPLIT_DIRECTIONS[value]
    raise ModelError(INVALID_PARAMS, f"direction must be right or down, got {value!r}")


def _direction(value: object) -> Direction:
    if isinstance(value, str) and value in _DIRECTIONS:
        return _DIRECTIONS[value]
    raise ModelError(INVALID_PARAMS, f"direction must be left, right, up or down, got {value!r}")


def _ratio(value: object, *, default: float = lay.DEFAULT_RATIO) -> float:
    """A finite ratio, clamped like herdr (0.1..0.9); None means the default."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ModelError(INVALID_RATIO, f"ratio must be a finite number, got {value!r}")
    return lay.clamp_ratio(float(value))


def _cwd(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.startswith("/"):
        raise ModelError(INVALID_PARAMS, f"cwd must be an absolute path, got {value!r}")
    return value


def _label(value: object) -> str | None:
    """Optional label: trimmed; blank means none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ModelError(INVALID_PARAMS, f"label must be a string, got {value!r}")
    return value.strip() or None


def _required_label(value: object) -> str:
    label = _label(value)
    if label is None:
        raise ModelError(INVALID_PARAMS, "label must not be empty")
    return label


def _command(value: object) -> list[str] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or not value
        or not all(isinstance(arg, str) for arg in value)
    ):
        raise ModelError(INVALID_PARAMS, "command must be a non-empty list of strings")
    return [str(arg) for arg in value]


def _env(value: object) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ModelError(INVALID_ENV, "env must be an object of strings")
    env: dict[str, str] = {}
    for key, val in value.items():
        bad_key = not isinstance(key, str) or not key or "=" in key or "\0" in key
        if bad_key or not isinstance(val, str) or "\0" in val:
            raise ModelError(INVALID_ENV, f"invalid env entry {key!r}")
        env[key] = val
    return env


def _amount(value: object) -> float:
    """Resize amount like herdr: non-finite/absent -> 0.05, absolute, at most 0.5."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return DEFAULT_RESIZE_AMOUNT
    return min(abs(float(value)), MAX_RESIZE_AMOUNT)


def _path(value: object) -> tuple[bool, ...]:
    if not isinstance(value, list | tuple) or not all(isinstance(s, bool) for s in value):
        raise ModelError(INVALID_PARAMS, "path must be a list of booleans")
    return tuple(bool(step) for step in value)


# --------------------------------------------------------------------------- layout specs


def parse_layout(root: object) -> Node[PaneSpec]:
    """Validate a LayoutNode JSON tree (layout.apply) into a spec tree; `invalid_layout`."""
    count = [0]
    node = _parse_layout_node(root, 1, count)
    if count[0] > MAX_LAYOUT_PANES:
        raise ModelError(INVALID_LAYOUT, f"layout has more than {MAX_LAYOUT_PANES} panes")
    return node


def _parse_layout_node(raw: object, depth: int, count: list[int]) -> Node[PaneSpec]:
    if depth > MAX_LAYOUT_DEPTH:
        raise ModelError(INVALID_LAYOUT, f"layout depth exceeds {MAX_LAYOUT_DEPTH}")
    if not isinstance(raw, Mapping):
        raise ModelError(INVALID_LAYOUT, "layout node must be an object")
    kind = raw.get("type")
    if kind == "pane":
        count[0] += 1
        if count[0] > MAX_LAYOUT_PANES:
            raise ModelError(INVALID_LAYOUT, f"layout has more than {MAX_LAYOUT_PANES} panes")
        return Leaf(_parse_layout_pane(raw))
    if kind != "split":
        raise ModelError(INVALID_LAYOUT, f"unknown layout node type {kind!r}")
    direction = raw.get("direction")
    if direction not in _SPLIT_DIRECTIONS:
        raise ModelError(
            INVALID_LAYOUT, f"split direction must be right or down, got {direction!r}"
        )
    ratio = raw.get("ratio")
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not math.isfinite(ratio):
        raise ModelError(INVALID_LAYOUT, "split ratio must be a finite number")
    first = _parse_layout_node(raw.get("first"), depth + 1, count)
    second = _parse_layout_node(raw.get("second"), depth + 1, count)
    return Split(_SPLIT_DIRECTIONS[str(direction)], lay.clamp_ratio(float(ratio)), first, second)


def _parse_layout_pane(raw: Mapping[object, object]) -> PaneSpec:
    try:
        command = _command(raw.get("command"))
        env = _env(raw.get("env"))
        return PaneSpec(
            cwd=_cwd(raw.get("cwd")),
            label=_label(raw.get("label")),
            command=tuple(command) if command is not None else None,
            env=tuple(sorted(env.items())),
        )
    except ModelError as err:
        raise ModelError(INVALID_LAYOUT, err.message) from err


def _first_spec(node: Node[PaneSpec]) -> PaneSpec:
    while isinstance(node, Split):
        node = node.first
    return node.key


# --------------------------------------------------------------------------- session


@dataclass(slots=True)
class Session:
    """The whole runtime model of one server."""

    workspaces: list[Workspace] = field(default_factory=list)
    active_workspace: int | None = None  # workspace number
    next_workspace_number: int = 1
    next_pane_key: int = 1
    next_terminal_serial: int = 1
    aliases: dict[str, int] = field(default_factory=dict)  # old public pane id -> pane key
    area: Rect = DEFAULT_AREA
    terminal_id_factory: Callable[[], str] | None = field(default=None, compare=False, repr=False)

    # ----------------------------------------------------------------- lookups

    def workspace_by_number(self, number: int) -> Workspace | None:
        for ws in self.workspaces:
            if ws.number == number:
                return ws
        return None

    def _ws_by_ref(self, ref: ids.WorkspaceRef | None) -> Workspace | None:
        if ref is None:
            return None
        if ref.number is not None:
            return self.workspace_by_number(ref.number)
        index = (ref.index or 0) - 1
        return self.workspaces[index] if 0 <= index < len(self.workspaces) else None

    def workspace(self, ref: str) -> Workspace:
        """Resolve `w<N>`, `w_<n>` or a 1-based index; `workspace_not_found`."""
        ws = self._ws_by_ref(ids.parse_workspace_ref(ref))
        if ws is None:
            raise ModelError(WORKSPACE_NOT_FOUND, f"workspace {ref} not found")
        return ws

    def tab(self, ref: str) -> tuple[Workspace, Tab]:
        """Resolve `<ws>:t<N>`, `<ws>:<index>` or `t_<ws>_<index>`; `tab_not_found`."""
        parsed = ids.parse_tab_ref(ref)
        ws = self._ws_by_ref(parsed.workspace) if parsed else None
        tab: Tab | None = None
        if parsed and ws:
            if parsed.number is not None:
                tab = next((t for t in ws.tabs if t.number == parsed.number), None)
            elif parsed.index is not None and parsed.index <= len(ws.tabs):
                tab = ws.tabs[parsed.index - 1]
        if ws is None or tab is None:
            raise ModelError(TAB_NOT_FOUND, f"tab {ref} not found")
        return ws, tab

    def pane(self, ref: str) -> PaneLoc:
        """Resolve a canonical/legacy pane id or an alias of a moved pane; `pane_not_found`."""
        loc = self._pane_by_parsed(ids.parse_pane_ref(ref))
        if loc is None and ref in self.aliases:
            loc = self.locate_key(self.aliases[ref])
        if loc is None:
            raise ModelError(PANE_NOT_FOUND, f"pane {ref} not found")
        return loc

    def _pane_by_parsed(self, ref: ids.PaneRef | None) -> PaneLoc | None:
        if ref is None:
            return None
        if ref.raw is not None:
            loc = self.locate_key(ref.raw)
            if (
                loc
                and ref.workspace is not None
                and self._ws_by_ref(ref.workspace) is not loc.workspace
            ):
                return None
            return loc
        ws = self._ws_by_ref(ref.workspace)
        if ws is None:
            return None
        for tab, pane in ws.iter_panes():
            if pane.number == ref.number:
                return PaneLoc(ws, tab, pane)
        return None

    def locate_key(self, key: int) -> PaneLoc | None:
        """Where the pane with internal key `key` lives."""
        for ws in self.workspaces:
            for tab in ws.tabs:
                if key in tab.panes:
                    return PaneLoc(ws, tab, tab.panes[key])
        return None

    def find_terminal(self, terminal_id: str) -> PaneLoc | None:
        """The pane hosting `terminal_id`, if any."""
        for loc in self.iter_panes():
            if loc.pane.terminal_id == terminal_id:
                return loc
        return None

    def iter_panes(self) -> Iterator[PaneLoc]:
        """Every pane, in workspace, tab and tree order."""
        for ws in self.workspaces:
            for tab, pane in ws.iter_panes():
                yield PaneLoc(ws, tab, pane)

    def active(self) -> Workspace | None:
        """The active workspace."""
        if self.active_workspace is None:
            return None
        return self.workspace_by_number(self.active_workspace)

    def focused_pane(self) -> PaneLoc | None:
        """The UI-focused pane: active workspace -> active tab -> focused pane."""
        ws = self.active()
        if ws is None:
            return None
        tab = ws.active()
        return PaneLoc(ws, tab, tab.panes[tab.focused])

    def focused_ids(self) -> tuple[str | None, str | None, str | None]:
        """(workspace_id, tab_id, pane_id) of the UI focus, for session snapshots."""
        loc = self.focused_pane()
        if loc is None:
            return None, None, None
        return loc.workspace_id, loc.tab_id, loc.pane_id

    def is_focused(self, loc: PaneLoc) -> bool:
        """True when `loc` is the UI-focused pane."""
        return (
            self.active_workspace == loc.workspace.number
            and loc.workspace.active_tab == loc.tab.number
            and loc.tab.focused == loc.pane.key
        )

    def _target(self, ref: str | None) -> PaneLoc:
        """`ref`, or the focused pane when omitted (spec §3.1 defaults)."""
        if ref is not None:
            return self.pane(ref)
        loc = self.focused_pane()
        if loc is None:
            raise ModelError(PANE_NOT_FOUND, "no focused pane")
        return loc

    # ----------------------------------------------------------------- allocation

    def reserve_workspace_number(self, number: int) -> None:
        """Keep `number` (and everything below) from being issued again."""
        self.next_workspace_number = max(self.next_workspace_number, number + 1)

    def _new_terminal_id(self) -> str:
        if self.terminal_id_factory is not None:
            return self.terminal_id_factory()
        serial = self.next_terminal_serial
        self.next_terminal_serial += 1
        return f"term_{serial:x}"

    def _new_pane(self, ws: Workspace, spec: PaneSpec, *, number: int | None = None) -> Pane:
        key = self.next_pane_key
        self.next_pane_key += 1
        if number is None:
            number = ws.next_pane_number
        ws.next_pane_number = max(ws.next_pane_number, number + 1)
        command = list(spec.command) if spec.command is not None else None
        return Pane(
            key, number, self._new_terminal_id(), spec.cwd, spec.label, command, dict(spec.env)
        )

    def _new_tab(self, ws: Workspace, spec: PaneSpec, label: str | None) -> Tab:
        pane = self._new_pane(ws, spec)
        tab = Tab(ws.next_tab_number, Leaf(pane.key), {pane.key: pane}, pane.key, pane.key, label)
        ws.next_tab_number += 1
        ws.tabs.append(tab)
        return tab

    def _focus(self, ws: Workspace, tab: Tab, key: int | None = None) -> None:
        """Make (ws, tab[, pane]) the UI focus."""
        if key is not None:
            tab.set_focus(key)
        ws.active_tab = tab.number
        self.active_workspace = ws.number

    @staticmethod
    def _spec(cwd: object, label: object, command: object, env: object) -> PaneSpec:
        cmd = _command(command)
        return PaneSpec(
            cwd=_cwd(cwd),
            label=_label(label),
            command=tuple(cmd) if cmd is not None else None,
            env=tuple(sorted(_env(env).items())),
        )

    # ----------------------------------------------------------------- workspaces

    def create_workspace(
        self,
        cwd: str,
        *,
        label: str | None = None,
        focus: bool = False,
        command: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Created:
        """New workspace with tab t1 and root pane p1. Never steals focus unless asked
        (the first workspace of a session becomes active, so there is always a focus)."""
        spec = self._spec(cwd, None, command, env)
        if spec.cwd is None:
            raise ModelError(INVALID_PARAMS, "cwd is required")
        custom = _label(label)
        ws = Workspace(self.next_workspace_number, spec.cwd, [], 1, label=custom)
        self.next_workspace_number += 1
        tab = self._new_tab(ws, spec, None)
        ws.active_tab = tab.number
        self.workspaces.append(ws)
        if focus or self.active() is None:
            self._focus(ws, tab)
        return Created(ws, tab, tab.panes[tab.root_pane])

    def rename_workspace(self, ref: str, label: str) -> Workspace:
        ws = self.workspace(ref)
        ws.label = _required_label(label)
        return ws

    def focus_workspace(self, ref: str) -> Workspace:
        ws = self.workspace(ref)
        self._focus(ws, ws.active())
        return ws

    def close_workspace(self, ref: str) -> Closed:
        """Remove a workspace and all its panes; focus moves to the next (else previous)."""
        return self._remove_workspace(self.workspace(ref))

    def _remove_workspace(self, ws: Workspace) -> Closed:
        closed = Closed(
            workspace_ids=(ws.id,),
            tab_ids=tuple(ws.tab_id(tab) for tab in ws.tabs),
            pane_ids=tuple(ws.pane_id(pane) for _, pane in ws.iter_panes()),
            terminal_ids=tuple(pane.terminal_id for _, pane in ws.iter_panes()),
        )
        index = _index(self.workspaces, ws)
        self.workspaces.pop(index)
        self._drop_aliases({key for tab in ws.tabs for key in tab.panes})
        if self.active_workspace == ws.number:
            if self.workspaces:
                self.active_workspace = self.workspaces[min(index, len(self.workspaces) - 1)].number
            else:
                self.active_workspace = None
        return closed

    def move_workspace(self, ref: str, insert_index: int) -> bool:
        """Reorder: insert before position `insert_index` (0..len). True if the order changed."""
        ws = self.workspace(ref)
        return _move_item(self.workspaces, ws, insert_index)

    # ----------------------------------------------------------------- tabs

    def create_tab(
        self,
        workspace: str | None = None,
        *,
        cwd: str | None = None,
        label: str | None = None,
        focus: bool = False,
        command: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Created:
        """New tab (with its root pane) at the end of a workspace (default: the active one)."""
        ws = self.workspace(workspace) if workspace is not None else self.active()
        if ws is None:
            raise ModelError(WORKSPACE_NOT_FOUND, "no active workspace")
        spec = self._spec(cwd, None, command, env)
        custom = _label(label)
        if spec.cwd is None:
            spec = PaneSpec(self._follow_cwd(ws), spec.label, spec.command, spec.env)
        tab = self._new_tab(ws, spec, custom)
        if focus:
            self._focus(ws, tab)
        return Created(ws, tab, tab.panes[tab.root_pane])

    def _follow_cwd(self, ws: Workspace) -> str:
        """cwd for a new tab: the workspace's focused pane's, else its identity cwd."""
        tab = ws.active()
        return tab.panes[tab.focused].cwd or ws.identity_cwd

    def rename_tab(self, ref: str, label: str) -> tuple[Workspace, Tab]:
        ws, tab = self.tab(ref)
        tab.label = _required_label(label)
        return ws, tab

    def focus_tab(self, ref: str) -> tuple[Workspace, Tab]:
        ws, tab = self.tab(ref)
        self._focus(ws, tab)
        return ws, tab

    def close_tab(self, ref: str) -> Closed:
        """Close a tab; closing the last tab closes the workspace."""
        ws, tab = self.tab(ref)
        return self._remove_tab(ws, tab)

    def _remove_tab(self, ws: Workspace, tab: Tab) -> Closed:
        if len(ws.tabs) == 1:
            return self._remove_workspace(ws)
        closed = Closed(
            tab_ids=(ws.tab_id(tab),),
            pane_ids=tuple(ws.pane_id(tab.panes[k]) for k in tab.pane_keys()),
            terminal_ids=tuple(tab.panes[k].terminal_id for k in tab.pane_keys()),
        )
        self._detach_tab(ws, tab)
        self._drop_aliases(set(tab.panes))
        return closed

    def _detach_tab(self, ws: Workspace, tab: Tab) -> None:
        """Remove `tab`; if it was active, the previous tab (else the next) becomes active."""
        index = _index(ws.tabs, tab)
        ws.tabs.pop(index)
        if ws.active_tab == tab.number and ws.tabs:
            ws.active_tab = ws.tabs[max(index - 1, 0)].number

    def move_tab(self, ref: str, insert_index: int) -> bool:
        """Reorder a tab inside its workspace. True if the order changed."""
        ws, tab = self.tab(ref)
        return _move_item(ws.tabs, tab, insert_index)

    # ----------------------------------------------------------------- panes

    def split_pane(
        self,
        target: str | None = None,
        *,
        direction: str,
        ratio: float | None = None,
        focus: bool = False,
        workspace: str | None = None,
        cwd: str | None = None,
        label: str | None = None,
        command: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> PaneLoc:
        """Split `target` (default: the focused pane of `workspace` or of the session);
        the new pane goes right/below and inherits the source cwd. Returns the new pane."""
        split_dir = _split_direction(direction)
        share = _ratio(ratio)
        spec = self._spec(cwd, label, command, env)
        source = self._split_source(target, workspace)
        if spec.cwd is None:
            spec = PaneSpec(source.pane.cwd, spec.label, spec.command, spec.env)
        ws, tab = source.workspace, source.tab
        pane = self._new_pane(ws, spec)
        tab.root = lay.split_leaf(tab.root, source.pane.key, pane.key, split_dir, share)
        tab.panes[pane.key] = pane
        tab.zoomed = False
        if focus:
            self._focus(ws, tab, pane.key)
        return PaneLoc(ws, tab, pane)

    def _split_source(self, target: str | None, workspace: str | None) -> PaneLoc:
        if target is not None:
            return self.pane(target)
        if workspace is not None:
            ws = self.workspace(workspace)
            tab = ws.active()
            return PaneLoc(ws, tab, tab.panes[tab.focused])
        return self._target(None)

    def close_pane(self, ref: str) -> Closed:
        """Close a pane; its sibling takes the space. The last pane of a tab closes the
        tab, the last pane of a workspace closes the workspace."""
        loc = self.pane(ref)
        if len(loc.tab.panes) == 1:
            return self._remove_tab(loc.workspace, loc.tab)
        closed = Closed(pane_ids=(loc.pane_id,), terminal_ids=(loc.pane.terminal_id,))
        self._detach_pane(loc.tab, loc.pane.key)
        self._drop_aliases({loc.pane.key})
        return closed

    def _detach_pane(self, tab: Tab, key: int) -> None:
        """Remove a pane from a multi-pane tab, moving focus the way herdr does:
        back to where it came from, else the next pane in tree order, else the previous."""
        order = tab.pane_keys()
        root = lay.remove_leaf(tab.root, key)
        assert root is not None
        tab.root = root
        del tab.panes[key]
        tab.zoomed = False
        if tab.focused == key:
            pos = order.index(key)
            fallback = order[pos + 1] if pos + 1 < len(order) else order[pos - 1]
            back = tab.prev_focus
            tab.focused = back if back is not None and back in tab.panes else fallback
            tab.prev_focus = None
        elif tab.prev_focus == key:
            tab.prev_focus = None
        if tab.root_pane == key:
            tab.root_pane = lay.leaves(root)[0]

    def _drop_aliases(self, keys: set[int]) -> None:
        for alias in [a for a, k in self.aliases.items() if k in keys]:
            del self.aliases[alias]

    def rename_pane(self, ref: str, label: str | None) -> PaneLoc:
        """Set a pane label; None or blank clears it."""
        loc = self.pane(ref)
        loc.pane.label = _label(label)
        return loc

    def set_pane_cwd(self, ref: str, cwd: str | None) -> PaneLoc:
        """Record a pane's last known cwd (the server learns it from the process)."""
        loc = self.pane(ref)
        loc.pane.cwd = _cwd(cwd)
        return loc

    def focus_pane(self, ref: str) -> PaneLoc:
        """Focus a pane, its tab and its workspace."""
        loc = self.pane(ref)
        self._focus(loc.workspace, loc.tab, loc.pane.key)
        return loc

    # ----------------------------------------------------------------- geometry

    def geometry(self, tab: Tab, *, zoomed: bool = False) -> lay.Geometry[int]:
        """The tab laid out in the session area (optionally as displayed, with zoom)."""
        return lay.compute(
            tab.root, self.area, zoomed=tab.focused if zoomed and tab.zoomed else None
        )

    def neighbor(self, ref: str | None, direction: str) -> PaneLoc | None:
        """The pane next to `ref` (default: focused) in a direction, by the unzoomed layout."""
        nav = _direction(direction)
        loc = self._target(ref)
        key = lay.neighbor(self.geometry(loc.tab), loc.pane.key, nav)
        return None if key is None else PaneLoc(loc.workspace, loc.tab, loc.tab.panes[key])

    def edges(self, ref: str | None) -> dict[Direction, bool]:
        """Which sides of the pane touch the layout area."""
        loc = self._target(ref)
        return lay.edges(self.geometry(loc.tab), loc.pane.key)

    def focus_direction(self, ref: str | None, direction: str) -> FocusResult:
        """Focus the neighbour in `direction`; `no_neighbor` when there is none."""
        source = self._target(ref)
        target = self.neighbor(ref, direction)
        if target is None:
            focused = source.tab.panes[source.tab.focused]
            return FocusResult(
                False, "no_neighbor", source, PaneLoc(source.workspace, source.tab, focused)
            )
        self._focus(target.workspace, target.tab, target.pane.key)
        return FocusResult(True, None, source, target)

    def zoom(self, ref: str | None = None, mode: str = "toggle") -> ZoomResult:
        """Zoom/unzoom the pane's tab around it (the pane is focused first)."""
        if mode not in _ZOOM_MODES:
            raise ModelError(INVALID_PARAMS, f"mode must be toggle, on or off, got {mode!r}")
        loc = self._target(ref)
        tab = loc.tab
        focus_changed = not self.is_focused(loc)
        self._focus(loc.workspace, tab, loc.pane.key)
        reason: str | None = None
        if len(tab.panes) < 2:
            reason = "single_pane"
        elif mode == "on" and tab.zoomed:
            reason = "already_zoomed"
        elif mode == "off" and not tab.zoomed:
            reason = "already_unzoomed"
        else:
            tab.zoomed = not tab.zoomed
        changed = reason is None
        return ZoomResult(changed or focus_changed, changed, focus_changed, reason, tab.zoomed, loc)

    def swap_panes(self, source: str | None, target: str | None) -> SwapResult:
        """Exchange two panes of one tab (ids, ratios and processes kept); reasons instead of
        errors, as herdr reports them: not_found, same_pane, cross_tab."""
        src = self._maybe(source) if source is not None else self.focused_pane()
        dst = self._maybe(target) if target is not None else None
        if src is None or dst is None:
            return SwapResult(False, "not_found", src, dst)
        if src.pane.key == dst.pane.key:
            return SwapResult(False, "same_pane", src, dst)
        if src.tab is not dst.tab:
            return SwapResult(False, "cross_tab", src, dst)
        self._swap(src, dst)
        return SwapResult(True, None, src, dst)

    def swap_direction(self, ref: str | None, direction: str) -> SwapResult:
        """Swap a pane (default: focused) with its neighbour; `no_neighbor` at an edge."""
        _direction(direction)
        src = self._target(ref)
        dst = self.neighbor(ref, direction)
        if dst is None:
            return SwapResult(False, "no_neighbor", src, None)
        self._swap(src, dst)
        return SwapResult(True, None, src, dst)

    def _swap(self, src: PaneLoc, dst: PaneLoc) -> None:
        tab = src.tab
        tab.root = lay.swap_leaves(tab.root, src.pane.key, dst.pane.key)
        self._focus(src.workspace, tab, src.pane.key)

    def _maybe(self, ref: str) -> PaneLoc | None:
        try:
            return self.pane(ref)
        except ModelError:
            return None

    def resize(self, ref: str | None, direction: str, amount: float | None = None) -> ResizeResult:
        """Move the nearest divider on the pane's `direction` edge (else the opposite edge)
        by `amount` of the split (default 0.05, at most 0.5)."""
        nav = _direction(direction)
        loc = self._target(ref)
        root = lay.resize(loc.tab.root, loc.pane.key, nav, _amount(amount))
        changed = root != loc.tab.root
        loc.tab.root = root
        return ResizeResult(changed, loc)

    # ----------------------------------------------------------------- layouts

    def layout_target(
        self, *, tab: str | None = None, pane: str | None = None
    ) -> tuple[Workspace, Tab]:
        """Tab addressed by layout.export / set_split_ratio; `layout_not_found`."""
        try:
            if tab is not None and pane is not None:
                raise ModelError(LAYOUT_NOT_FOUND, "give either tab_id or pane_id")
            if tab is not None:
                return self.tab(tab)
            loc = self._target(pane)
            return loc.workspace, loc.tab
        except ModelError as err:
            raise ModelError(LAYOUT_NOT_FOUND, f"layout target not found: {err.message}") from err

    def set_split_ratio(
        self, path: Sequence[bool], ratio: float, *, tab: str | None = None, pane: str | None = None
    ) -> tuple[Workspace, Tab]:
        """Set the ratio of the split at `path` (False=first, True=second), clamped."""
        if (
            isinstance(ratio, bool)
            or not isinstance(ratio, int | float)
            or not math.isfinite(ratio)
        ):
            raise ModelError(INVALID_RATIO, "ratio must be finite")
        steps = _path(path)
        ws, target = self.layout_target(tab=tab, pane=pane)
        try:
            root = lay.set_ratio(target.root, steps, float(ratio))
        except KeyError as err:
            raise ModelError(SPLIT_NOT_FOUND, "split path not found") from err
        target.root = root
        return ws, target

    def export_layout(self, *, tab: str | None = None, pane: str | None = None) -> Record:
        """LayoutDescription of a tab (default: the focused one)."""
        ws, target = self.layout_target(tab=tab, pane=pane)
        return self.layout_description(ws, target)

    def apply_layout(
        self,
        root: object,
        *,
        workspace: str | None = None,
        tab: str | None = None,
        tab_label: str | None = None,
        focus: bool = False,
    ) -> ApplyResult:
        """Build a fresh tab from a LayoutNode tree (new panes, new terminals). With `tab`,
        that tab is replaced (closed after the new one exists) and keeps its label."""
        replaced = self.tab(tab) if tab is not None else None
        if replaced is not None and workspace is not None:
            raise ModelError(INVALID_TARGET, "use either tab_id or workspace_id, not both")
        if replaced is not None:
            ws = replaced[0]
        elif workspace is not None:
            ws = self.workspace(workspace)
        else:
            active = self.active()
            if active is None:
                raise ModelError(WORKSPACE_NOT_FOUND, "no active workspace")
            ws = active
        specs = parse_layout(root)
        label = _label(tab_label)
        was_active = False
        if replaced is not None:
            label = label or replaced[1].label
            was_active = self.active_workspace == ws.number and ws.active_tab == replaced[1].number
        created = self._build_layout_tab(ws, specs, label)
        closed = self._remove_tab(ws, replaced[1]) if replaced is not None else Closed()
        if focus or was_active:
            self._focus(ws, created.tab)
        return ApplyResult(created, closed)

    def _build_layout_tab(self, ws: Workspace, specs: Node[PaneSpec], label: str | None) -> Created:
        first = _first_spec(specs)
        if first.cwd is None:
            first = PaneSpec(self._follow_cwd(ws), first.label, first.command, first.env)
        tab = self._new_tab(ws, first, label)
        root_pane = tab.panes[tab.root_pane]
        tab.root = self._grow(ws, tab, specs, root_pane)
        return Created(ws, tab, root_pane)

    def _grow(self, ws: Workspace, tab: Tab, spec: Node[PaneSpec], pane: Pane) -> Node[int]:
        """Realise `spec` in the slot of `pane`, numbering panes in herdr's order (the
        slot's pane first, then at each split the second side before recursing)."""
        if isinstance(spec, Leaf):
            return Leaf(pane.key)
        second = _first_spec(spec.second)
        if second.cwd is None:
            second = PaneSpec(pane.cwd, second.label, second.command, second.env)
        new = self._new_pane(ws, second)
        tab.panes[new.key] = new
        first_tree = self._grow(ws, tab, spec.first, pane)
        second_tree = self._grow(ws, tab, spec.second, new)
        return Split(spec.direction, spec.ratio, first_tree, second_tree)

    # ----------------------------------------------------------------- moves

    def move_pane_to_tab(
        self,
        ref: str,
        tab: str,
        *,
        split: str,
        target_pane: str | None = None,
        ratio: float | None = None,
        focus: bool = False,
    ) -> MoveResult:
        """Move a pane next to `target_pane` (default: the tab's focused pane) in another tab."""
        loc = self.pane(ref)
        if loc.tab.zoomed:
            return self._unmoved(loc, "zoomed_tab")
        ws, dest = self.tab(tab)
        if dest is loc.tab:
            return self._unmoved(loc, "same_tab")
        if dest.zoomed:
            return self._unmoved(loc, "zoomed_tab")
        direction = _split_direction(split)
        share = _ratio(ratio)
        anchor = dest.focused
        if target_pane is not None:
            found = self._maybe(target_pane)
            if found is None or found.tab is not dest:
                raise ModelError(
                    TARGET_PANE_NOT_FOUND, f"target pane {target_pane} not in tab {tab}"
                )
            anchor = found.pane.key
        result = self._take(loc, ws)
        dest.root = lay.split_leaf(dest.root, anchor, loc.pane.key, direction, share)
        dest.panes[loc.pane.key] = loc.pane
        return self._moved(result, PaneLoc(ws, dest, loc.pane), focus)

    def move_pane_to_new_tab(
        self,
        ref: str,
        *,
        workspace: str | None = None,
        label: str | None = None,
        focus: bool = False,
    ) -> MoveResult:
        """Move a pane into a new tab of `workspace` (default: its own)."""
        loc = self.pane(ref)
        if loc.tab.zoomed:
            return self._unmoved(loc, "zoomed_tab")
        ws = self.workspace(workspace) if workspace is not None else loc.workspace
        custom = _label(label)
        result = self._take(loc, ws)
        tab = self._adopt_tab(ws, loc.pane, custom)
        moved = self._moved(result, PaneLoc(ws, tab, loc.pane), focus)
        return replace(moved, created_tab_id=ws.tab_id(tab))

    def move_pane_to_new_workspace(
        self,
        ref: str,
        *,
        label: str | None = None,
        tab_label: str | None = None,
        focus: bool = False,
    ) -> MoveResult:
        """Move a pane into a new workspace (as its t1/p1)."""
        loc = self.pane(ref)
        if loc.tab.zoomed:
            return self._unmoved(loc, "zoomed_tab")
        custom, custom_tab = _label(label), _label(tab_label)
        ws = Workspace(
            self.next_workspace_number, loc.pane.cwd or loc.workspace.identity_cwd, [], 1
        )
        ws.label = custom
        self.next_workspace_number += 1
        result = self._take(loc, ws)
        tab = self._adopt_tab(ws, loc.pane, custom_tab)
        self.workspaces.append(ws)
        moved = self._moved(result, PaneLoc(ws, tab, loc.pane), focus)
        return replace(moved, created_workspace_id=ws.id, created_tab_id=ws.tab_id(tab))

    def _adopt_tab(self, ws: Workspace, pane: Pane, label: str | None) -> Tab:
        tab = Tab(ws.next_tab_number, Leaf(pane.key), {pane.key: pane}, pane.key, pane.key, label)
        ws.next_tab_number += 1
        ws.tabs.append(tab)
        if len(ws.tabs) == 1:
            ws.active_tab = tab.number
        return tab

    def _unmoved(self, loc: PaneLoc, reason: str) -> MoveResult:
        return MoveResult(False, reason, loc, loc.pane_id, loc.workspace_id, loc.tab_id)

    def _take(self, loc: PaneLoc, dest: Workspace) -> MoveResult:
        """Detach the pane from its tab (closing an emptied tab, and an emptied workspace
        when the pane leaves it) and renumber it if it changes workspace."""
        ws, tab, pane = loc.workspace, loc.tab, loc.pane
        result = MoveResult(True, None, loc, loc.pane_id, loc.workspace_id, loc.tab_id)
        if len(tab.panes) > 1:
            self._detach_pane(tab, pane.key)
        else:
            self._detach_tab(ws, tab)
            result = replace(result, closed_tab_id=loc.tab_id)
        if dest is not ws:
            self.aliases[loc.pane_id] = pane.key
            pane.number = dest.next_pane_number
            dest.next_pane_number += 1
            if not ws.tabs:
                index = _index(self.workspaces, ws)
                self.workspaces.pop(index)
                if self.active_workspace == ws.number:
                    self.active_workspace = None
                    self._refocus_after(index)
                result = replace(result, closed_workspace_id=loc.workspace_id)
        return result

    def _refocus_after(self, index: int) -> None:
        if self.workspaces:
            self.active_workspace = self.workspaces[min(index, len(self.workspaces) - 1)].number

    def _moved(self, result: MoveResult, loc: PaneLoc, focus: bool) -> MoveResult:
        if focus or self.active() is None:
            self._focus(loc.workspace, loc.tab, loc.pane.key)
        self.aliases.pop(loc.pane_id, None)  # a live canonical id never stays an alias
        return replace(result, loc=loc)

    # ----------------------------------------------------------------- restore

    def restore_workspace(
        self,
        *,
        number: int,
        identity_cwd: str,
        tabs: Sequence[TabSeed],
        active_tab: int | None = None,
        label: str | None = None,
        next_tab_number: int | None = None,
        next_pane_number: int | None = None,
        focus: bool = False,
    ) -> Workspace:
        """Recreate a workspace from a snapshot with its public numbers (fresh terminals).
        Its number is reserved so it is never issued again."""
        _check_restore(self, number, tabs, active_tab)
        top_tab = max(t.number for t in tabs)
        top_pane = max(p.number for t in tabs for p in t.panes)
        ws = Workspace(
            number,
            identity_cwd,
            [],
            active_tab if active_tab is not None else tabs[0].number,
            max(next_tab_number or 0, top_tab + 1),
            max(next_pane_number or 0, top_pane + 1),
            _label(label),
        )
        for seed in tabs:
            ws.tabs.append(self._restore_tab(ws, seed))
        self.workspaces.append(ws)
        self.reserve_workspace_number(number)
        if focus or self.active() is None:
            self.active_workspace = ws.number
        return ws

    def _restore_tab(self, ws: Workspace, seed: TabSeed) -> Tab:
        by_number: dict[int, Pane] = {}
        for p in seed.panes:
            spec = PaneSpec(p.cwd, _label(p.label), p.command)
            by_number[p.number] = self._new_pane(ws, spec, number=p.number)
        root = lay.map_leaves(seed.root, lambda n: by_number[n].key)
        order = lay.leaves(seed.root)
        focused = by_number[seed.focused if seed.focused is not None else order[0]].key
        panes = {by_number[n].key: by_number[n] for n in order}
        zoomed = seed.zoomed and len(panes) > 1
        return Tab(
            seed.number, root, panes, focused, by_number[order[0]].key, _label(seed.label), zoomed
        )

    # ----------------------------------------------------------------- records

    def workspace_info(self, ws: Workspace, status_of: StatusOf | None = None) -> Record:
        """WorkspaceInfo record (number = 1-based position, as herdr reports it)."""
        return {
            "workspace_id": ws.id,
            "number": _index(self.workspaces, ws) + 1,
            "label": ws.display_label(),
            "focused": self.active_workspace == ws.number,
            "active_tab_id": ws.tab_id(ws.active()),
            "tab_count": len(ws.tabs),
            "pane_count": ws.pane_count(),
            "agent_status": _rollup_panes((pane for _, pane in ws.iter_panes()), status_of),
        }

    def tab_info(self, ws: Workspace, tab: Tab, status_of: StatusOf | None = None) -> Record:
        """TabInfo record (number = 1-based position; label defaults to that number)."""
        position = _index(ws.tabs, tab) + 1
        return {
            "tab_id": ws.tab_id(tab),
            "workspace_id": ws.id,
            "number": position,
            "label": tab.label or str(position),
            "focused": self.active_workspace == ws.number and ws.active_tab == tab.number,
            "pane_count": len(tab.panes),
            "agent_status": _rollup_panes(iter(tab.panes.values()), status_of),
        }

    def pane_info(
        self,
        loc: PaneLoc,
        *,
        agent_status: AgentStatus = "unknown",
        revision: int = 0,
        extra: Mapping[str, object] | None = None,
    ) -> Record:
        """PaneInfo record; runtime fields (agent, title, tokens, scroll...) come in `extra`."""
        record: Record = {
            "pane_id": loc.pane_id,
            "terminal_id": loc.pane.terminal_id,
            "workspace_id": loc.workspace_id,
            "tab_id": loc.tab_id,
            "focused": self.is_focused(loc),
            "agent_status": agent_status,
            "revision": revision,
        }
        if loc.pane.label is not None:
            record["label"] = loc.pane.label
        if loc.pane.cwd is not None:
            record["cwd"] = loc.pane.cwd
        if extra:
            record.update(extra)
        return record

    def pane_layout(self, ws: Workspace, tab: Tab) -> Record:
        """PaneLayoutSnapshot: unzoomed rects plus the `zoomed` flag (as herdr reports)."""
        geo = self.geometry(tab)
        return {
            "workspace_id": ws.id,
            "tab_id": ws.tab_id(tab),
            "zoomed": tab.zoomed,
            "area": self.area.to_dict(),
            "focused_pane_id": ws.pane_id(tab.panes[tab.focused]),
            "panes": [
                {
                    "pane_id": ws.pane_id(tab.panes[k]),
                    "focused": k == tab.focused,
                    "rect": r.to_dict(),
                }
                for k, r in geo.panes.items()
            ],
            "splits": [
                {"id": d.id, "direction": d.direction, "ratio": d.ratio, "rect": d.area.to_dict()}
                for d in geo.dividers
            ],
        }

    def layout_description(self, ws: Workspace, tab: Tab) -> Record:
        """LayoutDescription (layout.export): a portable LayoutNode tree."""
        return {
            "workspace_id": ws.id,
            "tab_id": ws.tab_id(tab),
            "zoomed": tab.zoomed,
            "focused_pane_id": ws.pane_id(tab.panes[tab.focused]),
            "root": self._layout_node(ws, tab, tab.root),
        }

    def _layout_node(self, ws: Workspace, tab: Tab, node: Node[int]) -> Record:
        if isinstance(node, Leaf):
            pane = tab.panes[node.key]
            command = list(pane.command) if pane.command is not None else None
            return {
                "type": "pane",
                "pane_id": ws.pane_id(pane),
                "label": pane.label,
                "cwd": pane.cwd,
                "command": command,
                "env": {},  # launch env may hold secrets; herdr does not export it
            }
        return {
            "type": "split",
            "direction": node.direction,
            "ratio": node.ratio,
            "first": self._layout_node(ws, tab, node.first),
            "second": self._layout_node(ws, tab, node.second),
        }

    def list_workspaces(self, status_of: StatusOf | None = None) -> list[Record]:
        return [self.workspace_info(ws, status_of) for ws in self.workspaces]

    def list_tabs(
        self, workspace: str | None = None, status_of: StatusOf | None = None
    ) -> list[Record]:
        spaces = [self.workspace(workspace)] if workspace is not None else self.workspaces
        return [self.tab_info(ws, tab, status_of) for ws in spaces for tab in ws.tabs]

    def list_panes(self, workspace: str | None = None) -> list[PaneLoc]:
        """Pane locations (callers add runtime fields when building records)."""
        if workspace is None:
            return list(self.iter_panes())
        ws = self.workspace(workspace)
        return [PaneLoc(ws, tab, pane) for tab, pane in ws.iter_panes()]


# --------------------------------------------------------------------------- helpers


def rollup_status(statuses: Iterator[AgentStatus] | Sequence[AgentStatus]) -> AgentStatus:
    """Tab/workspace status: blocked > done > working > idle > unknown (none -> unknown)."""
    best: AgentStatus = "unknown"
    for status in statuses:
        if _ROLLUP[status] > _ROLLUP[best]:
            best = status
    return best


def _rollup_panes(panes: Iterator[Pane], status_of: StatusOf | None) -> AgentStatus:
    if status_of is None:
        return "unknown"
    return rollup_status(status_of(pane) for pane in panes)


def _index(items: Sequence[T], item: T) -> int:
    """Position by identity (entities compare by value, which is not what we mean here)."""
    for position, candidate in enumerate(items):
        if candidate is item:
            return position
    raise ValueError("item not in list")


def _move_item(items: list[T], item: T, insert_index: int) -> bool:
    """herdr's reorder rule: remove, then insert before `insert_index` of the old order."""
    if isinstance(insert_index, bool) or not isinstance(insert_index, int):
        raise ModelError(INVALID_PARAMS, "insert_index must be an integer")
    if not 0 <= insert_index <= len(items):
        raise ModelError(INVALID_PARAMS, f"insert_index must be within 0..{len(items)}")
    source = _index(items, item)
    target = min(insert_index - 1 if source < insert_index else insert_index, len(items) - 1)
    if target == source:
        return False
    items.insert(target, items.pop(source))
    return True


def _check_restore(
    session: Session, number: int, tabs: Sequence[TabSeed], active_tab: int | None
) -> None:
    """Reject a snapshot workspace that would break the model's invariants."""

    def bad(message: str) -> ModelError:
        return ModelError(INVALID_PARAMS, message)

    if number < 1 or session.workspace_by_number(number) is not None:
        raise bad(f"workspace number {number} is invalid or already in use")
    if not tabs:
        raise bad("a workspace needs at least one tab")
    tab_numbers = [t.number for t in tabs]
    if min(tab_numbers) < 1 or len(set(tab_numbers)) != len(tab_numbers):
        raise bad("tab numbers must be positive and unique")
    if active_tab is not None and active_tab not in tab_numbers:
        raise bad(f"active tab {active_tab} is not restored")
    seen: set[int] = set()
    for tab in tabs:
        numbers = [p.number for p in tab.panes]
        order = lay.leaves(tab.root)
        if sorted(numbers) != sorted(order) or len(set(order)) != len(order):
            raise bad(f"tab {tab.number}: layout leaves must match its panes")
        if min(numbers) < 1 or seen & set(numbers):
            raise bad(f"tab {tab.number}: pane numbers must be positive and unique")
        if tab.focused is not None and tab.focused not in numbers:
            raise bad(f"tab {tab.number}: focused pane {tab.focused} is not in the tab")
        seen |= set(numbers)

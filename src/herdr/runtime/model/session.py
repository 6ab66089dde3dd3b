"""The session and its operations (PURE): workspaces, tabs, panes, layouts and moves.

Every operation validates first (`params`) and raises `ModelError` before changing
anything. Three indexes (pane key, canonical pane id, terminal id → location) are kept
in step by every mutation, so resolving a pane is O(1), not a scan of the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from msgspec import Struct
from msgspec.structs import replace

from herdr.runtime import ids
from herdr.runtime import layout as lay
from herdr.runtime.layout import Direction, Leaf, Node, Rect, Split
from herdr.runtime.model import params, records
from herdr.runtime.model.entities import (
    ApplyResult,
    Closed,
    Created,
    FocusResult,
    ModelError,
    MoveResult,
    Pane,
    PaneLoc,
    PaneSpec,
    ResizeResult,
    SwapResult,
    Tab,
    TabSeed,
    Workspace,
    WorktreeMembership,
    ZoomResult,
    index_of,
)
from herdr.runtime.model.records import Record, StatusOf
from herdr.vocab import AgentStatus, ErrorCode

T = TypeVar("T")

DEFAULT_AREA = Rect(0, 0, 120, 40)  # headless size, spec §1.1


class _Slot(Struct, frozen=True):
    """An indexed pane: where it lives, and the canonical id it was indexed under (kept,
    since a move renumbers the pane before it is indexed again)."""

    loc: PaneLoc
    pane_id: str


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
    # Indexes (derived, kept in step by every mutation): pane key -> where it lives, and
    # canonical pane id / terminal id -> pane key.
    _slots: dict[int, _Slot] = field(default_factory=dict, init=False, compare=False, repr=False)
    _pane_keys: dict[str, int] = field(default_factory=dict, init=False, compare=False, repr=False)
    _terminal_keys: dict[str, int] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        for loc in self.iter_panes():
            self._index_pane(loc.workspace, loc.tab, loc.pane)

    # ----------------------------------------------------------------- indexes

    def _index_pane(self, ws: Workspace, tab: Tab, pane: Pane) -> None:
        """Record where `pane` lives now (replacing where it lived before)."""
        self._unindex_pane(pane.key)
        slot = _Slot(PaneLoc(ws, tab, pane), ws.pane_id(pane))
        self._slots[pane.key] = slot
        self._pane_keys[slot.pane_id] = pane.key
        self._terminal_keys[pane.terminal_id] = pane.key

    def _unindex_pane(self, key: int) -> None:
        slot = self._slots.pop(key, None)
        if slot is not None:
            del self._pane_keys[slot.pane_id]
            del self._terminal_keys[slot.loc.pane.terminal_id]

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
            raise ModelError(ErrorCode.WORKSPACE_NOT_FOUND, f"workspace {ref} not found")
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
            raise ModelError(ErrorCode.TAB_NOT_FOUND, f"tab {ref} not found")
        return ws, tab

    def pane(self, ref: str) -> PaneLoc:
        """Resolve a canonical/legacy pane id or an alias of a moved pane; `pane_not_found`."""
        loc = self._pane_by_parsed(ids.parse_pane_ref(ref))
        if loc is None and ref in self.aliases:
            loc = self.locate_key(self.aliases[ref])
        if loc is None:
            raise ModelError(ErrorCode.PANE_NOT_FOUND, f"pane {ref} not found")
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
        if ws is None or ref.number is None:
            return None
        return self._by_index(self._pane_keys.get(ids.pane_id(ws.id, ref.number)))

    def locate_key(self, key: int) -> PaneLoc | None:
        """Where the pane with internal key `key` lives."""
        return self._by_index(key)

    def find_terminal(self, terminal_id: str) -> PaneLoc | None:
        """The pane hosting `terminal_id`, if any."""
        return self._by_index(self._terminal_keys.get(terminal_id))

    def _by_index(self, key: int | None) -> PaneLoc | None:
        slot = self._slots.get(key) if key is not None else None
        return slot.loc if slot is not None else None

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
            raise ModelError(ErrorCode.PANE_NOT_FOUND, "no focused pane")
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
        tab = ws.add_tab(pane, label)
        self._index_pane(ws, tab, pane)
        return tab

    def _focus(self, ws: Workspace, tab: Tab, key: int | None = None) -> None:
        """Make (ws, tab[, pane]) the UI focus."""
        if key is not None:
            tab.set_focus(key)
        ws.active_tab = tab.number
        self.active_workspace = ws.number

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
        spec = params.parse_pane_spec(cwd, None, command, env)
        if spec.cwd is None:
            raise ModelError(ErrorCode.INVALID_PARAMS, "cwd is required")
        custom = params.parse_label(label)
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
        ws.label = params.parse_required_label(label)
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
        index = index_of(self.workspaces, ws)
        self.workspaces.pop(index)
        self._forget_panes({key for tab in ws.tabs for key in tab.panes})
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

    def move_workspace_block(
        self, refs: Sequence[str], before: str | None
    ) -> tuple[list[str], str | None, bool]:
        """herdr's ``workspace.move_block``: the named workspaces, in the order given, go
        before ``before`` (the end when None). Everything is checked first, in herdr's
        order (a duplicate is found within one more ref than there are workspaces).
        Returns the canonical block ids, the anchor's id and whether the order changed."""
        if not refs:
            raise ModelError(_MOVE_BLOCK_FAILED, "workspace_ids must not be empty")
        block: list[Workspace] = []
        seen: set[int] = set()
        for ref in refs:
            ws = self.workspace(ref)
            if ws.number in seen:
                raise ModelError(_MOVE_BLOCK_FAILED, f"workspace {ref} appears more than once")
            seen.add(ws.number)
            block.append(ws)
        anchor = self.workspace(before) if before is not None else None
        if anchor is not None and anchor.number in seen:
            raise ModelError(
                _MOVE_BLOCK_FAILED, "before_workspace_id must not be part of workspace_ids"
            )
        rest = [ws for ws in self.workspaces if ws.number not in seen]
        at = len(rest) if anchor is None else index_of(rest, anchor)
        wanted = [*rest[:at], *block, *rest[at:]]
        changed = any(a is not b for a, b in zip(wanted, self.workspaces, strict=True))
        if changed:
            self.workspaces[:] = wanted
        return [ws.id for ws in block], anchor.id if anchor is not None else None, changed

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
            raise ModelError(ErrorCode.WORKSPACE_NOT_FOUND, "no active workspace")
        spec = params.parse_pane_spec(cwd, None, command, env)
        custom = params.parse_label(label)
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
        tab.label = params.parse_required_label(label)
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
        ws.detach_tab(tab)
        self._forget_panes(set(tab.panes))
        return closed

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
        split_dir = params.parse_split_direction(direction)
        share = params.parse_ratio(ratio)
        spec = params.parse_pane_spec(cwd, label, command, env)
        source = self._split_source(target, workspace)
        if spec.cwd is None:
            spec = PaneSpec(source.pane.cwd, spec.label, spec.command, spec.env)
        ws, tab = source.workspace, source.tab
        pane = self._new_pane(ws, spec)
        tab.root = lay.split_leaf(tab.root, source.pane.key, pane.key, split_dir, share)
        tab.panes[pane.key] = pane
        self._index_pane(ws, tab, pane)
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
        loc.tab.detach(loc.pane.key)
        self._forget_panes({loc.pane.key})
        return closed

    def _forget_panes(self, keys: set[int]) -> None:
        """Closed panes: out of the indexes, and their old ids no longer aliases."""
        for key in keys:
            self._unindex_pane(key)
        for alias in [a for a, k in self.aliases.items() if k in keys]:
            del self.aliases[alias]

    def rename_pane(self, ref: str, label: str | None) -> PaneLoc:
        """Set a pane label; None or blank clears it."""
        loc = self.pane(ref)
        loc.pane.label = params.parse_label(label)
        return loc

    def set_pane_cwd(self, ref: str, cwd: str | None) -> PaneLoc:
        """Record a pane's last known cwd (the server learns it from the process)."""
        loc = self.pane(ref)
        loc.pane.cwd = params.parse_cwd(cwd)
        return loc

    def set_pane_foreground_cwd(self, ref: str, cwd: str | None) -> PaneLoc:
        """Record the cwd of the pane's foreground process as last sampled (None: unknown)."""
        loc = self.pane(ref)
        loc.pane.foreground_cwd = params.parse_cwd(cwd)
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
        nav = params.parse_direction(direction)
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
        params.parse_zoom_mode(mode)
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
        params.parse_direction(direction)
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
        nav = params.parse_direction(direction)
        loc = self._target(ref)
        root = lay.resize(loc.tab.root, loc.pane.key, nav, params.parse_amount(amount))
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
                raise ModelError(ErrorCode.LAYOUT_NOT_FOUND, "give either tab_id or pane_id")
            if tab is not None:
                return self.tab(tab)
            loc = self._target(pane)
            return loc.workspace, loc.tab
        except ModelError as err:
            raise ModelError(
                ErrorCode.LAYOUT_NOT_FOUND, f"layout target not found: {err.message}"
            ) from err

    def set_split_ratio(
        self, path: Sequence[bool], ratio: float, *, tab: str | None = None, pane: str | None = None
    ) -> tuple[Workspace, Tab]:
        """Set the ratio of the split at `path` (False=first, True=second), clamped."""
        exact = params.parse_split_ratio(ratio)
        steps = params.parse_path(path)
        ws, target = self.layout_target(tab=tab, pane=pane)
        try:
            root = lay.set_ratio(target.root, steps, exact)
        except KeyError as err:
            raise ModelError(ErrorCode.SPLIT_NOT_FOUND, "split path not found") from err
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
            raise ModelError(
                ErrorCode.INVALID_TARGET, "use either tab_id or workspace_id, not both"
            )
        if replaced is not None:
            ws = replaced[0]
        elif workspace is not None:
            ws = self.workspace(workspace)
        else:
            active = self.active()
            if active is None:
                raise ModelError(ErrorCode.WORKSPACE_NOT_FOUND, "no active workspace")
            ws = active
        specs = params.parse_layout(root)
        label = params.parse_label(tab_label)
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
        first = params.first_spec(specs)
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
        second = params.first_spec(spec.second)
        if second.cwd is None:
            second = PaneSpec(pane.cwd, second.label, second.command, second.env)
        new = self._new_pane(ws, second)
        tab.panes[new.key] = new
        self._index_pane(ws, tab, new)
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
        direction = params.parse_split_direction(split)
        share = params.parse_ratio(ratio)
        anchor = dest.focused
        if target_pane is not None:
            found = self._maybe(target_pane)
            if found is None or found.tab is not dest:
                raise ModelError(
                    ErrorCode.TARGET_PANE_NOT_FOUND, f"target pane {target_pane} not in tab {tab}"
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
        custom = params.parse_label(label)
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
        custom, custom_tab = params.parse_label(label), params.parse_label(tab_label)
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
        tab = ws.add_tab(pane, label)
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
            tab.detach(pane.key)
        else:
            ws.detach_tab(tab)
            result = replace(result, closed_tab_id=loc.tab_id)
        if dest is not ws:
            self.aliases[loc.pane_id] = pane.key
            pane.number = dest.next_pane_number
            dest.next_pane_number += 1
            if not ws.tabs:
                index = index_of(self.workspaces, ws)
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
        self._index_pane(loc.workspace, loc.tab, loc.pane)  # its tab, maybe its id, changed
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
        worktree: WorktreeMembership | None = None,
    ) -> Workspace:
        """Recreate a workspace from a snapshot with its public numbers (fresh terminals).
        Its number is reserved so it is never issued again."""
        params.check_restore(number, self.workspace_by_number(number) is not None, tabs, active_tab)
        top_tab = max(t.number for t in tabs)
        top_pane = max(p.number for t in tabs for p in t.panes)
        ws = Workspace(
            number,
            identity_cwd,
            [],
            active_tab if active_tab is not None else tabs[0].number,
            max(next_tab_number or 0, top_tab + 1),
            max(next_pane_number or 0, top_pane + 1),
            params.parse_label(label),
            worktree,
        )
        for seed in tabs:
            tab = self._restore_tab(ws, seed)
            ws.tabs.append(tab)
            for pane in tab.panes.values():
                self._index_pane(ws, tab, pane)
        self.workspaces.append(ws)
        self.reserve_workspace_number(number)
        if focus or self.active() is None:
            self.active_workspace = ws.number
        return ws

    def _restore_tab(self, ws: Workspace, seed: TabSeed) -> Tab:
        by_number: dict[int, Pane] = {}
        for p in seed.panes:
            spec = PaneSpec(p.cwd, params.parse_label(p.label), p.command)
            by_number[p.number] = self._new_pane(ws, spec, number=p.number)
        root = lay.map_leaves(seed.root, lambda n: by_number[n].key)
        order = lay.leaves(seed.root)
        focused = by_number[seed.focused if seed.focused is not None else order[0]].key
        panes = {by_number[n].key: by_number[n] for n in order}
        zoomed = seed.zoomed and len(panes) > 1
        return Tab(
            seed.number,
            root,
            panes,
            focused,
            by_number[order[0]].key,
            params.parse_label(seed.label),
            zoomed,
        )

    # ----------------------------------------------------------------- records

    def workspace_info(self, ws: Workspace, status_of: StatusOf | None = None) -> Record:
        """WorkspaceInfo record (number = 1-based position, as herdr reports it)."""
        position = index_of(self.workspaces, ws) + 1
        focused = self.active_workspace == ws.number
        return records.workspace_info(ws, position=position, focused=focused, status_of=status_of)

    def tab_info(self, ws: Workspace, tab: Tab, status_of: StatusOf | None = None) -> Record:
        """TabInfo record (number = 1-based position; label defaults to that number)."""
        position = index_of(ws.tabs, tab) + 1
        focused = self.active_workspace == ws.number and ws.active_tab == tab.number
        return records.tab_info(ws, tab, position=position, focused=focused, status_of=status_of)

    def pane_info(
        self,
        loc: PaneLoc,
        *,
        agent_status: str = AgentStatus.UNKNOWN.value,
        revision: int = 0,
        extra: Mapping[str, object] | None = None,
    ) -> Record:
        """PaneInfo record; runtime fields (agent, title, tokens, scroll...) come in `extra`."""
        return records.pane_info(
            loc,
            focused=self.is_focused(loc),
            agent_status=agent_status,
            revision=revision,
            extra=extra,
        )

    def pane_layout(self, ws: Workspace, tab: Tab) -> Record:
        """PaneLayoutSnapshot: unzoomed rects plus the `zoomed` flag (as herdr reports)."""
        return records.pane_layout(ws, tab, self.area, self.geometry(tab))

    def layout_description(self, ws: Workspace, tab: Tab) -> Record:
        """LayoutDescription (layout.export): a portable LayoutNode tree."""
        return records.layout_description(ws, tab)

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


_MOVE_BLOCK_FAILED = "workspace_move_block_failed"


def _move_item(items: list[T], item: T, insert_index: int) -> bool:
    """herdr's reorder rule: remove, then insert before `insert_index` of the old order."""
    params.parse_insert_index(insert_index, len(items))
    source = index_of(items, item)
    target = min(insert_index - 1 if source < insert_index else insert_index, len(items) - 1)
    if target == source:
        return False
    items.insert(target, items.pop(source))
    return True

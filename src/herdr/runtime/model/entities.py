"""What the session model is made of, what its operations return, and the error they
raise (PURE).

A pane is a layout slot bound to one terminal for its whole life; a tab is a split tree
of panes; a workspace is an ordered list of tabs. Entities compare by value, so code that
means "this very object" compares identity (`index_of`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from msgspec import Struct

from herdr.runtime import ids
from herdr.runtime import layout as lay
from herdr.runtime.layout import Leaf, Node
from herdr.vocab import HerdrError

T = TypeVar("T")


class ModelError(HerdrError):
    """A rejected operation; `code` is the wire error code (`herdr.vocab.ErrorCode`)."""


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
    foreground_cwd: str | None = None  # the foreground process's cwd, as last sampled


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

    def detach(self, key: int) -> None:
        """Remove a pane from this multi-pane tab, moving focus the way herdr does:
        back to where it came from, else the next pane in tree order, else the previous."""
        order = self.pane_keys()
        root = lay.remove_leaf(self.root, key)
        assert root is not None
        self.root = root
        del self.panes[key]
        self.zoomed = False
        if self.focused == key:
            pos = order.index(key)
            fallback = order[pos + 1] if pos + 1 < len(order) else order[pos - 1]
            back = self.prev_focus
            self.focused = back if back is not None and back in self.panes else fallback
            self.prev_focus = None
        elif self.prev_focus == key:
            self.prev_focus = None
        if self.root_pane == key:
            self.root_pane = lay.leaves(root)[0]


class WorktreeMembership(Struct, frozen=True):
    """Which git repository a workspace belongs to, and which checkout of it it shows
    (herdr's ``worktree_space``): the parent checkout (``is_linked_worktree`` false) and
    the linked worktrees opened from it form one group."""

    repo_key: str
    repo_name: str
    repo_root: str
    checkout_path: str
    is_linked_worktree: bool

    def record(self) -> dict[str, object]:
        """The WorkspaceWorktreeInfo wire record."""
        return {
            "repo_key": self.repo_key,
            "repo_name": self.repo_name,
            "repo_root": self.repo_root,
            "checkout_path": self.checkout_path,
            "is_linked_worktree": self.is_linked_worktree,
        }


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
    worktree: WorktreeMembership | None = None  # set by the worktree.* methods

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

    def add_tab(self, pane: Pane, label: str | None) -> Tab:
        """A new last tab holding just `pane`."""
        tab = Tab(self.next_tab_number, Leaf(pane.key), {pane.key: pane}, pane.key, pane.key, label)
        self.next_tab_number += 1
        self.tabs.append(tab)
        return tab

    def detach_tab(self, tab: Tab) -> None:
        """Remove `tab`; if it was active, the previous tab (else the next) becomes active."""
        index = index_of(self.tabs, tab)
        self.tabs.pop(index)
        if self.active_tab == tab.number and self.tabs:
            self.active_tab = self.tabs[max(index - 1, 0)].number


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


def index_of(items: Sequence[T], item: T) -> int:
    """Position by identity (entities compare by value, which is not what we mean here)."""
    for position, candidate in enumerate(items):
        if candidate is item:
            return position
    raise ValueError("item not in list")


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


class Closed(Struct, frozen=True):
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


class ZoomResult(Struct, frozen=True):
    changed: bool
    zoom_changed: bool
    focus_changed: bool
    reason: str | None
    zoomed: bool
    loc: PaneLoc


class SwapResult(Struct, frozen=True):
    changed: bool
    reason: str | None
    source: PaneLoc | None
    target: PaneLoc | None


class FocusResult(Struct, frozen=True):
    changed: bool
    reason: str | None
    source: PaneLoc
    focused: PaneLoc


class ResizeResult(Struct, frozen=True):
    changed: bool
    loc: PaneLoc


class MoveResult(Struct, frozen=True):
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


class ApplyResult(Struct, frozen=True):
    """A layout applied as a fresh tab; `closed` is the replaced tab, if any."""

    created: Created
    closed: Closed


# --------------------------------------------------------------------------- seeds


class PaneSpec(Struct, frozen=True):
    """Launch description of one pane in a layout tree (layout.apply)."""

    cwd: str | None = None
    label: str | None = None
    command: tuple[str, ...] | None = None
    env: tuple[tuple[str, str], ...] = ()


class PaneSeed(Struct, frozen=True):
    """A pane being restored from a snapshot (number kept, fresh terminal)."""

    number: int
    cwd: str | None = None
    label: str | None = None
    command: tuple[str, ...] | None = None


class TabSeed(Struct, frozen=True):
    """A tab being restored; `root` leaves are pane numbers."""

    number: int
    root: Node[int]
    panes: tuple[PaneSeed, ...]
    focused: int | None = None
    label: str | None = None
    zoomed: bool = False

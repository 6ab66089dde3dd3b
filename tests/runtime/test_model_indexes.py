"""The session's pane indexes (key, canonical pane id, terminal id) equal a full scan.

`Session` keeps them in step on every mutation so pane lookups are O(1); these tests
compare them with a scan of the tree after each kind of operation, after random
operation sequences (failed ones included), and check that lookups never scan.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from herdr.runtime.layout import Leaf, Split
from herdr.runtime.model import (
    ModelError,
    PaneLoc,
    PaneSeed,
    Session,
    TabSeed,
    Workspace,
)

Scan = tuple[dict[int, PaneLoc], dict[str, int], dict[str, int]]


def scan(s: Session) -> Scan:
    """What the indexes must hold, from the tree itself."""
    by_key = {loc.pane.key: loc for loc in s.iter_panes()}
    pane_ids = {loc.pane_id: key for key, loc in by_key.items()}
    terminals = {loc.pane.terminal_id: key for key, loc in by_key.items()}
    return by_key, pane_ids, terminals


def assert_indexes_match(s: Session) -> None:
    by_key, pane_ids, terminals = scan(s)
    # The private indexes themselves: no stale entry, nothing missing.
    assert set(s._slots) == set(by_key)
    assert s._pane_keys == pane_ids
    assert s._terminal_keys == terminals
    for key, loc in by_key.items():
        slot = s._slots[key]
        assert slot.pane_id == loc.pane_id
        held = slot.loc
        assert (held.workspace, held.tab, held.pane) == (loc.workspace, loc.tab, loc.pane)
        assert held.workspace is loc.workspace and held.tab is loc.tab and held.pane is loc.pane
    # And through the public lookups, by identity.
    for key, loc in by_key.items():
        for found in (
            s.locate_key(key),
            s.find_terminal(loc.pane.terminal_id),
            s.pane(loc.pane_id),
        ):
            assert found is not None
            assert found.pane is loc.pane and found.tab is loc.tab
            assert found.workspace is loc.workspace


def assert_forgotten(s: Session, seen: dict[str, str]) -> None:
    """Ids and terminals seen earlier (`pane id -> terminal`) that are no longer live
    resolve to nothing, unless the id stayed as the alias of a moved pane."""
    live_ids = {loc.pane_id for loc in s.iter_panes()}
    live_terminals = {loc.pane.terminal_id for loc in s.iter_panes()}
    for pane_id, terminal in seen.items():
        if terminal not in live_terminals:
            assert s.find_terminal(terminal) is None
        if pane_id not in live_ids and pane_id not in s.aliases:
            with pytest.raises(ModelError) as err:
                s.pane(pane_id)
            assert err.value.code == "pane_not_found"


def world() -> Session:
    """w1 (t1: p1|p2, t2: p3) and w2 (t1: p1)."""
    s = Session()
    s.create_workspace("/a")
    s.split_pane("w1:p1", direction="right")
    s.create_tab("w1")
    s.create_workspace("/b")
    return s


def _restore(s: Session) -> object:
    tabs = [
        TabSeed(1, Split("right", 0.5, Leaf(4), Leaf(7)), (PaneSeed(4), PaneSeed(7)), focused=7),
        TabSeed(3, Leaf(9), (PaneSeed(9, cwd="/r"),)),
    ]
    return s.restore_workspace(number=5, identity_cwd="/r", tabs=tabs)


LAYOUT = {
    "type": "split",
    "direction": "down",
    "ratio": 0.5,
    "first": {"type": "pane"},
    "second": {
        "type": "split",
        "direction": "right",
        "ratio": 0.4,
        "first": {"type": "pane"},
        "second": {"type": "pane"},
    },
}

OPERATIONS: list[tuple[str, Callable[[Session], object]]] = [
    ("create-workspace", lambda s: s.create_workspace("/c", focus=True)),
    ("create-tab", lambda s: s.create_tab("w2")),
    ("split", lambda s: s.split_pane("w1:p3", direction="down")),
    ("close-pane", lambda s: s.close_pane("w1:p1")),
    ("close-last-pane-of-tab", lambda s: s.close_pane("w1:p3")),
    ("close-last-pane-of-workspace", lambda s: s.close_pane("w2:p1")),
    ("close-tab", lambda s: s.close_tab("w1:t1")),
    ("close-workspace", lambda s: s.close_workspace("w1")),
    ("move-to-tab-same-workspace", lambda s: s.move_pane_to_tab("w1:p2", "w1:t2", split="down")),
    ("move-to-tab-other-workspace", lambda s: s.move_pane_to_tab("w1:p2", "w2:t1", split="right")),
    ("move-emptying-a-workspace", lambda s: s.move_pane_to_tab("w2:p1", "w1:t2", split="right")),
    ("move-to-new-tab", lambda s: s.move_pane_to_new_tab("w1:p1")),
    ("move-to-new-tab-elsewhere", lambda s: s.move_pane_to_new_tab("w1:p1", workspace="w2")),
    ("move-to-new-workspace", lambda s: s.move_pane_to_new_workspace("w1:p2")),
    ("move-sole-pane-to-new-workspace", lambda s: s.move_pane_to_new_workspace("w2:p1")),
    ("swap", lambda s: s.swap_panes("w1:p1", "w1:p2")),
    ("swap-direction", lambda s: s.swap_direction("w1:p1", "right")),
    ("apply-layout-new-tab", lambda s: s.apply_layout(LAYOUT, workspace="w2")),
    ("apply-layout-replacing", lambda s: s.apply_layout(LAYOUT, tab="w1:t1")),
    ("restore-workspace", _restore),
    (
        "zoom-resize-rename",
        lambda s: (s.zoom("w1:p1"), s.resize("w1:p2", "left"), s.rename_pane("w1:p1", "x")),
    ),
    ("move-workspace-and-tab", lambda s: (s.move_workspace("w2", 0), s.move_tab("w1:t2", 0))),
]


@pytest.mark.parametrize("operation", [op for _, op in OPERATIONS], ids=[n for n, _ in OPERATIONS])
def test_each_operation_keeps_the_indexes(operation: Callable[[Session], object]) -> None:
    s = world()
    before = {loc.pane_id: loc.pane.terminal_id for loc in s.iter_panes()}
    assert_indexes_match(s)
    operation(s)
    assert_indexes_match(s)
    assert_forgotten(s, before)


def test_a_moved_pane_is_found_under_its_new_id_its_alias_and_its_terminal() -> None:
    s = world()
    terminal = s.pane("w1:p2").pane.terminal_id
    moved = s.move_pane_to_tab("w1:p2", "w2:t1", split="right")
    assert moved.loc.pane_id == "w2:p2"
    assert s.pane("w2:p2").pane.terminal_id == terminal
    assert s.pane("w1:p2").pane.terminal_id == terminal  # the old id is an alias now
    found = s.find_terminal(terminal)
    assert found is not None and found.pane_id == "w2:p2"
    assert s._pane_keys.get("w1:p2") is None  # the alias is not a canonical index entry


@pytest.mark.parametrize(
    "bad",
    [
        lambda s: s.split_pane("w9:p1", direction="right"),
        lambda s: s.split_pane("w1:p1", direction="left"),
        lambda s: s.move_pane_to_tab("w1:p1", "w2:t1", split="right", target_pane="w1:p2"),
        lambda s: s.apply_layout({"type": "nope"}, workspace="w1"),
        lambda s: s.restore_workspace(number=1, identity_cwd="/", tabs=[]),
        lambda s: s.close_pane("term_1"),
    ],
    ids=[
        "unknown-pane",
        "bad-direction",
        "foreign-target",
        "bad-layout",
        "taken-number",
        "terminal-is-no-pane-id",
    ],
)
def test_a_refused_operation_leaves_the_indexes_alone(bad: Callable[[Session], object]) -> None:
    s = world()
    snapshot = (dict(s._slots), dict(s._pane_keys), dict(s._terminal_keys))
    with pytest.raises(ModelError):
        bad(s)
    assert (s._slots, s._pane_keys, s._terminal_keys) == snapshot
    assert_indexes_match(s)


def test_lookups_do_not_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolving a pane by id, legacy id, alias, key or terminal walks no tree."""
    s = world()
    s.move_pane_to_new_workspace("w1:p2")  # leaves the alias w1:p2
    locs = list(s.iter_panes())

    def no_scan(*_: object) -> object:
        raise AssertionError("a lookup scanned the session")

    monkeypatch.setattr(Session, "iter_panes", no_scan)
    monkeypatch.setattr(Workspace, "iter_panes", no_scan)
    for loc in locs:
        key, terminal = loc.pane.key, loc.pane.terminal_id
        assert s.pane(loc.pane_id).pane is loc.pane
        assert s.pane(f"{loc.workspace_id}-{loc.pane.number}").pane is loc.pane
        assert s.pane(f"p_{loc.workspace_id}_{key}").pane is loc.pane
        assert s.pane(f"p_{key}").pane is loc.pane
        assert s.locate_key(key) is not None
        found = s.find_terminal(terminal)
        assert found is not None and found.pane is loc.pane
    assert s.pane("w1:p2").workspace_id == "w3"


def test_a_deep_copy_indexes_its_own_objects() -> None:
    s = world()
    twin = copy.deepcopy(s)
    assert_indexes_match(twin)
    twin.close_workspace("w1")
    assert_indexes_match(twin)
    assert_indexes_match(s)
    assert s.find_terminal("term_1") is not None and twin.find_terminal("term_1") is None


def test_a_session_built_from_workspaces_indexes_them() -> None:
    s = world()
    rebuilt = Session(workspaces=s.workspaces, active_workspace=s.active_workspace)
    assert_indexes_match(rebuilt)


# --------------------------------------------------------------------------- sequences

REF = st.integers(min_value=0, max_value=1_000)


class IndexMachine(RuleBasedStateMachine):
    """Random operations (valid, stale and bogus references); indexes == scan after each."""

    def __init__(self) -> None:
        super().__init__()
        self.s = world()
        self.ever: dict[str, str] = {}  # every canonical pane id seen -> its terminal
        self.restored = 10

    def _pane(self, n: int) -> str:
        ids = [loc.pane_id for loc in self.s.iter_panes()] + sorted(self.ever)
        return ids[n % len(ids)] if ids else "w1:p1"

    def _tab(self, n: int) -> str:
        ids = [ws.tab_id(t) for ws in self.s.workspaces for t in ws.tabs] or ["w1:t1"]
        return ids[n % len(ids)]

    def _ws(self, n: int) -> str:
        ids = [ws.id for ws in self.s.workspaces] or ["w1"]
        return ids[n % len(ids)]

    def _try(self, op: Callable[[], object]) -> None:
        with contextlib.suppress(ModelError):
            op()

    @rule(focus=st.booleans())
    def create_workspace(self, focus: bool) -> None:
        self.s.create_workspace("/w", focus=focus)

    @rule(n=REF)
    def create_tab(self, n: int) -> None:
        self._try(lambda: self.s.create_tab(self._ws(n)))

    @rule(n=REF, direction=st.sampled_from(["right", "down", "left"]))
    def split(self, n: int, direction: str) -> None:
        self._try(lambda: self.s.split_pane(self._pane(n), direction=direction))

    @rule(n=REF)
    def close_pane(self, n: int) -> None:
        self._try(lambda: self.s.close_pane(self._pane(n)))

    @rule(n=REF)
    def close_tab(self, n: int) -> None:
        self._try(lambda: self.s.close_tab(self._tab(n)))

    @rule(n=REF)
    def close_workspace(self, n: int) -> None:
        self._try(lambda: self.s.close_workspace(self._ws(n)))

    @rule(n=REF, t=REF)
    def move_to_tab(self, n: int, t: int) -> None:
        self._try(lambda: self.s.move_pane_to_tab(self._pane(n), self._tab(t), split="right"))

    @rule(n=REF, w=REF, other=st.booleans())
    def move_to_new_tab(self, n: int, w: int, other: bool) -> None:
        workspace = self._ws(w) if other else None
        self._try(lambda: self.s.move_pane_to_new_tab(self._pane(n), workspace=workspace))

    @rule(n=REF)
    def move_to_new_workspace(self, n: int) -> None:
        self._try(lambda: self.s.move_pane_to_new_workspace(self._pane(n)))

    @rule(a=REF, b=REF)
    def swap(self, a: int, b: int) -> None:
        self._try(lambda: self.s.swap_panes(self._pane(a), self._pane(b)))

    @rule(t=REF, replace=st.booleans())
    def apply_layout(self, t: int, replace: bool) -> None:
        if replace:
            self._try(lambda: self.s.apply_layout(LAYOUT, tab=self._tab(t)))
        else:
            self._try(lambda: self.s.apply_layout(LAYOUT, workspace=self._ws(t)))

    @rule(reuse=st.booleans())
    def restore(self, reuse: bool) -> None:
        number = self.s.workspaces[0].number if reuse and self.s.workspaces else self.restored
        self.restored += 1
        tabs = [TabSeed(1, Split("down", 0.5, Leaf(2), Leaf(5)), (PaneSeed(2), PaneSeed(5)))]
        self._try(lambda: self.s.restore_workspace(number=number, identity_cwd="/r", tabs=tabs))

    @invariant()
    def indexes_equal_a_scan(self) -> None:
        assert_indexes_match(self.s)
        assert_forgotten(self.s, self.ever)
        for loc in self.s.iter_panes():
            self.ever[loc.pane_id] = loc.pane.terminal_id


IndexMachine.TestCase.settings = settings(
    max_examples=150,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_random_operations_keep_the_indexes = IndexMachine.TestCase

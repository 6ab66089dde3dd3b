"""Property tests: random operation sequences keep the model's invariants.

Each example drives a fresh `Session` through up to 60 random operations with valid,
legacy and bogus references. After every step the structural invariants are checked;
across steps a tracker checks what only history can show (ids never reused, numbers
monotonic, aliases still resolving). A failed operation must leave the model equal to
a deep copy taken before it.
"""

from __future__ import annotations

import contextlib
import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from herdr.runtime import layout as lay
from herdr.runtime.layout import Rect
from herdr.runtime.model import Closed, ModelError, MoveResult, Session

Op = tuple[str, tuple[object, ...]]

CWDS = ("/src/api", "/src/web", "/", "relative")  # the last one is invalid
LABELS = ("x", "  spaced  ", "", None)
SPLITS = ("right", "down", "left")  # "left" is not a split direction
DIRECTIONS = ("left", "right", "up", "down", "north")
ZOOM_MODES = ("toggle", "on", "off", "bogus")
RATIOS = (0.5, 0.0, 1.0, 0.33, -3.0, math.nan, math.inf, None)
BOGUS_WS = ("w99", "99", "w_99", "", "nonsense")
BOGUS_TAB = ("w1:t99", "w1:99", "t_w1_99", "w99:t1", "w1")
BOGUS_PANE = ("w1:p99", "w1-99", "p_w1_999", "p_999", "term_1", "w1:t1")

ref = st.integers(min_value=0, max_value=10_000)
flag = st.booleans()


def op(name: str, *args: st.SearchStrategy[object]) -> st.SearchStrategy[Op]:
    return st.tuples(st.just(name), st.tuples(*args))


GROWTH: st.SearchStrategy[Op] = st.one_of(
    op("create_workspace", st.sampled_from(CWDS), st.sampled_from(LABELS), flag),
    op("create_tab", ref, flag, flag),
    op("split", ref, flag, st.sampled_from(SPLITS), st.sampled_from(RATIOS), flag),
    op("move_to_tab", ref, ref, st.sampled_from(SPLITS), flag, flag),
)
OTHERS: st.SearchStrategy[Op] = st.one_of(
    op("close_workspace", ref),
    op("focus_workspace", ref),
    op("rename_workspace", ref, st.sampled_from(LABELS)),
    op("move_workspace", ref, st.integers(-1, 6)),
    op("create_tab", ref, flag, flag),
    op("close_tab", ref),
    op("focus_tab", ref),
    op("move_tab", ref, st.integers(-1, 6)),
    op("split", ref, flag, st.sampled_from(SPLITS), st.sampled_from(RATIOS), flag),
    op("split", ref, flag, st.sampled_from(SPLITS), st.sampled_from(RATIOS), flag),
    op("close_pane", ref),
    op("focus_pane", ref),
    op("focus_direction", ref, st.sampled_from(DIRECTIONS)),
    op("zoom", ref, st.sampled_from(ZOOM_MODES)),
    op("swap", ref, ref),
    op("swap_direction", ref, st.sampled_from(DIRECTIONS)),
    op("resize", ref, st.sampled_from(DIRECTIONS), st.sampled_from(RATIOS)),
    op("move_to_tab", ref, ref, st.sampled_from(SPLITS), flag, flag),
    op("move_to_new_tab", ref, ref, flag, flag),
    op("move_to_new_workspace", ref, flag),
    op("set_split_ratio", ref, st.lists(st.booleans(), max_size=3), st.sampled_from(RATIOS)),
    op("apply_layout", ref, flag, st.integers(1, 5), st.sampled_from(SPLITS)),
    op("set_area", st.integers(0, 60), st.integers(0, 30)),
)
OPS: st.SearchStrategy[Op] = st.one_of(GROWTH, OTHERS)


def seeded(populated: bool) -> Session:
    """Start from w1 (t1: p1|p3, t2: p2) and w2 (t1: p1), or from nothing."""
    s = Session()
    if populated:
        s.create_workspace("/src/api")
        s.create_tab("w1")
        s.split_pane("w1:p1", direction="right")
        s.create_workspace("/src/web")
    return s


# --------------------------------------------------------------------------- references


def pick(n: int, choices: list[str], bogus: tuple[str, ...]) -> str:
    """Mostly a live reference, sometimes a bogus one."""
    if not choices or n % 9 == 8:
        return bogus[n % len(bogus)]
    return choices[n % len(choices)]


def ws_ref(s: Session, n: int) -> str:
    forms = []
    for index, ws in enumerate(s.workspaces, start=1):
        forms += [ws.id, str(index), f"w_{index}"]
    return pick(n, forms, BOGUS_WS)


def tab_ref(s: Session, n: int) -> str:
    forms = []
    for ws in s.workspaces:
        for index, tab in enumerate(ws.tabs, start=1):
            forms += [ws.tab_id(tab), f"{ws.id}:{index}", f"t_{ws.id}_{index}"]
    return pick(n, forms, BOGUS_TAB)


def pane_ref(s: Session, n: int) -> str:
    forms = list(s.aliases)
    for loc in s.iter_panes():
        forms += [loc.pane_id, f"{loc.workspace_id}-{loc.pane.number}"]
        forms.append(f"p_{loc.workspace_id}_{loc.pane.key}")
    return pick(n, forms, BOGUS_PANE)


def layout_tree(leaves: int, direction: str) -> dict[str, object]:
    node: dict[str, object] = {"type": "pane", "label": f"l{leaves}"}
    for i in range(leaves - 1):
        node = {
            "type": "split",
            "direction": direction if i % 2 else "down",
            "ratio": 0.3 + 0.1 * i,
            "first": {"type": "pane"},
            "second": node,
        }
    return node


# --------------------------------------------------------------------------- tracker


@dataclass
class Tracker:
    """What history must never contradict."""

    owner_of_id: dict[str, int] = field(default_factory=dict)  # pane id -> pane key
    owner_of_terminal: dict[str, int] = field(default_factory=dict)  # terminal -> pane key
    max_ws: dict[int, int] = field(default_factory=dict)  # scope 0 -> max ws number
    seen_ws: set[tuple[int, int]] = field(default_factory=set)
    max_pane: dict[int, int] = field(default_factory=dict)  # ws number -> max pane number
    seen_pane: set[tuple[int, int]] = field(default_factory=set)
    max_tab: dict[int, int] = field(default_factory=dict)
    seen_tab: set[tuple[int, int]] = field(default_factory=set)
    aliases: list[tuple[str, str]] = field(default_factory=list)  # (old id, terminal)

    def observe(self, s: Session) -> None:
        """Check this step's state against everything seen before, then remember it."""
        self._numbers(self.seen_ws, self.max_ws, {(0, ws.number) for ws in s.workspaces})
        tabs = {(ws.number, tab.number) for ws in s.workspaces for tab in ws.tabs}
        self._numbers(self.seen_tab, self.max_tab, tabs)
        panes = {(loc.workspace.number, loc.pane.number) for loc in s.iter_panes()}
        self._numbers(self.seen_pane, self.max_pane, panes)
        for loc in s.iter_panes():
            key = loc.pane.key
            assert self.owner_of_id.setdefault(loc.pane_id, key) == key, "pane id reused"
            terminal = loc.pane.terminal_id
            assert self.owner_of_terminal.setdefault(terminal, key) == key, "terminal reused"
        for old, terminal in self.aliases:
            if s.find_terminal(terminal) is not None:
                assert s.pane(old).pane.terminal_id == terminal, f"alias {old} lost"

    @staticmethod
    def _numbers(
        seen: set[tuple[int, int]], top: dict[int, int], current: set[tuple[int, int]]
    ) -> None:
        """Numbers first seen now must exceed every number seen before in their scope."""
        for scope, number in sorted(current - seen):
            assert number > top.get(scope, 0), f"number {number} in scope {scope} went back"
        for scope, number in current:
            top[scope] = max(top.get(scope, 0), number)
        seen |= current


# --------------------------------------------------------------------------- invariants


def check_invariants(s: Session) -> None:
    assert (s.active_workspace is None) == (not s.workspaces)
    assert s.active_workspace is None or s.workspace_by_number(s.active_workspace) is not None
    ws_numbers = [ws.number for ws in s.workspaces]
    assert len(set(ws_numbers)) == len(ws_numbers)
    assert all(0 < n < s.next_workspace_number for n in ws_numbers)
    keys: set[int] = set()
    terminals: set[str] = set()
    for ws in s.workspaces:
        check_workspace(s, ws.number)
        for _, pane in ws.iter_panes():
            assert pane.key not in keys and 0 < pane.key < s.next_pane_key
            assert pane.terminal_id not in terminals
            keys.add(pane.key)
            terminals.add(pane.terminal_id)
    live_ids = {loc.pane_id for loc in s.iter_panes()}
    for alias, key in s.aliases.items():
        assert key in keys, "aliases point at live panes"
        assert alias not in live_ids, "a live id is never an alias"
    check_records(s)


def check_workspace(s: Session, number: int) -> None:
    ws = s.workspace_by_number(number)
    assert ws is not None and ws.tabs, "a workspace always has a tab"
    tab_numbers = [t.number for t in ws.tabs]
    assert len(set(tab_numbers)) == len(tab_numbers)
    assert all(0 < n < ws.next_tab_number for n in tab_numbers)
    assert ws.active_tab in tab_numbers
    pane_numbers = [pane.number for _, pane in ws.iter_panes()]
    assert len(set(pane_numbers)) == len(pane_numbers)
    assert all(0 < n < ws.next_pane_number for n in pane_numbers)
    for tab in ws.tabs:
        order = lay.leaves(tab.root)
        assert len(order) == len(set(order)) and set(order) == set(tab.panes)
        assert all(tab.panes[k].key == k for k in order)
        assert tab.focused in tab.panes and tab.root_pane in tab.panes
        assert tab.prev_focus is None or tab.prev_focus in tab.panes
        assert not tab.zoomed or len(tab.panes) > 1
        assert all(
            lay.MIN_RATIO <= sp.ratio <= lay.MAX_RATIO for _, sp in lay.iter_splits(tab.root)
        )
        check_geometry(s, tab.root, tab.focused, tab.zoomed)
        for key in order:
            loc = s.pane(ws.pane_id(tab.panes[key]))
            assert loc.pane is tab.panes[key], "canonical ids resolve to their pane"


def check_geometry(s: Session, root: lay.Node[int], focused: int, zoomed: bool) -> None:
    area = s.area
    for zoom in (None, focused if zoomed else None):
        geo = lay.compute(root, area, zoomed=zoom)
        pieces = list(geo.panes.values()) + [d.rect for d in geo.dividers]
        for r in pieces:
            assert r.width >= 0 and r.height >= 0
            assert area.x <= r.x <= r.right <= area.right
            assert area.y <= r.y <= r.bottom <= area.bottom
        assert sum(r.area for r in pieces) == area.area, "pieces cover the area"
        solid = [r for r in pieces if r.area]
        for i, a in enumerate(solid):
            for b in solid[i + 1 :]:
                assert not (
                    a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom
                ), "pieces overlap"


def check_records(s: Session) -> None:
    focused_ws = [w for w in s.list_workspaces() if w["focused"]]
    focused_tabs = [t for t in s.list_tabs() if t["focused"]]
    focused_panes = [loc for loc in s.iter_panes() if s.pane_info(loc)["focused"]]
    expected = 1 if s.workspaces else 0
    assert len(focused_ws) == len(focused_tabs) == len(focused_panes) == expected
    if focused_panes:
        loc = focused_panes[0]
        assert s.focused_ids() == (loc.workspace_id, loc.tab_id, loc.pane_id)
        assert loc.tab.focused == loc.pane.key, "the focused pane belongs to its tab"


# --------------------------------------------------------------------------- runner


def run(s: Session, tracker: Tracker, name: str, args: tuple[object, ...]) -> None:
    before = copy.deepcopy(s)
    target = pane_ref(s, _n(args[0])) if name == "close_pane" else ""
    try:
        outcome = s.close_pane(target) if target else ACTIONS[name](s, args)
    except ModelError as err:
        event(f"{name}: {err.code}")
        assert s == before, f"{name} failed with {err.code} but changed the model"
        return
    event(f"{name}: ok")
    if isinstance(outcome, MoveResult):
        check_move(s, before, tracker, outcome)
    if isinstance(outcome, Closed) and target:
        check_close_pane(before, s, target, outcome)


def check_move(s: Session, before: Session, tracker: Tracker, outcome: MoveResult) -> None:
    """Unchanged moves change nothing; a pane leaving its workspace keeps its old id."""
    if not outcome.changed:
        assert outcome.reason and s == before, "unchanged moves change nothing"
    elif outcome.previous_workspace_id != outcome.loc.workspace_id:
        terminal = outcome.loc.pane.terminal_id
        assert s.pane(outcome.previous_pane_id).pane.terminal_id == terminal
        tracker.aliases.append((outcome.previous_pane_id, terminal))


def check_close_pane(before: Session, after: Session, ref: str, closed: Closed) -> None:
    """Closing a workspace's only pane closes the workspace; otherwise only that pane goes."""
    loc = before.pane(ref)
    gone_ws = len(loc.workspace.tabs) == 1 and len(loc.tab.panes) == 1
    assert (after.workspace_by_number(loc.workspace.number) is None) is gone_ws
    assert closed.workspace_ids == ((loc.workspace_id,) if gone_ws else ())
    assert loc.pane.terminal_id in closed.terminal_ids
    assert after.find_terminal(loc.pane.terminal_id) is None


Action = Callable[[Session, tuple[object, ...]], object]


def _n(value: object) -> int:
    assert isinstance(value, int)
    return value


def _raw(value: object) -> Any:
    """Pass a drawn value through unchecked: the model must validate it itself."""
    return value


ACTIONS: dict[str, Action] = {
    "create_workspace": lambda s, a: s.create_workspace(
        str(a[0]), label=_raw(a[1]), focus=bool(a[2])
    ),
    "close_workspace": lambda s, a: s.close_workspace(ws_ref(s, _n(a[0]))),
    "focus_workspace": lambda s, a: s.focus_workspace(ws_ref(s, _n(a[0]))),
    "rename_workspace": lambda s, a: s.rename_workspace(ws_ref(s, _n(a[0])), _raw(a[1])),
    "move_workspace": lambda s, a: s.move_workspace(ws_ref(s, _n(a[0])), _n(a[1])),
    "create_tab": lambda s, a: s.create_tab(
        ws_ref(s, _n(a[0])) if a[1] else None, focus=bool(a[2])
    ),
    "close_tab": lambda s, a: s.close_tab(tab_ref(s, _n(a[0]))),
    "focus_tab": lambda s, a: s.focus_tab(tab_ref(s, _n(a[0]))),
    "move_tab": lambda s, a: s.move_tab(tab_ref(s, _n(a[0])), _n(a[1])),
    "split": lambda s, a: s.split_pane(
        pane_ref(s, _n(a[0])) if a[1] else None,
        direction=str(a[2]),
        ratio=_raw(a[3]),
        focus=bool(a[4]),
    ),
    "close_pane": lambda s, a: s.close_pane(pane_ref(s, _n(a[0]))),
    "focus_pane": lambda s, a: s.focus_pane(pane_ref(s, _n(a[0]))),
    "focus_direction": lambda s, a: s.focus_direction(pane_ref(s, _n(a[0])), str(a[1])),
    "zoom": lambda s, a: s.zoom(pane_ref(s, _n(a[0])), str(a[1])),
    "swap": lambda s, a: s.swap_panes(pane_ref(s, _n(a[0])), pane_ref(s, _n(a[1]))),
    "swap_direction": lambda s, a: s.swap_direction(pane_ref(s, _n(a[0])), str(a[1])),
    "resize": lambda s, a: s.resize(pane_ref(s, _n(a[0])), str(a[1]), _raw(a[2])),
    "move_to_tab": lambda s, a: s.move_pane_to_tab(
        pane_ref(s, _n(a[0])), tab_ref(s, _n(a[1])), split=str(a[2]), focus=bool(a[3])
    ),
    "move_to_new_tab": lambda s, a: s.move_pane_to_new_tab(
        pane_ref(s, _n(a[0])), workspace=ws_ref(s, _n(a[1])) if a[2] else None, focus=bool(a[3])
    ),
    "move_to_new_workspace": lambda s, a: s.move_pane_to_new_workspace(
        pane_ref(s, _n(a[0])), focus=bool(a[1])
    ),
    "set_split_ratio": lambda s, a: s.set_split_ratio(
        _raw(a[1]), _raw(a[2]), tab=tab_ref(s, _n(a[0]))
    ),
    "apply_layout": lambda s, a: s.apply_layout(
        layout_tree(_n(a[2]), str(a[3])),
        tab=tab_ref(s, _n(a[0])) if a[1] else None,
        workspace=None if a[1] else ws_ref(s, _n(a[0])),
    ),
    "set_area": lambda s, a: setattr(s, "area", Rect(0, 0, _n(a[0]), _n(a[1]))),
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(), st.lists(OPS, min_size=8, max_size=60))
def test_random_operation_sequences_keep_invariants(populated: bool, ops: list[Op]) -> None:
    s = seeded(populated)
    tracker = Tracker()
    tracker.observe(s)
    for name, args in ops:
        run(s, tracker, name, args)
        check_invariants(s)
        tracker.observe(s)


@settings(max_examples=100, deadline=None)
@given(st.lists(OPS, min_size=1, max_size=30))
def test_sequences_are_deterministic(ops: list[Op]) -> None:
    """Same operations, same model: terminal ids and numbers come from counters only."""

    def replay() -> Session:
        s = seeded(True)
        for name, args in ops:
            with contextlib.suppress(ModelError):
                ACTIONS[name](s, args)
        return s

    assert replay() == replay()

"""Session model operations, ids, focus rules, records and error codes."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from herdr import vocab
from herdr.runtime import layout as lay
from herdr.runtime.agent_state import Status
from herdr.runtime.layout import Leaf, Rect, Split
from herdr.runtime.model import (
    ModelError,
    Pane,
    PaneLoc,
    PaneSeed,
    Session,
    TabSeed,
    cwd_label,
)

WORKSPACE_FIELDS = {
    "workspace_id",
    "number",
    "label",
    "focused",
    "active_tab_id",
    "tab_count",
    "pane_count",
    "agent_status",
}
TAB_FIELDS = {"tab_id", "workspace_id", "number", "label", "focused", "pane_count", "agent_status"}
PANE_FIELDS = {
    "pane_id",
    "terminal_id",
    "workspace_id",
    "tab_id",
    "focused",
    "agent_status",
    "revision",
}


@pytest.fixture
def s() -> Session:
    return Session()


def expect_error(code: str, fn: Callable[[], object]) -> ModelError:
    with pytest.raises(ModelError) as info:
        fn()
    assert info.value.code == code, info.value.message
    return info.value


def unchanged(s: Session, code: str, fn: Callable[[], object]) -> None:
    """The operation fails with `code` and leaves the model exactly as it was."""
    before = copy.deepcopy(s)
    expect_error(code, fn)
    assert s == before


def pane_ids(s: Session) -> list[str]:
    return [loc.pane_id for loc in s.iter_panes()]


# --------------------------------------------------------------------------- numbering


def test_spec_numbering_example(s: Session) -> None:
    """ws create -> p1, tab create -> p2, split -> p3 (spec §1.2, acceptance 5/7/8)."""
    made = s.create_workspace("/t/p", label="api", focus=False)
    assert (made.loc.workspace_id, made.loc.tab_id, made.loc.pane_id) == ("w1", "w1:t1", "w1:p1")
    tab = s.create_tab("w1", label="logs")
    assert (tab.loc.tab_id, tab.loc.pane_id) == ("w1:t2", "w1:p2")
    new = s.split_pane("w1:p1", direction="right")
    assert new.pane_id == "w1:p3"
    assert new.tab_id == "w1:t1"
    layout = s.pane_layout(new.workspace, new.tab)
    assert len(layout["panes"]) == 2  # type: ignore[arg-type]
    assert [sp["direction"] for sp in layout["splits"]] == ["right"]  # type: ignore[attr-defined]


def test_workspace_numbers_are_global_monotonic_and_reservable(s: Session) -> None:
    s.create_workspace("/a")
    s.create_workspace("/b")
    s.close_workspace("w2")
    assert s.create_workspace("/c").workspace.id == "w3"
    s.reserve_workspace_number(31)
    assert s.create_workspace("/d").workspace.id == "w0"  # 32
    s.reserve_workspace_number(5)  # never goes backwards
    assert s.create_workspace("/e").workspace.id == "w11"  # 33


def test_tab_and_pane_numbers_are_never_reused(s: Session) -> None:
    s.create_workspace("/a")
    s.split_pane("w1:p1", direction="down")
    s.close_pane("w1:p2")
    assert s.split_pane("w1:p1", direction="down").pane_id == "w1:p3"
    s.create_tab("w1")
    s.close_tab("w1:t2")
    assert s.create_tab("w1").loc.tab_id == "w1:t3"
    assert s.create_workspace("/b").loc.pane_id == "w2:p1"  # per workspace


def test_terminal_ids_come_from_the_factory_or_a_counter() -> None:
    plain = Session()
    plain.create_workspace("/a")
    plain.split_pane(None, direction="right")
    assert [loc.pane.terminal_id for loc in plain.iter_panes()] == ["term_1", "term_2"]
    serials = iter(range(0xA0, 0xB0))
    custom = Session(terminal_id_factory=lambda: f"term_{next(serials):x}")
    custom.create_workspace("/a")
    assert custom.pane("w1:p1").pane.terminal_id == "term_a0"


# --------------------------------------------------------------------------- workspaces


@pytest.mark.parametrize(
    ("cwd", "label"),
    [("/home/u/src/api", "api"), ("/home/u/src/api/", "api"), ("/", "/"), ("/x", "x")],
    ids=["plain", "trailing-slash", "root", "top"],
)
def test_cwd_label(cwd: str, label: str) -> None:
    assert cwd_label(cwd) == label


def test_workspace_label_defaults_from_cwd_and_can_be_renamed(s: Session) -> None:
    ws = s.create_workspace("/src/web").workspace
    assert s.workspace_info(ws)["label"] == "web"
    s.set_pane_cwd("w1:p1", "/src/api")
    assert s.workspace_info(ws)["label"] == "api"  # follows the root pane's cwd
    s.rename_workspace("w1", "  front  ")
    assert s.workspace_info(ws)["label"] == "front"
    unchanged(s, "invalid_params", lambda: s.rename_workspace("w1", "   "))
    unchanged(s, "workspace_not_found", lambda: s.rename_workspace("w9", "x"))


def test_creation_never_steals_focus_but_the_first_workspace_is_active(s: Session) -> None:
    s.create_workspace("/a")
    assert s.focused_ids() == ("w1", "w1:t1", "w1:p1")
    s.create_workspace("/b")
    assert s.focused_ids()[0] == "w1"
    s.create_workspace("/c", focus=True)
    assert s.focused_ids() == ("w3", "w3:t1", "w3:p1")


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"cwd": "relative/dir"}, "invalid_params"),
        ({"cwd": "/a", "command": []}, "invalid_params"),
        ({"cwd": "/a", "command": ["ok", 3]}, "invalid_params"),
        ({"cwd": "/a", "env": {"A=B": "x"}}, "invalid_env"),
        ({"cwd": "/a", "env": {"": "x"}}, "invalid_env"),
        ({"cwd": "/a", "env": {"A": 1}}, "invalid_env"),
        ({"cwd": "/a", "label": 5}, "invalid_params"),
    ],
    ids=["relative-cwd", "empty-command", "bad-arg", "eq-in-key", "empty-key", "non-str", "label"],
)
def test_create_workspace_validation(s: Session, kwargs: dict[str, object], code: str) -> None:
    s.create_workspace("/ok")
    unchanged(s, code, lambda: s.create_workspace(**kwargs))  # type: ignore[arg-type]


def test_close_workspace_moves_focus_to_the_next_then_previous(s: Session) -> None:
    for cwd in ("/a", "/b", "/c"):
        s.create_workspace(cwd)
    s.focus_workspace("w2")
    s.split_pane("w2:p1", direction="right")
    closed = s.close_workspace("w2")
    assert closed.workspace_ids == ("w2",)
    assert closed.tab_ids == ("w2:t1",)
    assert closed.pane_ids == ("w2:p1", "w2:p2")
    assert closed.terminal_ids == ("term_2", "term_4")
    assert s.active_workspace == 3
    s.close_workspace("w3")
    assert s.active_workspace == 1
    s.close_workspace("w1")
    assert s.active_workspace is None
    assert s.focused_pane() is None
    unchanged(s, "pane_not_found", lambda: s.split_pane(None, direction="right"))


@pytest.mark.parametrize(
    ("moves", "order"),
    [
        ([("w1", 3)], ["w2", "w3", "w1"]),
        ([("w3", 0)], ["w3", "w1", "w2"]),
        ([("w2", 1)], ["w1", "w2", "w3"]),
        ([("w2", 2)], ["w1", "w2", "w3"]),
        ([("w1", 2)], ["w2", "w1", "w3"]),
    ],
    ids=["first-to-end", "last-to-front", "noop-before-self", "noop-after-self", "one-step"],
)
def test_move_workspace(s: Session, moves: list[tuple[str, int]], order: list[str]) -> None:
    for cwd in ("/a", "/b", "/c"):
        s.create_workspace(cwd)
    for ref, index in moves:
        s.move_workspace(ref, index)
    assert [ws.id for ws in s.workspaces] == order
    unchanged(s, "invalid_params", lambda: s.move_workspace("w1", 4))


# --------------------------------------------------------------------------- tabs


def test_tab_create_defaults_to_active_workspace_and_follows_its_cwd(s: Session) -> None:
    unchanged(s, "workspace_not_found", s.create_tab)
    s.create_workspace("/a")
    s.set_pane_cwd("w1:p1", "/a/sub")
    made = s.create_tab(label="logs")
    assert made.pane.cwd == "/a/sub"
    assert s.focused_ids()[1] == "w1:t1"  # no focus steal
    s.create_tab("w1", focus=True)
    assert s.focused_ids()[1] == "w1:t3"


def test_close_last_tab_closes_the_workspace(s: Session) -> None:
    """Acceptance 20."""
    s.create_workspace("/a")
    s.create_workspace("/b")
    closed = s.close_tab("w2:t1")
    assert closed.workspace_ids == ("w2",)
    assert [ws.id for ws in s.workspaces] == ["w1"]


def test_closing_the_active_tab_activates_the_previous_one(s: Session) -> None:
    s.create_workspace("/a")
    s.create_tab("w1")
    s.create_tab("w1", focus=True)
    s.close_tab("w1:t3")
    assert s.focused_ids()[1] == "w1:t2"
    s.focus_tab("w1:t1")
    s.close_tab("w1:t1")
    assert s.focused_ids()[1] == "w1:t2"


def test_tab_labels_default_to_position_and_rename(s: Session) -> None:
    s.create_workspace("/a")
    s.create_tab("w1")
    s.close_tab("w1:t1")
    ws, tab = s.tab("w1:t2")
    assert s.tab_info(ws, tab)["label"] == "1"
    assert s.tab_info(ws, tab)["number"] == 1
    s.rename_tab("w1:t2", "logs")
    assert s.tab_info(ws, tab)["label"] == "logs"
    unchanged(s, "invalid_params", lambda: s.rename_tab("w1:t2", ""))
    unchanged(s, "tab_not_found", lambda: s.rename_tab("w1:t1", "x"))


def test_move_tab(s: Session) -> None:
    s.create_workspace("/a")
    s.create_tab("w1")
    s.create_tab("w1")
    assert s.move_tab("w1:t3", 0)
    assert [t.number for t in s.workspaces[0].tabs] == [3, 1, 2]
    assert not s.move_tab("w1:t3", 1)


# --------------------------------------------------------------------------- resolution


@pytest.fixture
def two(s: Session) -> Session:
    """w1 (t1: p1|p3, t2: p2) and w2 (t1: p1)."""
    s.create_workspace("/a")
    s.create_tab("w1")
    s.split_pane("w1:p1", direction="right")
    s.create_workspace("/b")
    return s


@pytest.mark.parametrize(
    ("ref", "expected"),
    [("w1", "w1"), ("w2", "w2"), ("1", "w1"), ("2", "w2"), ("w_2", "w2")],
    ids=lambda v: v,
)
def test_resolve_workspace(two: Session, ref: str, expected: str) -> None:
    assert two.workspace(ref).id == expected


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("w1:t2", "w1:t2"),
        ("w1:2", "w1:t2"),
        ("1:1", "w1:t1"),
        ("t_w1_2", "w1:t2"),
        ("t_w_2_1", "w2:t1"),
        ("w_1:t1", "w1:t1"),
    ],
    ids=lambda v: v,
)
def test_resolve_tab(two: Session, ref: str, expected: str) -> None:
    ws, tab = two.tab(ref)
    assert ws.tab_id(tab) == expected


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("w1:p3", "w1:p3"),
        ("w1-3", "w1:p3"),
        ("1:p2", "w1:p2"),
        ("w_2-1", "w2:p1"),
        ("p_w1_3", "w1:p3"),  # raw key 3 is w1:p3 here
        ("p_4", "w2:p1"),
    ],
    ids=lambda v: v,
)
def test_resolve_pane(two: Session, ref: str, expected: str) -> None:
    assert two.pane(ref).pane_id == expected


@pytest.mark.parametrize(
    ("kind", "ref", "code"),
    [
        ("workspace", "w3", "workspace_not_found"),
        ("workspace", "3", "workspace_not_found"),
        ("workspace", "0", "workspace_not_found"),
        ("workspace", "", "workspace_not_found"),
        ("tab", "w1:t3", "tab_not_found"),
        ("tab", "w1:3", "tab_not_found"),
        ("tab", "w9:t1", "tab_not_found"),
        ("tab", "w1", "tab_not_found"),
        ("pane", "w1:p4", "pane_not_found"),
        ("pane", "w2:p2", "pane_not_found"),
        ("pane", "p_w2_1", "pane_not_found"),  # raw key 1 lives in w1
        ("pane", "p_99", "pane_not_found"),
        ("pane", "term_1", "pane_not_found"),  # terminal ids are not pane targets
        ("pane", "w1:t1", "pane_not_found"),
    ],
    ids=lambda v: v,
)
def test_resolution_errors(two: Session, kind: str, ref: str, code: str) -> None:
    resolve = {"workspace": two.workspace, "tab": two.tab, "pane": two.pane}[kind]
    expect_error(code, lambda: resolve(ref))


def test_find_terminal(two: Session) -> None:
    loc = two.find_terminal("term_3")
    assert loc is not None and loc.pane_id == "w1:p3"
    assert two.find_terminal("term_99") is None


# --------------------------------------------------------------------------- panes


def test_split_focus_and_cwd(s: Session) -> None:
    s.create_workspace("/a")
    s.set_pane_cwd("w1:p1", "/a/b")
    quiet = s.split_pane(None, direction="down", ratio=0.25)
    assert quiet.pane.cwd == "/a/b"
    assert s.focused_ids()[2] == "w1:p1"
    loud = s.split_pane("w1:p2", direction="right", focus=True, cwd="/elsewhere", label="tests")
    assert s.focused_ids()[2] == "w1:p3"
    assert (loud.pane.cwd, loud.pane.label) == ("/elsewhere", "tests")
    assert loud.tab.root == Split("down", 0.25, Leaf(1), Split("right", 0.5, Leaf(2), Leaf(3)))


def test_split_in_another_workspace_by_workspace_param(s: Session) -> None:
    s.create_workspace("/a")
    s.create_workspace("/b")
    made = s.split_pane(workspace="w2", direction="right")
    assert made.pane_id == "w2:p2"


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"direction": "left"}, "invalid_params"),
        ({"direction": "sideways"}, "invalid_params"),
        ({"direction": "right", "ratio": float("nan")}, "invalid_ratio"),
        ({"direction": "right", "ratio": float("inf")}, "invalid_ratio"),
        ({"direction": "right", "ratio": True}, "invalid_ratio"),
        ({"direction": "right", "target": "w1:p9"}, "pane_not_found"),
        ({"direction": "right", "workspace": "w9"}, "workspace_not_found"),
        ({"direction": "right", "cwd": "rel"}, "invalid_params"),
    ],
    ids=["left", "bogus", "nan", "inf", "bool", "no-pane", "no-ws", "relative-cwd"],
)
def test_split_validation(s: Session, kwargs: dict[str, object], code: str) -> None:
    s.create_workspace("/a")
    unchanged(s, code, lambda: s.split_pane(**kwargs))  # type: ignore[arg-type]


@pytest.mark.parametrize(("ratio", "stored"), [(0.0, 0.1), (1.0, 0.9), (0.7, 0.7)], ids=str)
def test_split_ratio_is_clamped(s: Session, ratio: float, stored: float) -> None:
    s.create_workspace("/a")
    loc = s.split_pane(None, direction="right", ratio=ratio)
    assert isinstance(loc.tab.root, Split)
    assert loc.tab.root.ratio == stored


def test_close_pane_sibling_takes_space_and_focus_returns(s: Session) -> None:
    s.create_workspace("/a")
    s.split_pane(None, direction="right")  # p2
    s.split_pane("w1:p2", direction="down")  # p3
    s.focus_pane("w1:p3")
    s.focus_pane("w1:p1")
    s.focus_pane("w1:p2")
    closed = s.close_pane("w1:p2")
    assert closed.pane_ids == ("w1:p2",)
    _, tab = s.tab("w1:t1")
    assert tab.root == Split("right", 0.5, Leaf(1), Leaf(3))
    assert s.focused_ids()[2] == "w1:p1"  # where focus came from


def test_close_focused_pane_without_history_uses_tree_order(s: Session) -> None:
    s.create_workspace("/a")
    s.split_pane(None, direction="right")
    s.split_pane(None, direction="right")  # splits the focused p1 again: (p1 | p3) | p2
    assert pane_ids(s) == ["w1:p1", "w1:p3", "w1:p2"]
    s.close_pane("w1:p1")
    assert s.focused_ids()[2] == "w1:p3"  # next in tree order
    s.focus_pane("w1:p2")
    s.close_pane("w1:p3")  # closing the remembered pane drops the history
    s.split_pane(None, direction="down")
    s.close_pane("w1:p2")
    assert s.focused_ids()[2] == "w1:p4"


def test_closing_the_only_pane_closes_tab_then_workspace(s: Session) -> None:
    s.create_workspace("/a")
    s.create_tab("w1")
    assert s.close_pane("w1:p2").tab_ids == ("w1:t2",)
    closed = s.close_pane("w1:p1")
    assert closed.workspace_ids == ("w1",)
    assert s.workspaces == []


def test_rename_pane_and_clear(s: Session) -> None:
    s.create_workspace("/a")
    loc = s.rename_pane("w1:p1", " editor ")
    assert loc.pane.label == "editor"
    assert s.pane_info(loc)["label"] == "editor"
    s.rename_pane("w1:p1", None)
    assert "label" not in s.pane_info(loc)


# --------------------------------------------------------------------------- geometry ops


@pytest.fixture
def pair(s: Session) -> Session:
    """A (w1:p1) left of B (w1:p2)."""
    s.create_workspace("/a")
    s.split_pane("w1:p1", direction="right")
    return s


def test_zoom_modes(pair: Session) -> None:
    """Acceptance 21."""
    s = pair
    s.create_workspace("/lone")
    single = s.zoom("w2:p1", "on")
    assert (single.changed, single.reason, single.zoomed) == (True, "single_pane", False)
    assert single.focus_changed  # zooming focuses the pane
    on = s.zoom("w1:p1", "on")
    assert (on.zoom_changed, on.zoomed) == (True, True)
    again = s.zoom("w1:p1", "on")
    assert (again.changed, again.reason) == (False, "already_zoomed")
    off = s.zoom("w1:p1", "off")
    assert (off.zoom_changed, off.zoomed) == (True, False)
    assert s.zoom("w1:p1", "off").reason == "already_unzoomed"
    assert s.zoom(None).zoomed  # toggle on the focused pane
    unchanged(s, "invalid_params", lambda: s.zoom("w1:p1", "sideways"))


def test_zoomed_tab_geometry_and_unzoom_on_split(pair: Session) -> None:
    s = pair
    s.zoom("w1:p2", "on")
    _, tab = s.tab("w1:t1")
    assert s.geometry(tab, zoomed=True).panes == {2: s.area}
    assert len(s.geometry(tab).panes) == 2  # the API snapshot reports unzoomed rects
    assert s.pane_layout(*s.tab("w1:t1"))["zoomed"] is True
    s.split_pane("w1:p1", direction="down")
    assert not tab.zoomed


def test_swap_direction(pair: Session) -> None:
    """Acceptance 22."""
    s = pair
    result = s.swap_direction("w1:p1", "right")
    assert result.changed
    _, tab = s.tab("w1:t1")
    assert lay.leaves(tab.root) == [2, 1]  # A now right, ids kept
    assert s.focused_ids()[2] == "w1:p1"
    s.create_workspace("/lone")
    lone = s.swap_direction("w2:p1", "right")
    assert (lone.changed, lone.reason) == (False, "no_neighbor")


@pytest.mark.parametrize(
    ("source", "target", "reason"),
    [
        ("w1:p1", "w1:p1", "same_pane"),
        ("w1:p1", "w1:p9", "not_found"),
        ("w1:p9", "w1:p1", "not_found"),
        ("w1:p1", "w2:p1", "cross_tab"),
        ("w1:p1", "w1:p2", None),
    ],
    ids=["same", "no-target", "no-source", "cross-tab", "ok"],
)
def test_swap_explicit(pair: Session, source: str, target: str, reason: str | None) -> None:
    pair.create_workspace("/b")
    result = pair.swap_panes(source, target)
    assert result.reason == reason
    assert result.changed is (reason is None)


def test_resize(pair: Session) -> None:
    """Acceptance 23."""
    s = pair
    result = s.resize("w1:p1", "right", 0.1)
    _, tab = s.tab("w1:t1")
    assert result.changed
    assert isinstance(tab.root, Split) and tab.root.ratio == 0.6
    assert not s.resize("w1:p1", "up").changed
    s.resize("w1:p1", "left", 9.0)  # amount capped at 0.5, ratio clamped
    assert tab.root.ratio == 0.1
    unchanged(s, "invalid_params", lambda: s.resize("w1:p1", "north"))


def test_focus_direction_neighbor_and_edges(pair: Session) -> None:
    s = pair
    moved = s.focus_direction("w1:p1", "right")
    assert moved.changed and moved.focused.pane_id == "w1:p2"
    assert s.focused_ids()[2] == "w1:p2"
    edge = s.focus_direction(None, "right")
    assert (edge.changed, edge.reason, edge.focused.pane_id) == (False, "no_neighbor", "w1:p2")
    neighbor = s.neighbor("w1:p2", "left")
    assert neighbor is not None and neighbor.pane_id == "w1:p1"
    assert s.edges("w1:p1") == {"left": True, "right": False, "up": True, "down": True}


def test_geometry_uses_the_session_area(pair: Session) -> None:
    pair.area = Rect(0, 0, 21, 5)
    layout = pair.pane_layout(*pair.tab("w1:t1"))
    rects = [p["rect"] for p in layout["panes"]]  # type: ignore[attr-defined]
    assert rects == [
        {"x": 0, "y": 0, "width": 10, "height": 5},
        {"x": 11, "y": 0, "width": 10, "height": 5},
    ]
    assert layout["area"] == {"x": 0, "y": 0, "width": 21, "height": 5}


# --------------------------------------------------------------------------- moves


@pytest.fixture
def world(s: Session) -> Session:
    """w1: t1 = p1|p2, t2 = p3 ; w2: t1 = p1."""
    s.create_workspace("/a")
    s.split_pane("w1:p1", direction="right")
    s.create_tab("w1")
    s.create_workspace("/b")
    return s


def test_move_to_tab_in_same_workspace_keeps_the_number(world: Session) -> None:
    s = world
    result = s.move_pane_to_tab("w1:p2", "w1:t2", split="down")
    assert result.changed and result.loc.pane_id == "w1:p2"
    assert result.loc.tab_id == "w1:t2"
    assert lay.leaves(s.tab("w1:t2")[1].root) == [s.pane("w1:p3").pane.key, result.loc.pane.key]
    assert s.aliases == {}


def test_move_across_workspaces_renumbers_and_keeps_an_alias(world: Session) -> None:
    s = world
    terminal = s.pane("w1:p2").pane.terminal_id
    result = s.move_pane_to_tab("w1:p2", "w2:t1", split="right", ratio=0.3, focus=True)
    assert (result.previous_pane_id, result.loc.pane_id) == ("w1:p2", "w2:p2")
    assert s.pane("w1:p2").pane.terminal_id == terminal
    assert s.pane("w1:p2").pane_id == "w2:p2"  # always emit canonical forms
    assert s.focused_ids() == ("w2", "w2:t1", "w2:p2")
    back = s.move_pane_to_tab("w2:p2", "w1:t1", split="down")
    assert back.loc.pane_id == "w1:p4"  # a new number, p2 is never reused
    for old in ("w1:p2", "w2:p2", "w1:p4"):
        assert s.pane(old).pane.terminal_id == terminal
    s.close_pane("w1:p4")
    expect_error("pane_not_found", lambda: s.pane("w1:p2"))
    assert s.aliases == {}


def test_move_last_pane_out_closes_its_tab_and_workspace(world: Session) -> None:
    s = world
    result = s.move_pane_to_tab("w2:p1", "w1:t1", split="down")
    assert (result.closed_tab_id, result.closed_workspace_id) == ("w2:t1", "w2")
    assert [ws.id for ws in s.workspaces] == ["w1"]
    tab_move = s.move_pane_to_new_tab("w1:p3")
    assert tab_move.closed_tab_id == "w1:t2"
    assert tab_move.created_tab_id == "w1:t3"
    assert tab_move.loc.pane_id == "w1:p3"


def test_move_to_new_workspace(world: Session) -> None:
    s = world
    result = s.move_pane_to_new_workspace("w1:p3", label="solo", tab_label="main")
    assert (result.created_workspace_id, result.created_tab_id) == ("w3", "w3:t1")
    assert result.loc.pane_id == "w3:p1"
    assert result.closed_tab_id == "w1:t2"
    ws, tab = s.tab("w3:t1")
    assert s.workspace_info(ws)["label"] == "solo"
    assert s.tab_info(ws, tab)["label"] == "main"
    assert s.focused_ids()[0] == "w1"  # no focus steal
    whole = s.move_pane_to_new_workspace("w2:p1", focus=True)
    assert whole.closed_workspace_id == "w2"
    assert s.focused_ids() == ("w4", "w4:t1", "w4:p1")


def test_moving_the_active_workspaces_last_pane_keeps_a_focus(s: Session) -> None:
    s.create_workspace("/a")
    s.create_workspace("/b")
    s.move_pane_to_new_workspace("w1:p1")
    assert s.active_workspace == 2


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda s: s.move_pane_to_tab("w1:p1", "w1:t1", split="down"), "same_tab"),
        (lambda s: s.move_pane_to_tab("w1:p1", "w1:t2", split="down"), "zoomed_tab"),
        (lambda s: s.move_pane_to_new_tab("w1:p2"), "zoomed_tab"),
        (lambda s: s.move_pane_to_new_workspace("w1:p2"), "zoomed_tab"),
    ],
    ids=["same-tab", "zoomed-source", "zoomed-new-tab", "zoomed-new-ws"],
)
def test_unchanged_moves_report_a_reason(
    world: Session, call: Callable[[Session], object], reason: str
) -> None:
    s = world
    if reason == "zoomed_tab":
        s.zoom("w1:p1", "on")
    before = copy.deepcopy(s)
    result = call(s)
    assert result.changed is False  # type: ignore[attr-defined]
    assert result.reason == reason  # type: ignore[attr-defined]
    assert s == before


def test_move_into_a_zoomed_tab_is_refused(world: Session) -> None:
    world.zoom("w1:p1", "on")
    assert world.move_pane_to_tab("w1:p3", "w1:t1", split="down").reason == "zoomed_tab"


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda s: s.move_pane_to_tab("w1:p9", "w1:t2", split="down"), "pane_not_found"),
        (lambda s: s.move_pane_to_tab("w1:p1", "w1:t9", split="down"), "tab_not_found"),
        (lambda s: s.move_pane_to_tab("w1:p1", "w1:t2", split="up"), "invalid_params"),
        (
            lambda s: s.move_pane_to_tab("w1:p1", "w1:t2", split="down", ratio=float("nan")),
            "invalid_ratio",
        ),
        (
            lambda s: s.move_pane_to_tab("w1:p1", "w1:t2", split="down", target_pane="w1:p2"),
            "target_pane_not_found",
        ),
        (
            lambda s: s.move_pane_to_tab("w1:p1", "w1:t2", split="down", target_pane="w9:p1"),
            "target_pane_not_found",
        ),
        (lambda s: s.move_pane_to_new_tab("w1:p1", workspace="w9"), "workspace_not_found"),
        (lambda s: s.move_pane_to_new_workspace("w1:p1", label=3), "invalid_params"),
    ],
    ids=["no-pane", "no-tab", "bad-split", "bad-ratio", "target-elsewhere", "no-target", "no-ws",
         "bad-label"],
)  # fmt: skip
def test_move_errors_change_nothing(
    world: Session, call: Callable[[Session], object], code: str
) -> None:
    unchanged(world, code, lambda: call(world))


# --------------------------------------------------------------------------- layouts


def test_set_split_ratio(pair: Session) -> None:
    s = pair
    s.split_pane("w1:p2", direction="down")
    s.set_split_ratio([True], 0.72, pane="w1:p1")
    _, tab = s.tab("w1:t1")
    assert isinstance(tab.root, Split) and isinstance(tab.root.second, Split)
    assert tab.root.second.ratio == 0.72
    s.set_split_ratio([], 2.0, tab="w1:t1")
    assert tab.root.ratio == 0.9
    unchanged(s, "split_not_found", lambda: s.set_split_ratio([False], 0.5))
    unchanged(s, "invalid_ratio", lambda: s.set_split_ratio([], float("nan")))
    unchanged(s, "layout_not_found", lambda: s.set_split_ratio([], 0.5, tab="w1:t9"))
    unchanged(s, "layout_not_found", lambda: s.set_split_ratio([], 0.5, pane="w1:p9"))
    unchanged(s, "layout_not_found", lambda: s.set_split_ratio([], 0.5, tab="w1:t1", pane="w1:p1"))
    unchanged(s, "invalid_params", lambda: s.set_split_ratio([1], 0.5))  # type: ignore[list-item]


def test_export_layout(pair: Session) -> None:
    s = pair
    s.rename_pane("w1:p2", "tests")
    exported = s.export_layout()
    assert exported == {
        "workspace_id": "w1",
        "tab_id": "w1:t1",
        "zoomed": False,
        "focused_pane_id": "w1:p1",
        "root": {
            "type": "split",
            "direction": "right",
            "ratio": 0.5,
            "first": {"type": "pane", "pane_id": "w1:p1", "label": None, "cwd": "/a",
                      "command": None, "env": {}},
            "second": {"type": "pane", "pane_id": "w1:p2", "label": "tests", "cwd": "/a",
                       "command": None, "env": {}},
        },
    }  # fmt: skip


def test_apply_layout_builds_a_fresh_tab_in_herdr_order(s: Session) -> None:
    s.create_workspace("/a")
    root = {
        "type": "split",
        "direction": "down",
        "ratio": 0.3,
        "first": {
            "type": "split",
            "direction": "right",
            "ratio": 0.5,
            "first": {"type": "pane", "label": "editor"},
            "second": {"type": "pane", "cwd": "/b"},
        },
        "second": {"type": "pane", "command": ["htop"], "env": {"K": "v"}},
    }
    result = s.apply_layout(root, tab_label="dev", focus=True)
    made = result.created
    assert made.loc.tab_id == "w1:t2"
    assert made.loc.pane_id == "w1:p2"
    assert s.focused_ids() == ("w1", "w1:t2", "w1:p2")
    panes = {loc.pane_id: loc.pane for loc in s.list_panes("w1") if loc.tab is made.tab}
    # root pane first, then the second side of each split before recursing
    assert panes["w1:p3"].command == ["htop"] and panes["w1:p3"].env == {"K": "v"}
    assert panes["w1:p4"].cwd == "/b"
    assert panes["w1:p2"].label == "editor"
    exported = s.export_layout(tab="w1:t2")["root"]
    assert isinstance(exported, dict)
    assert exported["type"] == "split" and exported["ratio"] == 0.3
    assert result.closed.tab_ids == ()


def test_apply_layout_replaces_a_tab_and_keeps_its_label(s: Session) -> None:
    s.create_workspace("/a")
    s.rename_tab("w1:t1", "main")
    result = s.apply_layout({"type": "pane"}, tab="w1:t1")
    assert result.closed.tab_ids == ("w1:t1",)
    assert result.closed.terminal_ids == ("term_1",)
    ws, tab = s.tab("w1:t2")
    assert s.tab_info(ws, tab)["label"] == "main"
    assert s.focused_ids() == ("w1", "w1:t2", "w1:p2")  # replaced tab was active


@pytest.mark.parametrize(
    ("root", "kwargs", "code"),
    [
        ({"type": "pane"}, {"tab": "w1:t1", "workspace": "w1"}, "invalid_target"),
        ({"type": "pane"}, {"tab": "w1:t9"}, "tab_not_found"),
        ({"type": "pane"}, {"workspace": "w9"}, "workspace_not_found"),
        ({"type": "box"}, {}, "invalid_layout"),
        ([], {}, "invalid_layout"),
        ({"type": "split", "direction": "left", "ratio": 0.5}, {}, "invalid_layout"),
        (
            {"type": "split", "direction": "right", "ratio": "x", "first": {}, "second": {}},
            {},
            "invalid_layout",
        ),
        (
            {"type": "split", "direction": "right", "ratio": 0.5, "first": {"type": "pane"}},
            {},
            "invalid_layout",
        ),
        ({"type": "pane", "command": []}, {}, "invalid_layout"),
        ({"type": "pane", "env": {"A=B": "c"}}, {}, "invalid_layout"),
        ({"type": "pane", "cwd": "rel"}, {}, "invalid_layout"),
    ],
    ids=["both-targets", "no-tab", "no-ws", "bad-type", "not-object", "bad-direction",
         "bad-ratio", "missing-second", "empty-command", "bad-env", "relative-cwd"],
)  # fmt: skip
def test_apply_layout_errors(s: Session, root: object, kwargs: dict[str, str], code: str) -> None:
    s.create_workspace("/a")
    unchanged(s, code, lambda: s.apply_layout(root, **kwargs))  # type: ignore[arg-type]


def _chain(leaves: int) -> dict[str, object]:
    node: dict[str, object] = {"type": "pane"}
    for _ in range(leaves - 1):
        node = {"type": "split", "direction": "right", "ratio": 0.5,
                "first": {"type": "pane"}, "second": node}  # fmt: skip
    return node


@pytest.mark.parametrize(("leaves", "ok"), [(16, True), (17, False)], ids=["depth-16", "depth-17"])
def test_apply_layout_depth_limit(s: Session, leaves: int, ok: bool) -> None:
    s.create_workspace("/a")
    if ok:
        s.apply_layout(_chain(leaves))
    else:
        unchanged(s, "invalid_layout", lambda: s.apply_layout(_chain(leaves)))


def _balanced(leaves: int) -> dict[str, object]:
    if leaves == 1:
        return {"type": "pane"}
    half = leaves // 2
    return {"type": "split", "direction": "down", "ratio": 0.5,
            "first": _balanced(half), "second": _balanced(leaves - half)}  # fmt: skip


@pytest.mark.parametrize(("leaves", "ok"), [(24, True), (25, False)], ids=["24", "25"])
def test_apply_layout_pane_limit(s: Session, leaves: int, ok: bool) -> None:
    s.create_workspace("/a")
    if ok:
        assert len(s.apply_layout(_balanced(leaves)).created.tab.panes) == 24
    else:
        unchanged(s, "invalid_layout", lambda: s.apply_layout(_balanced(leaves)))


# --------------------------------------------------------------------------- records


def test_record_shapes_and_focus_flags(world: Session) -> None:
    s = world
    ws1, t1 = s.tab("w1:t1")
    ws2, _ = s.tab("w2:t1")
    info = s.workspace_info(ws1)
    assert set(info) == WORKSPACE_FIELDS
    assert info == {
        "workspace_id": "w1",
        "number": 1,
        "label": "a",
        "focused": True,
        "active_tab_id": "w1:t1",
        "tab_count": 2,
        "pane_count": 3,
        "agent_status": "unknown",
    }
    assert s.workspace_info(ws2)["focused"] is False
    assert s.workspace_info(ws2)["number"] == 2
    tab = s.tab_info(ws1, t1)
    assert set(tab) == TAB_FIELDS and tab["focused"] is True and tab["pane_count"] == 2
    pane = s.pane_info(s.pane("w1:p2"), agent_status="working", revision=7, extra={"agent": "x"})
    assert set(pane) == PANE_FIELDS | {"cwd", "agent"}
    assert (pane["focused"], pane["agent_status"], pane["revision"]) == (False, "working", 7)
    assert s.pane_info(s.pane("w1:p1"))["focused"] is True
    assert s.pane_info(s.pane("w1:p3"))["focused"] is False  # focused in a background tab


def test_list_records(world: Session) -> None:
    s = world
    assert [w["workspace_id"] for w in s.list_workspaces()] == ["w1", "w2"]
    assert [t["tab_id"] for t in s.list_tabs()] == ["w1:t1", "w1:t2", "w2:t1"]
    assert [t["tab_id"] for t in s.list_tabs("w2")] == ["w2:t1"]
    assert [loc.pane_id for loc in s.list_panes("w1")] == ["w1:p1", "w1:p2", "w1:p3"]
    expect_error("workspace_not_found", lambda: s.list_panes("w7"))


@pytest.mark.parametrize(
    ("statuses", "rolled"),
    [
        ([], "unknown"),
        (["unknown", "idle"], "idle"),
        (["idle", "working"], "working"),
        (["working", "done", "idle"], "done"),
        (["done", "blocked", "working"], "blocked"),
    ],
    ids=["none", "idle", "working", "done", "blocked"],
)
def test_rollup(statuses: list[Status], rolled: Status) -> None:
    assert vocab.rollup(statuses) == rolled


def test_rollup_in_records_uses_the_status_source(world: Session) -> None:
    s = world
    status: dict[str, Status] = {"term_1": "idle", "term_2": "blocked", "term_3": "working"}

    def status_of(pane: Pane) -> Status:
        return status.get(pane.terminal_id, "unknown")

    ws, t1 = s.tab("w1:t1")
    _, t2 = s.tab("w1:t2")
    assert s.workspace_info(ws, status_of)["agent_status"] == "blocked"
    assert s.tab_info(ws, t1, status_of)["agent_status"] == "blocked"
    assert s.tab_info(ws, t2, status_of)["agent_status"] == "working"
    assert [t["agent_status"] for t in s.list_tabs(status_of=status_of)][-1] == "unknown"
    # records stay plain strings (not vocab.AgentStatus members) on their way to JSON
    assert type(s.workspace_info(ws, status_of)["agent_status"]) is str
    assert type(s.tab_info(ws, t1)["agent_status"]) is str


# --------------------------------------------------------------------------- restore


def _seed_tabs() -> list[TabSeed]:
    return [
        TabSeed(
            number=2,
            root=Split("right", 0.4, Leaf(3), Leaf(5)),
            panes=(PaneSeed(3, cwd="/r"), PaneSeed(5, label="logs")),
            focused=5,
            label="main",
            zoomed=True,
        ),
        TabSeed(number=4, root=Leaf(7), panes=(PaneSeed(7, command=("htop",)),), zoomed=True),
    ]


def test_restore_workspace_keeps_public_numbers_and_reserves_the_id(s: Session) -> None:
    ws = s.restore_workspace(number=5, identity_cwd="/r", tabs=_seed_tabs(), active_tab=4)
    assert ws.id == "w5"
    assert [loc.pane_id for loc in s.iter_panes()] == ["w5:p3", "w5:p5", "w5:p7"]
    assert s.focused_ids() == ("w5", "w5:t4", "w5:p7")
    assert s.tab("w5:t2")[1].zoomed is True
    assert s.tab("w5:t4")[1].zoomed is False  # a lone pane cannot stay zoomed
    assert s.pane("w5:p5").pane.label == "logs"
    assert s.create_tab("w5").loc.pane_id == "w5:p8"
    assert s.create_workspace("/n").workspace.id == "w6"


def test_restore_respects_saved_counters(s: Session) -> None:
    s.restore_workspace(
        number=1, identity_cwd="/r", tabs=_seed_tabs(), next_tab_number=9, next_pane_number=20
    )
    made = s.create_tab("w1")
    assert (made.loc.tab_id, made.loc.pane_id) == ("w1:t9", "w1:pM")  # 20 == "M"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"number": 0}, "invalid"),
        ({"tabs": []}, "at least one tab"),
        ({"active_tab": 3}, "active tab"),
        ({"tabs": [TabSeed(1, Leaf(1), (PaneSeed(2),))]}, "leaves"),
        ({"tabs": [TabSeed(1, Leaf(1), (PaneSeed(1),)), TabSeed(1, Leaf(2), (PaneSeed(2),))]},
         "tab numbers"),
        ({"tabs": [TabSeed(1, Leaf(1), (PaneSeed(1),)), TabSeed(2, Leaf(1), (PaneSeed(1),))]},
         "pane numbers"),
        ({"tabs": [TabSeed(1, Leaf(1), (PaneSeed(1),), focused=2)]}, "focused"),
    ],
    ids=["number", "no-tabs", "active", "leaves", "dup-tab", "dup-pane", "focus"],
)  # fmt: skip
def test_restore_validation(s: Session, kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"number": 3, "identity_cwd": "/r", "tabs": _seed_tabs()}
    args.update(kwargs)
    err = expect_error("invalid_params", lambda: s.restore_workspace(**args))  # type: ignore[arg-type]
    assert message in err.message
    assert s == Session()


def test_restore_refuses_a_live_number(s: Session) -> None:
    s.create_workspace("/a")
    unchanged(
        s,
        "invalid_params",
        lambda: s.restore_workspace(number=1, identity_cwd="/", tabs=_seed_tabs()),
    )


def test_pane_loc_is_compact_in_reprs(s: Session) -> None:
    loc = s.create_workspace("/a").loc
    assert repr(loc) == "PaneLoc(w1:p1 in w1:t1, term_1)"
    assert isinstance(loc, PaneLoc)

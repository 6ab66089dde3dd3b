"""State → view (pure): built from plain values, no app, no socket."""

from __future__ import annotations

import typing
from typing import Any, NamedTuple

import msgspec
import pytest

from herdr import vocab
from herdr.api.attach_messages import StateDoc, TabLayout, decode_state
from herdr.client import actions as a
from herdr.client import view
from herdr.client.build_view import (
    Look,
    Presentation,
    build_view,
    drag_ratio,
    focused_pane_id,
    pane_at,
    split_at,
    view_base,
)
from herdr.client.commands import ACTIONS, COMMANDS
from herdr.client.mirror import PaneMirror
from herdr.runtime.layout import Rect


def _pane(pane_id: str, ws: str, tab: str, **extra: Any) -> dict[str, Any]:
    return {"pane_id": pane_id, "workspace_id": ws, "tab_id": tab, **extra}


DOC = decode_state(
    {
        "workspaces": [
            {"workspace_id": "w1", "label": "proj", "agent_status": "done"},
            {"workspace_id": "w2", "label": "other", "agent_status": "idle"},
        ],
        "tabs": [
            {"tab_id": "w1:t1", "workspace_id": "w1", "label": "main", "agent_status": "done"},
            {"tab_id": "w2:t1", "workspace_id": "w2", "label": "1"},
        ],
        "panes": [
            _pane("w1:p1", "w1", "w1:t1", label="build", agent="claude", agent_status="done"),
            _pane("w1:p2", "w1", "w1:t1", terminal_title_stripped="vim", cwd="/tmp/proj"),
            _pane("w1:p3", "w1", "w1:t1", cwd="/home/me/src/"),
            _pane("w1:p4", "w1", "w1:t1"),
            _pane("w2:p1", "w2", "w2:t1", agent="codex", agent_status="bogus"),
        ],
        "layouts": {
            "w1:t1": {
                "zoomed": False,
                "focused_pane_id": "w1:p2",
                "panes": [
                    ["w1:p1", 0, 0, 40, 10],
                    ["w1:p2", 41, 0, 39, 10],
                    ["w1:p3", 0, 11, 40, 9],
                    ["w1:p4", 41, 11, 39, 9],
                ],
                "splits": [[[], "right", [40, 0, 1, 20], [0, 0, 80, 20]]],
            },
            "w2:t1": {"focused_pane_id": "w2:p1", "panes": [["w2:p1", 0, 0, 80, 20]]},
        },
        "focused": ["w1", "w1:t1", "w1:p2"],
        "area": [80, 20],
    }
)
HERE = Presentation(100, 30, workspace_id="w1", tab_id="w1:t1")


def test_without_a_state_it_says_connecting() -> None:
    built = build_view(None, Presentation(80, 24), {})
    assert (built.message, built.panes, built.workspaces) == ("connecting…", (), ())
    assert build_view(None, Presentation(80, 24, message="bad key"), {}).message == "bad key"


def test_sidebar_tabs_and_agents_of_the_shown_workspace() -> None:
    built = build_view(DOC, HERE, {})
    assert [(w.workspace_id, w.agent_count, w.seen) for w in built.workspaces] == [
        ("w1", 1, False),
        ("w2", 1, True),
    ]
    assert [(t.tab_id, t.label, t.agent_status) for t in built.tabs] == [("w1:t1", "main", "done")]
    assert [(g.pane_id, g.agent, g.agent_status) for g in built.agents] == [
        ("w1:p1", "claude", "done")
    ]
    other = build_view(DOC, replace_p(workspace_id="w2", tab_id="w2:t1"), {})
    assert [(g.agent, g.agent_status) for g in other.agents] == [("codex", "unknown")]


def replace_p(**changes: Any) -> Presentation:
    return msgspec.structs.replace(HERE, **changes)


class TitleCase(NamedTuple):
    pane_id: str
    title: str


TITLES = [
    TitleCase("w1:p1", "build"),  # its label
    TitleCase("w1:p2", "vim"),  # else the terminal title
    TitleCase("w1:p3", "src"),  # else its directory's name
    TitleCase("w1:p4", "w1:p4"),  # else its id
]


@pytest.mark.parametrize("case", TITLES, ids=[c.pane_id for c in TITLES])
def test_pane_titles(case: TitleCase) -> None:
    panes = {p.pane_id: p for p in build_view(DOC, HERE, {}).panes}
    assert panes[case.pane_id].title == case.title


def test_rows_from_the_mirrors_cursor_only_on_the_focused_pane_and_overlays() -> None:
    mirrors = {
        "w1:p1": PaneMirror(rows=("one",), cursor=(1, 0)),
        "w1:p2": PaneMirror(rows=("two",), cursor=(2, 0)),
    }
    panes = {p.pane_id: p for p in build_view(DOC, HERE, mirrors).panes}
    assert (panes["w1:p1"].rows, panes["w1:p1"].cursor) == (("one",), None)
    assert (panes["w1:p2"].rows, panes["w1:p2"].cursor) == (("two",), (2, 0))
    assert panes["w1:p3"].rows == ()  # no rows yet
    assert panes["w1:p1"].rect == Rect(0, 0, 40, 10)
    copied = build_view(DOC, HERE, mirrors, {"w1:p2": (("sel",), (0, 0))})
    assert [(p.rows, p.cursor) for p in copied.panes if p.pane_id == "w1:p2"] == [
        (("sel",), (0, 0))
    ]


def test_choices_and_look_reach_the_view() -> None:
    look = Look(sidebar_width=30, tab_bar_position="bottom", help=(("k", "d"),))
    built = build_view(DOC, replace_p(look=look, mode="navigate", selected_workspace_id="w2"), {})
    assert (built.sidebar_width, built.tab_bar_position, built.help) == (
        30,
        "bottom",
        (("k", "d"),),
    )
    assert built.selected_workspace_id == "w2"
    assert build_view(DOC, replace_p(selected_workspace_id="w2"), {}).selected_workspace_id is None
    assert build_view(DOC, replace_p(mode="help"), {}).help_visible


def test_the_base_is_the_view_without_rows() -> None:
    base = view_base(DOC, HERE)
    assert base.focused == focused_pane_id(DOC, "w1:t1") == "w1:p2"
    assert [s.pane_id for s in base.slots] == ["w1:p1", "w1:p2", "w1:p3", "w1:p4"]
    assert base.view.panes == ()
    assert focused_pane_id(DOC, "w9:t9") is None
    assert focused_pane_id(None, "w1:t1") is None


AREA = Rect(26, 2, 80, 20)  # where the pane area sits in the frame
LAYOUT: TabLayout = DOC.layouts["w1:t1"]


@pytest.mark.parametrize(
    ("x", "y", "hit"),
    [
        (26, 2, ("w1:p1", 0, 0)),
        (26 + 41 + 3, 2 + 1, ("w1:p2", 3, 1)),
        (26 + 40, 2, None),  # the divider
        (0, 0, None),  # the sidebar
    ],
    ids=["top-left", "inside", "divider", "outside"],
)
def test_pane_at(x: int, y: int, hit: tuple[str, int, int] | None) -> None:
    assert pane_at(LAYOUT, AREA, x, y) == hit


def test_split_at_and_drag_ratio() -> None:
    split = split_at(LAYOUT, AREA, 26 + 40, 5)
    assert split is not None and split[1] == "right"
    assert split_at(LAYOUT, AREA, 26, 5) is None
    assert drag_ratio(split, AREA, 26 + 20, 5) == 0.25
    assert drag_ratio(split, AREA, 0, 5) == 0.05  # clamped
    assert drag_ratio(split, AREA, 500, 5) == 0.95


def test_empty_state_document() -> None:
    assert build_view(StateDoc(), HERE, {}).panes == ()


def test_view_status_words_are_the_vocabulary() -> None:
    assert set(typing.get_args(view.AgentStatus)) == set(vocab.STATUS_WORDS)


def test_dispatch_tables_name_real_actions_and_commands() -> None:
    assert set(ACTIONS) <= set(typing.get_args(a.Action))
    assert set(COMMANDS) <= set(typing.get_args(a.CommandName))
    # every action has a handler (a custom command's types other than plugin_action
    # answer "not available yet" inside it)
    assert set(typing.get_args(a.Action)) - set(ACTIONS) == set()

"""The rename prompt, resize mode and the agent jump targets (all pure)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from herdr.api.attach_messages import StateDoc, decode_state
from herdr.client.actions import CancelPrompt, PromptChanged, SubmitPrompt
from herdr.client.ansi import strip_ansi
from herdr.client.app import App
from herdr.client.compose import compose
from herdr.client.input import InputParser, Paste
from herdr.client.keys import (
    Action,
    Command,
    KeyMachine,
    ModeChanged,
    ResizeDir,
    SendBytes,
    default_bindings,
    help_entries,
)
from herdr.client.modes import BIG_RESIZE_STEP
from herdr.client.prompt import MAX_TEXT, Prompt, edit, open_prompt
from herdr.client.settings import UiSettings, load_ui_settings
from herdr.client.targets import agent_panes, cycle_agent, notification_target
from herdr.client.view import TabView, ViewState


def _events(data: bytes) -> list[Any]:
    parser = InputParser()
    return parser.feed(data) + parser.flush_pending()


def run(machine: KeyMachine, data: bytes) -> list[Action]:
    return machine.handle_all(_events(data))


# --------------------------------------------------------------------------- editing


class EditCase(NamedTuple):
    test_id: str
    start: str
    keys: bytes
    text: str
    cursor: int
    outcome: str


EDIT_CASES = [
    EditCase("type_appends", "ab", b"cd", "abcd", 4, "edit"),
    EditCase("utf8", "", "né😀".encode(), "né😀", 3, "edit"),
    EditCase("backspace", "abc", b"\x7f", "ab", 2, "edit"),
    EditCase("ctrl_h_backspace", "abc", b"\x08", "ab", 2, "edit"),
    EditCase("backspace_at_start", "", b"\x7f", "", 0, "ignore"),
    EditCase("ctrl_u_clears", "abc", b"\x15", "", 0, "edit"),
    EditCase("left_then_type", "ac", b"\x1b[Db", "abc", 2, "edit"),
    EditCase("home_then_type", "bc", b"\x1b[Ha", "abc", 1, "edit"),
    EditCase("end_after_home", "ab", b"\x1b[H\x1b[Fc", "abc", 3, "edit"),
    EditCase("ctrl_a_ctrl_e", "ab", b"\x01\x05", "ab", 2, "edit"),
    EditCase("delete_at_cursor", "abc", b"\x1b[H\x1b[3~", "bc", 0, "edit"),
    EditCase("right_stops_at_end", "ab", b"\x1b[C", "ab", 2, "ignore"),
    EditCase("ctrl_w_word", "foo bar", b"\x17", "foo ", 4, "edit"),
    EditCase("space_types", "a", b" b", "a b", 3, "edit"),
    EditCase("enter_submits", "ab", b"\r", "ab", 2, "submit"),
    EditCase("esc_cancels", "ab", b"x\x1b", "abx", 3, "cancel"),
    EditCase("ctrl_c_cancels", "ab", b"\x03", "ab", 2, "cancel"),
    EditCase("alt_key_ignored", "ab", b"\x1bx", "ab", 2, "ignore"),
    EditCase("kitty_keys_without_text", "", b"\x1b[97u\x1b[98;2u\x1b[32u", "aB ", 3, "edit"),
    EditCase("kitty_release_ignored", "", b"\x1b[97;1:3u", "", 0, "ignore"),
    EditCase("paste_one_line", "a", b"\x1b[200~b\nc\td\x1b[201~", "ab c d", 6, "edit"),
    EditCase("paste_drops_controls", "", b"\x1b[200~a\x07b\x1b[201~", "ab", 2, "edit"),
]


@pytest.mark.parametrize("case", EDIT_CASES, ids=[c.test_id for c in EDIT_CASES])
def test_prompt_line_editing(case: EditCase) -> None:
    prompt = open_prompt("tab", "w1:t1", case.start, select=False)
    assert (prompt.text, prompt.cursor) == (case.start, len(case.start))
    outcome = "ignore"
    for event in _events(case.keys):
        prompt, outcome = edit(prompt, event)
        if outcome in ("submit", "cancel"):
            break
    assert (prompt.text, prompt.cursor, outcome) == (case.text, case.cursor, case.outcome)


SELECTED_CASES = [
    EditCase("typing_replaces", "old name", b"new", "new", 3, "edit"),
    EditCase("paste_replaces", "old", b"\x1b[200~x\x1b[201~", "x", 1, "edit"),
    EditCase("backspace_clears", "old", b"\x7f", "", 0, "edit"),
    EditCase("ctrl_u_clears", "old", b"\x15", "", 0, "edit"),
    EditCase("end_keeps_and_appends", "old", b"\x1b[F2", "old2", 4, "edit"),
    EditCase("right_keeps_and_appends", "old", b"\x1b[C2", "old2", 4, "edit"),
    EditCase("left_goes_to_start", "old", b"\x1b[D_", "_old", 1, "edit"),
    EditCase("home_goes_to_start", "old", b"\x1b[H_", "_old", 1, "edit"),
    EditCase("enter_keeps_the_name", "old", b"\r", "old", 3, "submit"),
    EditCase("esc_cancels", "old", b"\x1b", "old", 3, "cancel"),
]


@pytest.mark.parametrize("case", SELECTED_CASES, ids=[c.test_id for c in SELECTED_CASES])
def test_rename_prompt_selects_the_old_name(case: EditCase) -> None:
    prompt = open_prompt("tab", "w1:t1", case.start)
    assert prompt.selected
    outcome = "ignore"
    for event in _events(case.keys):
        prompt, outcome = edit(prompt, event)
        if outcome in ("submit", "cancel"):
            break
    assert (prompt.text, prompt.cursor, outcome) == (case.text, case.cursor, case.outcome)
    assert not prompt.selected


def test_an_empty_prefill_is_not_selected() -> None:
    assert not open_prompt("tab", "t", "").selected


def test_prompt_text_is_bounded() -> None:
    prompt, outcome = edit(open_prompt("pane", "p", ""), Paste(b"x" * (MAX_TEXT + 50)))
    assert outcome == "edit" and len(prompt.text) == MAX_TEXT
    assert edit(prompt, Paste(b"y")) == (prompt, "ignore")


def test_prefill_is_one_line() -> None:
    assert open_prompt("workspace", "w1", "a\nb").text == "a b"


# --------------------------------------------------------------------------- machine


def test_prompt_mode_keeps_keys_from_the_pane() -> None:
    m = KeyMachine()
    assert run(m, b"\x02T") == [
        ModeChanged("prefix"),
        ModeChanged("terminal"),
        Command("rename_tab"),
    ]
    assert m.open_prompt(open_prompt("tab", "w1:t1", "old")) == [ModeChanged("prompt")]
    assert m.mode == "prompt"
    actions = run(m, b"\x15new\x02v")  # the prefix and v are not actions here
    assert not any(isinstance(a, SendBytes | Command) for a in actions)
    assert actions[-1] == PromptChanged(Prompt("tab", "w1:t1", "newv", 4))
    assert run(m, b"\x1b[200~!\x1b[201~")[-1] == PromptChanged(Prompt("tab", "w1:t1", "newv!", 5))
    assert run(m, b"\r") == [
        ModeChanged("terminal"),
        SubmitPrompt(Prompt("tab", "w1:t1", "newv!", 5)),
    ]
    assert m.prompt is None
    assert run(m, b"x") == [SendBytes(b"x")]


def test_prompt_esc_cancels_without_submitting() -> None:
    m = KeyMachine()
    m.open_prompt(open_prompt("pane", "w1:p1", ""))
    assert run(m, b"abc\x1b") == [
        PromptChanged(Prompt("pane", "w1:p1", "a", 1)),
        PromptChanged(Prompt("pane", "w1:p1", "ab", 2)),
        PromptChanged(Prompt("pane", "w1:p1", "abc", 3)),
        ModeChanged("terminal"),
        CancelPrompt(Prompt("pane", "w1:p1", "abc", 3)),
    ]
    assert m.prompt is None


def test_prompt_swallows_kitty_release_of_enter() -> None:
    m = KeyMachine()
    m.open_prompt(open_prompt("tab", "t", "x"))
    actions = run(m, b"\x1b[13u\x1b[13;1:3u")
    assert actions == [ModeChanged("terminal"), SubmitPrompt(Prompt("tab", "t", "x", 1))]


def test_set_mode_prompt_needs_a_prompt() -> None:
    m = KeyMachine()
    assert m.set_mode("prompt") == []
    assert m.mode == "terminal"


class ResizeCase(NamedTuple):
    test_id: str
    keys: bytes
    actions: list[Action]


RESIZE_CASES = [
    ResizeCase("h", b"h", [ResizeDir("left")]),
    ResizeCase("j", b"j", [ResizeDir("down")]),
    ResizeCase("k", b"k", [ResizeDir("up")]),
    ResizeCase("l_twice", b"ll", [ResizeDir("right"), ResizeDir("right")]),
    ResizeCase("arrow_right", b"\x1b[C", [ResizeDir("right")]),
    ResizeCase("arrow_up", b"\x1b[A", [ResizeDir("up")]),
    ResizeCase("shift_l", b"L", [ResizeDir("right", BIG_RESIZE_STEP)]),
    ResizeCase("shift_left", b"\x1b[1;2D", [ResizeDir("left", BIG_RESIZE_STEP)]),
    ResizeCase("unbound_swallowed", b"x", []),
    ResizeCase("esc_leaves", b"\x1b", [ModeChanged("terminal")]),
    ResizeCase("q_leaves", b"q", [ModeChanged("terminal")]),
    ResizeCase("enter_leaves", b"\r", [ModeChanged("terminal")]),
    ResizeCase(
        "prefix_then_action",
        b"\x02v",
        [ModeChanged("prefix"), ModeChanged("terminal"), Command("split_right")],
    ),
]


@pytest.mark.parametrize("case", RESIZE_CASES, ids=[c.test_id for c in RESIZE_CASES])
def test_resize_mode(case: ResizeCase) -> None:
    m = KeyMachine()
    assert run(m, b"\x02r") == [ModeChanged("prefix"), ModeChanged("resize")]
    assert run(m, case.keys) == case.actions


def test_resize_mode_is_persistent_and_repeats() -> None:
    m = KeyMachine()
    run(m, b"\x02r")
    assert run(m, b"\x1b[108;1:2u") == [ResizeDir("right")]  # kitty repeat of l
    assert m.mode == "resize"


def test_help_lists_the_new_keys() -> None:
    rows = {d: k for k, d in help_entries(default_bindings())}
    assert rows["rename tab"] == "ctrl+b shift+t, ctrl+b ,"  # tmux's , too
    assert rows["go to the agent that needs you"] == "ctrl+b o"
    assert rows["leave resize mode"] == "resize: esc, q, enter"


# --------------------------------------------------------------------------- targets


def _pane(pane_id: str, ws: str, tab: str, status: str, agent: str = "claude") -> dict[str, Any]:
    return {
        "pane_id": pane_id,
        "workspace_id": ws,
        "tab_id": tab,
        "agent": agent,
        "agent_status": status,
    }


DOC: dict[str, Any] = {
    "workspaces": [{"workspace_id": "w1"}, {"workspace_id": "w2"}],
    "tabs": [{"tab_id": "w1:t1"}, {"tab_id": "w1:t2"}, {"tab_id": "w2:t1"}],
    "panes": [
        _pane("w2:p1", "w2", "w2:t1", "blocked"),
        _pane("w1:p3", "w1", "w1:t2", "done"),
        _pane("w1:p1", "w1", "w1:t1", "idle"),
        _pane("w1:p2", "w1", "w1:t1", "blocked", agent=""),  # a shell: no agent
        _pane("w1:p4", "w1", "w1:t2", "blocked"),
    ],
}


def test_agent_panes_in_sidebar_order() -> None:
    ids = [p["pane_id"] for p in agent_panes(decode_state(DOC))]
    assert ids == ["w1:p1", "w1:p3", "w1:p4", "w2:p1"]


class TargetCase(NamedTuple):
    test_id: str
    statuses: dict[str, str]
    recency: dict[str, int]
    target: str | None
    seqs: dict[str, int] = {}  # noqa: RUF012 - read only


TARGET_CASES = [
    TargetCase("latest_blocked", {}, {"w2:p1": 2, "w1:p4": 1}, "w2:p1"),
    TargetCase("latest_blocked_other", {}, {"w2:p1": 1, "w1:p4": 2}, "w1:p4"),
    TargetCase("tie_sidebar_order", {}, {}, "w1:p4"),
    TargetCase("blocked_beats_newer_done", {}, {"w1:p3": 9}, "w1:p4"),
    TargetCase("done_when_none_blocked", {"w2:p1": "idle", "w1:p4": "working"}, {}, "w1:p3"),
    TargetCase("nobody", {"w2:p1": "idle", "w1:p4": "working", "w1:p3": "idle"}, {}, None),
    # the server's state_change_seq decides first (changes before the client attached)
    TargetCase("server_seq", {}, {}, "w2:p1", {"w2:p1": 7, "w1:p4": 3}),
    TargetCase("server_seq_over_recency", {}, {"w1:p4": 5}, "w2:p1", {"w2:p1": 7, "w1:p4": 3}),
]


@pytest.mark.parametrize("case", TARGET_CASES, ids=[c.test_id for c in TARGET_CASES])
def test_notification_target(case: TargetCase) -> None:
    doc = dict(DOC)
    doc["panes"] = [
        {
            **p,
            "agent_status": case.statuses.get(p["pane_id"], p["agent_status"]),
            **({"state_change_seq": case.seqs[p["pane_id"]]} if p["pane_id"] in case.seqs else {}),
        }
        for p in DOC["panes"]
    ]
    assert notification_target(decode_state(doc), case.recency) == case.target


@pytest.mark.parametrize(
    ("current", "step", "target"),
    [
        ("w1:p1", 1, "w1:p3"),
        ("w2:p1", 1, "w1:p1"),  # wraps across workspaces
        ("w1:p1", -1, "w2:p1"),
        ("w1:p2", 1, "w1:p1"),  # from a shell: the first agent
        ("w1:p2", -1, "w2:p1"),  # ... or the last
        (None, 1, "w1:p1"),
    ],
)
def test_cycle_agent(current: str | None, step: int, target: str) -> None:
    assert cycle_agent(decode_state(DOC), current, step) == target


def test_cycle_agent_without_agents() -> None:
    assert cycle_agent(StateDoc(), "w1:p1", 1) is None
    assert notification_target(None, {}) is None


# --------------------------------------------------------------------------- drawing


def test_prompt_is_drawn_over_the_tab_bar_with_a_cursor() -> None:
    prompt = Prompt("tab", "w1:t1", "build", 3)
    view = ViewState(
        cols=80,
        rows=10,
        tabs=(TabView("w1:t1", "one"),),
        active_tab_id="w1:t1",
        mode="prompt",
        prompt=prompt,
    )
    frame = compose(view)
    row = strip_ansi(frame.rows[0])
    assert "RENAME TAB" in row and "build" in row and "esc cancel" in row
    assert " 1 one " not in row
    assert frame.cursor is not None
    x, y = frame.cursor
    assert y == 0 and row[x - 3 : x] == "bui" and row[x] == "l"


def test_prompt_without_tab_bar_and_long_text_keeps_the_cursor_visible() -> None:
    text = "x" * 200
    view = ViewState(
        cols=60,
        rows=10,
        sidebar_visible=False,
        hide_tab_bar_when_single_tab=True,
        tabs=(TabView("w1:t1", "one"),),
        active_tab_id="w1:t1",
        mode="prompt",
        prompt=Prompt("pane", "w1:p1", text, len(text)),
    )
    frame = compose(view)
    assert frame.cursor is not None
    x, y = frame.cursor
    assert y == 0 and x < 60
    assert "RENAME PANE" in strip_ansi(frame.rows[0])
    assert all(len(strip_ansi(r)) == 60 for r in frame.rows)


def test_resize_mode_badge() -> None:
    view = ViewState(cols=100, rows=10, tabs=(TabView("w1:t1", "one"),), mode="resize")
    assert "RESIZE" in strip_ansi(compose(view).rows[0])


# --------------------------------------------------------------------------- the app


class _Recorder:
    """An :class:`App` whose socket requests are recorded instead of sent."""

    def __init__(self, tmp_path: Path) -> None:
        self.read_end, write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        self.app = App(str(tmp_path / "none.sock"), settings=UiSettings(), fd_out=write_end)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.app.request = lambda method, params, **_: self.calls.append((method, params))  # type: ignore[method-assign]

    def feed(self, data: bytes) -> None:
        self.app.handle_events(_events(data))


def _app_doc() -> dict[str, Any]:
    doc = dict(DOC)
    doc["workspaces"] = [
        {"workspace_id": "w1", "label": "proj", "active_tab_id": "w1:t1"},
        {"workspace_id": "w2", "label": "other", "active_tab_id": "w2:t1"},
    ]
    doc["tabs"] = [
        {"tab_id": "w1:t1", "workspace_id": "w1", "label": "main"},
        {"tab_id": "w1:t2", "workspace_id": "w1", "label": "2"},
        {"tab_id": "w2:t1", "workspace_id": "w2", "label": "1"},
    ]
    doc["panes"] = [
        {**p, "label": "agent" if p["pane_id"] == "w1:p1" else None} for p in DOC["panes"]
    ]
    doc["layouts"] = {
        tab: {"zoomed": False, "focused_pane_id": focused, "panes": [[focused, 0, 0, 50, 20]]}
        for tab, focused in (("w1:t1", "w1:p1"), ("w1:t2", "w1:p3"), ("w2:t1", "w2:p1"))
    }
    doc["focused"] = ["w1", "w1:t1", "w1:p1"]
    return doc


@pytest.mark.parametrize(
    ("keys", "method", "params"),
    [
        (b"\x02T\x15build\r", "tab.rename", {"tab_id": "w1:t1", "label": "build"}),
        (b"\x02W\x1b[F!\r", "workspace.rename", {"workspace_id": "w1", "label": "proj!"}),
        (b"\x02Wnew\r", "workspace.rename", {"workspace_id": "w1", "label": "new"}),
        (b"\x02P\x15\r", "pane.rename", {"pane_id": "w1:p1", "label": ""}),
    ],
    ids=["tab", "workspace_appended", "workspace_replaced", "pane_cleared"],
)
def test_app_rename_prompt_sends_the_label(
    tmp_path: Path, keys: bytes, method: str, params: dict[str, Any]
) -> None:
    async def scenario() -> _Recorder:
        rec = _Recorder(tmp_path)
        rec.app.apply_state(decode_state(_app_doc()))
        rec.feed(keys)
        return rec

    rec = asyncio.run(scenario())
    assert rec.calls == [(method, params)]
    assert rec.app.machine.mode == "terminal"


def test_app_rename_prompt_prefills_and_draws(tmp_path: Path) -> None:
    async def scenario() -> _Recorder:
        rec = _Recorder(tmp_path)
        rec.app.apply_state(decode_state(_app_doc()))
        rec.feed(b"\x02T")
        return rec

    rec = asyncio.run(scenario())
    assert rec.app.machine.prompt == Prompt("tab", "w1:t1", "main", 4, selected=True)
    view = rec.app.build_view()
    assert view.prompt == rec.app.machine.prompt
    assert "RENAME TAB" in strip_ansi(compose(view).rows[0])
    assert rec.calls == []


def test_app_resize_mode_requests(tmp_path: Path) -> None:
    async def scenario() -> _Recorder:
        rec = _Recorder(tmp_path)
        rec.app.apply_state(decode_state(_app_doc()))
        rec.feed(b"\x02rlL\x1b")
        return rec

    rec = asyncio.run(scenario())
    assert rec.calls == [
        ("pane.resize", {"pane_id": "w1:p1", "direction": "right"}),
        ("pane.resize", {"pane_id": "w1:p1", "direction": "right", "amount": BIG_RESIZE_STEP}),
    ]
    assert rec.app.machine.mode == "terminal"


def test_app_jumps_to_the_agent_that_needs_you(tmp_path: Path) -> None:
    async def scenario() -> _Recorder:
        rec = _Recorder(tmp_path)
        doc = _app_doc()
        rec.app.apply_state(decode_state(doc))
        # w2:p1 was blocked before we attached; w1:p4 turns blocked later: it wins
        later = dict(doc)
        later["panes"] = [
            {**p, "agent_status": "working"} if p["pane_id"] == "w1:p4" else p for p in doc["panes"]
        ]
        rec.app.apply_state(decode_state(later))
        rec.app.apply_state(decode_state(doc))
        rec.feed(b"\x02o")
        return rec

    rec = asyncio.run(scenario())
    assert rec.calls[-1] == ("pane.focus", {"pane_id": "w1:p4"})
    assert (rec.app.ws_id, rec.app.tab_id) == ("w1", "w1:t2")


def test_app_next_agent_binding_and_reload(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[keys]\nnext_agent = 'prefix+a'\n[ui]\nsidebar_width = 30\n")

    async def scenario() -> _Recorder:
        rec = _Recorder(tmp_path)
        rec.app.apply_state(decode_state(_app_doc()))
        rec.feed(b"\x02a")  # not bound yet: nothing happens
        assert rec.calls == []
        notes = rec.app.reload_settings(load_ui_settings(config))
        assert notes == []
        rec.feed(b"\x02a")
        return rec

    rec = asyncio.run(scenario())
    assert rec.calls == [("pane.focus", {"pane_id": "w1:p3"})]
    assert rec.app.settings.sidebar_width == 30
    assert any(d == "next agent (all workspaces)" for _, d in rec.app.help)


def test_app_reload_reports_bad_keys(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[keys]\nzoom = 'prefix+ctlr+z'\n")

    async def scenario() -> list[str]:
        rec = _Recorder(tmp_path)
        return rec.app.reload_settings(load_ui_settings(config))

    notes = asyncio.run(scenario())
    assert len(notes) == 1 and "keys.zoom" in notes[0]

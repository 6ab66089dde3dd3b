"""``ui.confirm_close``: which panes count as busy, the question, the y/n prompt (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.client import confirm
from herdr.client.input import InputParser, Key
from herdr.client.prompt import Prompt, edit

SHELL = {"shell_pid": 10, "foreground_process_group_id": 10, "foreground_processes": []}
VIM = {
    "shell_pid": 10,
    "foreground_process_group_id": 22,
    "foreground_processes": [{"pid": 22, "name": "vim"}],
}


@pytest.mark.parametrize(
    ("record", "info", "label"),
    [
        ({"pane_id": "p1"}, SHELL, None),
        ({"pane_id": "p1"}, VIM, "vim"),
        ({"pane_id": "p1", "agent": "claude"}, SHELL, "claude"),
        ({"pane_id": "p1", "agent": "claude", "display_agent": "Claude"}, None, "Claude"),
        ({"pane_id": "p1"}, None, None),
        ({"pane_id": "p1"}, {**VIM, "foreground_processes": []}, "a program"),
        ({"pane_id": "p1"}, {"shell_pid": None, "foreground_process_group_id": 3}, None),
    ],
    ids=["idle-shell", "program", "agent", "display-agent", "unreadable", "nameless", "exited"],
)
def test_busy_label(record: dict[str, Any], info: dict[str, Any] | None, label: str | None) -> None:
    assert confirm.busy_label(record, info) == label


@pytest.mark.parametrize(
    ("scope", "labels", "text"),
    [
        ("pane", ["vim"], "vim is running in this pane"),
        ("tab", ["vim", "top"], "vim and top are running in this tab"),
        ("workspace", list("abcde"), "a, b, c and 2 more are running in this workspace"),
    ],
    ids=["one", "two", "many"],
)
def test_question(scope: confirm.Scope, labels: list[str], text: str) -> None:
    assert confirm.question(scope, labels) == text


def test_panes_in_scope() -> None:
    panes = [
        {"pane_id": "p1", "tab_id": "t1", "workspace_id": "w1"},
        {"pane_id": "p2", "tab_id": "t2", "workspace_id": "w1"},
        {"pane_id": "p3", "tab_id": "t3", "workspace_id": "w2"},
    ]
    assert confirm.panes_in(panes, "pane", "p2") == ["p2"]
    assert confirm.panes_in(panes, "tab", "t1") == ["p1"]
    assert confirm.panes_in(panes, "workspace", "w1") == ["p1", "p2"]


@pytest.mark.parametrize(
    ("keys", "outcome"),
    [(b"y", "submit"), (b"n", "cancel"), (b"\r", "cancel"), (b"Y", "cancel"), (b"q", "cancel")],
    ids=["y", "n", "enter", "shift-y", "other"],
)
def test_confirm_prompt_takes_only_y(keys: bytes, outcome: str) -> None:
    parser = InputParser()
    (event,) = parser.feed(keys) + parser.flush_pending()
    assert isinstance(event, Key)
    prompt = Prompt("confirm", "p1", "vim is running", heading="close pane?")
    assert prompt.title == "close pane?"
    assert edit(prompt, event) == (prompt, outcome)

"""The command catalog: one table the TUI's bindings and ``command.invoke`` share.

Pure checks that the ids cannot drift: every catalog id is a ``[keys]`` action that
runs the catalog's TUI command, every parameterless TUI command binding comes from the
catalog, and every command the server can run names a protocol method with params
that pass that method's schema for any ordinary target.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest

from herdr.api import protocol
from herdr.api.command_catalog import CATALOG, Target, lookup
from herdr.api.schema import method_params_refs, request_defs
from herdr.api.validate import ParamsValidator
from herdr.client import bindings
from herdr.client.actions import Command, CommandName

IDS = sorted(CATALOG)
RUNNABLE = sorted(i for i in IDS if CATALOG[i].method is not None)
TUI_ONLY = sorted(i for i in IDS if CATALOG[i].method is None)

TARGET = Target(
    "w2", "w2:t2", "w2:p3", workspace_ids=("w1", "w2", "w3"), tab_ids=("w2:t1", "w2:t2")
)


@pytest.mark.parametrize("command_id", IDS)
def test_each_id_is_a_key_binding_that_runs_the_catalog_command(command_id: str) -> None:
    entry = CATALOG[command_id]
    assert entry.command in get_args(CommandName)
    action = bindings._ACTIONS[command_id]
    assert action.make(0) == Command(entry.command)  # type: ignore[arg-type]
    assert action.description == entry.description


def test_every_command_binding_comes_from_the_catalog() -> None:
    from_commands = {
        name for name, action in bindings._ACTIONS.items() if isinstance(action.make(0), Command)
    }
    assert from_commands == set(CATALOG)


@pytest.mark.parametrize("command_id", RUNNABLE)
def test_runnable_commands_build_valid_params(command_id: str) -> None:
    entry = CATALOG[command_id]
    assert entry.method in protocol.METHODS
    assert entry.params is not None
    validate = ParamsValidator(request_defs(), method_params_refs())
    params = entry.params(TARGET)
    assert validate(str(entry.method), params) is None, params


@pytest.mark.parametrize("command_id", TUI_ONLY)
def test_tui_only_commands_say_so(command_id: str) -> None:
    assert CATALOG[command_id].hint


@pytest.mark.parametrize(
    ("command_id", "params"),
    [
        ("next_tab", {"tab_id": "w2:t1"}),  # wraps past the last tab
        ("previous_tab", {"tab_id": "w2:t1"}),
        ("next_workspace", {"workspace_id": "w3"}),
        ("previous_workspace", {"workspace_id": "w1"}),
        ("move_tab_next", {"tab_id": "w2:t2", "insert_index": 2}),  # already last: clamped
        ("move_tab_previous", {"tab_id": "w2:t2", "insert_index": 0}),
        ("split_vertical", {"target_pane_id": "w2:p3", "direction": "right", "focus": True}),
        ("split_horizontal", {"target_pane_id": "w2:p3", "direction": "down", "focus": True}),
        ("new_tab", {"workspace_id": "w2", "focus": True}),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_params_follow_the_target(command_id: str, params: dict[str, object]) -> None:
    entry = CATALOG[command_id]
    assert entry.params is not None
    assert entry.params(TARGET) == params


def test_aliases_and_unknown_ids() -> None:
    assert lookup("fullscreen") is CATALOG["zoom"]
    assert lookup("split_vertical") is CATALOG["split_vertical"]
    assert lookup("no_such_command") is None
    assert lookup("") is None


def test_the_doc_lists_exactly_the_catalog() -> None:
    doc = Path(__file__).resolve().parents[2] / "docs" / "command-ids.md"
    commands = doc.read_text(encoding="utf-8").split("## Commands", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `([a-z_]+)` \|", commands, re.MULTILINE)
    assert listed == list(CATALOG)

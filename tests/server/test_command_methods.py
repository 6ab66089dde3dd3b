"""``command.invoke`` on a real server: the TUI's commands by catalog id.

Each id runs the public method its catalog entry names, so the layout changes exactly
as that method would change it; the target (pane > tab > workspace, default: the
focus) is checked before anything changes, then focused, as herdr does; unknown ids,
TUI-only commands and mismatched targets get one error each and change nothing.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from herdr.api.command_catalog import CATALOG
from herdr_testing import ServerHandle
from herdr_testing.schema22 import assert_valid_response


def ok(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def invoke(server: ServerHandle, command_id: str, **target: str) -> dict[str, Any]:
    reply = server.request("command.invoke", {"command_id": command_id, **target})
    assert_valid_response(reply)
    return reply


def layout(server: ServerHandle, pane_id: str) -> dict[str, Any]:
    result: dict[str, Any] = ok(server, "pane.layout", {"pane_id": pane_id})["layout"]
    return result


def focus(server: ServerHandle) -> tuple[str | None, str | None, str | None]:
    snap = ok(server, "session.snapshot", {})["snapshot"]
    return snap.get("focused_workspace_id"), snap.get("focused_tab_id"), snap.get("focused_pane_id")


def state(server: ServerHandle) -> dict[str, Any]:
    """What a refused command must leave alone: the model and the focus."""
    snap = ok(server, "session.snapshot", {})["snapshot"]
    for pane in snap["panes"]:
        pane.pop("revision", None)
        pane.pop("scroll", None)
        pane.pop("foreground_cwd", None)
    snap.pop("agents", None)
    return dict(snap)


def pane_ids(server: ServerHandle) -> list[str]:
    return [p["pane_id"] for p in ok(server, "pane.list", {})["panes"]]


@pytest.fixture
def one_workspace(herdr_server: ServerHandle) -> ServerHandle:
    ok(herdr_server, "workspace.create", {"focus": True})
    return herdr_server


@pytest.mark.parametrize(
    ("command_id", "direction"),
    [("split_vertical", "right"), ("split_horizontal", "down")],
    ids=["split_vertical", "split_horizontal"],
)
def test_split_by_id_splits_the_focused_pane(
    one_workspace: ServerHandle, command_id: str, direction: str
) -> None:
    server = one_workspace
    expected = ok(server, "pane.split", {"target_pane_id": "w1:p1", "direction": direction})
    ok(server, "pane.close", {"pane_id": expected["pane"]["pane_id"]})
    reference = layout(server, "w1:p1")
    assert reference["splits"] == []
    assert invoke(server, command_id)["result"] == {"type": "ok"}
    after = layout(server, "w1:p1")
    assert len(after["panes"]) == 2
    assert len(after["splits"]) == 1
    # Same direction as pane.split itself gives, and the new pane has the focus.
    probe = ok(server, "pane.split", {"target_pane_id": "w1:p1", "direction": direction})
    probe_layout = layout(server, "w1:p1")
    assert probe_layout["splits"][-1]["direction"] == after["splits"][0]["direction"]
    ok(server, "pane.close", {"pane_id": probe["pane"]["pane_id"]})
    assert after["focused_pane_id"] != "w1:p1"


def test_new_tab_next_and_previous_tab(one_workspace: ServerHandle) -> None:
    server = one_workspace
    assert invoke(server, "new_tab")["result"] == {"type": "ok"}
    tabs = [t["tab_id"] for t in ok(server, "tab.list", {"workspace_id": "w1"})["tabs"]]
    assert len(tabs) == 2
    assert focus(server)[1] == tabs[1]
    assert "result" in invoke(server, "next_tab")
    assert focus(server)[1] == tabs[0]  # wraps
    assert "result" in invoke(server, "previous_tab")
    assert focus(server)[1] == tabs[1]


def test_close_pane_and_zoom(one_workspace: ServerHandle) -> None:
    server = one_workspace
    ok(server, "pane.split", {"target_pane_id": "w1:p1", "direction": "right", "focus": True})
    assert len(pane_ids(server)) == 2
    assert "result" in invoke(server, "zoom")
    assert layout(server, "w1:p1")["zoomed"] is True
    assert "result" in invoke(server, "fullscreen")  # herdr's old name for zoom
    assert layout(server, "w1:p1")["zoomed"] is False
    focused = focus(server)[2]
    assert focused is not None and focused != "w1:p1"
    assert "result" in invoke(server, "close_pane")
    assert pane_ids(server) == ["w1:p1"]


def test_the_named_target_is_focused_then_used(herdr_server: ServerHandle) -> None:
    server = herdr_server
    ok(server, "workspace.create", {"focus": True})
    ok(server, "workspace.create", {"focus": True})
    assert focus(server)[0] == "w2"
    assert "result" in invoke(server, "split_vertical", pane_id="w1:p1")
    assert len(layout(server, "w1:p1")["panes"]) == 2
    assert len(layout(server, "w2:p1")["panes"]) == 1
    assert focus(server)[0] == "w1"
    assert "result" in invoke(server, "new_tab", workspace_id="w2")
    assert len(ok(server, "tab.list", {"workspace_id": "w2"})["tabs"]) == 2
    assert focus(server)[0] == "w2"
    assert "result" in invoke(server, "close_tab", tab_id="w2:t1")
    assert [t["tab_id"] for t in ok(server, "tab.list", {"workspace_id": "w2"})["tabs"]] == [
        "w2:t2"
    ]


def test_new_workspace_needs_no_target(herdr_server: ServerHandle) -> None:
    assert "result" in invoke(herdr_server, "new_workspace")
    assert [w["workspace_id"] for w in ok(herdr_server, "workspace.list", {})["workspaces"]] == [
        "w1"
    ]
    assert focus(herdr_server)[0] == "w1"


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"command_id": "no_such_command"}, "command_not_found"),
        ({"command_id": "x" * 300}, "invalid_params"),
        ({"command_id": ""}, "command_not_found"),
        ({"command_id": 7}, "invalid_request"),
        ({}, "invalid_request"),
        ({"command_id": "rename_tab"}, "command_failed"),
        ({"command_id": "detach"}, "command_failed"),
        ({"command_id": "split_vertical", "pane_id": "w9:p9"}, "pane_not_found"),
        ({"command_id": "new_tab", "tab_id": "w1:t9"}, "tab_not_found"),
        ({"command_id": "new_tab", "workspace_id": "w9"}, "workspace_not_found"),
        (
            {"command_id": "close_pane", "pane_id": "w1:p1", "workspace_id": "w2"},
            "command_target_mismatch",
        ),
        (
            {"command_id": "close_pane", "pane_id": "w1:p1", "tab_id": "w2:t1"},
            "command_target_mismatch",
        ),
        (
            {"command_id": "close_tab", "tab_id": "w1:t1", "workspace_id": "w2"},
            "command_target_mismatch",
        ),
        ({"command_id": "close_pane", "pane_id": "w1:p1", "tab_id": "w1:t9"}, "tab_not_found"),
    ],
    ids=[
        "unknown-id",
        "id-too-long",
        "empty-id",
        "id-not-string",
        "id-missing",
        "tui-only-rename",
        "tui-only-detach",
        "unknown-pane",
        "unknown-tab",
        "unknown-workspace",
        "pane-in-other-workspace",
        "pane-in-other-tab",
        "tab-in-other-workspace",
        "pane-with-unknown-tab",
    ],
)
def test_refusals_answer_once_and_change_nothing(
    shared_server: ServerHandle, params: dict[str, Any], code: str
) -> None:
    server = shared_server
    while len(ok(server, "workspace.list", {})["workspaces"]) < 2:
        ok(server, "workspace.create", {})
    before = state(server)
    reply = server.request("command.invoke", params)
    assert_valid_response(reply)
    assert reply["error"]["code"] == code, reply
    assert state(server) == before


def test_a_command_on_an_empty_session_says_what_is_missing(herdr_server: ServerHandle) -> None:
    reply = invoke(herdr_server, "split_vertical")
    assert reply["error"]["code"] == "pane_not_found"
    reply = invoke(herdr_server, "new_tab")
    assert reply["error"]["code"] == "workspace_not_found"
    assert ok(herdr_server, "workspace.list", {})["workspaces"] == []


@pytest.mark.parametrize(
    ("command_id", "method"),
    [("edit_scrollback", "pane.edit_scrollback"), ("new_worktree", "worktree.create")],
    ids=["edit_scrollback", "new_worktree"],
)
def test_commands_owned_by_other_methods_dispatch_or_say_why_not(
    one_workspace: ServerHandle, command_id: str, method: str
) -> None:
    assert CATALOG[command_id].method == method
    probe = one_workspace.request(method, {})
    supported = "not supported by this server yet" not in probe.get("error", {}).get("message", "")
    reply = invoke(one_workspace, command_id)
    if supported:
        # The method's own answer (success or its own error code), never ours.
        assert reply.get("error", {}).get("code") != "command_failed", reply
    else:
        assert reply["error"]["code"] == "command_failed"
        assert method in reply["error"]["message"]


def test_concurrent_invokes_on_one_pane_get_one_answer_each(one_workspace: ServerHandle) -> None:
    server = one_workspace
    ok(server, "pane.split", {"target_pane_id": "w1:p1", "direction": "right"})
    target = next(p for p in pane_ids(server) if p != "w1:p1")
    replies: list[dict[str, Any]] = []

    def close() -> None:
        params = {"command_id": "close_pane", "pane_id": target}
        replies.append(server.request("command.invoke", params))

    threads = [threading.Thread(target=close) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outcomes = sorted(r["result"]["type"] if "result" in r else r["error"]["code"] for r in replies)
    assert outcomes == ["ok"] + ["pane_not_found"] * 15
    assert pane_ids(server) == ["w1:p1"]
    assert ok(server, "ping", {})["type"] == "pong"

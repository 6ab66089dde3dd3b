"""Short ids as shown on screen (``p2``/``t2``): one resolver for every id param."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from herdr.server import short_ids
from herdr_testing import ServerHandle, wait_until

EXPAND = [
    pytest.param("p2", "p", "w1", "w1:p2", id="pane"),
    pytest.param("t3", "t", "w2", "w2:t3", id="tab"),
    pytest.param("pA", "p", "w1", "w1:pA", id="base32-number"),
    pytest.param("w1:p2", "p", "w3", "w1:p2", id="canonical-untouched"),
    pytest.param("p_3", "p", "w1", "p_3", id="legacy-untouched"),
    pytest.param("p2", "t", "w1", "p2", id="pane-form-in-tab-slot"),
    pytest.param("p", "p", "w1", "p", id="no-number"),
    pytest.param("p0x", "p", "w1", "p0x", id="not-base32"),
    pytest.param("p2", "p", None, "p2", id="no-workspace"),
    pytest.param("P2", "p", "w1", "P2", id="upper-case-prefix"),
]


@pytest.mark.parametrize(("value", "kind", "ws", "want"), EXPAND)
def test_expand(value: str, kind: str, ws: str | None, want: str) -> None:
    assert short_ids.expand(value, kind, ws) == want


PARAMS = [
    pytest.param({"pane_id": "p2"}, {"pane_id": "w2:p2"}, id="pane_id"),
    pytest.param(
        {"target_pane_id": "p1", "source_pane_id": "w1:p3"},
        {"target_pane_id": "w2:p1", "source_pane_id": "w1:p3"},
        id="target-and-source",
    ),
    pytest.param({"tab_id": "t2", "label": "p2"}, {"tab_id": "w2:t2", "label": "p2"}, id="tab"),
    pytest.param(
        {"subscriptions": [{"type": "pane_output", "pane_id": "p1"}]},
        {"subscriptions": [{"type": "pane_output", "pane_id": "w2:p1"}]},
        id="in-a-list",
    ),
    pytest.param({"pane_id": 7}, {"pane_id": 7}, id="not-a-string"),
]


@pytest.mark.parametrize(("params", "want"), PARAMS)
def test_expand_params(params: dict[str, Any], want: dict[str, Any]) -> None:
    before = json.dumps(params)
    assert short_ids.expand_params(params, "w2") == want
    assert json.dumps(params) == before  # the caller's dict is not changed


def test_needs_caller_only_for_short_ids() -> None:
    assert short_ids.needs_caller({"pane_id": "p2"})
    assert short_ids.needs_caller({"items": [{"tab_id": "t1"}]})
    assert not short_ids.needs_caller({"pane_id": "w1:p2", "text": "p2"})


def test_caller_workspace_order() -> None:
    nothing: dict[int, str] = {}
    exists = {"w1", "w2", "w3"}.__contains__
    # the pane our ancestry runs in wins (a child of ours: whatever our own parent is,
    # even none left when the test run was started in the background)
    child = subprocess.Popen(["sleep", "60"])
    try:
        pane_of = {os.getpid(): "w3"}.get
        assert short_ids.caller_workspace(child.pid, pane_of, exists, "w1") == "w3"
    finally:
        child.kill()
        child.wait()
    # no pane among our ancestors: our $HERDR_WORKSPACE_ID (as the process started with)
    env = short_ids._environ_value(os.getpid(), "HERDR_WORKSPACE_ID")
    got = short_ids.caller_workspace(os.getpid(), nothing.get, exists, "w1")
    assert got == (env if env in {"w1", "w2", "w3"} else "w1")
    # unknown caller: the focused workspace
    assert short_ids.caller_workspace(None, nothing.get, exists, "w1") == "w1"


# -- through the real CLI --------------------------------------------------------------


@pytest.fixture
def two(herdr_server: ServerHandle) -> ServerHandle:
    for label in ("one", "two"):
        reply = herdr_server.request("workspace.create", {"label": label, "cwd": "/tmp"})
        assert "result" in reply, reply
    herdr_server.request("workspace.focus", {"workspace_id": "w1"})
    for ws in ("w1", "w2"):
        herdr_server.request("pane.send_text", {"pane_id": f"{ws}:p1", "text": f"echo in''{ws}\r"})
    return herdr_server


def _read(server: ServerHandle, pane: str, **env: str) -> tuple[int, str]:
    result = server.cli("pane", "read", pane, env={"HERDR_WORKSPACE_ID": "", **env})
    return result.returncode, result.stdout + result.stderr


def test_cli_short_pane_id_resolves_in_the_callers_workspace(two: ServerHandle) -> None:
    wait_until(lambda: "inw2" in _read(two, "w2:p1")[1])
    wait_until(lambda: "inw1" in _read(two, "w1:p1")[1])
    code, out = _read(two, "p1")  # no $HERDR_WORKSPACE_ID: the focused workspace
    assert code == 0 and "inw1" in out and "inw2" not in out, out
    code, out = _read(two, "p1", HERDR_WORKSPACE_ID="w2")
    assert code == 0 and "inw2" in out and "inw1" not in out, out


def test_cli_short_id_that_names_nothing_is_pane_not_found(two: ServerHandle) -> None:
    result = two.cli("pane", "get", "p9")
    assert result.returncode != 0
    assert "pane_not_found" in result.stdout + result.stderr
    result = two.cli("tab", "get", "t9")
    assert "tab_not_found" in result.stdout + result.stderr


def test_cli_short_tab_id(two: ServerHandle) -> None:
    result = two.cli("tab", "get", "t1", env={"HERDR_WORKSPACE_ID": "w2"})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["result"]["tab"]["tab_id"] == "w2:t1"


def test_cli_in_a_pane_uses_the_pane_it_runs_in(two: ServerHandle) -> None:
    # $HERDR_WORKSPACE_ID removed: the server finds the caller's pane by its ancestry
    out = two.root / "ancestry.json"
    cmd = f"env -u HERDR_WORKSPACE_ID {sys.executable} -m herdr pane get p1 > {out}; echo do''ne\r"
    two.request("pane.send_text", {"pane_id": "w2:p1", "text": cmd})
    wait_until(lambda: out.exists() and out.read_text().strip().endswith("}"))
    assert json.loads(out.read_text())["result"]["pane"]["pane_id"] == "w2:p1"

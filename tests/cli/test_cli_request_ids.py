"""CLI request ids are herdr's ``cli:<noun>:<verb>``, on both CLI paths (issue 13)."""

from __future__ import annotations

import json

import pytest

from herdr_testing import HerdrEnv, ServerHandle

# (command line, the id its envelope carries); "--sess default" forces the argparse path
ANSWERED = [
    pytest.param(["workspace", "create", "--label", "ids"], "cli:workspace:create", id="ws-create"),
    pytest.param(["workspace", "list"], "cli:workspace:list", id="ws-list-fast"),
    pytest.param(["pane", "list"], "cli:pane:list", id="pane-list-fast"),
    pytest.param(["pane", "list", "--sess", "default"], "cli:pane:list", id="pane-list-argparse"),
    pytest.param(["pane", "get", "w1:p1"], "cli:pane:get", id="pane-get-fast"),
    pytest.param(["tab", "list", "--sess", "default"], "cli:tab:list", id="tab-list-argparse"),
    pytest.param(["pane", "layout", "w1:p1"], "cli:pane:layout", id="pane-layout"),
    pytest.param(["pane", "process-info", "w1:p1"], "cli:pane:process_info", id="process-info"),
    pytest.param(["agent", "list"], "cli:agent:list", id="agent-list"),
    pytest.param(["api", "snapshot"], "cli:api:snapshot", id="api-snapshot"),
]


@pytest.mark.parametrize(("argv", "rid"), ANSWERED)
def test_success_envelope_id(shared_server: ServerHandle, argv: list[str], rid: str) -> None:
    if argv[:2] != ["workspace", "create"]:
        shared_server.cli("workspace", "create", "--label", "ids")  # something to show
    result = shared_server.cli(*argv)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["id"] == rid


# (command line, the id of the server's error envelope on stderr)
REFUSED = [
    pytest.param(["pane", "get", "w9:p9"], "cli:pane:get", id="fast"),
    pytest.param(["pane", "get", "w9:p9", "--sess", "default"], "cli:pane:get", id="argparse"),
    pytest.param(["pane", "close", "w9:p9"], "cli:pane:close", id="pane-close"),
    pytest.param(["workspace", "rename", "w99", "x"], "cli:workspace:rename", id="ws-rename"),
]


@pytest.mark.parametrize(("argv", "rid"), REFUSED)
def test_error_envelope_id(shared_server: ServerHandle, argv: list[str], rid: str) -> None:
    result = shared_server.cli(*argv)
    assert result.returncode == 1
    assert json.loads(result.stderr)["id"] == rid


@pytest.mark.parametrize(
    ("argv", "rid"),
    [
        pytest.param(["pane", "list"], "cli:pane:list", id="fast"),
        pytest.param(["workspace", "create"], "cli:workspace:create", id="argparse"),
        pytest.param(["server", "stop"], "cli:server:stop", id="server-stop"),
    ],
)
def test_no_server_error_id(herdr_env: HerdrEnv, argv: list[str], rid: str) -> None:
    result = herdr_env.cli(*argv)
    assert result.returncode == 1
    doc = json.loads(result.stderr)
    assert (doc["id"], doc["error"]["code"]) == (rid, "server_not_running")

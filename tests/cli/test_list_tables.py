"""``pane|tab|workspace|agent list``: a table on a terminal, JSON for scripts (and --json)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from typing import Any

import pytest

from herdr.cli.tables import render
from herdr_testing import ServerHandle, wait_until

PANE = {
    "pane_id": "w1:p2",
    "tab_id": "w1:t1",
    "workspace_id": "w1",
    "focused": True,
    "label": None,
    "agent": "claude",
    "display_agent": "Claude Code",
    "agent_status": "blocked",
    "cwd": "/home/u/src/app",
}
SHELL = {**PANE, "pane_id": "w1:p1", "focused": False, "agent": None, "display_agent": None}
SHELL["agent_status"] = "unknown"

RENDER = [
    pytest.param(
        "pane.list",
        {"panes": [SHELL, PANE]},
        [
            "  ID    TAB   LABEL AGENT       STATE   CWD",
            "  w1:p1 w1:t1 -     -           -       ~/src/app",
            "* w1:p2 w1:t1 -     Claude Code blocked ~/src/app",
        ],
        id="panes",
    ),
    pytest.param(
        "tab.list",
        {"tabs": [{"tab_id": "w1:t1", "label": "1", "pane_count": 2, "agent_status": "idle"}]},
        ["  ID    LABEL PANES STATE", "  w1:t1 1     2     idle"],
        id="tabs",
    ),
    pytest.param(
        "workspace.list",
        {"workspaces": [{"workspace_id": "w1", "label": "app\x1b[31m", "focused": True}]},
        ["  ID LABEL    TABS PANES STATE", "* w1 app?[31m -    -     -"],
        id="workspaces-control-chars-shown-safely",
    ),
    pytest.param("agent.list", {"agents": []}, ["no agents"], id="no-agents"),
    pytest.param("pane.list", {"panes": []}, ["no panes"], id="no-panes"),
]


@pytest.mark.parametrize(("method", "result", "lines"), RENDER)
def test_render(method: str, result: dict[str, Any], lines: list[str]) -> None:
    assert render(method, result, home="/home/u") == "\n".join(lines) + "\n"


def test_render_has_no_table_for_other_methods() -> None:
    assert render("pane.get", {"pane": PANE}) is None
    assert render("pane.list", "not a dict") is None


# -- real terminal ---------------------------------------------------------------------


def _on_a_tty(server: ServerHandle, *args: str) -> str:
    """Run the CLI with stdout on a real pty; what it printed."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "herdr", *args],
            env=server.env,
            stdout=slave,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        os.close(slave)
        slave = -1
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the pty
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    return out.decode().replace("\r\n", "\n")


@pytest.fixture
def server(herdr_server: ServerHandle) -> ServerHandle:
    reply = herdr_server.request("workspace.create", {"label": "tables", "cwd": "/tmp"})
    assert "result" in reply, reply
    return herdr_server


LISTS = [
    pytest.param(["pane", "list"], "w1:p1", id="pane-fast-path"),
    pytest.param(["pane", "list", "--workspace=w1"], "w1:p1", id="pane-argparse-path"),
    pytest.param(["tab", "list"], "w1:t1", id="tab"),
    pytest.param(["workspace", "list"], "tables", id="workspace"),
    pytest.param(["agent", "list"], "no agents", id="agent"),
]


@pytest.mark.parametrize(("args", "shows"), LISTS)
def test_a_terminal_gets_a_table(server: ServerHandle, args: list[str], shows: str) -> None:
    out = _on_a_tty(server, *args)
    assert shows in out
    assert not out.lstrip().startswith("{")
    if "no agents" not in out:
        assert out.split("\n")[0].split()[0] == "ID"


@pytest.mark.parametrize(("args", "shows"), LISTS)
def test_scripts_and_json_get_todays_bytes(
    server: ServerHandle, args: list[str], shows: str
) -> None:
    piped = server.cli(*args)
    assert piped.returncode == 0, piped.stderr
    doc = json.loads(piped.stdout)
    assert doc["id"].startswith("cli:") and "result" in doc
    assert piped.stdout.count("\n") == 1  # one compact line, as before

    def same_bytes() -> bool:
        # --json on a terminal and --json in a pipe print what a pipe always got (retried:
        # the cwd sampler may fill in a pane's foreground_cwd between two calls)
        before = server.cli(*args).stdout
        on_tty = _on_a_tty(server, *args, "--json")
        flagged = server.cli(*args, "--json").stdout
        return before == on_tty == flagged

    wait_until(same_bytes, 20)


def test_json_is_only_for_list_verbs(server: ServerHandle) -> None:
    result = server.cli("pane", "get", "w1:p1", "--json")
    assert result.returncode == 2
    assert "unrecognized arguments: --json" in result.stderr

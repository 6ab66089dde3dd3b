"""``herdr server handoff``: the real CLI against a real server (see docs/handoff.md)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr_testing import ServerHandle, request, wait_until
from herdr_testing.fake_env import ok


@pytest.fixture
def successors() -> Iterator[list[int]]:
    """New servers started by a handoff (the fixture knows only the old one): stopped."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        with contextlib.suppress(TimeoutError):
            wait_until(lambda pid=pid: not Path(f"/proc/{pid}").exists(), timeout=15)  # type: ignore[misc]
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _herdr_exe(root: Path) -> str:
    path = root / "new-herdr"
    path.write_text(f'#!/bin/sh\nexec {sys.executable} -m herdr "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _sleeper(server: ServerHandle) -> tuple[str, int]:
    created = ok(server.request("workspace.create", {"command": ["sleep", "300"]}))
    pane = str(created["root_pane"]["pane_id"])
    info = ok(server.request("pane.process_info", {"pane_id": pane}))["process_info"]
    return pane, int(info["shell_pid"])


def _pid_of(server: ServerHandle, pane: str) -> int:
    info = ok(server.request("pane.process_info", {"pane_id": pane}))["process_info"]
    return int(info["shell_pid"])


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_the_cli_hands_off(
    herdr_server: ServerHandle, successors: list[int], as_json: bool
) -> None:
    server = herdr_server
    pane, pid = _sleeper(server)
    args = ["server", "handoff", "--herdr", _herdr_exe(server.root)]
    done = server.cli(*args, *(["--json"] if as_json else []), timeout=120)
    assert done.returncode == 0, done.stderr
    if as_json:
        info = json.loads(done.stdout)["result"]["handoff"]
        assert info["panes"] == 1
        new_pid = int(info["new_pid"])
    else:
        assert "handed off 1 pane(s)" in done.stdout
        new_pid = int(done.stdout.split("pid ")[1].split(",")[0])
    successors.append(new_pid)
    wait_until(lambda: server.server.proc.poll() is not None, timeout=30, message="old lingers")
    assert _pid_of(server, pane) == pid
    assert request(server.socket_path, "ping", {})["result"]["capabilities"]["live_handoff"]


def test_a_missing_executable_is_one_error_and_changes_nothing(herdr_server: ServerHandle) -> None:
    server = herdr_server
    pane, pid = _sleeper(server)
    done = server.cli("server", "handoff", "--herdr", str(server.root / "no-such-herdr"))
    assert done.returncode == 1
    assert done.stdout == ""
    error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
    assert error["code"] == "handoff_failed"
    assert "cannot start the new server" in error["message"]
    assert server.server.alive()
    assert _pid_of(server, pane) == pid

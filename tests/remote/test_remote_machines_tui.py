"""Other machines in the local TUI, in a real tmux against a real loopback sshd.

A saved machine's workspaces appear in a sidebar section of their own (read in the
background over ``--machine``'s ssh transport) and follow its agents' states;
``prefix+m`` attaches this TUI to that machine's server (typing runs there; the sidebar
then shows this computer as ``@local``) and ``prefix+m`` again brings it back.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr_testing import HerdrEnv, pings, request, wait_until
from herdr_testing.remote_tui import RemoteTui
from herdr_testing.sshd import SshMachine

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

REPORT = ("pane", "report-agent", "--source", "custom:t", "--agent", "bot")


@pytest.fixture
def local(herdr_env: HerdrEnv, sshd: SshMachine) -> Iterator[HerdrEnv]:
    """The local tree, with the loopback machine saved as ``loop`` and its server up."""
    herdr_env.env.update(sshd.client_env())
    assert herdr_env.cli("machine", "add", "loop", sshd.target).returncode == 0
    done = sshd.ssh("~/.local/bin/herdr api ensure-server")
    assert done.returncode == 0, done.stderr
    yield herdr_env
    herdr_env.cli("server", "stop")  # the server the local TUI started


@pytest.fixture
def tui(local: HerdrEnv, sshd: SshMachine) -> Iterator[RemoteTui]:
    root = Path(tempfile.mkdtemp(prefix="hrm-", dir="/tmp"))
    client = RemoteTui(root, dict(local.env))
    try:
        yield client
    finally:
        client.close()
        for pid in sshd.ssh_clients():  # ControlMasters that outlived the TUI
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)


def report(local: HerdrEnv, pane: str, state: str) -> None:
    done = local.cli("--machine", "loop", *REPORT[:2], pane, *REPORT[2:], "--state", state)
    assert done.returncode == 0, done.stderr


def sidebar_line(tui: RemoteTui, text: str) -> str:
    return next((line[:40] for line in tui.screen("m").splitlines() if text in line[:40]), "")


def test_a_saved_machine_in_the_sidebar_and_prefix_m(
    tui: RemoteTui, local: HerdrEnv, sshd: SshMachine
) -> None:
    remote = sshd.remote_socket()
    ws = request(remote, "workspace.list", {})["result"]["workspaces"][0]["workspace_id"]
    request(remote, "workspace.rename", {"workspace_id": ws, "label": "far-away"})
    pane = str(request(remote, "pane.list", {})["result"]["panes"][0]["pane_id"])
    report(local, pane, "blocked")

    tui.open("m")  # the local TUI (it starts the local server)
    tui.wait_for("m", "@loop")
    wait_until(
        lambda: "blocked" in sidebar_line(tui, "far-away"),
        timeout=60,
        interval=0.2,
        message=f"the machine's workspace never showed blocked:\n{tui.screen('m')}",
    )
    report(local, pane, "working")  # a state change there shows up here
    wait_until(
        lambda: "working" in sidebar_line(tui, "far-away"),
        timeout=60,
        interval=0.2,
        message=f"the state change never showed:\n{tui.screen('m')}",
    )
    local_panes = request(local.socket_path(), "pane.list", {})["result"]["panes"]
    assert [p["pane_id"] for p in local_panes]  # the local server runs its own pane

    tui.keys("m", "C-b", "m")  # to the machine
    tui.wait_for("m", "on machine loop")
    tui.type("m", "echo there-$((6*7))")
    tui.keys("m", "Enter")
    tui.wait_for("m", "there-42")
    read = request(remote, "pane.read", {"pane_id": pane, "source": "recent"})
    assert "there-42" in read["result"]["read"]["text"]  # it ran on the remote server
    tui.wait_for("m", "@local")  # attached there, the sidebar shows this computer
    assert "@loop" not in tui.screen("m")  # and not the machine it is on

    tui.keys("m", "C-b", "m")  # and back
    tui.wait_for("m", "back on this computer")
    wait_until(
        lambda: "there-42" not in tui.screen("m"),
        timeout=30,
        interval=0.2,
        message=f"still showing the remote pane:\n{tui.screen('m')}",
    )
    tui.wait_for("m", "@loop")  # the section is back too
    tui.keys("m", "C-b", "d")
    screen = tui.wait_for("m", "HERDR-EXIT=")
    assert "HERDR-EXIT=0" in screen and "[detached from session" in screen
    assert pings(remote)  # the remote server kept running


def test_an_unreachable_machine_says_so_in_one_line(tui: RemoteTui, local: HerdrEnv) -> None:
    assert local.cli("machine", "add", "nowhere", "ssh://127.0.0.1:1").returncode == 0
    tui.open("m")
    tui.wait_for("m", "@nowhere · unreachable")
    tui.wait_for("m", "@loop")  # the reachable one is still read
    tui.keys("m", "C-b", "d")
    assert "HERDR-EXIT=0" in tui.wait_for("m", "HERDR-EXIT=")

"""End to end: the real TUI under tmux keeps working across a live handoff.

The TUI is attached when ``herdr server handoff`` replaces the server process; it gets
``bye {reason: handoff}``, reattaches to the same socket, shows a one-line notice, and
what is typed next reaches the same shell (same pid) through the new server.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tui_tmux import HERDR_BIN, Tui, _alive, _prompt_ready  # type: ignore[import-not-found]

from herdr_testing.fake_env import agent_bin

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

NOTICE = "handed off to a new process; reattached"


@pytest.fixture
def tui() -> Iterator[Tui]:
    root = Path(tempfile.mkdtemp(prefix="hh", dir="/tmp"))
    harness = Tui(root, agent_bin(root))
    harness.successors = []
    try:
        yield harness
    finally:
        harness.close()  # `herdr server stop` reaches the new server on the same socket
        for pid in harness.successors:
            if _alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)


def test_attached_tui_reattaches_after_a_handoff(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("echo bef''ore")
    tui.keys("Enter")
    tui.wait_text("before")
    client = tui.client_pid()
    pane = str(tui.snapshot()["focused_pane_id"])
    info = tui.request("pane.process_info", {"pane_id": pane})["result"]["process_info"]
    shell_pid = int(info["shell_pid"])
    old_server = tui.server_pid()

    done = subprocess.run(
        [HERDR_BIN, "server", "handoff"],
        env=tui.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    new_server = int(done.stdout.split("pid ")[1].split(",")[0])
    tui.successors.append(new_server)
    assert new_server != old_server
    tui.wait_text(NOTICE)
    assert tui.client_pid() == client  # the same TUI process, reattached
    tui.literal("echo aft''er")
    tui.keys("Enter")
    tui.wait_text("after")
    again = tui.request("pane.process_info", {"pane_id": pane})["result"]["process_info"]
    assert int(again["shell_pid"]) == shell_pid

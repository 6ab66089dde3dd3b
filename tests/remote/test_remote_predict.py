"""Predictive echo over a real ``herdr --remote`` (loopback sshd, the TUI in tmux).

The remote pane runs a prompt that echoes only its first key. With
``remote.predictive_echo = "always"`` the client draws a later key at once (its bytes
reach the local terminal: ``pipe-pane`` records them) though the server never shows
it, and takes it back once it expires; with the default (``adaptive``) a loopback link
is fast, so no key is ever drawn before the server does.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

from herdr_testing import HerdrEnv, pings, request, wait_until
from herdr_testing.remote_tui import RemoteTui
from herdr_testing.sshd import SshMachine

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

ECHO_FIRST = Path(__file__).resolve().parents[1] / "fixtures" / "echo_first.py"


def remote_text(sshd: SshMachine) -> str:
    sock = sshd.remote_socket()
    pane = request(sock, "pane.list", {})["result"]["panes"][0]["pane_id"]
    read = request(sock, "pane.read", {"pane_id": pane, "source": "recent"})
    return str(read["result"]["read"]["text"])


@pytest.mark.parametrize("mode", ["always", "adaptive"])
def test_a_key_the_pane_never_echoes(herdr_env: HerdrEnv, sshd: SshMachine, mode: str) -> None:
    config = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    if mode != "adaptive":
        config.write_text(f'[remote]\npredictive_echo = "{mode}"\n')
    root = Path(tempfile.mkdtemp(prefix="hrp-", dir="/tmp"))
    tui = RemoteTui(root, {**herdr_env.env, **sshd.client_env()})
    log = root / "client-output"
    try:
        tui.open("p", "--remote", sshd.target)
        wait_until(lambda: pings(sshd.remote_socket()), timeout=60, message="no remote server")
        tui.wait_for("p", " p1 ─", timeout=60)
        tui.type("p", f"{sys.executable} {ECHO_FIRST}")
        tui.keys("p", "Enter")
        tui.wait_for("p", "READY>")
        tui.type("p", "a")  # echoed: the server confirms the run's first guess
        tui.wait_for("p", "READY>a")
        tui.tmux("pipe-pane", "-t", "p", "-o", f"cat >> {log}")
        wait_until(log.exists, timeout=10, message="pipe-pane did not start")
        tui.type("p", "Q")  # never echoed
        if mode == "always":
            wait_until(lambda: b"Q" in log.read_bytes(), timeout=30, message="Q never drawn")
            # it expires: the screen shows what the server shows again
            wait_until(
                lambda: "READY>a" in (s := tui.screen("p")) and "READY>aQ" not in s,
                timeout=30,
                message="the guess stayed",
            )
        else:
            tui.type("p", "!")  # the prompt ends: its output proves Q was read by then
            tui.wait_for("p", "DONE")
            assert b"Q" not in log.read_bytes()
        assert "Q" not in remote_text(sshd)  # the pane itself never showed it
        tui.keys("p", "C-b", "d")
        assert "HERDR-EXIT=0" in tui.wait_for("p", "HERDR-EXIT=")
    finally:
        tui.close()
        for pid in sshd.ssh_clients():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)
        config.unlink(missing_ok=True)


def test_typing_a_command_with_guesses_on_leaves_exactly_what_the_shell_shows(
    herdr_env: HerdrEnv, sshd: SshMachine
) -> None:
    config = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[remote]\npredictive_echo = "always"\n')
    root = Path(tempfile.mkdtemp(prefix="hrp-", dir="/tmp"))
    tui = RemoteTui(root, {**herdr_env.env, **sshd.client_env()})
    try:
        tui.open("t", "--remote", sshd.target)
        wait_until(lambda: pings(sshd.remote_socket()), timeout=60, message="no remote server")
        tui.wait_for("t", " p1 ─", timeout=60)
        for ch in "echo one twoo":  # one key at a time: each guess is drawn, then echoed
            tui.type("t", ch)
        tui.keys("t", "BSpace")
        tui.type("t", " three")
        tui.wait_for("t", "echo one two three")
        tui.keys("t", "Enter")
        screen = tui.wait_for("t", "│one two three")  # the output line, under the command
        assert "twoo" not in screen  # the backspace left nothing behind
        assert "one two three" in remote_text(sshd)
        tui.keys("t", "C-b", "d")
        assert "HERDR-EXIT=0" in tui.wait_for("t", "HERDR-EXIT=")
    finally:
        tui.close()
        for pid in sshd.ssh_clients():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)
        config.unlink(missing_ok=True)

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
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr_testing import HerdrEnv, pings, request, wait_until
from herdr_testing.remote_tui import RemoteTui, remote_tui
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


@contextlib.contextmanager
def attached(herdr_env: HerdrEnv, sshd: SshMachine, mode: str | None) -> Iterator[RemoteTui]:
    """``herdr --remote`` showing the remote pane, with ``remote.predictive_echo = mode``
    (None: the default); detached cleanly at the end."""
    config = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    if mode is not None:
        config.write_text(f'[remote]\npredictive_echo = "{mode}"\n')
    try:
        with remote_tui(herdr_env.env, sshd) as tui:
            tui.open("p", "--remote", sshd.target)
            wait_until(lambda: pings(sshd.remote_socket()), timeout=60, message="no remote server")
            tui.wait_for("p", " p1 ─", timeout=60)
            try:
                yield tui
            finally:  # the remote pane is shared: a prompt left running ends (ctrl+c)
                tui.keys("p", "C-c")
            tui.keys("p", "C-b", "d")
            assert "HERDR-EXIT=0" in tui.wait_for("p", "HERDR-EXIT=")
    finally:
        config.unlink(missing_ok=True)


@pytest.mark.parametrize("mode", ["always", None], ids=["always", "adaptive-default"])
def test_a_key_the_pane_never_echoes(
    herdr_env: HerdrEnv, sshd: SshMachine, mode: str | None
) -> None:
    with attached(herdr_env, sshd, mode) as tui:
        log = tui.root / "client-output"
        tag = f"READY-{mode or 'default'}-{os.getpid()}"  # not on screen from a test before
        tui.type("p", f"{sys.executable} {ECHO_FIRST} {tag}")
        tui.keys("p", "Enter")
        tui.wait_for("p", f"│{tag}>")
        tui.type("p", "a")  # echoed: the server confirms the run's first guess
        tui.wait_for("p", f"{tag}>a")
        tui.tmux("pipe-pane", "-t", "p", "-o", f"cat >> {log}")
        wait_until(log.exists, timeout=10, message="pipe-pane did not start")
        tui.type("p", "Q")  # never echoed
        if mode == "always":
            wait_until(lambda: b"Q" in log.read_bytes(), timeout=30, message="Q never drawn")
            # it expires: the screen shows what the server shows again
            wait_until(
                lambda: f"{tag}>a" in (s := tui.screen("p")) and f"{tag}>aQ" not in s,
                timeout=30,
                message="the guess stayed",
            )
        tui.type("p", "!")  # the prompt ends (its output proves Q was read by then)
        tui.wait_for("p", "DONE")  # and the remote pane is a shell again for the next test
        if mode != "always":
            assert b"Q" not in log.read_bytes()
        assert "Q" not in remote_text(sshd)  # the pane itself never showed it


def test_typing_a_command_with_guesses_on_leaves_exactly_what_the_shell_shows(
    herdr_env: HerdrEnv, sshd: SshMachine
) -> None:
    with attached(herdr_env, sshd, "always") as tui:
        for ch in "echo one twoo":  # one key at a time: each guess is drawn, then echoed
            tui.type("p", ch)
        tui.keys("p", "BSpace")
        tui.type("p", " three")
        tui.wait_for("p", "echo one two three")
        tui.keys("p", "Enter")
        screen = tui.wait_for("p", "│one two three")  # the output line, under the command
        assert "twoo" not in screen  # the backspace left nothing behind
        assert "one two three" in remote_text(sshd)

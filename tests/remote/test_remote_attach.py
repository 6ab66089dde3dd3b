"""``herdr --remote ssh://127.0.0.1:PORT`` in a real tmux against a real loopback sshd.

The TUI runs locally; its attach stream and requests go through a stream-local forward
on the attach's ControlMaster straight to the remote server's socket (the remote
``herdr api proxy`` only when the ssh config is not managed). Covered: attach, run a
command, see its output, detach, reattach (the output is still there: the remote
server kept the pane); killing the ssh connection mid-attach (the TUI says so in one
line and reconnects, the remote server never stops); a non-interactive ``--remote``
without a terminal.
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
from herdr_testing.remote_tui import RemoteTui, remote_tui
from herdr_testing.sshd import SshMachine, remote_pids

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.fixture
def tui(herdr_env: HerdrEnv, sshd: SshMachine) -> Iterator[RemoteTui]:
    with remote_tui(herdr_env.env, sshd) as client:
        yield client


def remote_panes(sshd: SshMachine) -> list[dict[str, object]]:
    panes: list[dict[str, object]] = request(sshd.remote_socket(), "pane.list", {})["result"][
        "panes"
    ]
    return panes


def remote_text(sshd: SshMachine, pane_id: str) -> str:
    read = request(sshd.remote_socket(), "pane.read", {"pane_id": pane_id, "source": "recent"})
    return str(read["result"]["read"]["text"])


def attach(tui: RemoteTui, sshd: SshMachine, session: str) -> None:
    tui.open(session, "--remote", sshd.target)
    wait_until(lambda: pings(sshd.remote_socket()), timeout=60, message="no remote server")
    tui.wait_for(session, " p1 ─", timeout=60)  # the TUI, showing the remote pane


def test_attach_run_detach_reattach(tui: RemoteTui, sshd: SshMachine, herdr_env: HerdrEnv) -> None:
    attach(tui, sshd, "one")
    tui.type("one", "echo remote-$((6*7))")
    tui.keys("one", "Enter")
    tui.wait_for("one", "remote-42")
    pane = str(remote_panes(sshd)[0]["pane_id"])
    assert "remote-42" in remote_text(sshd, pane)  # it ran on the remote server
    tui.keys("one", "C-b", "d")
    screen = tui.wait_for("one", "HERDR-EXIT=")
    assert "HERDR-EXIT=0" in screen and "[detached from" in screen
    assert " icanon " in screen and " echo " in screen  # the terminal is sane again
    assert pings(sshd.remote_socket())  # the remote server kept running
    assert not herdr_env.socket_path().exists()  # and nothing ran locally

    attach(tui, sshd, "two")
    tui.wait_for("two", "remote-42")  # the same remote pane, its output still there
    tui.keys("two", "C-b", "d")
    assert "HERDR-EXIT=0" in tui.wait_for("two", "HERDR-EXIT=")


def remote_proxies(sshd: SshMachine) -> list[int]:
    """``herdr api proxy`` processes running on the "remote" machine."""
    found = []
    for pid in remote_pids(f"HOME={sshd.remote_env['HOME']}".encode()):
        with contextlib.suppress(OSError):
            if b"api\0proxy" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
    return found


def test_attach_goes_through_the_forward(tui: RemoteTui, sshd: SshMachine) -> None:
    attach(tui, sshd, "fw")
    tui.type("fw", "echo fwd-$((5*5))")
    tui.keys("fw", "Enter")
    tui.wait_for("fw", "fwd-25")
    assert remote_proxies(sshd) == []  # no remote Python relays the attach stream
    forwards = [
        p / "fwd.sock"
        for p in Path("/tmp").glob("herdr-r-*")
        if (p / "ssh_config").is_file()
        and (p / "ssh_config").read_text().startswith(f"Include {sshd.ssh_config}\n")
    ]
    assert [f for f in forwards if f.is_socket()], forwards
    tui.keys("fw", "C-b", "d")
    assert "HERDR-EXIT=0" in tui.wait_for("fw", "HERDR-EXIT=")


def test_killed_ssh_is_noticed_and_reconnected(tui: RemoteTui, sshd: SshMachine) -> None:
    attach(tui, sshd, "k")
    tui.type("k", "echo before-$((1+1))")
    tui.keys("k", "Enter")
    tui.wait_for("k", "before-2")
    victims = sshd.ssh_clients()
    assert victims, "no ssh process found for the attach"
    for pid in victims:  # the attach's ssh (mux clients and ControlMaster) dies
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    tui.wait_for("k", "lost — reconnecting")
    assert pings(sshd.remote_socket())  # the remote server and its pane live on
    # reconnected: the TUI is back, and typing reaches the same remote pane
    wait_until(
        lambda: "before-2" in tui.screen("k") and "reconnecting" not in tui.screen("k"),
        timeout=60,
        interval=0.2,
        message=f"never reattached:\n{tui.screen('k')}",
    )
    tui.type("k", "echo after-$((2+1))")
    tui.keys("k", "Enter")
    tui.wait_for("k", "after-3")
    tui.keys("k", "C-b", "d")
    assert "HERDR-EXIT=0" in tui.wait_for("k", "HERDR-EXIT=")


@pytest.mark.parametrize(
    "flag", ["--remote", "--machine"], ids=["remote", "bare-machine-flag-attaches"]
)
def test_remote_needs_a_terminal(herdr_env: HerdrEnv, sshd: SshMachine, flag: str) -> None:
    done = herdr_env.cli(flag, sshd.target, env=sshd.client_env())
    assert done.returncode == 1
    assert "needs a terminal" in done.stderr


def test_remote_without_a_target_or_default(herdr_env: HerdrEnv) -> None:
    done = herdr_env.cli("--remote")
    assert done.returncode == 2
    assert "--remote needs a TARGET" in done.stderr


def test_plain_ssh_when_the_config_is_not_managed(
    tui: RemoteTui, sshd: SshMachine, herdr_env: HerdrEnv
) -> None:
    config = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[remote]\nmanage_ssh_config = false\n")
    attach(tui, sshd, "plain")
    tui.type("plain", "echo plain-$((3*3))")
    tui.keys("plain", "Enter")
    tui.wait_for("plain", "plain-9")
    argvs = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in sshd.ssh_clients()]
    assert argvs and not [a for a in argvs if b"ControlMaster" in a]  # plain ssh only
    tui.keys("plain", "C-b", "d")
    assert "HERDR-EXIT=0" in tui.wait_for("plain", "HERDR-EXIT=")


def test_server_keybindings_come_from_the_remote_config(tui: RemoteTui, sshd: SshMachine) -> None:
    remote_config = Path(sshd.remote_env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    remote_config.parent.mkdir(parents=True, exist_ok=True)
    remote_config.write_text('[keys]\ndetach = "prefix+y"\n')
    try:
        tui.open("keys", "--remote", sshd.target, "--remote-keybindings", "server")
        tui.wait_for("keys", " p1 ─", timeout=60)
        tui.keys("keys", "C-b", "y")  # the remote's detach key, unknown to the local config
        assert "HERDR-EXIT=0" in tui.wait_for("keys", "HERDR-EXIT=")
    finally:
        remote_config.unlink()


CLIPBOARD_TOOLS = Path(__file__).resolve().parents[1] / "fixtures" / "clipboard"


def test_ctrl_v_pastes_a_clipboard_image_as_a_remote_path(
    herdr_env: HerdrEnv, sshd: SshMachine
) -> None:
    root = Path(tempfile.mkdtemp(prefix="hrt-", dir="/tmp"))
    board = root / "board"
    board.mkdir()
    (board / "types").write_text("image/png\n")
    image = b"\x89PNG\r\n\x1a\n" + b"remote-paste" * 50
    (board / "image.png").write_bytes(image)
    env = {**herdr_env.env, **sshd.client_env()}
    env.update(
        PATH=f"{CLIPBOARD_TOOLS}:{env['PATH']}", WAYLAND_DISPLAY="w-test", FAKE_CLIPBOARD=str(board)
    )
    try:
        with remote_tui(env, sshd) as tui:
            _paste_image(tui, sshd, image)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _paste_image(tui: RemoteTui, sshd: SshMachine, image: bytes) -> None:
    """Attach, then ctrl+v in a pane reading raw input: the image lands over there."""
    attach(tui, sshd, "img")
    tui.type("img", "stty -icanon -iexten -echo; echo READY; cat -v")
    tui.keys("img", "Enter")
    tui.wait_for("img", "│READY")
    tui.keys("img", "C-v")  # the local clipboard's image, as a file over there
    screen = tui.wait_for("img", "clipboard.png")
    words = screen.replace("│", " ").split()  # the sidebar's border runs into the row
    path = Path(next(w for w in words if w.endswith("/clipboard.png")))
    assert path.read_bytes() == image  # the loopback "remote" shares this file system
    path.unlink()
    path.parent.rmdir()

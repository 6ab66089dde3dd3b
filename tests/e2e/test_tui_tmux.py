"""End to end: the real ``herdr`` TUI inside a real tmux, driven by send-keys.

Each test gets a private tmux server (``-L``), a private HOME/XDG tree and its own herdr
server (started by the TUI itself, in the background). Both are always stopped: tmux by
``kill-server``, herdr by ``herdr server stop`` and, failing that, by the pid from its
log. Screens are read with ``capture-pane -p`` and waited for, never slept on.

What is testable about restoring the host terminal: SIGTERM (and a lost server) run
our restore path, so after them the outer pane is back on the normal screen with mouse
reporting off and ``stty`` shows ``icanon``/``echo`` again. SIGKILL cannot be caught by
any program; after it the outer shell must run ``stty sane``/``reset`` (tmux itself
behaves the same way), so it is not tested here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import wait_until
from herdr_testing.fake_env import agent_bin

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

HERDR_BIN = str(Path(sys.executable).with_name("herdr"))
COLS, ROWS = 160, 45
TIMEOUT = 15.0


class Tui:
    """A tmux server running ``herdr`` clients in a private environment."""

    def __init__(self, root: Path, path_prefix: Path | None = None) -> None:
        self.root = root
        self.name = f"herdr-e2e-{os.getpid()}-{root.name}"
        self.env = {
            "HOME": str(root / "h"),
            "XDG_CONFIG_HOME": str(root / "c"),
            "XDG_STATE_HOME": str(root / "s"),
            "XDG_DATA_HOME": str(root / "d"),
            "SHELL": "/bin/sh",
            "PATH": (f"{path_prefix}:" if path_prefix else "")
            + os.environ.get("PATH", "/usr/bin:/bin"),
            "TERM": "tmux-256color",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        (root / "h").mkdir(parents=True, exist_ok=True)
        (root / "work").mkdir(exist_ok=True)
        self.script = root / "run.sh"
        exports = "".join(f"export {k}='{v}'\n" for k, v in self.env.items())
        self.script.write_text(
            "#!/bin/sh\n"
            + "unset TMUX HERDR_SESSION HERDR_SOCKET_PATH HERDR_PANE_ID HERDR_ENV\n"
            + exports
            + "export PS1='$ '\n"
            + f"cd '{root / 'work'}'\n"
            + f"'{HERDR_BIN}' \"$@\"\n"
            + 'echo "HERDR-EXIT=$?"\n'
            + "stty -a | tr '\\n' ' '; echo\n"
            + f"'{sys.executable}' -c 'import os; print(\"BLOCKING\", os.get_blocking(0))'\n"
            + "exec sleep 600\n"
        )
        self.script.chmod(0o755)
        self.sessions: list[str] = []
        self.named_sessions: list[str] = []

    # -- tmux -------------------------------------------------------------------------------

    def tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            ["tmux", "-L", self.name, *args],
            env=self.env,  # the tmux server's world: nothing of the runner's (TMUX, HERDR_*)
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"tmux {args}: {proc.stderr}")
        return proc.stdout

    def open(self, session: str = "main", *herdr_args: str) -> str:
        """Start a client in a new tmux session (the first one also starts the server)."""
        base = ["new-session", "-d", "-s", session, "-x", str(COLS), "-y", str(ROWS)]
        # exec: the pane's process is the script whichever shell tmux runs it with (dash
        # would otherwise stay its parent, and client_pid would find the script)
        command = " ".join(["exec", str(self.script), *herdr_args])
        if not self.sessions:
            self.tmux("-f", "/dev/null", *base, command)
        else:
            self.tmux(*base, command)
        self.sessions.append(session)
        return session

    def screen(self, session: str = "main") -> str:
        return self.tmux("capture-pane", "-p", "-t", session)

    def lines(self, session: str = "main") -> list[str]:
        return self.screen(session).split("\n")

    def keys(self, *keys: str, session: str = "main") -> None:
        self.tmux("send-keys", "-t", session, *keys)

    def literal(self, text: str, session: str = "main") -> None:
        self.tmux("send-keys", "-t", session, "-l", text)

    def wait_for(
        self,
        check: Callable[[str], bool],
        session: str = "main",
        message: str = "",
        timeout: float = TIMEOUT,
    ) -> str:
        last = [""]

        def probe() -> bool:
            last[0] = self.screen(session)
            return check(last[0])

        try:
            wait_until(probe, timeout, interval=0.05)
        except TimeoutError:
            raise AssertionError(f"{message}; screen:\n{last[0]}") from None
        return last[0]

    def wait_text(self, text: str, session: str = "main") -> str:
        return self.wait_for(lambda s: text in s, session, f"{text!r} never appeared")

    def pane_flag(self, fmt: str, session: str = "main") -> str:
        return self.tmux("display", "-p", "-t", session, fmt).strip()

    def client_pid(self, session: str = "main") -> int:
        """The ``herdr`` process running under the tmux pane's shell script."""
        shell = int(self.pane_flag("#{pane_pid}", session))

        def find() -> int | None:
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid == shell:
                    return int(entry)
            return None

        pid = wait_until(find, TIMEOUT, message="no herdr client process")
        assert pid is not None
        return pid

    # -- herdr server ---------------------------------------------------------------------------

    @property
    def socket_path(self) -> str:
        return str(self.root / "c" / "herdr" / "herdr.sock")

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(10)
        try:
            sock.connect(self.socket_path)
            line = {"id": "e2e", "method": method, "params": params}
            sock.sendall(json.dumps(line).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        finally:
            sock.close()
        doc: dict[str, Any] = json.loads(data)
        return doc

    def snapshot(self) -> dict[str, Any]:
        result: dict[str, Any] = self.request("session.snapshot", {})["result"]["snapshot"]
        return result

    def server_pid(self) -> int | None:
        log = self.root / "s" / "herdr" / "server.log"
        with contextlib.suppress(OSError, ValueError, KeyError):
            first = log.read_text().splitlines()[0]
            return int(json.loads(first)["pid"])
        return None

    def close(self) -> None:
        self.tmux("kill-server", check=False)
        for name in self.named_sessions:
            with contextlib.suppress(Exception):
                subprocess.run(
                    [HERDR_BIN, "session", "stop", name],
                    env=self.env,
                    capture_output=True,
                    timeout=15,
                    check=False,
                )
        pid = self.server_pid()
        with contextlib.suppress(Exception):
            subprocess.run(
                [HERDR_BIN, "server", "stop"],
                env=self.env,
                capture_output=True,
                timeout=15,
                check=False,
            )
        if pid is not None:
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and _alive(pid):
                time.sleep(0.05)
            if _alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@contextlib.contextmanager
def harness(prefix: str) -> Iterator[Tui]:
    """A :class:`Tui` in a fresh ``/tmp/<prefix>…`` tree with the fake agents on its PATH;
    its tmux and herdr are stopped and the tree removed afterwards (every e2e file's
    ``tui`` fixture)."""
    root = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    opened = Tui(root, agent_bin(root))
    try:
        yield opened
    finally:
        opened.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def tui() -> Iterator[Tui]:
    with harness("ht") as opened:
        yield opened


def _prompt_ready(screen: str) -> bool:
    return "Spaces" in screen and "$" in screen


def _focused_pane(tui: Tui) -> str:
    return str(tui.snapshot()["focused_pane_id"])


# --------------------------------------------------------------------------------- tests


def test_attach_shows_prompt_and_runs_commands(tui: Tui) -> None:
    tui.open()
    screen = tui.wait_for(_prompt_ready, message="no prompt")
    assert "work" in screen  # the workspace is named after the launch directory
    tui.literal("echo hel''lo")
    tui.keys("Enter")
    tui.wait_text("hello")
    assert tui.snapshot()["workspaces"][0]["label"] == "work"


def test_split_type_detach_and_reattach(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "v")
    tui.wait_for(lambda s: "p2" in s and "p1" in s, message="no second pane")
    assert len(tui.snapshot()["panes"]) == 2
    tui.literal("echo right''side")
    tui.keys("Enter")
    screen = tui.wait_text("rightside")
    row = next(line for line in screen.split("\n") if "rightside" in line and "$" not in line)
    assert row.index("rightside") > COLS // 2  # typed into the new (right, focused) pane
    tui.keys("C-b", "q")
    tui.wait_text("HERDR-EXIT=0")
    assert "[detached from session default]" in tui.screen()
    assert tui.pane_flag("#{alternate_on}") == "0"
    # everything still runs: reattach in a new outer terminal and see both panes (opened
    # before the old one is killed: killing tmux's last session races its server's exit)
    tui.open("again")
    tui.tmux("kill-session", "-t", "main")
    tui.sessions.remove("main")
    screen = tui.wait_for(lambda s: "rightside" in s and "p2" in s, "again", "no reattach")
    assert len(tui.snapshot()["panes"]) == 2


def test_two_clients_on_different_tabs(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "c")  # new tab: this client follows it
    tui.wait_for(lambda s: "p2" in s, message="no second tab")
    tui.literal("echo tab''two")
    tui.keys("Enter")
    tui.wait_text("tabtwo")
    tui.open("other")
    tui.wait_for(_prompt_ready, "other", "second client shows nothing")
    tui.keys("C-b", "1", session="other")
    tui.wait_for(lambda s: "p1" in s and "tabtwo" not in s, "other", "other did not switch")
    tui.literal("echo tab''one", session="other")
    tui.keys("Enter", session="other")
    tui.wait_text("tabone", "other")
    # each client keeps its own tab
    assert "tabone" not in tui.screen("main")
    assert "tabtwo" in tui.screen("main")


def test_mouse_click_focuses_pane(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "v")
    tui.wait_for(lambda s: "p2" in s, message="no second pane")
    wait_until(lambda: _focused_pane(tui) == "w1:p2", TIMEOUT)
    # SGR press + release in the left pane (1-based cells: column 40, row 10)
    tui.literal("\x1b[<0;40;10M\x1b[<0;40;10m")
    wait_until(lambda: _focused_pane(tui) == "w1:p1", TIMEOUT, message="click did not focus")
    tui.literal("echo click''ed")
    tui.keys("Enter")
    screen = tui.wait_text("clicked")
    row = next(line for line in screen.split("\n") if "clicked" in line and "$" not in line)
    assert row.index("clicked") < COLS // 2


def test_sigterm_restores_host_terminal(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    assert tui.pane_flag("#{alternate_on}") == "1"
    assert tui.pane_flag("#{mouse_any_flag}") == "1"
    os.kill(tui.client_pid(), signal.SIGTERM)
    screen = tui.wait_text("HERDR-EXIT=")
    assert "client stopped by SIGTERM" in screen
    words = tui.wait_for(lambda s: " icanon" in s, message="no stty output").split()
    assert "icanon" in words and "echo" in words
    assert tui.pane_flag("#{alternate_on}") == "0"
    assert tui.pane_flag("#{mouse_any_flag}") == "0"
    assert tui.pane_flag("#{cursor_flag}") == "1"
    assert "BLOCKING True" in tui.wait_text("BLOCKING")  # O_NONBLOCK not left on stdin
    # the server and its panes live on
    assert tui.snapshot()["panes"]


def test_server_loss_restores_terminal_with_message(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    subprocess.run(
        [HERDR_BIN, "server", "stop"], env=tui.env, capture_output=True, timeout=15, check=True
    )
    screen = tui.wait_text("HERDR-EXIT=")
    assert "stopped" in screen or "lost" in screen
    assert tui.pane_flag("#{alternate_on}") == "0"
    assert " icanon" in tui.wait_for(lambda s: " icanon" in s, message="stty not sane")


def test_dragging_a_border_resizes_panes(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "v")
    tui.wait_for(lambda s: "p2" in s, message="no second pane")
    layout = wait_until(lambda: tui.snapshot()["layouts"][0], TIMEOUT)
    split = layout["splits"][0]
    assert split["direction"] == "right"
    # the divider column in frame cells: right of the sidebar, below tab bar and header
    divider_x = next(x for x, ch in enumerate(tui.lines()[5]) if ch == "│" and x > 30)
    start, end = divider_x + 1, divider_x + 1 - 30  # 1-based SGR columns
    tui.literal(f"\x1b[<0;{start};10M\x1b[<32;{end + 10};10M\x1b[<32;{end};10M\x1b[<0;{end};10m")

    def narrower() -> bool:
        ratio = float(tui.snapshot()["layouts"][0]["splits"][0]["ratio"])
        return ratio < float(split["ratio"]) - 0.1

    wait_until(narrower, TIMEOUT, message="the drag did not move the border")


def test_fake_agent_states_in_the_sidebar(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("claude")
    tui.keys("Enter")

    def state(pattern: str) -> Callable[[str], bool]:
        return lambda screen: re.search(rf"claude\s+{pattern}", screen) is not None

    tui.wait_for(state("(idle|working|unknown)"), message="the agent is not in the sidebar")
    tui.literal("please ask first")
    tui.keys("Enter")
    tui.wait_for(state("working"), message="never working")
    tui.wait_for(state("blocked"), message="never blocked")
    tui.literal("1")  # proceed
    tui.wait_for(state("idle"), message="never idle after the answer")
    # done while its tab is in the background, until the tab is looked at again
    tui.keys("C-b", "c")
    tui.wait_for(lambda s: "p2" in s, message="no second tab")
    reply = tui.request("agent.prompt", {"target": "w1:p1", "text": "finish in background"})
    assert "result" in reply, reply
    screen = tui.wait_for(state("done"), message="never done in the background")
    assert "✓" in screen
    tui.keys("C-b", "1")
    tui.wait_for(state("idle"), message="done was not cleared by looking at the tab")


def test_exiting_the_last_shell_ends_the_client(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("exit")
    tui.keys("Enter")
    screen = tui.wait_text("HERDR-EXIT=0")
    assert "[session default has no workspaces left]" in screen
    assert tui.pane_flag("#{alternate_on}") == "0"


def test_session_attach_starts_a_named_session(tui: Tui) -> None:
    tui.named_sessions.append("work")
    tui.open("main", "session", "attach", "work")
    tui.wait_for(_prompt_ready, message="no prompt")
    sock = tui.root / "c" / "herdr" / "sessions" / "work" / "herdr.sock"
    assert sock.exists()
    assert not Path(tui.socket_path).exists()  # the default session was not started
    tui.keys("C-b", "q")
    assert "[detached from session work]" in tui.wait_text("HERDR-EXIT=0")
    listing = subprocess.run(
        [HERDR_BIN, "session", "list"], env=tui.env, capture_output=True, text=True, check=True
    )
    assert re.search(r"work\s+running", listing.stdout), listing.stdout


def test_keys_from_config_toml(tui: Tui) -> None:
    config = tui.root / "c" / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[keys]\nprefix = "ctrl+a"\nsplit_horizontal = "prefix+s"\n')
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-a", "s")
    tui.wait_for(lambda s: "p2" in s, message="the configured prefix did not split")
    layout = tui.snapshot()["layouts"][0]
    assert layout["splits"][0]["direction"] == "down"
    tui.keys("C-b")  # no longer the prefix: goes to the shell as a byte
    tui.keys("C-a", "q")
    tui.wait_text("HERDR-EXIT=0")


def test_application_cursor_mode_is_mirrored_to_the_host(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    assert tui.pane_flag("#{keypad_cursor_flag}") == "0"
    tui.literal("printf '\\033[?1h'")
    tui.keys("Enter")
    wait_until(lambda: tui.pane_flag("#{keypad_cursor_flag}") == "1", TIMEOUT)
    tui.literal("printf '\\033[?1l'")
    tui.keys("Enter")
    wait_until(lambda: tui.pane_flag("#{keypad_cursor_flag}") == "0", TIMEOUT)


def _tab_label(tui: Tui, index: int = 0) -> str:
    return str(tui.snapshot()["tabs"][index]["label"])


def test_rename_tab_prompt_submits_and_cancels(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "T")
    tui.wait_text("RENAME TAB")
    tui.keys("C-u")
    tui.literal("build")
    tui.keys("Enter")
    tui.wait_for(
        lambda s: "1 build" in s.split("\n")[0] and "RENAME TAB" not in s,
        message="tab bar not renamed",
    )
    assert _tab_label(tui) == "build"
    listing = subprocess.run(
        [HERDR_BIN, "tab", "list"], env=tui.env, capture_output=True, text=True, check=True
    )
    assert "build" in listing.stdout
    # esc cancels: nothing renamed, and what was typed never reached the shell
    tui.keys("C-b", "T")
    tui.wait_text("RENAME TAB")
    tui.keys("End")  # the old name is selected: End keeps it and types after it
    tui.literal("zzq")
    tui.wait_text("buildzzq")
    tui.keys("Escape")
    screen = tui.wait_for(lambda s: "RENAME TAB" not in s, message="esc did not close")
    assert "zzq" not in screen
    assert _tab_label(tui) == "build"


def test_resize_mode_grows_the_focused_pane(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "v")
    tui.wait_for(lambda s: "p2" in s, message="no second pane")
    tui.keys("C-b", "h")
    wait_until(lambda: _focused_pane(tui) == "w1:p1", TIMEOUT, message="focus did not move")

    def width() -> int:
        layout = tui.request("pane.layout", {"pane_id": "w1:p1"})["result"]["layout"]
        rect = next(p["rect"] for p in layout["panes"] if p["pane_id"] == "w1:p1")
        return int(rect["width"])

    before = width()
    tui.keys("C-b", "r")
    tui.wait_text("RESIZE")
    tui.keys("l")
    tui.keys("l")
    wait_until(lambda: width() >= before + 2 * int(COLS * 0.05) - 4, TIMEOUT, message="no growth")
    tui.keys("Escape")
    tui.wait_for(lambda s: "RESIZE" not in s, message="esc did not leave resize mode")
    grown = width()
    assert grown > before
    tui.literal("echo still''typing")  # back in terminal mode: keys reach the pane again
    tui.keys("Enter")
    tui.wait_text("stilltyping")
    assert width() == grown


def test_open_notification_target_focuses_a_blocked_background_agent(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "o")
    tui.wait_text("no agent needs you")
    tui.literal("claude")
    tui.keys("Enter")

    def state(pattern: str) -> Callable[[str], bool]:
        return lambda screen: re.search(rf"claude\s+{pattern}", screen) is not None

    tui.wait_for(state("(idle|working|unknown)"), message="the agent is not in the sidebar")
    tui.keys("C-b", "c")
    tui.wait_for(lambda s: "p2" in s, message="no second tab")
    wait_until(lambda: _focused_pane(tui) == "w1:p2", TIMEOUT)
    reply = tui.request("agent.prompt", {"target": "w1:p1", "text": "please ask first"})
    assert "result" in reply, reply
    tui.wait_for(state("blocked"), message="never blocked in the background")
    tui.keys("C-b", "o")
    wait_until(lambda: _focused_pane(tui) == "w1:p1", TIMEOUT, message="prefix+o did not focus")
    tui.wait_for(lambda s: "p1" in s and "p2" not in s.split("\n")[1], message="tab not shown")


def test_reload_config_applies_new_keys(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    config = tui.root / "c" / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[keys]\nsplit_horizontal = "prefix+s"\n')
    tui.keys("C-b", "R")
    tui.wait_text("config reloaded")
    tui.keys("C-b", "s")
    tui.wait_for(lambda s: "p2" in s, message="the reloaded binding did not split")
    assert tui.snapshot()["layouts"][0]["splits"][0]["direction"] == "down"


def _buffer(tui: Tui) -> str:
    return tui.tmux("show-buffer", check=False)


def test_copy_mode_scrolls_selects_and_copies_with_osc52(tui: Tui) -> None:
    tui.open()
    tui.tmux("set-option", "-s", "set-clipboard", "on")  # the outer tmux takes OSC 52
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("seq -f 'row%03g' 1 100")
    tui.keys("Enter")
    tui.wait_text("row100")
    tui.keys("C-b", "[")
    tui.wait_text("COPY")
    for _ in range(3):
        tui.keys("k")
    tui.keys("g")
    # the whole repaint, not a capture taken while tmux had read only part of the frame
    screen = tui.wait_for(
        lambda s: "row001" in s and "row100" not in s, message="g did not reach the top"
    )
    assert re.search(r"\[(\d+)/\1\]", screen), "no position at the top of the scrollback"
    # a line-wise selection of two rows inside the viewport
    tui.keys("j", "V", "j", "y")
    tui.wait_text("copied 2 lines")
    wait_until(lambda: _buffer(tui) == "row001\nrow002", TIMEOUT, message="no OSC 52 copy")
    tui.wait_for(lambda s: "COPY" not in s, message="y did not leave copy mode")
    tui.wait_text("row100")  # back at the live bottom
    # a character-wise selection reaching past the viewport: fetched with pane.read
    tui.keys("C-b", "[")
    tui.wait_text("COPY")
    tui.keys("g", "j", "l", "l", "l", "v")
    for _ in range(2):
        tui.keys("C-f")
    tui.keys("0", "l", "l", "l", "l", "Enter")
    tui.wait_for(lambda s: "copied" in s and "copied 2 lines" not in s, message="no copy")
    text = wait_until(
        lambda: (b := _buffer(tui)).startswith("001\nrow002") and b, TIMEOUT, message="no copy"
    )
    lines = str(text).split("\n")
    assert len(lines) > ROWS - 5
    assert lines[-1].startswith("row") and len(lines[-1]) == 5
    assert all(line == f"row{i + 2:03d}" for i, line in enumerate(lines[1:-1]))
    # q leaves; keys typed in copy mode never reached the shell
    tui.keys("C-b", "[")
    tui.wait_text("COPY")
    tui.keys("k", "x", "q")
    tui.wait_for(lambda s: "COPY" not in s, message="q did not leave copy mode")
    tui.literal("echo after''copy")
    tui.keys("Enter")
    screen = tui.wait_text("aftercopy")
    assert "xecho" not in screen


def test_notification_show_draws_a_toast_that_goes_away(tui: Tui) -> None:
    config = tui.root / "c" / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[ui.toast]\ndelivery = "herdr"\n')
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    params = {"title": "E2E toast\x1b[2J", "body": "from the api", "position": "top-right"}
    reply = tui.request("notification.show", params)
    assert reply["result"] == {"type": "notification_show", "shown": True, "reason": "shown"}
    screen = tui.wait_text("E2E toast[2J")  # drawn, its escape defused
    row = next(line for line in screen.split("\n") if "E2E toast" in line)
    assert row.rstrip().endswith("│") and row.index("E2E toast") > COLS // 2  # top-right
    assert "from the api" in screen
    tui.wait_for(lambda s: "E2E toast" not in s, message="the toast never went away")
    assert "$" in tui.screen()  # the panes are drawn again where it was


def test_window_title_is_set_and_given_back(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    before = tui.pane_flag("#{pane_title}")
    reply = tui.request("client.window_title.set", {"title": "e2e\x07-title\x1b\\"})
    assert reply["result"] == {"type": "client_window_title", "changed": True, "reason": "set"}
    wait_until(lambda: tui.pane_flag("#{pane_title}") == "e2e-title\\", TIMEOUT)
    reply = tui.request("client.window_title.clear", {})
    assert reply["result"]["reason"] == "cleared"
    wait_until(lambda: tui.pane_flag("#{pane_title}") == before, TIMEOUT)
    tui.request("client.window_title.set", {"title": "until-detach"})
    wait_until(lambda: tui.pane_flag("#{pane_title}") == "until-detach", TIMEOUT)
    tui.keys("C-b", "q")  # detach: the client gives the title back on its way out
    tui.wait_text("HERDR-EXIT=0")
    assert tui.pane_flag("#{pane_title}") == before


MOUSE_PROBE = """\
import os, sys, tty
tty.setraw(0)
os.write(1, b"\\x1b[?1000h\\x1b[?1006hPROBE-READY\\r\\n")
while True:
    data = os.read(0, 256)
    os.write(1, b"GOT " + data.replace(b"\\x1b", b"ESC") + b"\\r\\n")
"""


def test_right_clicks_stay_with_herdr_until_pane_input_set(tui: Tui) -> None:
    (tui.root / "work" / "probe.py").write_text(MOUSE_PROBE)
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal(f"'{sys.executable}' probe.py")
    tui.keys("Enter")
    tui.wait_text("PROBE-READY")
    tui.literal("\x1b[<2;40;10M\x1b[<2;40;10m")  # right click: herdr keeps it
    tui.literal("\x1b[<0;40;10M\x1b[<0;40;10m")  # left click: the program gets it
    screen = tui.wait_text("ESC[<0;")
    assert "ESC[<2;" not in screen  # the right click before it never reached the program
    reply = tui.request("pane.input.set", {"pane_id": "w1:p1", "right_click": "pane"})
    assert reply["result"] == {"type": "ok"}
    # the routing reaches the client with its next state document: click until it has

    def routed() -> bool:
        tui.literal("\x1b[<2;40;10M\x1b[<2;40;10m")
        return "ESC[<2;" in tui.screen()

    wait_until(routed, TIMEOUT, interval=0.2, message="the right click never reached the pane")


def test_agent_view_relabels_and_filters_the_sidebar_agents(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("claude")
    tui.keys("Enter")
    tui.wait_for(lambda s: re.search(r"claude\s+\w+", s) is not None, message="no agent")
    view = {
        "source": "e2e.views",
        "label": "Blocked only",
        "filter": {"op": "eq", "field": "status", "value": "blocked"},
    }
    assert tui.request("agent.view.set", view)["result"]["active"] is True
    tui.wait_for(
        lambda s: "Blocked only" in s and re.search(r"claude\s+\w+", s) is None,
        message="the view did not replace the agent list",
    )
    tui.literal("please ask first")
    tui.keys("Enter")
    tui.wait_for(lambda s: re.search(r"claude\s+blocked", s) is not None, message="not listed")
    assert tui.request("agent.view.clear", {"source": "e2e.views"})["result"]["active"] is False
    tui.wait_for(lambda s: "Agents" in s and "Blocked only" not in s, message="not cleared")


def _dismissals(tui: Tui) -> Path:
    return tui.root / "s" / "herdr" / "dismissals.json"


def _dismissed_versions(tui: Tui) -> list[str]:
    path = _dismissals(tui)
    return list(json.loads(path.read_text())["release_notes"]) if path.exists() else []


def test_a_first_install_shows_no_release_notes_hint(tui: Tui) -> None:
    from herdr import __version__

    tui.open()
    screen = tui.wait_for(_prompt_ready, message="no prompt")
    assert "what's new" not in screen
    # recorded as seen, so the next version's hint is the first one this user gets
    wait_until(lambda: _dismissed_versions(tui) == [__version__], TIMEOUT, message="not recorded")


def test_after_an_upgrade_the_hint_shows_once(tui: Tui) -> None:
    from herdr import __version__

    path = _dismissals(tui)
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text(json.dumps({"format": 1, "release_notes": ["0.0.1"]}))
    tui.open()
    tui.wait_for(lambda s: f"herdr {__version__}: what's new" in s, message="no hint")
    wait_until(
        lambda: _dismissed_versions(tui) == ["0.0.1", __version__], TIMEOUT, message="not saved"
    )
    tui.keys("C-b", "q")
    tui.wait_text("HERDR-EXIT=0")
    tui.open("again")
    tui.tmux("kill-session", "-t", "main")
    tui.sessions.remove("main")
    screen = tui.wait_for(_prompt_ready, "again", "no reattach")
    assert "what's new" not in screen


def test_a_script_focusing_a_tab_moves_the_attached_view(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    first_tab = tui.snapshot()["tabs"][0]["tab_id"]
    tui.literal("echo tab''one")
    tui.keys("Enter")
    tui.wait_text("tabone")
    tui.keys("C-b", "c")  # new tab: this client follows it
    tui.wait_for(lambda s: "p2" in s and "tabone" not in s, message="no second tab")
    # a script (not an attached client) focuses the first tab: the TUI follows, like a
    # tmux client after `select-window` from a script
    tui.request("tab.focus", {"tab_id": first_tab})
    tui.wait_text("tabone")
    # and keys go to what is shown
    tui.literal("echo after''follow")
    tui.keys("Enter")
    tui.wait_text("afterfollow")
    pane = next(p for p in tui.snapshot()["panes"] if p["tab_id"] == first_tab)["pane_id"]
    read = tui.request("pane.read", {"pane_id": pane, "source": "visible"})
    assert "afterfollow" in read["result"]["read"]["text"]

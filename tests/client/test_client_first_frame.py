"""The launcher's first frame is drawn before asyncio, then the loop adopts the socket.

* the same attach-stream lines give byte-identical terminal output and the same
  messages to the server as the loop path (``early_frame`` off);
* keys typed before the first frame reach the pane exactly once;
* that first frame is drawn with neither asyncio, uvloop nor the loop's connection
  module imported.

Each client runs in its own interpreter on a real PTY (so ``sys.modules`` is its own).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from herdr_testing import ServerHandle

# A client on a PTY (100x30) writing the terminal's bytes to a file; ends at the first
# frame with rows (argv[3] == "stop") or when the pane showed argv[3].
SCRIPT = r"""
import fcntl, json, os, pty, struct, sys, termios, threading
from herdr.client.app import App

path, early, until, out_path, keys = sys.argv[1:6]
early = early == "1"
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
threading.Thread(target=lambda: [os.read(master, 65536) for _ in iter(int, 1)], daemon=True).start()
if keys:
    os.write(master, keys.encode())  # typed before the client even starts
out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)

class Probe(App):
    seen = None
    toasts = 0

    def show_toast(self, msg):
        self.toasts += 1
        super().show_toast(msg)

    def draw(self, *, force=False):
        super().draw(force=force)
        self.check()

    def _patch(self, changed):  # typed echoes are drawn by the rows-only patch
        patched = super()._patch(changed)
        if patched:
            self.check()
        return patched

    def check(self):
        if self.seen is None and self.frame is not None and self.panes:
            loop = ("asyncio", "uvloop", "herdr.client.connection")
            self.seen = sorted(m for m in loop if m in sys.modules)
        if until == "stop" and self.seen is not None:
            self.finish("detached")
        elif until == "title" and self.window_title is not None:
            self.finish("detached")
        elif until == "toast" and self.toast is not None:
            self.finish("detached")
        elif until not in ("stop", "title", "toast") and any(
            until in "".join(m.rows) for m in self.panes.values()
        ):
            self.finish("detached")

app = Probe(path, fd_in=slave, fd_out=out, keys_after_first_frame=True,
            protocol_checked=True, early_frame=early)
reason = app.run()
print(json.dumps({"reason": reason, "loaded": app.seen, "toasts": app.toasts}))
"""


def _client(
    path: str, env: dict[str, str], *, early: bool, until: str = "stop", keys: str = ""
) -> tuple[dict[str, object], bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "tty.out")
        args = [path, "1" if early else "0", until, out_path, keys]
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT, *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1]), Path(out_path).read_bytes()


def _record(path: Path) -> bytes:
    """A real server's attach stream until its first rows, as the raw bytes."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(path))
    request = {"id": "tui:attach", "method": "client.attach", "params": {"cols": 74, "rows": 29}}
    sock.sendall(json.dumps(request).encode() + b"\n")
    data = b""
    sock.settimeout(10)
    while b'"t":"rows"' not in data or not data.endswith(b"\n"):
        data += sock.recv(65536)
    sock.settimeout(0.5)  # and the rest of the shell's start, until it is quiet
    while True:
        try:
            data += sock.recv(65536)
        except TimeoutError:
            break
    sock.close()
    return data[: data.rfind(b"\n") + 1]


class Replay:
    """A server that answers every attach with the same recorded bytes (one write) and
    keeps what each client sent."""

    def __init__(self, path: str, stream: bytes) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(4)
        self.stream = stream
        self.received: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            got = b""
            while b"\n" not in got:
                got += conn.recv(65536)
            conn.sendall(self.stream)
            conn.settimeout(10)
            while True:
                try:
                    chunk = conn.recv(65536)
                except OSError:
                    break
                if not chunk:
                    break
                got += chunk
            conn.close()
            self.received.append(got)

    def wait(self, count: int) -> None:
        deadline = time.monotonic() + 10
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.01)


def test_early_first_frame_is_byte_identical(herdr_server: ServerHandle) -> None:
    created = herdr_server.request("workspace.create", {"cwd": "/", "focus": True})
    assert "result" in created, created
    stream = _record(herdr_server.socket_path)
    with tempfile.TemporaryDirectory() as tmp:
        replay = Replay(os.path.join(tmp, "s.sock"), stream)
        try:
            outputs = []
            for early in (False, True, False, True):
                result, tty = _client(replay.listener.getsockname(), herdr_server.env, early=early)
                assert result["reason"] == "detached"
                outputs.append(tty)
            replay.wait(4)
        finally:
            replay.listener.close()
    assert len(outputs[0]) > 1000  # a whole frame was drawn
    assert outputs[1] == outputs[0]
    assert outputs[3] == outputs[2] == outputs[0]
    assert replay.received[1] == replay.received[0]  # the same attach, view and resize


def test_lines_after_the_early_frame_reach_the_loop_once(herdr_server: ServerHandle) -> None:
    # a window title is applied by the early frame as by the loop (the same bytes); a
    # toast (it needs a timer) and what follows it wait for the loop: applied once
    created = herdr_server.request("workspace.create", {"cwd": "/", "focus": True})
    assert "result" in created, created
    title = b'{"t":"window_title","title":"T1"}\n'
    toast = b'{"t":"toast","title":"hello there"}\n'
    stream = _record(herdr_server.socket_path) + title
    with tempfile.TemporaryDirectory() as tmp:
        replay = Replay(os.path.join(tmp, "s.sock"), stream)
        try:
            outputs = []
            for early in (False, True):
                result, tty = _client(
                    replay.listener.getsockname(), herdr_server.env, early=early, until="title"
                )
                assert result["reason"] == "detached"
                outputs.append(tty)
        finally:
            replay.listener.close()
    assert outputs[0].count(b"\x1b]2;T1") == 1
    assert outputs[1] == outputs[0]
    stream += toast + b'{"t":"window_title","ti'  # and a partial line after it
    with tempfile.TemporaryDirectory() as tmp:
        replay = Replay(os.path.join(tmp, "s.sock"), stream)
        try:
            for early in (False, True):
                result, tty = _client(
                    replay.listener.getsockname(), herdr_server.env, early=early, until="toast"
                )
                assert result["reason"] == "detached"
                assert result["toasts"] == 1
                assert b"hello there" in tty
        finally:
            replay.listener.close()


def test_early_first_frame_imports_no_asyncio(herdr_server: ServerHandle) -> None:
    created = herdr_server.request("workspace.create", {"cwd": "/", "focus": True})
    assert "result" in created, created
    path = str(herdr_server.socket_path)
    result, _ = _client(path, herdr_server.env, early=True)
    assert result["loaded"] == []
    result, _ = _client(path, herdr_server.env, early=False)
    assert "asyncio" in result["loaded"]  # type: ignore[operator]  # the probe sees it


def test_keys_typed_during_start_up_arrive_once(herdr_server: ServerHandle) -> None:
    created = herdr_server.request("workspace.create", {"cwd": "/", "focus": True})
    assert "result" in created, created
    keys = "printf 'Q%sQ\\n' zz\r"
    result, _ = _client(
        str(herdr_server.socket_path), herdr_server.env, early=True, until="QzzQ", keys=keys
    )
    assert result["reason"] == "detached"
    deadline = time.monotonic() + 10
    text = ""
    while time.monotonic() < deadline:
        reply = herdr_server.request("pane.read", {"pane_id": "w1:p1", "source": "visible"})
        text = str(reply.get("result", {}).get("read", {}).get("text", ""))
        if "QzzQ" in text:
            break
        time.sleep(0.05)
    assert text.count("QzzQ") == 1, text
    assert text.count("printf") == 1, text

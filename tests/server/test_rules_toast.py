"""The "Agent detection rules updated" toast keeps ``notification.show``'s limits: one
toast at a time, at most one a second; reloads while it is live coalesce into one next
toast that lists every changed agent (real server, real attach stream, real files)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from herdr.api import attach_messages as am
from herdr.detect.manifest.changes import TOAST_TITLE
from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.fake_env import ok


class Stream:
    """One attached TUI connection; keeps every push it saw (typed decode)."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.buf = b""
        self.pushes: list[am.ServerMessage] = []
        attach = {"id": "a1", "method": "client.attach", "params": {"cols": 100, "rows": 30}}
        self.sock.sendall(json.dumps(attach).encode() + b"\n")

    def pump(self, until: Callable[[], bool], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("condition not met on the attach stream")
            self.sock.settimeout(min(left, 0.5))
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                raise EOFError
            self.buf += chunk
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if b'"attach_started"' in line:
                    continue
                msg = am.decode_server(line)
                assert msg is not None, line
                self.pushes.append(msg)

    def toasts(self) -> list[am.Toast]:
        return [m for m in self.pushes if isinstance(m, am.Toast)]


def _override(label: str, version: str) -> str:
    return (
        f'id = "{label}"\nversion = "{version}"\n'
        f'[[rules]]\nid = "x"\nstate = "idle"\ncontains = ["zzz-{version}"]\n'
    )


@pytest.fixture
def server(herdr_env: HerdrEnv) -> ServerHandle:
    config = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text('[ui.toast]\ndelivery = "herdr"\n', "utf-8")
    herdr_env.env["HERDR_AGENT_MANIFEST_WATCH_S"] = "0"  # only explicit reloads here
    handle = ServerHandle(herdr_env, herdr_env.start_server())
    ok(handle.request("workspace.create", {"cwd": "/tmp", "focus": True}))
    # the rules it started with are built (in the background at start): a file written
    # before that build read it would be part of them, and its reload would change nothing
    ok(handle.request("server.agent_manifests", {}))
    return handle


@pytest.fixture
def stream(server: ServerHandle) -> Iterator[Stream]:
    s = Stream(server.socket_path)
    s.pump(lambda: any(isinstance(m, am.State) for m in s.pushes))
    yield s
    s.sock.close()


def _reload(server: ServerHandle, overrides: Path, label: str, version: str) -> None:
    (overrides / f"{label}.toml").write_text(_override(label, version), "utf-8")
    result = ok(server.request("server.reload_agent_manifests", {}))
    assert [u["agent"] for u in result["updated"]] == [label]


def test_reloads_during_a_live_toast_coalesce_into_one(
    server: ServerHandle, stream: Stream
) -> None:
    overrides = Path(server.env["XDG_CONFIG_HOME"]) / "herdr" / "agent-detection"
    overrides.mkdir()
    _reload(server, overrides, "claude", "9.1")
    stream.pump(lambda: len(stream.toasts()) == 1)
    first = stream.toasts()[0]
    assert (first.title, first.body) == (TOAST_TITLE, "claude 9.1")

    # while it is on screen: two more reloads (claude again, then codex) and a client's
    # notification, which is refused as busy just as before
    _reload(server, overrides, "claude", "9.2")
    _reload(server, overrides, "codex", "9.3")
    shown = ok(server.request("notification.show", {"title": "mine"}))
    assert shown["reason"] in ("busy", "rate_limited")

    stream.pump(lambda: len(stream.toasts()) == 2)
    second = stream.toasts()[1]
    assert (second.title, second.body) == (TOAST_TITLE, "claude 9.2, codex 9.3")

    # nothing else was queued: the next toast is the client's own, once the window ends
    def mine_shown() -> bool:
        return bool(ok(server.request("notification.show", {"title": "mine"}))["shown"])

    wait_until(mine_shown, timeout=20, interval=0.2, message="the toast window never ended")
    stream.pump(lambda: len(stream.toasts()) == 3)
    assert [t.title for t in stream.toasts()] == [TOAST_TITLE, TOAST_TITLE, "mine"]
    assert ok(server.request("ping", {}))

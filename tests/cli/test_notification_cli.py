"""``herdr notification show`` through the real CLI against a real server and a real
attached client connection."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from herdr.api import attach_messages as am
from herdr_testing import ServerHandle
from herdr_testing.schema22 import assert_valid_response


def _show(server: ServerHandle, *args: str) -> dict[str, Any]:
    done = server.cli("notification", "show", *args)
    assert done.returncode == 0, done.stderr
    envelope: dict[str, Any] = json.loads(done.stdout)
    assert_valid_response(envelope)
    return envelope["result"]  # type: ignore[no-any-return]


def _delivery(server: ServerHandle, value: str) -> None:
    config = Path(server.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[ui.toast]\ndelivery = "{value}"\n')
    assert server.request("server.reload_config", {})["result"]["status"] == "applied"


class _Attached:
    """A bare ``client.attach`` connection that collects the toasts pushed to it."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        request = {"id": "a", "method": "client.attach", "params": {"cols": 80, "rows": 24}}
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        self.buf = b""
        self.toasts: list[am.Toast] = []

    def wait_toast(self, timeout: float = 10.0) -> am.Toast:
        deadline = time.monotonic() + timeout
        while not self.toasts:
            self.sock.settimeout(max(0.05, deadline - time.monotonic()))
            if time.monotonic() > deadline:
                raise TimeoutError("no toast pushed")
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
            *lines, self.buf = self.buf.split(b"\n")
            for line in lines:
                if line.startswith(b'{"t":'):
                    msg = am.decode_server(line)
                    if isinstance(msg, am.Toast):
                        self.toasts.append(msg)
        return self.toasts[0]

    def close(self) -> None:
        self.sock.close()


def test_off_by_default(herdr_server: ServerHandle) -> None:
    result = _show(herdr_server, "hello")
    assert result == {"type": "notification_show", "shown": False, "reason": "disabled"}


def test_no_foreground_client(herdr_server: ServerHandle) -> None:
    _delivery(herdr_server, "herdr")
    result = _show(herdr_server, "hello", "--body", "world")
    assert result == {"type": "notification_show", "shown": False, "reason": "no_foreground_client"}


def test_flags_reach_the_attached_client(herdr_server: ServerHandle) -> None:
    _delivery(herdr_server, "herdr")
    assert "result" in herdr_server.request("workspace.create", {"cwd": "/tmp"})
    client = _Attached(herdr_server.socket_path)
    try:
        result = _show(
            herdr_server,
            "Build finished",
            "--body",
            "npm run build succeeded",
            "--position",
            "top-right",
            "--sound",
            "done",
        )
        assert result == {"type": "notification_show", "shown": True, "reason": "shown"}
        toast = client.wait_toast()
        assert (toast.title, toast.body, toast.position, toast.sound) == (
            "Build finished",
            "npm run build succeeded",
            "top-right",
            "done",
        )
    finally:
        client.close()


@pytest.mark.parametrize(
    "args",
    [["--position", "middle", "x"], ["--sound", "loud", "x"], []],
    ids=["bad_position", "bad_sound", "no_title"],
)
def test_usage_errors_send_nothing(herdr_server: ServerHandle, args: list[str]) -> None:
    done = herdr_server.cli("notification", "show", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert "usage:" in done.stderr

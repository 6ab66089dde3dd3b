"""A cold ``herdr`` imports its client while the server it spawned boots (the two start-ups
overlap instead of adding up); an already running server is not waited for at all."""

from __future__ import annotations

import os
import socket
import struct

import pytest

from herdr.cli import launch
from herdr.cli.transport import is_live
from herdr_testing import HerdrEnv


def test_meanwhile_runs_once_while_a_spawned_server_boots(
    herdr_env: HerdrEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in herdr_env.env.items():
        monkeypatch.setenv(key, value)
    path = str(herdr_env.socket_path())
    calls: list[str] = []
    try:
        assert launch.ensure_server(path, None, meanwhile=lambda: calls.append("import")) is True
        assert calls == ["import"]
        assert is_live(path)
        # a second start-or-attach finds it running: nothing is spawned, nothing run
        assert launch.ensure_server(path, None, meanwhile=lambda: calls.append("again")) is False
        assert calls == ["import"]
    finally:
        herdr_env.cli("server", "stop")
    assert not is_live(path)


def _server_pid(path: str) -> int:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(path)
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid: int = struct.unpack("3i", creds)[0]
    return pid


def test_the_spawned_server_is_detached(
    herdr_env: HerdrEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in herdr_env.env.items():
        monkeypatch.setenv(key, value)
    path = str(herdr_env.socket_path())
    try:
        assert launch.ensure_server(path, None) is True
        pid = _server_pid(path)
        assert os.getsid(pid) == pid  # its own session, as before
        assert os.readlink(f"/proc/{pid}/cwd") == "/"
        assert os.readlink(f"/proc/{pid}/fd/0") == os.devnull
        assert os.readlink(f"/proc/{pid}/fd/1") == os.devnull
        assert os.readlink(f"/proc/{pid}/fd/2").endswith("launch.log")
        with open(f"/proc/{pid}/stat") as fh:
            ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        assert ppid != os.getpid()  # re-parented: never our child, never our zombie
    finally:
        herdr_env.cli("server", "stop")

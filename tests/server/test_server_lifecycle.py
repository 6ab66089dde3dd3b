"""Server lifecycle against real processes: socket, stale files, stop, signals, logs."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
from pathlib import Path

from herdr import PROTOCOL_VERSION
from herdr_testing import HerdrEnv, ServerHandle, pings, wait_until


def test_ping_on_default_socket_with_private_modes(herdr_server: ServerHandle) -> None:
    """Scenario 2: the socket is $XDG_CONFIG_HOME/herdr/herdr.sock, 0600 in a 0700 dir."""
    expected = Path(herdr_server.env["XDG_CONFIG_HOME"]) / "herdr" / "herdr.sock"
    assert herdr_server.socket_path == expected
    assert stat.S_IMODE(expected.stat().st_mode) == 0o600
    assert stat.S_IMODE(expected.parent.stat().st_mode) == 0o700
    reply = herdr_server.raw(b'{"id":"r1","method":"ping","params":{}}\n')
    lines = reply.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert doc["id"] == "r1"
    assert doc["result"]["type"] == "pong"
    assert doc["result"]["protocol"] == PROTOCOL_VERSION
    assert isinstance(doc["result"]["version"], str)
    assert doc["result"]["protocol"] == 22
    assert doc["result"]["capabilities"] == {
        "live_handoff": True,
        "detached_server_daemon": True,
        "endpoint_protocol_generation": None,
        "health_check": True,
        "surface_interest": True,
    }


def test_not_json_gets_invalid_request_then_eof(herdr_server: ServerHandle) -> None:
    """Scenario 3."""
    reply = herdr_server.raw(b"not json\n")
    lines = reply.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert doc["id"] == ""
    assert doc["error"]["code"] == "invalid_request"


def test_second_server_on_same_socket_is_refused(herdr_server: ServerHandle) -> None:
    second = herdr_server.herdr.spawn()
    assert second.proc.wait(20) == 1
    assert "already running" in second.log_text()
    assert str(herdr_server.socket_path) in second.log_text()
    assert pings(herdr_server.socket_path)


def test_dead_socket_file_is_replaced(herdr_env: HerdrEnv) -> None:
    path = herdr_env.socket_path()
    path.parent.mkdir(parents=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays, nobody listens: a crashed server's leftover
    assert stat.S_ISSOCK(path.lstat().st_mode)
    server = herdr_env.start_server()
    assert server.alive()


def test_regular_file_at_socket_path_is_not_clobbered(herdr_env: HerdrEnv) -> None:
    path = herdr_env.socket_path()
    path.parent.mkdir(parents=True)
    path.write_text("precious")
    server = herdr_env.spawn()
    assert server.proc.wait(20) == 1
    assert "not a socket" in server.log_text()
    assert path.read_text() == "precious"


def test_too_long_socket_path_is_refused_naming_it(herdr_env: HerdrEnv) -> None:
    long_path = herdr_env.root / ("x" * 120) / "herdr.sock"
    server = herdr_env.spawn(env={"HERDR_SOCKET_PATH": str(long_path)}, socket_path=long_path)
    assert server.proc.wait(20) == 1
    assert "too long" in server.log_text()
    assert str(long_path) in server.log_text()


def test_server_stop_removes_socket_and_exits(herdr_server: ServerHandle) -> None:
    result = herdr_server.cli("server", "stop")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["result"] == {"type": "ok"}
    assert herdr_server.server.proc.wait(10) == 0
    assert not herdr_server.socket_path.exists()
    # and the same socket can be used again right away
    again = herdr_server.herdr.start_server()
    assert again.alive()


def test_sigterm_and_sigint_shut_down_cleanly(herdr_env: HerdrEnv) -> None:
    for signum in (signal.SIGTERM, signal.SIGINT):
        server = herdr_env.start_server()
        os.kill(server.pid, signum)
        assert server.proc.wait(10) == 0
        assert not server.socket_path.exists()


def test_server_stop_without_server_is_server_not_running(herdr_env: HerdrEnv) -> None:
    result = herdr_env.cli("server", "stop")
    assert result.returncode == 1
    assert json.loads(result.stderr)["error"]["code"] == "server_not_running"
    assert result.stdout == ""


def test_logs_are_json_lines_in_state_dir(herdr_server: ServerHandle) -> None:
    herdr_server.cli("server", "stop")
    herdr_server.server.proc.wait(10)
    log = Path(herdr_server.env["XDG_STATE_HOME"]) / "herdr" / "server.log"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    messages = [r["msg"] for r in records]
    assert "listening" in messages
    assert "stopped" in messages
    assert all({"ts", "level", "logger", "msg"} <= r.keys() for r in records)


def test_explicit_socket_path_env(herdr_env: HerdrEnv) -> None:
    path = herdr_env.root / "x.sock"
    server = herdr_env.start_server(env={"HERDR_SOCKET_PATH": str(path)}, socket_path=path)
    assert server.alive()
    status = herdr_env.cli("status", "server", "--json", env={"HERDR_SOCKET_PATH": str(path)})
    assert json.loads(status.stdout)["running"] is True
    # the parent (/tmp/h...) is not herdr's: its mode is left alone
    assert stat.S_IMODE(path.parent.stat().st_mode) != 0 and path.exists()
    wait_until(server.alive)

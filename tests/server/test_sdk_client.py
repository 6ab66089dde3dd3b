"""The Python SDK (sync and asyncio) against a live server, and protocol_mismatch."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from herdr import PROTOCOL_VERSION
from herdr.api.client import AsyncClient, Client, HerdrError, ServerNotRunning
from herdr_testing import HerdrEnv, ServerHandle


def test_sync_client_calls_and_errors(herdr_server: ServerHandle) -> None:
    client = Client(herdr_server.socket_path)
    assert client.ping()["protocol"] == PROTOCOL_VERSION
    assert client.check_protocol()["type"] == "pong"
    created = client.workspace_create(cwd=str(herdr_server.root), label="sdk")
    pane = created["root_pane"]["pane_id"]
    assert client.call("pane.get", pane_id=pane)["pane"]["pane_id"] == pane
    client.pane_run(pane, "echo sdk-ok")
    matched = client.pane_wait_for_output(pane, regex="^sdk-ok$", timeout_ms=10000)
    assert matched["matched_line"].strip() == "sdk-ok"
    assert "sdk-ok" in client.pane_read(pane, source="recent")["read"]["text"]
    with pytest.raises(HerdrError) as info:
        client.pane_get("w9:p9")
    assert info.value.code == "pane_not_found"
    with pytest.raises(HerdrError) as info:
        client.call("nope.nope")
    assert info.value.code == "invalid_request"


def test_sync_client_resolves_socket_like_the_cli(herdr_server: ServerHandle) -> None:
    code = (
        "from herdr.api.client import Client\n"
        "import sys\n"
        "print(Client().socket_path)\n"
        "print('asyncio' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=herdr_server.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == [str(herdr_server.socket_path), "False"]


def test_server_not_running(herdr_env: HerdrEnv) -> None:
    with pytest.raises(ServerNotRunning):
        Client(herdr_env.socket_path()).ping()


def test_sync_event_iteration_with_since_seq(herdr_server: ServerHandle) -> None:
    client = Client(herdr_server.socket_path)
    client.workspace_create(cwd=str(herdr_server.root))
    with client.events([{"type": "workspace.created"}], since_seq=0) as events:
        assert events.started["replayed"] == 1
        first = next(iter(events))
        assert first["event"] == "workspace_created"
        assert events.last_seq == first["seq"]


def test_async_client(herdr_server: ServerHandle) -> None:
    async def main() -> list[str]:
        client = AsyncClient(herdr_server.socket_path)
        pong = await client.ping()
        assert pong["type"] == "pong"
        subscription = await client.events([{"type": "pane.created"}])
        await client.workspace_create(cwd=str(herdr_server.root))
        kinds = []
        async with subscription:
            async for event in subscription:
                kinds.append(event["event"])
                break
        with pytest.raises(HerdrError):
            await client.workspace_get("w99")
        return kinds

    assert asyncio.run(main()) == ["pane_created"]


@pytest.fixture
def old_server(herdr_env: HerdrEnv) -> Iterator[Path]:
    """A fake server that answers every request with protocol 19."""
    path = herdr_env.root / "old.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.recv(65536)
                reply = {"id": "x", "result": {"type": "pong", "version": "0.0.1", "protocol": 19}}
                conn.sendall(json.dumps(reply).encode() + b"\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield path
    stop.set()
    thread.join(5)
    listener.close()


def test_cli_reports_protocol_mismatch(herdr_env: HerdrEnv, old_server: Path) -> None:
    env = {"HERDR_SOCKET_PATH": str(old_server)}
    result = herdr_env.cli("workspace", "list", env=env)
    assert result.returncode == 1
    assert json.loads(result.stderr)["error"]["code"] == "protocol_mismatch"
    status = json.loads(herdr_env.cli("status", "server", "--json", env=env).stdout)
    assert status["compatible"] is False
    assert "protocol mismatch" in herdr_env.cli("status", env=env).stdout
    with pytest.raises(HerdrError) as info:
        Client(old_server).check_protocol()
    assert info.value.code == "protocol_mismatch"
    assert os.path.exists(old_server)

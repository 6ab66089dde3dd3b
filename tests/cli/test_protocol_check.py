"""Every client refuses a protocol-20 server on connect and says what to do.

The fake server is a plain Unix socket that answers every line with a protocol-20 pong
(what herdr 0.8 answers ``ping``) and records what it was sent, so the tests also show
that nothing but the ping reached the old server.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from herdr import PROTOCOL_VERSION
from herdr.api.client import AsyncClient, Client, HerdrError
from herdr.api.schema import build_schema, summary
from herdr.client.connection import Connection
from herdr_testing import HerdrEnv

ADVICE = "run `herdr server stop`, then start it again"


@dataclass
class OldServer:
    path: Path
    methods: list[str] = field(default_factory=list)


@pytest.fixture
def old_server(herdr_env: HerdrEnv) -> Iterator[OldServer]:
    """A protocol-20 server: every request gets a pong saying protocol 20."""
    server = OldServer(herdr_env.root / "p20.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(server.path))
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
                conn.settimeout(5)
                data = b""
                while b"\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                if not data:
                    continue
                req = json.loads(data.split(b"\n", 1)[0])
                server.methods.append(req.get("method"))
                pong = {"type": "pong", "version": "0.8.4", "protocol": 20}
                conn.sendall(json.dumps({"id": req.get("id", ""), "result": pong}).encode() + b"\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server
    stop.set()
    thread.join(5)
    listener.close()


def _says_what_to_do(message: str) -> None:
    assert "protocol 20" in message and f"speaks {PROTOCOL_VERSION}" in message, message
    assert ADVICE in message, message


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(("workspace", "list"), id="fast-path-verb"),
        pytest.param(("pane", "split", "--direction", "right"), id="argparse-verb"),
        pytest.param(("workspace", "create"), id="mutating-verb"),
    ],
)
def test_cli_refuses_a_protocol_20_server(
    herdr_env: HerdrEnv, old_server: OldServer, argv: tuple[str, ...]
) -> None:
    done = herdr_env.cli(*argv, env={"HERDR_SOCKET_PATH": str(old_server.path)})
    assert done.returncode == 1, done
    error = json.loads(done.stderr)["error"]
    assert error["code"] == "protocol_mismatch"
    _says_what_to_do(error["message"])
    assert old_server.methods == ["ping"]  # the real request never reached it


def test_sdk_refuses_a_protocol_20_server_on_the_first_call(old_server: OldServer) -> None:
    client = Client(old_server.path)
    with pytest.raises(HerdrError) as info:
        client.workspace_list()
    assert info.value.code == "protocol_mismatch"
    _says_what_to_do(info.value.message)
    with pytest.raises(HerdrError):
        client.call("pane.list")  # still refused: a mismatch is never remembered as checked
    assert set(old_server.methods) == {"ping"}


def test_async_sdk_refuses_a_protocol_20_server(old_server: OldServer) -> None:
    async def main() -> HerdrError:
        client = AsyncClient(old_server.path)
        try:
            await client.call("workspace.list")
        except HerdrError as exc:
            return exc
        raise AssertionError("no protocol_mismatch")

    error = asyncio.run(main())
    assert error.code == "protocol_mismatch"
    _says_what_to_do(error.message)
    assert old_server.methods == ["ping"]


def test_tui_connection_refuses_a_protocol_20_server(old_server: OldServer) -> None:
    from herdr.api.attach_messages import AttachParams

    async def main() -> str:
        conn = Connection(str(old_server.path))
        try:
            await conn.attach(AttachParams(cols=80, rows=24))
        except ConnectionError as exc:
            return str(exc)
        finally:
            conn.close()
        raise AssertionError("attached to a protocol-20 server")

    message = asyncio.run(main())
    assert message.startswith("protocol_mismatch")
    _says_what_to_do(message)
    assert old_server.methods == ["ping"]  # client.attach was never sent


def test_schema_summary_and_version_say_protocol_22(herdr_env: HerdrEnv) -> None:
    assert PROTOCOL_VERSION == 22
    assert summary(build_schema()).startswith("Herdr API (herdr-python): protocol 22,")
    text = herdr_env.cli("api", "schema")
    assert text.returncode == 0 and "protocol 22" in text.stdout.splitlines()[0]
    version = herdr_env.cli("--version")
    assert version.returncode == 0 and "(protocol 22)" in version.stdout


def test_sdk_talks_to_a_protocol_22_server_after_one_ping(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server()
    try:
        client = Client(server.socket_path)
        assert client.workspace_list() is not None
        assert client._protocol_checked
    finally:
        server.stop()

"""Peer credentials on the server side: only our own uid (or root) gets an answer.

A client of another user that reaches the socket anyway (the directory and socket are
opened up for these tests only) gets one ``permission_denied`` line with a null id,
before anything of its request is read, and nothing it asked for runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from herdr.api import peercred
from herdr.server.transport import Connection, Listener
from herdr_testing import ServerHandle, wait_until
from herdr_testing.foreign_user import (
    NEEDS_ROOT,
    NOBODY,
    PYTHON,
    reachable_by_others,
    run_as_nobody,
)

pytestmark = NEEDS_ROOT

CREATE = b'{"id":"evil","method":"workspace.create","params":{"label":"evil"}}\n'


def _refusal(reply: bytes) -> dict[str, object]:
    lines = reply.splitlines()
    assert len(lines) == 1, reply
    doc: dict[str, object] = json.loads(lines[0])
    return doc


def _log_records(handle: ServerHandle) -> list[dict[str, object]]:
    log = Path(handle.env["XDG_STATE_HOME"]) / "herdr" / "server.log"
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(
    "data",
    [pytest.param(CREATE, id="sends-a-request"), pytest.param(b"", id="sends-nothing")],
)
def test_foreign_client_is_refused_and_nothing_runs(
    herdr_server: ServerHandle, data: bytes
) -> None:
    before = herdr_server.request("workspace.list", {})["result"]["workspaces"]
    with reachable_by_others(herdr_server.socket_path, herdr_server.root):
        pid, reply = run_as_nobody(herdr_server.socket_path, data)
    doc = _refusal(reply)
    assert doc["id"] is None
    error = doc["error"]
    assert isinstance(error, dict)
    assert error["code"] == "permission_denied"
    assert herdr_server.request("workspace.list", {})["result"]["workspaces"] == before

    def logged() -> dict[str, object] | None:
        return next((r for r in _log_records(herdr_server) if r.get("peer_uid") == NOBODY), None)

    record = wait_until(logged, message="the refusal was not logged")
    assert record is not None
    assert record["level"] == "warning"
    assert record["peer_pid"] == pid
    assert "another user" in str(record["msg"])
    assert herdr_server.server.alive()


def test_own_uid_still_served_after_a_refusal(herdr_server: ServerHandle) -> None:
    with reachable_by_others(herdr_server.socket_path, herdr_server.root):
        run_as_nobody(herdr_server.socket_path, CREATE)
    created = herdr_server.request("workspace.create", {"cwd": str(herdr_server.root)})
    assert "result" in created
    listed = herdr_server.request("workspace.list", {})["result"]["workspaces"]
    assert [w["label"] for w in listed] != ["evil"]
    assert len(listed) == 1


# --------------------------------------------------------------------------- the policy

OWNER = 12345


@pytest.mark.parametrize(
    ("peer", "own", "trusted"),
    [
        pytest.param(OWNER, OWNER, True, id="same-user"),
        pytest.param(0, OWNER, True, id="root-may-use-anyones"),
        pytest.param(NOBODY, OWNER, False, id="other-user"),
        pytest.param(NOBODY, 0, False, id="other-user-of-roots-server"),
        pytest.param(0, 0, True, id="root-and-root"),
    ],
)
def test_trust_policy(peer: int, own: int, trusted: bool) -> None:
    assert peercred.trusted(peer, own) is trusted


def test_peer_credentials_of_a_socketpair() -> None:
    import socket

    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        assert peercred.peer_credentials(left) == (os.getpid(), os.geteuid(), os.getegid())


_PING_AS = r"""
import socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.settimeout(10)
sock.connect(sys.argv[1])
try:
    sock.sendall(b"hello\n")
except BrokenPipeError:  # refused and closed before we sent
    pass
reply = b""
try:
    while chunk := sock.recv(65536):
        reply += chunk
except ConnectionResetError:  # after the refusal line
    pass
sys.stdout.buffer.write(reply)
"""


@pytest.mark.parametrize(
    ("client_uid", "admitted"),
    [
        pytest.param(OWNER, True, id="owner"),
        pytest.param(0, True, id="root"),
        pytest.param(NOBODY, False, id="other-user"),
    ],
)
def test_listener_of_a_non_root_owner(client_uid: int, admitted: bool) -> None:
    """A listener owned by uid 12345 serves 12345 and root, and refuses anyone else."""
    directory = Path(tempfile.mkdtemp(prefix="hpc", dir="/tmp"))
    directory.chmod(0o755)
    path = directory / "s.sock"
    handled: list[bytes] = []

    async def handle(line: bytes, conn: Connection) -> bytes:
        handled.append(line)
        return b'{"id":"x","result":{"type":"pong"}}\n'

    async def main() -> bytes:
        listener = Listener(handle, owner_uid=OWNER)
        await listener.start(path)
        path.chmod(0o666)
        try:
            proc = await asyncio.create_subprocess_exec(
                PYTHON,
                "-I",
                "-c",
                _PING_AS,
                str(path),
                user=client_uid,
                group=client_uid,
                extra_groups=[],
                cwd="/",
                stdout=subprocess.PIPE,
            )
            out, _ = await asyncio.wait_for(proc.communicate(), 20)
            return out
        finally:
            await listener.close()

    try:
        reply = asyncio.run(main())
    finally:
        path.unlink(missing_ok=True)
        directory.rmdir()
    if admitted:
        assert reply == b'{"id":"x","result":{"type":"pong"}}\n'
        assert handled == [b"hello"]
    else:
        assert json.loads(reply)["error"]["code"] == "permission_denied"
        assert handled == []

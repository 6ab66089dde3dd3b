"""The navigator's probes of the other sessions: real servers and real sockets."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from pathlib import Path

import pytest

from herdr.client import sessions_probe as sp
from herdr_testing import HerdrEnv
from herdr_testing.foreign_user import NEEDS_ROOT, squatter


@pytest.mark.parametrize(
    ("entries", "names"),
    [
        (["work", "default", ".", "..", "bad name", "a.b-c_1"], ["a.b-c_1", "work"]),
        ([], []),
    ],
    ids=["valid-names-only", "empty"],
)
def test_session_names(entries: list[str], names: list[str]) -> None:
    assert sp.session_names(entries) == names


def _dirs(herdr: HerdrEnv, *names: str) -> None:
    for name in names:
        herdr.socket_path(name).parent.mkdir(parents=True, exist_ok=True)


def test_a_live_session_answers_and_the_attached_one_is_left_out(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server("--session", "work")
    _dirs(herdr_env, "old")
    current = str(herdr_env.socket_path(None))
    found = asyncio.run(sp.probe_all(current, herdr_env.env))
    by_name = {s.name: s for s in found}
    assert sorted(by_name) == ["old", "work"]  # not "default": it is the attached one
    assert by_name["old"].snapshot is None and by_name["old"].note == "stopped"
    snap = by_name["work"].snapshot
    assert snap is not None and snap["protocol"] == 22
    # probed from "work", the default session is listed (stopped: no socket)
    others = asyncio.run(sp.probe_all(str(server.socket_path), herdr_env.env))
    assert [(s.name, s.note) for s in others if s.snapshot is None] == [
        ("default", "stopped"),
        ("old", "stopped"),
    ]


def _listener(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.listen(4)
    return sock


def test_a_stale_socket_is_stopped(tmp_path: Path) -> None:
    path = tmp_path / "herdr.sock"
    _listener(path).close()  # the file stays, nobody listens
    assert asyncio.run(sp.probe("gone", str(path))).note == "stopped"


def test_a_server_that_never_answers_is_not_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "herdr.sock"
    listener = _listener(path)
    held: list[socket.socket] = []
    accepting = threading.Thread(target=lambda: held.append(listener.accept()[0]), daemon=True)
    accepting.start()
    try:
        result = asyncio.run(sp.probe("mute", str(path), timeout=0.2))
        assert result.snapshot is None and result.note == "not answering"
    finally:
        for conn in held:
            conn.close()
        listener.close()


def test_a_file_that_is_not_a_socket_is_not_asked(tmp_path: Path) -> None:
    path = tmp_path / "herdr.sock"
    path.write_text("")
    assert asyncio.run(sp.probe("odd", str(path))).note == "not our socket"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to own a socket as another uid")
def test_another_users_socket_is_not_asked(tmp_path: Path) -> None:
    path = tmp_path / "herdr.sock"
    listener = _listener(path)
    try:
        os.chown(path, 65534, 65534)
        got: list[socket.socket] = []
        listener.settimeout(0.3)
        result = asyncio.run(sp.probe("theirs", str(path)))
        assert result.note == "not our socket"
        with pytest.raises(TimeoutError):
            got.append(listener.accept()[0])  # nothing ever connected
    finally:
        listener.close()


@NEEDS_ROOT
def test_a_socket_served_by_another_user_gets_nothing() -> None:
    """The file passes the owner check (chowned to root), the peer check refuses."""
    with squatter() as bait:
        os.chown(bait.path, 0, 0)
        result = asyncio.run(sp.probe("squat", str(bait.path)))
        assert result.snapshot is None and result.note == "untrusted server"
        assert bait.received() == b""

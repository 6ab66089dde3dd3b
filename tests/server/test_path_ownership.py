"""A real ``herdr server`` refuses directories and files another local user controls.

Each attack is staged in the server's private HOME/XDG tree (``os.chown`` to uid 65534
stands in for the other user, so most of these need root) and checked from the outside:
exit code, the one-line message, and that nothing of the victim's changed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from herdr_testing import HerdrEnv, Server, wait_until

OTHER = 65534
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another uid needs root")


def config_dir(herdr: HerdrEnv) -> Path:
    return Path(herdr.env["XDG_CONFIG_HOME"]) / "herdr"


def state_dir(herdr: HerdrEnv) -> Path:
    return Path(herdr.env["XDG_STATE_HOME"]) / "herdr"


def refused(server: Server) -> str:
    """Wait for a server that must refuse to start; return what it printed."""
    assert server.proc.wait(20) == 1, server.log_text()
    text = server.log_text().strip()
    assert "Traceback" not in text
    return text


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def sticky_dir(herdr: HerdrEnv, name: str = "shared", perm: int = 0o1777) -> Path:
    path = herdr.root / name
    path.mkdir()
    os.chmod(path, perm)
    return path


@needs_root
@pytest.mark.parametrize("which", ["config", "state", "cache"])
def test_foreign_private_dir_refuses_start(herdr_env: HerdrEnv, which: str) -> None:
    target = {
        "config": config_dir(herdr_env),
        "state": state_dir(herdr_env),
        "cache": Path(herdr_env.env["HOME"]) / ".cache" / "herdr",
    }[which]
    target.mkdir(parents=True)
    os.chmod(target, 0o755)
    os.chown(target, OTHER, OTHER)
    text = refused(herdr_env.spawn())
    assert text.count("\n") == 0, text
    assert f"directory {target} has unsafe permissions (owner uid {OTHER}, mode 0755)" in text
    assert "fix:" in text
    assert os.listdir(target) == []  # nothing was created in their directory
    assert mode(target) == 0o755 and os.stat(target).st_uid == OTHER


def test_own_open_dirs_are_tightened(herdr_env: HerdrEnv) -> None:
    for target in (config_dir(herdr_env), state_dir(herdr_env)):
        target.mkdir(parents=True)
        os.chmod(target, 0o777)
    server = herdr_env.start_server()
    assert mode(config_dir(herdr_env)) == 0o700
    assert mode(state_dir(herdr_env)) == 0o700
    assert mode(server.socket_path) == 0o600
    assert mode(Path(herdr_env.env["HOME"]) / ".cache" / "herdr") == 0o700


def test_named_session_dirs_are_private(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server("--session", "work")
    sessions = config_dir(herdr_env) / "sessions"
    assert mode(sessions) == 0o700 and mode(sessions / "work") == 0o700
    assert mode(state_dir(herdr_env) / "sessions" / "work") == 0o700
    assert server.alive()


def test_socket_in_a_sticky_shared_dir_is_allowed(herdr_env: HerdrEnv) -> None:
    shared = sticky_dir(herdr_env)
    sock = shared / "h.sock"
    server = herdr_env.start_server(env={"HERDR_SOCKET_PATH": str(sock)}, socket_path=sock)
    assert mode(sock) == 0o600
    assert mode(shared) == 0o1777  # the user's shared directory is not changed
    listed = herdr_env.cli("workspace", "list", env={"HERDR_SOCKET_PATH": str(sock)})
    assert listed.returncode == 0, listed.stderr
    assert server.alive()


def test_socket_in_a_world_writable_non_sticky_dir_is_refused(herdr_env: HerdrEnv) -> None:
    shared = sticky_dir(herdr_env, perm=0o777)
    sock = shared / "h.sock"
    text = refused(herdr_env.spawn(env={"HERDR_SOCKET_PATH": str(sock)}, socket_path=sock))
    assert f"directory {shared} has unsafe permissions" in text
    assert "not sticky" in text
    assert not sock.exists()


def test_lock_file_symlink_is_not_followed(herdr_env: HerdrEnv) -> None:
    shared = sticky_dir(herdr_env)
    victim = herdr_env.root / "victim.txt"
    victim.write_text("precious\n")
    sock = shared / "h.sock"
    (shared / "h.sock.lock").symlink_to(victim)
    text = refused(herdr_env.spawn(env={"HERDR_SOCKET_PATH": str(sock)}, socket_path=sock))
    assert "is a symlink; refusing to follow it" in text
    assert victim.read_text() == "precious\n"


@needs_root
def test_foreign_lock_file_is_refused(herdr_env: HerdrEnv) -> None:
    shared = sticky_dir(herdr_env)
    sock = shared / "h.sock"
    lock = shared / "h.sock.lock"
    lock.write_text("4242\n")
    os.chown(lock, OTHER, OTHER)
    text = refused(herdr_env.spawn(env={"HERDR_SOCKET_PATH": str(sock)}, socket_path=sock))
    assert f"lock file {lock} is not a regular file of yours (owner uid {OTHER}" in text
    assert lock.read_text() == "4242\n"


@needs_root
def test_foreign_stale_socket_is_neither_used_nor_removed(herdr_env: HerdrEnv) -> None:
    import socket

    shared = sticky_dir(herdr_env)
    sock_path = shared / "h.sock"
    planted = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    planted.bind(str(sock_path))
    planted.close()  # a dead socket file, but theirs
    os.lchown(sock_path, OTHER, OTHER)
    text = refused(
        herdr_env.spawn(env={"HERDR_SOCKET_PATH": str(sock_path)}, socket_path=sock_path)
    )
    assert f"socket {sock_path} belongs to uid {OTHER}" in text
    assert sock_path.exists() and os.lstat(sock_path).st_uid == OTHER


def test_second_server_does_not_truncate_the_lock(herdr_env: HerdrEnv) -> None:
    first = herdr_env.start_server()
    lock = first.socket_path.with_name("herdr.sock.lock")
    assert lock.read_text() == f"{first.pid}\n"
    text = refused(herdr_env.spawn())
    assert "already running" in text
    assert lock.read_text() == f"{first.pid}\n"
    assert first.alive()


def test_planted_log_symlink_refuses_start(herdr_env: HerdrEnv) -> None:
    victim = herdr_env.root / "victim.txt"
    victim.write_text("precious\n")
    logs = state_dir(herdr_env)
    logs.mkdir(parents=True, mode=0o700)
    (logs / "server.log").symlink_to(victim)
    text = refused(herdr_env.spawn())
    assert "server.log is a symlink; refusing to write through it" in text
    assert victim.read_text() == "precious\n"


@needs_root
def test_planted_session_symlink_is_not_written_through(herdr_env: HerdrEnv) -> None:
    victim = herdr_env.root / "victim.json"
    victim.write_text("precious\n")
    data = config_dir(herdr_env)
    data.mkdir(parents=True, mode=0o700)
    link = data / "session.json"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    server = herdr_env.start_server(env={"HERDR_TEST_PERSIST_TIMING": "debounce=0.02"})
    created = server.request("workspace.create", {"cwd": str(herdr_env.root)})
    assert "result" in created, created
    log = state_dir(herdr_env) / "server.log"
    wait_until(
        lambda: "symlink owned by uid 65534" in log.read_text(errors="replace"),
        10,
        message="the refused save was not logged",
    )
    assert victim.read_text() == "precious\n"
    assert link.is_symlink()
    assert server.alive()

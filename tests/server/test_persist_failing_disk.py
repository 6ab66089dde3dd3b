"""Saying when persistence fails: a real full disk, a read-only data dir, a write the OS
refuses. ``ping`` reports the health, ``herdr status`` shows it, the server retries
on its own until the file is written again, and SIGTERM still exits cleanly.

How the failures are made real (we usually run as root, where chmod does not stop a
write): a 64 KiB tmpfs mounted on the data dir, filled to ENOSPC or remounted
read-only (EROFS), when mounting is permitted (skipped otherwise); a directory at
``session.json.tmp``, where the atomic write must create its temp file (EISDIR, works
for every uid); and ``chmod 0500`` on the data dir when not running as root (EACCES).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr.api.schema import build_schema
from herdr.api.validate import Compiler
from herdr_testing import HerdrEnv, Server, wait_until

TIMING = "debounce=0.02,retry=0.1,retry_max=0.3,sample=0.1"
CHECK_HEALTH = Compiler(build_schema()["schemas"]["success_response"]["$defs"]).ref(
    "PersistenceHealth"
)


def data_dir(h: HerdrEnv) -> Path:
    return Path(h.env["XDG_CONFIG_HOME"]) / "herdr"


def server_log(h: HerdrEnv) -> str:
    path = Path(h.env["XDG_STATE_HOME"]) / "herdr" / "server.log"
    return path.read_text(errors="replace") if path.exists() else ""


def ok(server: Server, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def health(server: Server) -> dict[str, Any]:
    """ping's ``persistence``, checked against the published schema."""
    record = ok(server, "ping", {})["persistence"]
    assert isinstance(record, dict)
    assert CHECK_HEALTH(record, "persistence") is None, record
    return record


def saved(h: HerdrEnv) -> bytes:
    path = data_dir(h) / "session.json"
    return path.read_bytes() if path.is_file() else b""


def new_workspace(server: Server, h: HerdrEnv, label: str) -> None:
    ok(server, "workspace.create", {"cwd": str(h.root), "label": label})


def _run(*argv: str) -> bool:
    done = subprocess.run(argv, capture_output=True, check=False)
    return done.returncode == 0


@contextlib.contextmanager
def tiny_tmpfs(where: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs on `where`, or skip when this sandbox may not mount."""
    where.mkdir(parents=True, exist_ok=True, mode=0o700)
    if shutil.which("mount") is None or not _run(
        "mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(where)
    ):
        pytest.skip("mounting a tmpfs is not permitted here (needs CAP_SYS_ADMIN)")
    try:
        yield where
    finally:
        if not _run("umount", str(where)):
            _run("umount", "-l", str(where))


def fill(directory: Path) -> Path:
    """Write a filler file until the file system says ENOSPC."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 4096):
                pass
    finally:
        os.close(fd)
    probe = directory / "probe"
    with pytest.raises(OSError) as info:
        probe.write_bytes(b"x" * 8192)
    probe.unlink(missing_ok=True)
    assert info.value.errno == errno.ENOSPC
    return filler


def status(h: HerdrEnv, *args: str) -> str:
    done = h.cli("status", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def no_traceback(h: HerdrEnv, server: Server) -> None:
    output = server.log_text()
    assert "Traceback" not in output, output
    for line in server_log(h).splitlines():
        record = json.loads(line)
        assert "exc" not in record and "Traceback" not in record["msg"], record


def test_full_disk_is_reported_and_retried_until_the_file_is_written(herdr_env: HerdrEnv) -> None:
    """ENOSPC on a real (tiny) file system: ping and ``herdr status`` say saving fails,
    with the OS's words, errno and path; the last good file stays; once there is space
    again the server writes it without any further change and reports ok."""
    h = herdr_env
    with tiny_tmpfs(data_dir(h)) as fs:
        server = h.start_server(env={"HERDR_TEST_PERSIST_TIMING": TIMING})
        new_workspace(server, h, "good")
        wait_until(lambda: b"good" in saved(h), message="first save")
        wait_until(lambda: health(server)["last_good_save"], message="good save recorded")
        assert health(server)["status"] == "ok"
        last_good = saved(h)
        filler = fill(fs)
        new_workspace(server, h, "after-full")
        failing = wait_until(
            lambda: (record := health(server))["status"] == "failing" and record,
            message="health never turned failing",
        )
        assert failing["last_error"] == {
            "message": os.strerror(errno.ENOSPC),
            "errno": "ENOSPC",
            "path": str(fs / "session.json"),
        }
        assert failing["failing_since"] and failing["last_failure"]
        assert failing["last_good_save"] and failing["unsaved_changes"] is True
        text = status(h)
        assert "summary: server running; saving the session fails" in text
        line = next(x for x in text.splitlines() if "persistence:" in x).strip()
        assert line == (
            f"persistence: failing since {failing['failing_since']} "
            f"(No space left on device [ENOSPC]: {fs / 'session.json'}); "
            f"last good save {failing['last_good_save']}"
        )
        assert "next: free disk space or make" in text and "no action needed" not in text
        doc = json.loads(status(h, "server", "--json"))
        assert doc["persistence"]["status"] == "failing"
        wait_until(
            lambda: health(server)["consecutive_failures"] >= 3, message="no retries on its own"
        )
        assert saved(h) == last_good
        assert server_log(h).count("persist.save_failed") == 1
        filler.unlink()  # space again; no request but pings from here on
        wait_until(lambda: health(server)["status"] == "ok", message="never recovered")
        assert b"after-full" in saved(h)
        assert health(server)["unsaved_changes"] is False
        assert "persistence: ok (last good save" in status(h)
        assert "next: no action needed" in status(h)
        assert server_log(h).count("persist.save_recovered") == 1
        assert server.stop() == 0
        no_traceback(h, server)


def test_refused_write_recovers_without_another_change_for_any_uid(herdr_env: HerdrEnv) -> None:
    """No mount needed: a directory where the temp file must go makes every write fail
    with EISDIR; removing it is enough for the next retry to succeed."""
    h = herdr_env
    server = h.start_server(env={"HERDR_TEST_PERSIST_TIMING": TIMING})
    new_workspace(server, h, "good")
    wait_until(lambda: b"good" in saved(h), message="first save")
    blocker = data_dir(h) / "session.json.tmp"
    blocker.mkdir()
    new_workspace(server, h, "blocked")
    record = wait_until(
        lambda: (r := health(server))["status"] == "failing" and r, message="not failing"
    )
    assert record["last_error"]["errno"] == "EISDIR"
    assert record["last_error"]["path"] == str(data_dir(h) / "session.json")
    blocker.rmdir()
    wait_until(lambda: health(server)["status"] == "ok", message="never recovered")
    assert b"blocked" in saved(h)


def test_ping_reports_ok_health_of_a_fresh_server(herdr_env: HerdrEnv) -> None:
    h = herdr_env
    server = h.start_server()
    record = health(server)
    assert record["status"] == "ok" and record["last_error"] is None
    assert record["path"] == str(data_dir(h) / "session.json")
    assert record["consecutive_failures"] == 0


# --- SIGTERM while saving fails -------------------------------------------------------


@contextlib.contextmanager
def _blocker(h: HerdrEnv) -> Iterator[None]:
    blocker = data_dir(h) / "session.json.tmp"
    blocker.mkdir()
    try:
        yield
    finally:
        blocker.rmdir()


@contextlib.contextmanager
def _chmod(h: HerdrEnv) -> Iterator[None]:
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions (see immutable-dir)")
    data_dir(h).chmod(0o500)
    try:
        yield
    finally:
        data_dir(h).chmod(0o700)


@contextlib.contextmanager
def _immutable(h: HerdrEnv) -> Iterator[None]:
    """``chattr +i``: even root can neither create nor remove entries (EPERM) — the
    socket file in the same directory cannot be removed at exit either."""
    if shutil.which("chattr") is None or not _run("chattr", "+i", str(data_dir(h))):
        pytest.skip("chattr +i is not supported here (needs root and ext4/xfs/btrfs)")
    try:
        yield
    finally:
        _run("chattr", "-i", str(data_dir(h)))


@contextlib.contextmanager
def _read_only(h: HerdrEnv) -> Iterator[None]:
    """The data dir's file system remounted read-only (EROFS); see `_prepare`."""
    assert _run("mount", "-o", "remount,ro", str(data_dir(h)))
    yield


INJECTIONS: dict[str, Callable[[HerdrEnv], contextlib.AbstractContextManager[None]]] = {
    "eisdir-blocker": _blocker,
    "chmod-0500": _chmod,
    "immutable-dir": _immutable,
    "read-only-fs": _read_only,
}


@contextlib.contextmanager
def _prepare(h: HerdrEnv, injection: str) -> Iterator[Path | None]:
    """read-only-fs: a tmpfs data dir, and the socket (with its lock file, open for
    writing) elsewhere, since a file system with a file open for writing cannot be
    remounted read-only."""
    if injection != "read-only-fs":
        yield None
        return
    with tiny_tmpfs(data_dir(h)):
        run_dir = h.root / "run"
        run_dir.mkdir(mode=0o700)
        yield run_dir / "herdr.sock"


@pytest.mark.parametrize("injection", sorted(INJECTIONS))
def test_sigterm_exits_cleanly_while_saves_fail_and_one_is_pending(
    herdr_env: HerdrEnv, injection: str
) -> None:
    """Saving fails (and a retry is pending for the newest change) when SIGTERM comes:
    exit code 0, no traceback on stderr or in server.log, the last good file intact."""
    h = herdr_env
    env = {"HERDR_TEST_PERSIST_TIMING": "debounce=0.02,retry=30,retry_max=30,sample=0.1"}
    with _prepare(h, injection) as socket_path:
        if socket_path is not None:
            env["HERDR_SOCKET_PATH"] = str(socket_path)
        server = h.start_server(env=env, socket_path=socket_path)
        new_workspace(server, h, "good")
        wait_until(lambda: b"good" in saved(h), message="first save")
        last_good = saved(h)
        with INJECTIONS[injection](h):
            new_workspace(server, h, "doomed")
            record = wait_until(
                lambda: (r := health(server))["status"] == "failing" and r,
                message="not failing",
            )
            new_workspace(server, h, f"pending-{uuid.uuid4().hex[:6]}")
            assert health(server)["unsaved_changes"] is True  # the retry is 30 s away
            os.kill(server.pid, signal.SIGTERM)
            assert server.proc.wait(20) == 0
        no_traceback(h, server)
        assert saved(h) == last_good
    assert record["last_error"]["errno"] in ("EISDIR", "EACCES", "EPERM", "EROFS")
    assert "stopped" in server_log(h)


def test_fifo_planted_at_the_temp_path_never_blocks_a_save(herdr_env: HerdrEnv) -> None:
    """A FIFO where the temp file goes would block an ``open`` for writing forever (the
    shape of a hung disk): the atomic write removes it unopened and creates its temp file
    exclusively, so the save completes, ping stays healthy and SIGTERM exits 0 at once."""
    h = herdr_env
    timing = "debounce=0.02,retry=30,retry_max=30,sample=0.1,final_wait=0.5"
    server = h.start_server(env={"HERDR_TEST_PERSIST_TIMING": timing})
    new_workspace(server, h, "good")
    wait_until(lambda: b"good" in saved(h), message="first save")
    fifo = data_dir(h) / "session.json.tmp"
    os.mkfifo(fifo, 0o600)
    new_workspace(server, h, "after-fifo")
    wait_until(lambda: b"after-fifo" in saved(h), message="the save behind the FIFO")
    assert not fifo.exists()
    assert health(server)["status"] == "ok"
    os.kill(server.pid, signal.SIGTERM)
    assert server.proc.wait(20) == 0
    no_traceback(h, server)
    assert "persist.final_save_skipped" not in server_log(h)

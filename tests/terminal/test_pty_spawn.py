"""Real PTYs: spawn, I/O, resize, replies, exit status, teardown."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from herdr.terminal import views
from herdr.terminal.emulator import Emulator
from herdr.terminal.pty import (
    AsyncPty,
    ExitStatus,
    PtyClosed,
    PtyProcess,
    PtyWriteOverflow,
    get_winsize,
)
from herdr_testing import async_wait_until, wait_until

SpawnPty = Callable[..., PtyProcess]


class Screen:
    """Collects PTY output into an Emulator (what a pane does)."""

    def __init__(self, cols: int = 80, rows: int = 24) -> None:
        self.emulator = Emulator(cols, rows)
        self.raw = bytearray()

    def feed(self, data: bytes) -> None:
        self.raw += data
        self.emulator.feed(data)

    def pump(self, process: PtyProcess) -> None:
        while True:
            data = process.read(timeout=0)
            if not data:
                return
            self.feed(data)

    def text(self) -> str:
        return views.recent(self.emulator, 200)


def read_until(process: PtyProcess, screen: Screen, needle: str, timeout: float = 10.0) -> str:
    def seen() -> bool:
        screen.pump(process)
        return needle in screen.text()

    wait_until(seen, timeout, message=f"{needle!r} never appeared; screen:\n{screen.text()}")
    return screen.text()


def open_fds() -> set[int]:
    """Open descriptors, found with fstat so the check itself opens nothing."""
    fds = set()
    for fd in range(4096):
        try:
            os.fstat(fd)
        except OSError:
            continue
        fds.add(fd)
    return fds


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip()
    except FileNotFoundError:
        return ""


def is_zombie_or_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except FileNotFoundError:
        return True


# -- synchronous core ------------------------------------------------------------


def test_echo_round_trip_through_sh(spawn_pty: SpawnPty) -> None:
    process = spawn_pty(["/bin/sh"])
    screen = Screen()
    read_until(process, screen, "$")
    process.write_all(b"echo round-$((40+2))-trip\n")
    text = read_until(process, screen, "round-42-trip\n")
    assert "echo round-$((40+2))-trip" in text  # the tty echoed our input too


def test_stty_sees_initial_size_and_resize(spawn_pty: SpawnPty) -> None:
    process = spawn_pty(["/bin/sh"], cols=91, rows=33)
    assert get_winsize(process.fd) == (91, 33)
    screen = Screen(91, 33)
    process.write_all(b"stty size\n")
    read_until(process, screen, "33 91")
    process.resize(120, 40)
    screen.emulator.resize(120, 40)
    assert process.size == (120, 40)
    process.write_all(b"stty size\n")
    read_until(process, screen, "40 120")


def test_cwd_and_env(spawn_pty: SpawnPty, tmp_path: Path, shell_env: dict[str, str]) -> None:
    env = {**shell_env, "HERDR_TEST_MARKER": "marker-value"}
    process = spawn_pty(["/bin/sh", "-c", 'pwd; echo "$HERDR_TEST_MARKER"'], env=env, cwd=tmp_path)
    screen = Screen()
    read_until(process, screen, "marker-value")
    assert str(tmp_path) in screen.text()


def test_controlling_terminal_and_session(spawn_pty: SpawnPty) -> None:
    process = spawn_pty(["/bin/sh", "-c", "sleep 30"])
    # The child leads its own session and group, and the PTY is its controlling tty.
    assert os.getsid(process.pid) == process.pid
    assert os.getpgid(process.pid) == process.pid
    wait_until(lambda: process.foreground_pgid() == process.pid)


def test_cursor_position_reply_reaches_the_program(spawn_pty: SpawnPty) -> None:
    child = (
        "import os, tty; tty.setraw(0); os.write(1, b'\\x1b[6n'); "
        "r = os.read(0, 32); os.write(1, b'\\r\\nREPLY=' + repr(r).encode() + b'\\r\\n')"
    )
    process = spawn_pty([sys.executable, "-c", child])
    screen = Screen()
    screen.emulator.set_on_reply(process.write_all)
    text = read_until(process, screen, "REPLY=b'\\x1b[1;1R'")
    assert "REPLY=b'\\x1b[1;1R'" in text


def test_alternate_screen_in_and_out_keeps_primary(spawn_pty: SpawnPty) -> None:
    script = (
        "echo primary-line; printf '\\033[?1049h\\033[H\\033[2Jfullscreen-app'; "
        "read x; printf '\\033[?1049l'; echo back-home; sleep 30"
    )
    process = spawn_pty(["/bin/sh", "-c", script])
    screen = Screen()
    read_until(process, screen, "fullscreen-app")
    assert screen.emulator.alternate_screen
    assert "primary-line" not in views.visible(screen.emulator)
    process.write_all(b"\n")
    read_until(process, screen, "back-home")
    assert not screen.emulator.alternate_screen
    visible = views.visible(screen.emulator)
    assert "primary-line" in visible
    assert "fullscreen-app" not in visible


def test_osc_title_is_read_back(spawn_pty: SpawnPty) -> None:
    process = spawn_pty(["/bin/sh", "-c", "printf '\\033]0;pane title\\007done'; sleep 30"])
    screen = Screen()
    read_until(process, screen, "done")
    assert screen.emulator.title == "pane title"
    assert screen.emulator.osc.title == "pane title"


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["/bin/sh", "-c", "exit 7"], ExitStatus(7, None)),
        (["/bin/sh", "-c", "true"], ExitStatus(0, None)),
        (["/bin/sh", "-c", "kill -TERM $$"], ExitStatus(None, signal.SIGTERM)),
    ],
)
def test_exit_status_is_reaped(spawn_pty: SpawnPty, argv: list[str], status: ExitStatus) -> None:
    process = spawn_pty(argv)
    assert process.wait(timeout=10) == status
    assert process.poll() == status
    assert is_zombie_or_gone(process.pid)
    with pytest.raises(ChildProcessError):
        os.waitpid(process.pid, os.WNOHANG)  # already reaped: not our zombie


def test_eof_reads_none(spawn_pty: SpawnPty) -> None:
    process = spawn_pty(["/bin/sh", "-c", "echo bye"])
    screen = Screen()

    def at_eof() -> bool:
        data = process.read(timeout=0.05)
        if data:
            screen.feed(data)
        return data is None

    wait_until(at_eof)
    assert "bye" in screen.text()


def test_terminate_kills_job_and_releases_fds(shell_env: dict[str, str]) -> None:
    before = open_fds()
    # The shell ignores SIGHUP, so teardown has to escalate to SIGKILL.
    process = PtyProcess.spawn(
        ["/bin/sh", "-c", "trap '' HUP; echo trapped; sleep 30 & wait"], env=shell_env
    )
    pid = process.pid
    read_until(process, Screen(), "trapped")
    status = process.terminate(grace=0.2)
    assert status == ExitStatus(None, signal.SIGKILL)
    assert process.closed
    assert is_zombie_or_gone(pid)
    assert open_fds() == before
    process.terminate()  # idempotent


def test_terminate_hangs_up_a_foreground_job(spawn_pty: SpawnPty) -> None:
    process = spawn_pty(["/bin/sh"])
    process.write_all(b"sleep 30\n")
    wait_until(lambda: process.foreground_pgid() not in (None, process.pid))
    job = process.foreground_pgid()
    assert job is not None
    status = process.terminate(grace=30.0)  # generous: a loaded machine; it returns at exit
    assert status.signal == signal.SIGHUP
    wait_until(lambda: is_zombie_or_gone(job))


def test_spawn_failure_leaks_nothing(shell_env: dict[str, str]) -> None:
    before = open_fds()
    with pytest.raises(FileNotFoundError):
        PtyProcess.spawn(["/definitely/not/here"], env=shell_env)
    assert open_fds() == before


# -- asyncio driver ----------------------------------------------------------------


async def _async_round_trip(shell_env: dict[str, str]) -> None:
    screen = Screen()
    exits: list[ExitStatus] = []
    pty = AsyncPty.spawn(["/bin/sh"], screen.feed, exits.append, env=shell_env)
    screen.emulator.set_on_reply(pty.write)
    try:
        await async_wait_until(lambda: "$" in screen.text())
        pty.write(b"echo async-$((6*7))\n")
        await async_wait_until(lambda: "async-42\n" in screen.text())
        pty.resize(100, 30)
        pty.write(b"stty size; exit 5\n")
        status = await asyncio.wait_for(pty.wait(), 10)
        assert status == ExitStatus(5, None)
        assert exits == [status]
        assert "30 100" in screen.text()  # output before exit was delivered first
    finally:
        await pty.aclose()
    with pytest.raises(PtyClosed):
        pty.write(b"x")


def test_async_round_trip_and_exit(shell_env: dict[str, str]) -> None:
    asyncio.run(_async_round_trip(shell_env))


async def _async_replies(shell_env: dict[str, str]) -> None:
    child = (
        "import os, tty; tty.setraw(0); os.write(1, b'\\x1b[5;9H\\x1b[6n\\x1b[>c'); "
        "r = b''\n"
        "while r.count(b'R') + r.count(b'c') < 2: r += os.read(0, 64)\n"
        "os.write(1, b'\\r\\nGOT ' + repr(r).encode() + b'\\r\\n')"
    )
    screen = Screen()
    pty = AsyncPty.spawn([sys.executable, "-c", child], screen.feed, env=shell_env)
    screen.emulator.set_on_reply(pty.write)
    try:
        await asyncio.wait_for(pty.wait(), 10)
        assert "GOT b'\\x1b[5;9R\\x1b[>1;0;0c'" in screen.text()
    finally:
        await pty.aclose()


def test_async_replies_are_written_back(shell_env: dict[str, str]) -> None:
    asyncio.run(_async_replies(shell_env))


async def _async_overflow(shell_env: dict[str, str]) -> None:
    # `sleep` never reads stdin: the kernel buffer fills, then ours.
    pty = AsyncPty.spawn(["sleep", "30"], lambda _d: None, env=shell_env, write_limit=64 * 1024)
    try:
        chunk = b"x" * 8192
        with pytest.raises(PtyWriteOverflow, match="not reading its input"):
            for _ in range(10_000):
                pty.write(chunk)
                await asyncio.sleep(0)
        assert pty.pending_write_bytes <= 64 * 1024
    finally:
        status = await pty.aclose(grace=30.0)  # generous: it returns at exit
    assert status.signal == signal.SIGHUP


def test_async_write_overflow_is_a_clear_error(shell_env: dict[str, str]) -> None:
    asyncio.run(_async_overflow(shell_env))


async def _async_large_write(shell_env: dict[str, str]) -> None:
    received = bytearray()
    # cat in raw mode echoes everything back; 1 MiB exceeds every kernel buffer.
    pty = AsyncPty.spawn(
        ["/bin/sh", "-c", "stty raw -echo; exec head -c 1048576"],
        received.extend,
        env=shell_env,
    )
    try:
        # Write only once `head` runs, i.e. after stty switched the tty to raw mode.
        await async_wait_until(lambda: comm(pty.pid) == "head")
        payload = bytes(range(256)) * 4096
        pty.write(payload)
        status = await asyncio.wait_for(pty.wait(), 20)
        assert status == ExitStatus(0, None)
        assert bytes(received) == payload
        assert pty.pending_write_bytes == 0
    finally:
        await pty.aclose()


def test_async_large_write_is_drained(shell_env: dict[str, str]) -> None:
    asyncio.run(_async_large_write(shell_env))


async def _async_teardown(shell_env: dict[str, str]) -> None:
    before = open_fds()
    out = bytearray()
    pty = AsyncPty.spawn(
        ["/bin/sh", "-c", "trap '' HUP; echo trapped; sleep 30"], out.extend, env=shell_env
    )
    pid = pty.pid
    await async_wait_until(lambda: b"trapped" in out)
    status = await pty.aclose(grace=0.2)
    assert status == ExitStatus(None, signal.SIGKILL)
    assert is_zombie_or_gone(pid)
    assert pty.process.closed
    assert open_fds() == before


def test_async_teardown_escalates_and_releases(shell_env: dict[str, str]) -> None:
    asyncio.run(_async_teardown(shell_env))


async def _async_exit_with_background_job(shell_env: dict[str, str]) -> None:
    screen = Screen()
    # The sleep ignores SIGHUP, so it outlives its session leader (the kernel hangs
    # up the foreground group when the leader exits) and keeps the PTY open.
    script = "trap '' HUP; sleep 30 & echo bg=$!; exit 4"
    pty = AsyncPty.spawn(["/bin/sh", "-c", script], screen.feed, env=shell_env)
    try:
        status = await asyncio.wait_for(pty.wait(), 10)
        assert status == ExitStatus(4, None)
        assert "bg=" in screen.text()
        sleeper = int(screen.text().split("bg=")[1].split()[0])
        assert not is_zombie_or_gone(sleeper)
    finally:
        await pty.aclose(grace=0.3)  # SIGHUP is ignored: escalates to SIGKILL
    await async_wait_until(lambda: is_zombie_or_gone(sleeper))


def test_async_exit_with_background_job_then_teardown(shell_env: dict[str, str]) -> None:
    asyncio.run(_async_exit_with_background_job(shell_env))


def test_sync_teardown_reaches_background_jobs(spawn_pty: SpawnPty) -> None:
    process = spawn_pty(["/bin/sh", "-c", "trap '' HUP; sleep 30 & echo bg=$!; exit 0"])
    screen = Screen()
    text = read_until(process, screen, "bg=")
    sleeper = int(text.split("bg=")[1].split()[0])
    assert process.wait(timeout=10) == ExitStatus(0, None)
    assert not is_zombie_or_gone(sleeper)
    assert process.terminate(grace=0.3) == ExitStatus(0, None)
    wait_until(lambda: is_zombie_or_gone(sleeper))


def test_a_pane_gets_default_signals_even_from_an_ignoring_parent(spawn_pty: SpawnPty) -> None:
    """Under `nohup` (SIGHUP ignored, inherited across exec) a pane's job must still hang
    up when the pane closes."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        process = spawn_pty(["/bin/sh"])
    finally:
        signal.signal(signal.SIGHUP, before)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    process.write_all(b"sleep 30\n")
    wait_until(lambda: process.foreground_pgid() not in (None, process.pid))
    job = process.foreground_pgid()
    assert job is not None
    status = process.terminate(grace=30.0)
    assert status.signal == signal.SIGHUP
    wait_until(lambda: is_zombie_or_gone(job))

"""Programs on pseudo-terminals: spawn, read, write, resize, exit, teardown.

Stdlib only (python-stack.md §2). The child becomes a session leader with the
PTY as its *controlling terminal* (``os.login_tty``), so job control works and
``tcgetpgrp`` on the master names the foreground job even when an agent binary is
launched directly rather than through a shell. The window size is set before
exec so the first frame a TUI draws already has the right geometry.

``PtyProcess`` is the synchronous core (handy for tests and tools);
``AsyncPty`` drives one from an asyncio loop without ever blocking it: reads via
``add_reader``, writes through a bounded buffer drained by ``add_writer``, exit via
a pidfd.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import logging
import os
import resource
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable, Mapping, Sequence

from msgspec import Struct

from herdr.terminal import procfs

_log = logging.getLogger(__name__)

READ_SIZE = 64 * 1024
# What one pane may cost the loop per turn. Feeding `yes` output costs ~0.25 ms per KiB,
# so 64 KiB from each of four flooding panes held the loop ~55 ms a turn (ping p99 >
# 300 ms); agent TUI frames cost ~10 ns a byte, where 64 KiB reads are cheaper per byte.
# So each pane reads what its last deliveries say fits in TURN_BUDGET_S, within
# MIN_TURN_BYTES..READ_SIZE, then waits for the next turn (docs/performance.md).
TURN_BUDGET_S = 0.0005
# A read this short ends the turn without asking again: a keystroke's echo is a byte or
# two, and the read that would only say "empty" (EAGAIN, an exception) costs more than the
# echo's own read. A flood reads full kernel buffers (4 KiB), so it never stops here; what
# arrives meanwhile is read on the next turn (the descriptor stays readable).
SHORT_READ = 512
MIN_TURN_BYTES = 2 * 1024
WRITE_LIMIT = 4 * 1024 * 1024
TEARDOWN_GRACE = 1.0
_POLL_FALLBACK = 0.25
EXIT_DRAIN_WAIT = 0.2
EXIT_DRAIN_BYTES = 4 * 1024 * 1024


class PtyWriteOverflow(Exception):
    """The pane's program is not reading its input and the write buffer is full."""


class PtyClosed(Exception):
    """The PTY was already torn down."""


class ExitStatus(Struct, frozen=True):
    """How the child ended: an exit code or a terminating signal (one is None)."""

    returncode: int | None
    signal: int | None

    @classmethod
    def from_returncode(cls, returncode: int) -> ExitStatus:
        """From ``Popen.returncode`` (negative = killed by that signal)."""
        if returncode < 0:
            return cls(None, -returncode)
        return cls(returncode, None)

    @property
    def success(self) -> bool:
        return self.returncode == 0


def set_winsize(fd: int, cols: int, rows: int) -> None:
    """TIOCSWINSZ; the kernel sends SIGWINCH to the foreground job."""
    cols = max(1, min(0xFFFF, cols))
    rows = max(1, min(0xFFFF, rows))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def get_winsize(fd: int) -> tuple[int, int]:
    """(cols, rows) of a terminal fd."""
    packed = fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
    rows, cols, _x, _y = struct.unpack("HHHH", packed)
    return cols, rows


# Resource limits a pane's program starts with instead of ours (the server raises its
# own RLIMIT_NOFILE; programs on a pane get the limit the server was started with).
_CHILD_RLIMITS: dict[int, tuple[int, int]] = {}


def set_child_rlimit(which: int, limits: tuple[int, int]) -> None:
    _CHILD_RLIMITS[which] = limits


# Every signal a program may expect at its default. An ignored signal survives exec: a
# server started under `nohup` (SIGHUP ignored) would otherwise give every pane's shell
# an ignored SIGHUP, and closing the pane would leave its programs running.
_RESET_SIGNALS = tuple(
    s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)
)


def _child_setup() -> None:  # runs in the child between fork and exec
    os.login_tty(0)
    for sig in _RESET_SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())  # nothing blocked, as in a fresh login
    for which, limits in _CHILD_RLIMITS.items():
        resource.setrlimit(which, limits)


class PtyProcess:
    """A child process on its own PTY (synchronous API)."""

    def __init__(
        self, popen: subprocess.Popen[bytes], master_fd: int, cols: int, rows: int
    ) -> None:
        self._popen = popen
        self._fd = master_fd
        self._cols = cols
        self._rows = rows
        self._status: ExitStatus | None = None

    @classmethod
    def spawn(
        cls,
        argv: Sequence[str],
        *,
        cols: int = 80,
        rows: int = 24,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> PtyProcess:
        """Start ``argv`` as a session leader on a new PTY of ``cols`` × ``rows``.

        ``env`` is the complete environment (None = inherit ours). Raises
        ``OSError`` (e.g. ``FileNotFoundError``) when the program cannot start.
        """
        if not argv:
            raise ValueError("empty argv")
        master, slave = os.openpty()
        try:
            set_winsize(slave, cols, rows)
            attrs = termios.tcgetattr(slave)
            attrs[0] |= getattr(termios, "IUTF8", 0)  # correct backspace over UTF-8 input
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            popen = subprocess.Popen(
                list(argv),
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=None if env is None else dict(env),
                cwd=cwd,
                preexec_fn=_child_setup,  # noqa: PLW1509 - login_tty must run in the child
                close_fds=True,
            )
        except BaseException:
            os.close(master)
            os.close(slave)
            raise
        os.close(slave)
        os.set_blocking(master, False)
        return cls(popen, master, max(1, cols), max(1, rows))

    # -- identity ----------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def fd(self) -> int:
        """The master side (non-blocking); -1 once closed."""
        return self._fd

    @property
    def closed(self) -> bool:
        return self._fd < 0

    @property
    def size(self) -> tuple[int, int]:
        return self._cols, self._rows

    def foreground_pgid(self) -> int | None:
        """The terminal's foreground process group (the job the user sees)."""
        if self._fd < 0:
            return None
        try:
            pgid = os.tcgetpgrp(self._fd)
        except OSError:
            return None
        return pgid if pgid > 0 else None

    # -- I/O ---------------------------------------------------------------------

    def resize(self, cols: int, rows: int) -> None:
        if self._fd < 0:
            return
        cols, rows = max(1, cols), max(1, rows)
        set_winsize(self._fd, cols, rows)
        self._cols, self._rows = cols, rows

    def read_nonblocking(self, size: int = READ_SIZE) -> bytes | None:
        """Whatever is available now: ``b""`` if nothing, ``None`` at EOF (EIO)."""
        if self._fd < 0:
            return None
        try:
            data = os.read(self._fd, size)
        except BlockingIOError:
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:
                return None
            raise
        return data if data else None

    def read(self, timeout: float | None = None, size: int = READ_SIZE) -> bytes | None:
        """Wait up to ``timeout`` for output; ``b""`` on timeout, ``None`` at EOF."""
        if self._fd < 0:
            return None
        ready, _w, _x = select.select([self._fd], [], [], timeout)
        if not ready:
            return b""
        return self.read_nonblocking(size)

    def write_nonblocking(self, data: bytes) -> int:
        """Write what the kernel takes now; returns the count (0 if the PTY is full)."""
        if self._fd < 0:
            raise PtyClosed("pty is closed")
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return 0

    def write_all(self, data: bytes, timeout: float = 5.0) -> None:
        """Blocking write for tests and tools; raises ``TimeoutError``."""
        deadline = time.monotonic() + timeout
        view = memoryview(data)
        while view:
            n = self.write_nonblocking(bytes(view))
            view = view[n:]
            if view:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("pty write timed out")
                select.select([], [self._fd], [], remaining)

    # -- exit ----------------------------------------------------------------------

    @property
    def exit_status(self) -> ExitStatus | None:
        return self._status

    def poll(self) -> ExitStatus | None:
        """Reap the child if it has exited (never blocks)."""
        if self._status is None:
            returncode = self._popen.poll()
            if returncode is not None:
                self._status = ExitStatus.from_returncode(returncode)
        return self._status

    def wait(self, timeout: float | None = None) -> ExitStatus:
        """Block until the child exits; raises ``TimeoutError``."""
        if self._status is None:
            try:
                returncode = self._popen.wait(timeout)
            except subprocess.TimeoutExpired as exc:
                raise TimeoutError(f"pid {self.pid} still running") from exc
            self._status = ExitStatus.from_returncode(returncode)
        return self._status

    def job_groups(self) -> set[int]:
        """The child's process group plus the terminal's current foreground group.

        Signalling a group after its leader was reaped is safe: Linux does not
        reuse a pid while it still names a live process group.
        """
        groups = {self.pid}
        foreground = self.foreground_pgid()
        if foreground is not None:
            groups.add(foreground)
        return groups

    def signal_job(self, sig: int, groups: set[int] | None = None) -> None:
        """Send ``sig`` to every process of ``groups`` (default: ``job_groups()``)."""
        for group in self.job_groups() if groups is None else groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, sig)

    def job_alive(self, groups: set[int]) -> bool:
        """Whether the child or any process of ``groups`` still exists (reaps the child)."""
        if self.poll() is None:
            return True
        for group in groups:
            try:
                os.killpg(group, 0)
            except (ProcessLookupError, PermissionError):
                continue
            if procfs.group_has_live_members(group):  # not just unreaped zombies
                return True
        return False

    def terminate(self, grace: float = TEARDOWN_GRACE) -> ExitStatus:
        """SIGHUP the job (the child's group and the foreground job), SIGKILL
        whatever is left after ``grace`` seconds, reap the child, close the master."""
        try:
            groups = self.job_groups()
            self.signal_job(signal.SIGHUP, groups)
            self.signal_job(signal.SIGCONT, groups)  # a stopped job cannot act on SIGHUP
            deadline = time.monotonic() + grace
            while self.job_alive(groups) and time.monotonic() < deadline:
                time.sleep(0.01)
            if self.job_alive(groups):
                self.signal_job(signal.SIGKILL, groups)
            return self.wait()
        finally:
            self.close_fd()

    def close_fd(self) -> None:
        """Close the master (the slave side sees a hangup)."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


def smoothed_cost(cost: float, elapsed: float, size: int) -> float:
    """Seconds per byte: the previous figure averaged with this delivery's."""
    sample = elapsed / max(1, size)
    return (cost + sample) / 2 if cost > 0 else sample


def turn_share(cost: float) -> int:
    """Bytes the next turn may read: what fits ``TURN_BUDGET_S`` at ``cost`` per byte."""
    if cost <= 0:
        return READ_SIZE
    return max(MIN_TURN_BYTES, min(READ_SIZE, int(TURN_BUDGET_S / cost)))


DataCallback = Callable[[bytes], None]
ExitCallback = Callable[[ExitStatus], None]


class AsyncPty:
    """Drive a ``PtyProcess`` from an asyncio loop.

    ``on_data`` gets one output chunk per loop turn, sized so handling it takes about
    ``TURN_BUDGET_S`` (a flooding pane cannot hold the loop); ``on_exit`` is called
    once, after the child is reaped and the output it left behind was delivered.
    """

    def __init__(
        self,
        process: PtyProcess,
        on_data: DataCallback,
        on_exit: ExitCallback | None = None,
        *,
        write_limit: int = WRITE_LIMIT,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.process = process
        self._turn_bytes = READ_SIZE
        self._cost = 0.0  # seconds per byte of the last deliveries (smoothed)
        self._on_data = on_data
        self._on_exit = on_exit
        self._write_limit = write_limit
        self._loop = loop or asyncio.get_running_loop()
        self._wbuf = bytearray()
        self._writing = False
        self._reading = False
        self._eof = False
        self._pidfd = -1
        self._poll_handle: asyncio.TimerHandle | None = None
        self._exited: asyncio.Future[ExitStatus] = self._loop.create_future()
        self._closing = False
        self._exit_pending = False
        self._drain_handle: asyncio.TimerHandle | None = None
        self._start()

    @classmethod
    def spawn(
        cls,
        argv: Sequence[str],
        on_data: DataCallback,
        on_exit: ExitCallback | None = None,
        *,
        cols: int = 80,
        rows: int = 24,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        write_limit: int = WRITE_LIMIT,
    ) -> AsyncPty:
        process = PtyProcess.spawn(argv, cols=cols, rows=rows, env=env, cwd=cwd)
        try:
            return cls(process, on_data, on_exit, write_limit=write_limit)
        except BaseException:
            process.terminate(grace=0)
            raise

    def _start(self) -> None:
        self._loop.add_reader(self.process.fd, self._on_readable)
        self._reading = True
        try:
            self._pidfd = os.pidfd_open(self.process.pid)
        except (AttributeError, OSError):
            self._pidfd = -1
        if self._pidfd >= 0:
            self._loop.add_reader(self._pidfd, self._on_child_exit)
        else:
            self._poll_handle = self._loop.call_later(_POLL_FALLBACK, self._poll_exit)

    # -- properties ----------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def exit_status(self) -> ExitStatus | None:
        return self._exited.result() if self._exited.done() else None

    @property
    def pending_write_bytes(self) -> int:
        return len(self._wbuf)

    async def wait(self) -> ExitStatus:
        """Until the child has exited and was reaped."""
        return await asyncio.shield(self._exited)

    def resize(self, cols: int, rows: int) -> None:
        self.process.resize(cols, rows)

    # -- reading -------------------------------------------------------------------

    def _on_readable(self) -> int:
        """Read up to this turn's share and deliver it as one chunk; the rest waits for
        the next loop turn (the fd stays readable), after every other ready fd."""
        chunks: list[bytes] = []
        total = 0
        want = self._turn_bytes
        start = time.perf_counter()  # the reads count: under contention they are the turn
        while total < want:
            try:
                data = self.process.read_nonblocking(want - total)
            except OSError:
                _log.exception("pty read failed (pid %s); treating it as EOF", self.pid)
                data = None
            if not data:
                if data is None:
                    self._stop_reading(eof=True)
                break
            chunks.append(data)
            total += len(data)
            if len(data) < SHORT_READ:
                break  # an echo or a prompt: the PTY is (nearly surely) empty now
        if chunks:
            try:
                self._on_data(chunks[0] if len(chunks) == 1 else b"".join(chunks))
            except Exception:
                _log.exception("pty data callback failed (pid %s)", self.pid)
            self._cost = smoothed_cost(self._cost, time.perf_counter() - start, total)
            self._turn_bytes = turn_share(self._cost)
        if self._eof and self._exit_pending:
            self._finish_exit()
        return total

    def pause_reading(self) -> None:
        """Leave output in the kernel (a live handoff freezes the screen it snapshots)."""
        if self._reading:
            self._reading = False
            self._loop.remove_reader(self.process.fd)

    def resume_reading(self) -> None:
        """Undo `pause_reading` (the handoff failed: this server keeps the pane)."""
        if not self._reading and not self._eof and not self._closing and not self.process.closed:
            self._reading = True
            self._loop.add_reader(self.process.fd, self._on_readable)

    def _stop_reading(self, *, eof: bool) -> None:
        if self._reading:
            self._reading = False
            self._loop.remove_reader(self.process.fd)
        if eof:
            self._eof = True

    # -- exit ----------------------------------------------------------------------

    def _on_child_exit(self) -> None:
        if self.process.poll() is not None:
            self._child_exited()

    def _poll_exit(self) -> None:
        self._poll_handle = None
        if self.process.poll() is not None:
            self._child_exited()
        elif not self._exited.done():
            self._poll_handle = self._loop.call_later(_POLL_FALLBACK, self._poll_exit)

    def _child_exited(self) -> None:
        """The child is reaped; report it once its last output has been read.

        The kernel may still be moving the child's final writes to the master, so
        wait (briefly) for EOF; a grandchild holding the PTY open only delays the
        report by ``EXIT_DRAIN_WAIT``.
        """
        self._close_pidfd()
        if self._eof or not self._reading:
            self._finish_exit()
            return
        self._exit_pending = True
        self._on_readable()
        if not self._exited.done():
            self._drain_handle = self._loop.call_later(EXIT_DRAIN_WAIT, self._finish_exit)

    def _finish_exit(self) -> None:
        if self._exited.done():
            return
        status = self.process.poll()
        assert status is not None
        self._exit_pending = False
        if self._drain_handle is not None:
            self._drain_handle.cancel()
            self._drain_handle = None
        self._close_pidfd()
        # What the child left behind (bounded: a grandchild may keep the PTY busy; the
        # reader stays registered for anything after this).
        for _ in range(EXIT_DRAIN_BYTES // MIN_TURN_BYTES):
            if not self._reading or self._on_readable() == 0:
                break
        self._exited.set_result(status)
        if self._on_exit is not None:
            try:
                self._on_exit(status)
            except Exception:
                _log.exception("pty exit callback failed (pid %s)", self.pid)

    def _close_pidfd(self) -> None:
        if self._pidfd >= 0:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1
        if self._poll_handle is not None:
            self._poll_handle.cancel()
            self._poll_handle = None

    # -- writing -------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Queue input for the program without blocking the loop.

        Raises ``PtyWriteOverflow`` (nothing queued) when more than ``write_limit``
        bytes would be waiting, and ``PtyClosed`` after teardown.
        """
        if self._closing or self.process.closed:
            raise PtyClosed("pty is closed")
        if not data:
            return
        if len(self._wbuf) + len(data) > self._write_limit:
            raise PtyWriteOverflow(
                f"pane input buffer full ({len(self._wbuf)} bytes waiting, limit "
                f"{self._write_limit}): the program in pid {self.pid} is not reading its input"
            )
        if self._wbuf:
            self._wbuf += data
            return
        written = self._write_now(data)
        if written < len(data):
            self._wbuf += data[written:]
            self._loop.add_writer(self.process.fd, self._on_writable)
            self._writing = True

    def _write_now(self, data: bytes | bytearray) -> int:
        try:
            return os.write(self.process.fd, data)  # a closed PTY's -1 fails as EBADF
        except BlockingIOError:
            return 0
        except OSError as exc:
            if exc.errno not in (errno.EIO, errno.EBADF):
                _log.warning("pty write failed (pid %s): %s; input dropped", self.pid, exc)
            # The other side is gone (or broken): queued input has nowhere to go.
            self._wbuf.clear()
            self._stop_writing()
            return len(data)

    def _on_writable(self) -> None:
        written = self._write_now(self._wbuf[:READ_SIZE])
        del self._wbuf[:written]
        if not self._wbuf:
            self._stop_writing()

    def _stop_writing(self) -> None:
        if self._writing:
            self._writing = False
            self._loop.remove_writer(self.process.fd)

    # -- teardown ------------------------------------------------------------------

    async def aclose(self, grace: float = TEARDOWN_GRACE) -> ExitStatus:
        """SIGHUP the job, SIGKILL what is left after ``grace``, reap, release every fd.

        Background processes of the child's group (``sleep 30 &`` in a script) are
        hung up too, even when the child itself already exited.
        """
        self._closing = True
        process = self.process
        try:
            groups = process.job_groups()
            process.signal_job(signal.SIGHUP, groups)
            process.signal_job(signal.SIGCONT, groups)
            deadline = self._loop.time() + grace
            while process.job_alive(groups) and self._loop.time() < deadline:
                await asyncio.sleep(0.01)
            if process.job_alive(groups):
                process.signal_job(signal.SIGKILL, groups)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._exited), 5.0)
            if not self._exited.done():  # the pidfd never fired: reap synchronously
                process.wait()
                self._finish_exit()
            return self._exited.result()
        finally:
            self._release()

    def _release(self) -> None:
        self._stop_writing()
        self._stop_reading(eof=False)
        self._close_pidfd()
        self._wbuf.clear()
        self.process.close_fd()

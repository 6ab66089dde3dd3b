"""A pane process this server did not fork: adopted from the old server at a live handoff.

We hold its PTY master (received over ``SCM_RIGHTS``) but cannot ``waitpid`` it: it is
not our child. Its exit is noticed through a pidfd (readable once it has exited); its
exit code is unknown to us (the reaper is its real parent, or init), so the status is
``ExitStatus(None, None)`` and `exit_code_known` says so. Everything else (reads,
writes, resize, job signalling, teardown) is the `PtyProcess` it replaces.
"""

from __future__ import annotations

import contextlib
import os
import select
import time

from herdr.terminal.pty import ExitStatus, PtyProcess

UNKNOWN_EXIT = ExitStatus(None, None)


class AdoptedPtyProcess(PtyProcess):
    """``PtyProcess`` over an inherited master fd and a pidfd instead of a ``Popen``."""

    exit_code_known = False

    def __init__(self, pid: int, master_fd: int, cols: int, rows: int) -> None:
        self._pid = pid
        self._fd = master_fd
        self._cols = max(1, cols)
        self._rows = max(1, rows)
        self._status: ExitStatus | None = None
        os.set_blocking(master_fd, False)
        try:
            self._pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            self._pidfd = -1
            self._status = UNKNOWN_EXIT  # gone before we got here

    @property
    def pid(self) -> int:
        return self._pid

    def poll(self) -> ExitStatus | None:
        if self._status is None and self._pidfd >= 0:
            ready, _w, _x = select.select([self._pidfd], [], [], 0)
            if ready:
                self._exited()
        return self._status

    def wait(self, timeout: float | None = None) -> ExitStatus:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError(f"pid {self._pid} still running")
            select.select([self._pidfd], [], [], left)
        assert self._status is not None
        return self._status

    def _exited(self) -> None:
        self._status = UNKNOWN_EXIT
        if self._pidfd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = -1

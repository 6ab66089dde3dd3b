"""The host terminal: raw mode in, everything put back out — whatever happens.

:class:`HostTerminal` saves the termios state, switches to raw mode and writes the
setup sequence; :meth:`HostTerminal.restore` undoes all of it and is idempotent. It is
called from the app's ``finally``, from an ``atexit`` hook (a crash that escapes the
loop) and from SIGTERM/SIGHUP handlers, so the user's shell is never left raw, on the
alternate screen or with mouse reporting on. Only SIGKILL cannot be caught.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import termios
import tty
from types import FrameType
from typing import Any

from herdr.client.render import HostModes, restore_sequence, setup_sequence


def write_all(fd: int, data: bytes) -> None:
    """Blocking write of everything (the host terminal may be slow)."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            import select

            select.select([], [fd], [], 1.0)
            continue
        except InterruptedError:
            continue
        view = view[written:]


class HostTerminal:
    """Raw mode plus host modes on ``fd_in``/``fd_out``; :meth:`restore` always works."""

    def __init__(self, fd_in: int, fd_out: int, modes: HostModes | None = None) -> None:
        self.fd_in = fd_in
        self.fd_out = fd_out
        self.modes = modes or HostModes()
        self._saved: list[Any] | None = None
        self._blocking = True
        self._active = False
        self._old_handlers: dict[int, Any] = {}

    @property
    def active(self) -> bool:
        return self._active

    def size(self) -> tuple[int, int]:
        try:
            size = os.get_terminal_size(self.fd_out)
        except OSError:
            try:
                size = os.get_terminal_size(self.fd_in)
            except OSError:
                return 80, 24
        return max(1, size.columns), max(1, size.lines)

    def enter(self) -> None:
        """Save termios, go raw, write the setup sequence, arm the safety nets."""
        with contextlib.suppress(termios.error):
            self._saved = termios.tcgetattr(self.fd_in)
        with contextlib.suppress(OSError):
            self._blocking = os.get_blocking(self.fd_in)
        self._active = True
        atexit.register(self.restore)
        for signum in (signal.SIGTERM, signal.SIGHUP):
            with contextlib.suppress(ValueError, OSError):
                self._old_handlers[signum] = signal.signal(signum, self._on_signal)
        if self._saved is not None:
            with contextlib.suppress(termios.error):
                tty.setraw(self.fd_in, termios.TCSANOW)
        write_all(self.fd_out, setup_sequence(self.modes))

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.restore()
        name = signal.Signals(signum).name
        with contextlib.suppress(OSError):
            write_all(self.fd_out, f"herdr: client stopped by {name}\r\n".encode())
        os._exit(128 + signum)

    def restore(self) -> None:
        """Put the host terminal back as we found it (safe to call many times)."""
        if not self._active:
            return
        self._active = False
        with contextlib.suppress(OSError):
            write_all(self.fd_out, restore_sequence(self.modes) + b"\x1b[?1l")  # + DECCKM off
        if self._saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self.fd_in, termios.TCSADRAIN, self._saved)
        with contextlib.suppress(OSError):
            # O_NONBLOCK is shared with the parent shell's stdin: never leave it set
            os.set_blocking(self.fd_in, self._blocking)
        for signum, handler in self._old_handlers.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signum, handler)
        self._old_handlers.clear()
        with contextlib.suppress(Exception):
            atexit.unregister(self.restore)

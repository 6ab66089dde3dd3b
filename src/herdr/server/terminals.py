"""A pane's process and screen: the live half of a model pane.

Its own module so the session host (:mod:`herdr.server.panes`) and the agent runtime
(:mod:`herdr.server.agents`) both use it without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from herdr.server.output_pacing import Pace
from herdr.terminal.emulator import Emulator
from herdr.terminal.pty import AsyncPty, ExitStatus, PtyClosed


@dataclass(eq=False)
class Terminal:
    """A pane's process and screen; lives as long as the process (survives moves)."""

    terminal_id: str
    emulator: Emulator
    pty: AsyncPty | None = None
    exit_status: ExitStatus | None = None
    closing: bool = False
    size: tuple[int, int] = (0, 0)
    # Why a pane restored from a snapshot did not get its agent back (PaneInfo.restore_error).
    restore_error: str | None = None
    # called after each chunk of output, at exit and at stop (waits, attach row pushes)
    on_output: set[Callable[[], None]] = field(default_factory=set)
    # when pane.output_matched subscribers search this output next (output_pacing)
    output_pace: Pace = field(default_factory=Pace)

    @property
    def revision(self) -> int:
        return self.emulator.revision

    @property
    def shell_pid(self) -> int | None:
        return self.pty.pid if self.pty is not None else None

    @property
    def alive(self) -> bool:
        """The pane's process is running (spawned, not exited)."""
        return self.pty is not None and self.exit_status is None

    def write(self, data: bytes) -> None:
        """Input for the program; raises PtyClosed / PtyWriteOverflow."""
        if self.pty is None or self.exit_status is not None:
            raise PtyClosed("the pane's process has exited")
        self.pty.write(data)

"""What a live handoff needs beyond the `Server`, and whether one is running or done.

Its own leaf module so the session host can hold one without importing the handoff
itself (`handoff_old`, which needs the whole `Server`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Listener(Protocol):
    """What the handoff needs of `herdr.server.transport.Listener` (not imported: a
    leaf must not reach the transport, which reaches the session host)."""

    @property
    def listening_fd(self) -> int | None: ...

    def pause_accepting(self) -> None: ...

    def resume_accepting(self) -> None: ...


@dataclass
class HandoffControl:
    """The listener and lock file to hand over; ``done`` once the new server took over
    (this one then exits without signalling any pane process)."""

    listener: Listener
    lock_fd: int
    in_progress: bool = False
    done: bool = False

"""One named background task of the server's loop, started once and cancelled on stop.

The cwd sampler, the manifest update check and the manifest watcher each own one
periodic coroutine; this keeps their start/stop (and the cancellation they swallow)
in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any


class BackgroundTask:
    """A coroutine run as ``name`` on the running loop until :meth:`stop`."""

    def __init__(self, name: str, run: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._name = name
        self._run = run
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start it on the running loop (once; a second start changes nothing)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self._name)

    async def stop(self) -> None:
        """Cancel it and wait until it ended; safe when it never started."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

"""One periodic task keeps every pane's recorded cwd current, so records stay pure reads.

A pane's working directory changes without any event (a shell ``cd``, a job that
chdirs), and reading it costs a syscall or two. Instead of every record read looking
in /proc, this sampler looks once per `INTERVAL_S` at every pane whose process runs
(`PaneHost.sample_dirs`: one ``tcgetpgrp`` and one ``readlink`` while the shell is in
front), records a change of its cwd or of its foreground process's cwd
(``foreground_cwd``) in the model and publishes ``pane_updated`` with the new record.
A pane whose process exited keeps its last cwd and is skipped.
"""

from __future__ import annotations

import asyncio
import logging

from herdr.server.background import BackgroundTask
from herdr.server.panes import PaneHost

log = logging.getLogger("herdr.server.cwd")

INTERVAL_S = 1.0


class CwdSampler:
    def __init__(self, host: PaneHost, interval_s: float = INTERVAL_S) -> None:
        self.host = host
        self.interval_s = interval_s
        self._task = BackgroundTask("cwd-sampler", self._run)

    def sample(self) -> list[str]:
        """Record the panes whose cwd changed and publish them; their pane ids."""
        host = self.host
        changed: list[str] = []
        for loc in list(host.session.iter_panes()):
            term = host.terminal(loc)
            if term is None or not term.alive:
                continue
            cwd, foreground = host.sample_dirs(loc)
            cwd_moved = cwd is not None and cwd != loc.pane.cwd
            if not cwd_moved and foreground == loc.pane.foreground_cwd:
                continue
            moved = host.session.set_pane_foreground_cwd(loc.pane_id, foreground)
            if cwd_moved:
                moved = host.session.set_pane_cwd(loc.pane_id, cwd)
            changed.append(moved.pane_id)
            host.emit("pane_updated", {"pane": host.pane_record(moved)})
        return changed

    def start(self) -> None:
        """Begin sampling (on the loop)."""
        self._task.start()

    async def stop(self) -> None:
        await self._task.stop()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                self.sample()
            except Exception:
                log.exception("cwd sampling failed")

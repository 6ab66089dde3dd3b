"""Run plugin commands: argv only (never a shell), bounded output, a timeout, a log.

Each run is an asyncio subprocess in its own process group, so a plugin that hangs is
killed with everything it started, one that floods stdout costs a bounded buffer
(the rest is read and dropped, so the child never stalls on a full pipe), and none of
them can block the server's loop. Every run is recorded for ``plugin.log.list``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from herdr.server.group_spawn import kill_group, spawn_group

log = logging.getLogger("herdr.plugins.runner")

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_OUTPUT_LIMIT = 64 * 1024  # bytes kept per stream and run
DEFAULT_MAX_LOGS = 200
DEFAULT_MAX_RUNNING = 32
_CHUNK = 64 * 1024


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class RunLog:
    """One run, as PluginCommandLogInfo."""

    log_id: str
    plugin_id: str
    command: list[str]
    started_unix_ms: int
    action_id: str | None = None
    event: str | None = None
    status: str = "running"
    finished_unix_ms: int | None = None
    exit_code: int | None = None
    stdout: str | None = None
    stderr: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "log_id": self.log_id,
            "plugin_id": self.plugin_id,
            "command": list(self.command),
            "status": self.status,
            "started_unix_ms": self.started_unix_ms,
        }
        for key in ("action_id", "event", "finished_unix_ms", "exit_code"):
            value = getattr(self, key)
            if value is not None:
                record[key] = value
        for key in ("stdout", "stderr", "error"):
            value = getattr(self, key)
            if value:
                record[key] = value
        return record


@dataclass
class _Capture:
    limit: int
    kept: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, chunk: bytes) -> None:
        room = self.limit - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]
        self.dropped += max(0, len(chunk) - max(room, 0))

    def text(self) -> str:
        text = self.kept.decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n[herdr: output truncated, {self.dropped} more bytes dropped]"
        return text


class Runner:
    """Starts runs, keeps the last ``max_logs`` of them, stops what still runs on exit."""

    def __init__(
        self,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        max_logs: int = DEFAULT_MAX_LOGS,
        max_running: int = DEFAULT_MAX_RUNNING,
    ) -> None:
        self.timeout_s = timeout_s
        self.output_limit = output_limit
        self.max_running = max_running
        self._logs: deque[RunLog] = deque(maxlen=max_logs)
        self._ids = itertools.count(1)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._procs: dict[str, asyncio.subprocess.Process] = {}

    @property
    def running(self) -> int:
        return len(self._tasks)

    def logs(self, plugin_id: str | None = None, limit: int | None = None) -> list[RunLog]:
        """The most recent runs (oldest first), of one plugin or all."""
        chosen = [r for r in self._logs if plugin_id in (None, r.plugin_id)]
        if limit is not None:
            chosen = chosen[-limit:] if limit else []
        return chosen

    async def start(
        self,
        plugin_id: str,
        command: list[str],
        *,
        cwd: str,
        env: Mapping[str, str],
        action_id: str | None = None,
        event: str | None = None,
    ) -> RunLog:
        """Spawn ``command`` and return its log (``running``, or ``failed`` when it could
        not start); the run finishes in the background."""
        run = RunLog(
            log_id=f"plugin-log-{next(self._ids)}",
            plugin_id=plugin_id,
            command=list(command),
            started_unix_ms=now_ms(),
            action_id=action_id,
            event=event,
        )
        self._logs.append(run)
        if len(self._tasks) >= self.max_running:
            self._finish(run, error=f"{self.max_running} plugin commands are already running")
            return run
        try:
            proc = await spawn_group(  # its own process group: killed as a whole
                *command,
                cwd=cwd,
                env=dict(env),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except (OSError, ValueError) as exc:
            message = getattr(exc, "strerror", None) or str(exc)
            self._finish(run, error=f"cannot start {command[0]!r}: {message}")
            log.warning("plugin %s: %s", plugin_id, run.error)
            return run
        self._procs[run.log_id] = proc
        task = asyncio.create_task(self._watch(run, proc), name=f"plugin {run.log_id}")
        self._tasks[run.log_id] = task
        return run

    async def _watch(self, run: RunLog, proc: asyncio.subprocess.Process) -> None:
        out, err = _Capture(self.output_limit), _Capture(self.output_limit)
        assert proc.stdout is not None and proc.stderr is not None
        readers = [
            asyncio.create_task(_drain(proc.stdout, out)),
            asyncio.create_task(_drain(proc.stderr, err)),
        ]
        error: str | None = None
        try:
            try:
                await asyncio.wait_for(proc.wait(), self.timeout_s)
            except TimeoutError:
                error = f"timed out after {self.timeout_s:g}s; killed"
                _kill_group(proc)
                await proc.wait()
            # Children that inherited the pipes may keep them open: give the readers a
            # moment, then stop reading (the group was ours; anything left is orphaned).
            _done, pending = await asyncio.wait(readers, timeout=1.0)
            if pending:
                _kill_group(proc)
                for reader in pending:
                    reader.cancel()
        except asyncio.CancelledError:
            _kill_group(proc)
            for reader in readers:
                reader.cancel()
            error = "stopped: the server is shutting down"
            raise
        finally:
            run.stdout, run.stderr = out.text(), err.text()
            self._finish(run, exit_code=proc.returncode, error=error)
            self._tasks.pop(run.log_id, None)
            self._procs.pop(run.log_id, None)
            log.info(
                "plugin %s: %s %s (exit %s)",
                run.plugin_id,
                run.action_id or run.event or "command",
                run.status,
                run.exit_code,
            )

    @staticmethod
    def _finish(run: RunLog, *, exit_code: int | None = None, error: str | None = None) -> None:
        run.finished_unix_ms = now_ms()
        if exit_code is not None and exit_code < 0:  # killed by a signal
            error = error or f"killed by signal {-exit_code}"
        run.exit_code = exit_code
        run.error = error
        run.status = "succeeded" if exit_code == 0 and error is None else "failed"

    async def stop(self) -> None:
        """Kill every running command (server shutdown) and wait for their logs."""
        tasks = list(self._tasks.values())
        for proc in list(self._procs.values()):
            _kill_group(proc)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _drain(stream: asyncio.StreamReader, capture: _Capture) -> None:
    while True:
        chunk = await stream.read(_CHUNK)
        if not chunk:
            return
        capture.add(chunk)


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    kill_group(proc)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()

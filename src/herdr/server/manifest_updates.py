"""Background remote manifest check (detection-spec §7.5/§7.6).

Runs ``detect.remote.check.run_check`` in a worker thread at an interval with jitter,
so a slow or dead network never stalls the loop; offline is logged at debug level
only. A pass that committed a manifest reloads the cache and restarts detection of the
updated agents' panes (`manifest_notice`), so they re-evaluate with the new rules
without a restart and the TUI shows "Agent detection rules updated".
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Mapping
from pathlib import Path

from herdr.detect.remote.catalog import catalog_url
from herdr.detect.remote.check import CheckReport, run_check
from herdr.persist.files import atomic_write
from herdr.server.agents import AgentRuntime
from herdr.server.background import BackgroundTask
from herdr.server.manifest_notice import ManifestReloader

log = logging.getLogger(__name__)

INTERVAL_S = 1800.0  # AUTO_UPDATE_CHECK_INTERVAL: first check 30 min after start
INTERVAL_ENV = "HERDR_AGENT_DETECTION_CHECK_INTERVAL_S"
JITTER = 0.1  # ± this fraction, so many servers do not hit the catalog in step


def write_cache_file(path: Path, data: bytes) -> None:
    """Cached manifests and status are readable config-like files, not secrets."""
    atomic_write(path, data, mode=0o644)


def interval_of(env: Mapping[str, str]) -> float:
    """``$HERDR_AGENT_DETECTION_CHECK_INTERVAL_S`` if a positive number, else 30 min."""
    raw = env.get(INTERVAL_ENV, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return INTERVAL_S
    return value if 0 < value < float("inf") else INTERVAL_S


def jittered(interval_s: float, rng: random.Random) -> float:
    return interval_s * (1.0 + rng.uniform(-JITTER, JITTER))


class ManifestUpdater:
    """Owns the periodic task; ``enabled`` is config ``[update] manifest_check``."""

    def __init__(
        self, reloader: ManifestReloader, env: Mapping[str, str], *, enabled: bool
    ) -> None:
        self._reloader = reloader
        self._agents: AgentRuntime = reloader.agents
        self._url = catalog_url(env)
        self._interval_s = interval_of(env)
        self._enabled = enabled
        self._rng = random.Random()
        self._task = BackgroundTask("manifest-updates", self._run)

    def start(self) -> None:
        if self._enabled:
            self._task.start()

    async def stop(self) -> None:
        await self._task.stop()

    async def check_once(self) -> CheckReport:
        """One pass off the loop; the reload runs on a thread too (it compiles regexes)."""
        dirs = self._agents.manifests.dirs
        report = await asyncio.to_thread(run_check, dirs, self._url, write_cache_file)
        if report.updated:
            await self._reloader.reload("remote update")
        elif report.last_result != "checked":
            log.debug("manifest check: %s", report.last_result)
        return report

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(jittered(self._interval_s, self._rng))
            try:
                await self.check_once()
            except Exception:
                log.exception("manifest check failed")

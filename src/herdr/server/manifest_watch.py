"""Hot reload of user kinds and local overrides without ``reload-agent-manifests``.

The compiled rules are built off the loop ``$HERDR_AGENT_MANIFEST_WARM_UP_S`` seconds
(default 1.5) after start, when the client that started the server has its first frame,
and once no pane has printed for half a second (an echo is output: not while typing).

A cheap stat poll (no new dependency, works on every filesystem): every
``$HERDR_AGENT_MANIFEST_WATCH_S`` seconds (default 2; ``0`` turns it off) the server
lists ``$XDG_CONFIG_HOME/herdr/agents/`` and ``…/agent-detection/`` and compares each
``*.toml`` entry's mode, owner, inode, mtime and size (and each directory's mode and
owner) with the last pass. Any difference reloads
every layer (`manifest_notice`), which restarts only the changed agents' panes; an
invalid edit keeps the last good rules and is reported as ``file:line`` in
``server.agent_manifests``.

Entries are ``lstat``-ed, never followed: a symlinked file is seen changing when the
link itself is replaced, not when its target is edited (run
``herdr server reload-agent-manifests`` for that); the watcher makes no symlinks.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from herdr.server.background import BackgroundTask
from herdr.server.manifest_notice import ManifestReloader

log = logging.getLogger(__name__)

WATCH_ENV = "HERDR_AGENT_MANIFEST_WATCH_S"
WATCH_S = 2.0
MAX_ENTRIES = 512  # per directory: a runaway directory cannot make a pass expensive

# dir, name ("" for the directory itself), mode, owner, inode, mtime ns, size: a chmod or
# chown of a file or directory changes what may be loaded (`owned_files`), so it counts.
Entry = tuple[str, str, int, int, int, int, int]
Signature = tuple[Entry, ...]


def watch_interval(env: Mapping[str, str]) -> float | None:
    """The poll period; None when ``$HERDR_AGENT_MANIFEST_WATCH_S`` is 0 (off)."""
    raw = env.get(WATCH_ENV, "").strip()
    if not raw:
        return WATCH_S
    try:
        value = float(raw)
    except ValueError:
        return WATCH_S
    if value == 0:
        return None
    return value if 0 < value < float("inf") else WATCH_S


def signature(directories: Sequence[Path]) -> Signature:
    """What the watched ``*.toml`` files look like now (missing directories: nothing)."""
    out: list[Entry] = []
    for directory in directories:
        try:
            top = os.stat(directory)
            with os.scandir(directory) as entries:
                names = sorted(e.name for e in entries if e.name.endswith(".toml"))
        except OSError:
            continue
        out.append((str(directory), "", top.st_mode, top.st_uid, top.st_ino, 0, 0))
        for name in names[:MAX_ENTRIES]:
            try:
                st = os.lstat(os.path.join(directory, name))
            except OSError:
                continue
            out.append(
                (str(directory), name, st.st_mode, st.st_uid, st.st_ino, st.st_mtime_ns, st.st_size)
            )
    return tuple(out)


# The cache is warmed this long after start, in a quiet moment: compiling every manifest
# (~80-150 ms of CPU here) on a thread holds the GIL beside the loop. At start-up the loop
# serves the client that launched the server (a cold `herdr`'s first prompt showed ~80 ms
# later with it); a second later that client may be typing (keys typed during the build
# echoed up to ~30 ms late). So the build waits for QUIET_S without pane output (an echo
# is output), at most QUIET_WAIT_S. A detection that needs a manifest sooner builds it.
WARM_UP_ENV = "HERDR_AGENT_MANIFEST_WARM_UP_S"
WARM_UP_S = 1.5
QUIET_S = 0.5
QUIET_WAIT_S = 30.0


def warm_up_delay(env: Mapping[str, str]) -> float:
    """``$HERDR_AGENT_MANIFEST_WARM_UP_S`` (seconds after start), else 1.5."""
    try:
        value = float(env.get(WARM_UP_ENV, "").strip() or WARM_UP_S)
    except ValueError:
        return WARM_UP_S
    return value if 0 <= value < float("inf") else WARM_UP_S


class ManifestWatcher:
    """Owns the poll task; the first pass also warms the manifest cache (the baseline
    a reload diffs against), once start-up is over."""

    def __init__(
        self,
        reloader: ManifestReloader,
        env: Mapping[str, str],
        activity: Callable[[], int] = lambda: 0,
    ) -> None:
        """``activity``: a number that moves whenever a pane prints (its revisions)."""
        self._reloader = reloader
        self._activity = activity
        self._interval = watch_interval(env)
        self._warm_up_s = warm_up_delay(env)
        dirs = reloader.agents.manifests.dirs
        self._directories = [d for d in (dirs.user_dir, dirs.override_dir) if d is not None]
        self._task = BackgroundTask("manifest-watch", self._run)

    def start(self) -> None:
        self._task.start()

    async def stop(self) -> None:
        await self._task.stop()

    async def _quiet_moment(self) -> None:
        """The warm-up delay, then until no pane printed for ``QUIET_S`` (or
        ``QUIET_WAIT_S`` passed: a pane that never stops must not keep it cold)."""
        await asyncio.sleep(self._warm_up_s)
        deadline = time.monotonic() + QUIET_WAIT_S
        seen = self._activity()
        while time.monotonic() < deadline:
            await asyncio.sleep(QUIET_S)
            now = self._activity()
            if now == seen:
                return
            seen = now

    async def _run(self) -> None:
        last = await asyncio.to_thread(signature, self._directories)  # before: an edit
        await self._quiet_moment()  # from now on reads as a change
        started = time.monotonic()
        built = await asyncio.to_thread(self._reloader.agents.manifests.all)
        elapsed_ms = round((time.monotonic() - started) * 1000)
        log.info("agent manifests warmed", extra={"agents": len(built), "ms": elapsed_ms})
        if self._interval is None:
            return
        while True:
            await asyncio.sleep(self._interval)
            try:
                now = await asyncio.to_thread(signature, self._directories)
                if now != last:
                    last = now
                    await self._reloader.reload("file changed")
            except Exception:
                log.exception("agent manifest watch pass failed")

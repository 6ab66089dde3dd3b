"""A child in a process group of its own, spawned so that a cancelled caller leaks nothing.

``asyncio.create_subprocess_exec`` forks, then awaits the connection of the child's
pipes. A caller cancelled in that await gets asyncio's clean-up: SIGKILL to the child
alone, then a wait for its pipes to close — for ever, when the child had started one
of its own (git running an alias or a hook, a plugin's shell) that holds them. Here the
spawn is shielded; on cancellation the whole group is killed and the child reaped
before ``CancelledError`` goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Any

REAP_S = 5.0  # reading a killed group's pipes to the end: what is left is bounded


async def spawn_group(*argv: str, **kwargs: Any) -> asyncio.subprocess.Process:
    """``create_subprocess_exec(*argv, start_new_session=True, **kwargs)``; raises what
    it raises (``OSError`` when the program cannot start)."""
    spawn = asyncio.ensure_future(
        asyncio.create_subprocess_exec(*argv, start_new_session=True, **kwargs)
    )
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        await asyncio.shield(_abandon(spawn))
        raise


def kill_group(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL to the child's whole group (it is the group's leader)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def close_transport(proc: asyncio.subprocess.Process) -> None:
    """Close a finished child's transport now: asyncio leaves it to the garbage collector
    (a reference cycle), which may only run after its loop is closed."""
    transport = getattr(proc, "_transport", None)  # not public API; absent = nothing to do
    if transport is not None:
        transport.close()


async def reap(proc: asyncio.subprocess.Process) -> None:
    """Wait for a killed child and read its pipes to the end (bounded), then close it."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(proc.communicate(), REAP_S)
    close_transport(proc)


async def _abandon(spawn: asyncio.Future[asyncio.subprocess.Process]) -> None:
    try:
        proc = await spawn
    except Exception:
        return  # it never started
    kill_group(proc)
    await reap(proc)

"""``spawn_group``: a child in its own process group; a caller cancelled while asyncio
connects the child's pipes leaves no process behind and does not hang (real processes)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from herdr.server.group_spawn import kill_group, reap, spawn_group
from herdr_testing import wait_until
from herdr_testing.procs import live_with_env


def _marked(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """An environment entry only this test's children carry, and their environment."""
    return f"HERDR_SPAWN_TEST={tmp_path}", {
        "PATH": os.environ["PATH"],
        "HERDR_SPAWN_TEST": str(tmp_path),
    }


def test_the_child_leads_its_own_group_and_is_killed_with_it(tmp_path: Path) -> None:
    marker, env = _marked(tmp_path)

    async def run() -> tuple[int, int]:
        proc = await spawn_group(
            "sh", "-c", "sleep 600 & wait", env=env, stdout=asyncio.subprocess.PIPE
        )
        group = os.getpgid(proc.pid)
        wait_until(lambda: len(live_with_env(marker)) == 2, 10, message="no child of sh")
        kill_group(proc)
        await reap(proc)
        return proc.pid, group

    pid, group = asyncio.run(run())
    assert group == pid
    wait_until(lambda: not live_with_env(marker), 10, message="the group outlived the kill")


def test_a_program_that_cannot_start_raises_oserror() -> None:
    with pytest.raises(OSError):
        asyncio.run(spawn_group("/nonexistent/herdr-no-such-program"))


@pytest.mark.parametrize("turns", [0, 1, 2, 3, 5, 8, 13])
def test_a_caller_cancelled_while_the_child_starts_leaks_nothing(
    tmp_path: Path, turns: int
) -> None:
    """The child's own child holds the pipes: asyncio alone would wait for ever."""
    marker, env = _marked(tmp_path)

    async def cancel_early() -> None:
        async with asyncio.timeout(60):  # a hang fails here, not the whole run
            call = asyncio.ensure_future(
                spawn_group(
                    "sh",
                    "-c",
                    "sleep 600 & wait",
                    env=env,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                )
            )
            for _ in range(turns):
                await asyncio.sleep(0)
            call.cancel()
            try:
                proc = await call
            except asyncio.CancelledError:
                return
            kill_group(proc)  # it finished starting before the cancel: ours to stop
            await reap(proc)

    asyncio.run(cancel_early())
    wait_until(lambda: not live_with_env(marker), 10, message="the child outlived the call")

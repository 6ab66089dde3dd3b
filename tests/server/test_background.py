"""The server's one-task-per-job helper: start once, stop cancels and waits."""

from __future__ import annotations

import asyncio

from herdr.server.background import BackgroundTask


def test_start_once_stop_cancels_and_waits() -> None:
    async def scenario() -> None:
        runs: list[str] = []
        ended = asyncio.Event()

        async def job() -> None:
            runs.append("start")
            try:
                await asyncio.sleep(3600)
            finally:
                ended.set()

        task = BackgroundTask("job", job)
        await task.stop()  # never started: nothing to do
        task.start()
        task.start()  # a second start changes nothing
        await asyncio.sleep(0)
        assert task.running and runs == ["start"]
        await task.stop()
        assert ended.is_set() and not task.running
        await task.stop()  # idempotent

    asyncio.run(scenario())

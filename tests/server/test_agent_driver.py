"""The detection driver's wake-ups with a real PTY (`herdr.server.agents`).

A burst of PTY output costs one timer callback per tick it causes — not a task step
per read plus one per tick, as when the driver was a task woken by an Event. The pane
runs a real program on a real PTY; the runtime's timer callback and tick are counted
by wrapping the bound methods the runtime itself calls.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from herdr.config.server_settings import ServerSettings
from herdr.runtime.events import EventBus
from herdr.server.agents import PaneAgent
from herdr.server.core import encode
from herdr.server.info import ServerInfo
from herdr.server.panes import PaneHost
from herdr.server.views import ViewedPanes

# Waits for a line on stdin, then writes 40 lines 2 ms apart (many PTY reads in a
# short burst), then prints a marker and sleeps until it is closed.
BURST = (
    "import os, sys, time\n"
    "sys.stdin.readline()\n"
    "for i in range(40):\n"
    "    os.write(1, b'line %d\\r\\n' % i)\n"
    "    time.sleep(0.002)\n"
    "os.write(1, b'BURST-DONE\\r\\n')\n"
    "time.sleep(60)\n"
)


class Counts:
    def __init__(self) -> None:
        self.reads = self.fires = self.ticks = 0


def _count(runtime: Any, counts: Counts) -> None:
    fire: Callable[[PaneAgent], None] = runtime._fire
    tick: Callable[[PaneAgent, int], None] = runtime._tick
    on_output: Callable[[Any], None] = runtime.on_output

    def counted_fire(pa: PaneAgent) -> None:
        counts.fires += 1
        fire(pa)

    def counted_tick(pa: PaneAgent, now: int) -> None:
        counts.ticks += 1
        tick(pa, now)

    def counted_output(term: Any) -> None:
        counts.reads += 1
        on_output(term)

    runtime._fire, runtime._tick, runtime.on_output = counted_fire, counted_tick, counted_output


async def _until(check: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_burst_of_reads_costs_one_timer_callback_per_tick(tmp_path: Path) -> None:
    async def scenario() -> Counts:
        info = ServerInfo(tmp_path / "herdr.sock", None, tmp_path, tmp_path)
        env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
        host = PaneHost(info, EventBus(encode), ServerSettings(), env, ViewedPanes())
        created = host.session.create_workspace(
            str(tmp_path), command=[sys.executable, "-c", BURST]
        )
        counts = Counts()
        _count(host.agents, counts)
        term = host.start(created.loc)
        try:
            pa = host.agents.panes[term.terminal_id]
            # Past the first tick (50 ms after start): only output or a probe due wakes it.
            await _until(lambda: pa.loop.last_tick_at is not None, "the first tick")
            await asyncio.sleep(0.1)
            counts.reads = counts.fires = counts.ticks = 0
            term.write(b"go\n")
            await _until(lambda: b"BURST-DONE" in _screen(term), "the burst")
            await _until(lambda: not pa.output, "the tick after the burst")
            return counts
        finally:
            await host.shutdown()

    counts = asyncio.run(scenario())
    assert counts.reads >= 10, counts.__dict__  # the burst came in many reads
    assert counts.ticks >= 1
    # Every timer callback ran a tick (at most one early fire re-armed itself), and the
    # reads were coalesced: far fewer ticks than reads.
    assert counts.fires <= counts.ticks + 1, counts.__dict__
    assert counts.ticks * 2 <= counts.reads, counts.__dict__


def _screen(term: Any) -> bytes:
    text: str = term.emulator.active_text()
    return text.encode()

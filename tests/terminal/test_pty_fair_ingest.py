"""Fair ingest: a flooding PTY hands over one bounded chunk per loop turn."""

from __future__ import annotations

import asyncio
import time

import pytest

from herdr.terminal.pty import (
    MIN_TURN_BYTES,
    READ_SIZE,
    SHORT_READ,
    TURN_BUDGET_S,
    AsyncPty,
    smoothed_cost,
    turn_share,
)


@pytest.mark.parametrize(
    ("cost", "expected"),
    [
        pytest.param(0.0, READ_SIZE, id="unknown-cost-reads-all"),
        pytest.param(1e-12, READ_SIZE, id="cheap-capped-at-read-size"),
        pytest.param(TURN_BUDGET_S / 10_000, 10_000, id="fits-the-budget"),
        pytest.param(1e-3, MIN_TURN_BYTES, id="dear-floored-at-min"),
    ],
)
def test_turn_share(cost: float, expected: int) -> None:
    assert turn_share(cost) == expected


@pytest.mark.parametrize(
    ("cost", "elapsed", "size", "expected"),
    [
        pytest.param(0.0, 1.0, 4, 0.25, id="first-sample-taken-as-is"),
        pytest.param(0.5, 1.0, 4, 0.375, id="averaged-with-previous"),
        pytest.param(0.0, 1.0, 0, 1.0, id="empty-size-no-division-by-zero"),
    ],
)
def test_smoothed_cost(cost: float, elapsed: float, size: int, expected: float) -> None:
    assert smoothed_cost(cost, elapsed, size) == pytest.approx(expected)


async def _flood_order(env: dict[str, str], panes: int) -> list[str]:
    """Loop turns (``t``) and chunks per pane (``0``, ``1``…) in the order they ran."""
    order: list[str] = []
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def tick() -> None:
        order.append("t")
        if not stop.is_set():
            loop.call_soon(tick)  # runs once per loop turn

    def on_data(index: int) -> object:
        def feed(data: bytes) -> None:
            assert len(data) <= READ_SIZE
            if stop.is_set():
                return  # the teardown's exit drain reads on purpose until empty
            order.append(str(index))
            if sum(1 for x in order if x != "t") >= 200 * panes:
                stop.set()

        return feed

    ptys = [
        AsyncPty.spawn(["/bin/sh", "-c", "exec yes"], on_data(i), env=env)  # type: ignore[arg-type]
        for i in range(panes)
    ]
    loop.call_soon(tick)
    try:
        await asyncio.wait_for(stop.wait(), 30)
    finally:
        stop.set()
        for pty in ptys:
            await pty.aclose(0.5)
    return order


def test_a_flooding_pane_gets_one_chunk_per_turn(shell_env: dict[str, str]) -> None:
    """Between two chunks of the same pane the loop turned (every other ready fd and
    callback had its go), and two flooding panes take turns."""
    order = asyncio.run(_flood_order(shell_env, 2))
    turns: list[list[str]] = [[]]
    for item in order:
        if item == "t":
            turns.append([])
        else:
            turns[-1].append(item)
    assert all(len(turn) == len(set(turn)) for turn in turns), "a pane read twice in a turn"
    both = [turn for turn in turns if set(turn) == {"0", "1"}]
    assert both, "two flooding panes never shared a turn"


async def _chunk_sizes(env: dict[str, str], seconds_per_byte: float, *, slow: str) -> list[int]:
    """Sizes of 40 chunks of a `yes` flood when handling (``slow="feed"``) or reading
    (``slow="read"``) a byte costs ``seconds_per_byte``."""
    sizes: list[int] = []
    done = asyncio.Event()

    def on_data(data: bytes) -> None:
        if done.is_set():
            return
        if slow == "feed":
            time.sleep(len(data) * seconds_per_byte)  # an emulator that is dear to feed
        sizes.append(len(data))
        if len(sizes) >= 40:
            done.set()

    pty = AsyncPty.spawn(["/bin/sh", "-c", "exec yes"], on_data, env=env)
    if slow == "read":
        real_read = pty.process.read_nonblocking

        def slow_read(size: int = READ_SIZE) -> bytes | None:
            data = real_read(size)
            time.sleep(len(data or b"") * seconds_per_byte)  # a PTY read that takes its time
            return data

        pty.process.read_nonblocking = slow_read  # type: ignore[method-assign]
    try:
        await asyncio.wait_for(done.wait(), 30)
    finally:
        done.set()
        await pty.aclose(0.5)
    return sizes


def test_dear_output_is_read_in_small_shares(shell_env: dict[str, str]) -> None:
    """When handling a byte is dear, later reads shrink to the floor instead of 64 KiB
    (the loop turn stays short for everything else)."""
    sizes = asyncio.run(_chunk_sizes(shell_env, 1e-6, slow="feed"))
    assert max(sizes[2:]) <= MIN_TURN_BYTES, sizes


def test_slow_reads_count_towards_the_turn(shell_env: dict[str, str]) -> None:
    """The share is what fits the turn's budget including the reads themselves: on two
    busy cores a read is often preempted, and a turn sized by the feed alone grew to
    ~6 ms a pane (an API request waits for several turns)."""
    sizes = asyncio.run(_chunk_sizes(shell_env, 1e-6, slow="read"))
    assert max(sizes[2:]) <= MIN_TURN_BYTES, sizes


async def _reads_per_echo(env: dict[str, str]) -> tuple[list[bytes], int, list[int]]:
    """Type ten keys into ``cat`` one at a time: (what was delivered, reads made, then
    the chunk sizes of a 1 MiB flood from the same PTY)."""
    got: list[bytes] = []
    arrived = asyncio.Event()
    pty = AsyncPty.spawn(
        ["/bin/sh", "-c", "stty raw -echo; cat"], lambda d: _note(got, arrived, d), env=env
    )
    process = pty.process
    real_read = process.read_nonblocking
    reads = 0

    def counting(size: int = READ_SIZE) -> bytes | None:
        nonlocal reads
        reads += 1
        return real_read(size)

    process.read_nonblocking = counting  # type: ignore[method-assign]
    try:
        await asyncio.sleep(0.3)  # stty has run
        got.clear()
        reads = 0
        for key in b"abcdefghij":
            arrived.clear()
            pty.write(bytes([key]))
            await asyncio.wait_for(arrived.wait(), 10)
        echoes, echo_reads = list(got), reads
        got.clear()
        flood = b"x" * 1023 + b"\n"
        pty.write(flood * 1024)
        while sum(len(c) for c in got) < len(flood) * 1024:
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 10)
        return echoes, echo_reads, [len(c) for c in got]
    finally:
        await pty.aclose(0.5)


def _note(got: list[bytes], arrived: asyncio.Event, data: bytes) -> None:
    got.append(data)
    arrived.set()


def test_a_short_read_ends_the_turn_and_a_flood_still_reads_whole_buffers(
    shell_env: dict[str, str],
) -> None:
    """An echo is one read (not a second one that only says "empty"); a flood is still
    read in kernel-buffer-sized chunks, every byte delivered."""
    echoes, reads, flood_chunks = asyncio.run(_reads_per_echo(shell_env))
    assert b"".join(echoes) == b"abcdefghij"
    assert reads == len(echoes)
    assert max(flood_chunks) > SHORT_READ

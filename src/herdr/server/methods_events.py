"""``events.subscribe`` and ``events.wait``: the held methods over the event bus."""

from __future__ import annotations

import asyncio
from typing import Any

from herdr.api import protocol
from herdr.runtime.events import Event, Filter, FilterFactory, Subscriber, compile_subscription
from herdr.server.core import ApiError, Result, encode
from herdr.server.methods_io import OutputMatchFilter, current_output_match
from herdr.server.wiring import Call

_MAX_WAIT_MS = 2**63 // 1_000_000  # beyond this asyncio's timers overflow
# A subscriber's stream, while busy, is written at most this often (see _Pump).
BATCH_S = 0.004


def _filters(call: Call) -> list[Filter]:
    host = call.server.panes
    # Subscription types with a filter of the server's own (the rest are the bus's).
    factories: dict[str, FilterFactory] = {
        protocol.OUTPUT_MATCHED: lambda item: OutputMatchFilter(item, host)
    }
    filters: list[Filter] = []
    for index, raw in enumerate(call.params["subscriptions"]):
        item = dict(raw)
        if "pane_id" in item:
            pane_id = host.resolve_pane(str(item["pane_id"]))
            if pane_id is None:
                raise ApiError(
                    protocol.PANE_NOT_FOUND,
                    f"params.subscriptions[{index}].pane_id: pane {item['pane_id']} not found",
                )
            item["pane_id"] = pane_id
        filters.append(compile_subscription(item, factories))
    return filters


class _Pump:
    """When a subscriber's queued lines go out: at once after a quiet spell, then at
    most every ``BATCH_S`` while lines keep coming, so a busy stream is written in
    batches (one send per subscriber for many events, and fewer, larger reads for the
    client) instead of one send per event. The end of a stream is never held back."""

    def __init__(self, sub: Subscriber) -> None:
        self.sub = sub
        self.ready = asyncio.Event()
        self.loop = asyncio.get_running_loop()
        self.last_write = -BATCH_S
        self.timer: asyncio.TimerHandle | None = None

    def wake(self) -> None:
        """The bus queued something for the subscriber (or ended it)."""
        if self.sub.finished:
            self.fire()
            return
        if self.timer is not None or self.ready.is_set():
            return
        delay = self.last_write + BATCH_S - self.loop.time()
        if delay <= 0:
            self.ready.set()
        else:
            self.timer = self.loop.call_later(delay, self.fire)

    def fire(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.ready.set()

    def wrote(self) -> None:
        self.last_write = self.loop.time()


async def subscribe(call: Call) -> Result | None:
    """Answer ``subscription_started``, replay from ``since_seq``, then stream live."""
    bus = call.server.bus
    filters = _filters(call)
    since_seq = call.params.get("since_seq")
    sub, info = bus.subscribe(filters, since_seq)
    started: dict[str, Any] = {"type": "subscription_started", "last_seq": info.last_seq}
    if since_seq is not None:
        started.update(replayed=info.replayed, gap=info.gap, oldest_seq=info.oldest_seq)
    conn = call.conn
    pump = _Pump(sub)
    sub.wake = pump.wake
    conn.add_close_callback(pump.fire)
    conn.watch_eof()
    conn.write(encode(protocol.success(call.id, started)))
    try:
        while not conn.closed:
            pump.ready.clear()
            lines = bus.drain(sub)
            if lines:
                conn.writelines(lines)
                pump.wrote()
                if not await conn.drain():
                    break
            if sub.finished and not sub.queue:
                break
            if not sub.queue and not sub.dropped:
                await pump.ready.wait()
    finally:
        pump.fire()
        bus.unsubscribe(sub)
    return None


def wait_precheck(params: dict[str, Any]) -> None:
    match = params.get("match_event")
    if isinstance(match, dict):
        kind = match.get("event")
        if kind in protocol.EVENT_KINDS and kind not in protocol.WAITABLE_EVENTS:
            raise ApiError(
                protocol.UNSUPPORTED_EVENT_WAIT_MATCH,
                f"events.wait cannot wait for {kind}",
            )


async def wait(call: Call) -> Result | None:
    """Hold until a matching event (or a logged one after ``since_seq``), or time out."""
    server = call.server
    params = call.params
    match_event = params["match_event"]
    timeout_ms = params.get("timeout_ms")
    loop = asyncio.get_running_loop()
    found: asyncio.Future[Event | None] = loop.create_future()

    def matched(event: Event) -> None:
        if not found.done():
            found.set_result(event)

    current = current_output_match(server.panes, match_event)
    if current is not None:
        matched(current)
    waiter = (
        None
        if found.done()
        else server.bus.add_waiter(match_event, matched, params.get("since_seq"))
    )

    def gone() -> None:
        if not found.done():
            found.set_result(None)

    conn = call.conn
    conn.add_close_callback(gone)
    conn.watch_eof()
    try:
        timeout = None if timeout_ms is None else min(timeout_ms, _MAX_WAIT_MS) / 1000
        event = await asyncio.wait_for(found, timeout)
    except TimeoutError:
        raise ApiError(
            protocol.TIMEOUT, f"no {match_event['event']} event within {timeout_ms} ms"
        ) from None
    finally:
        if waiter is not None:
            server.bus.remove_waiter(waiter)
    if event is None:
        return None  # the caller went away
    return {"type": "wait_matched", "event": event.envelope()}

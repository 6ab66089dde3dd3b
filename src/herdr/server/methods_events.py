"""``events.subscribe`` and ``events.wait``: the held methods over the event bus."""

from __future__ import annotations

import asyncio
from typing import Any

from herdr.api import protocol
from herdr.runtime.events import Event, Filter, compile_subscription
from herdr.server.core import ApiError, Call, Result, encode

_MAX_WAIT_MS = 2**63 // 1_000_000  # beyond this asyncio's timers overflow


def _filters(call: Call) -> list[Filter]:
    core = call.core
    filters: list[Filter] = []
    for index, raw in enumerate(call.params["subscriptions"]):
        item = dict(raw)
        if "pane_id" in item:
            pane_id = core.resolve_pane(str(item["pane_id"]))
            if pane_id is None:
                raise ApiError(
                    protocol.PANE_NOT_FOUND,
                    f"params.subscriptions[{index}].pane_id: pane {item['pane_id']} not found",
                )
            item["pane_id"] = pane_id
        filters.append(compile_subscription(item, core.filter_factories))
    return filters


async def subscribe(call: Call) -> Result | None:
    """Answer ``subscription_started``, replay from ``since_seq``, then stream live."""
    bus = call.core.bus
    filters = _filters(call)
    since_seq = call.params.get("since_seq")
    sub, info = bus.subscribe(filters, since_seq)
    started: dict[str, Any] = {"type": "subscription_started", "last_seq": info.last_seq}
    if since_seq is not None:
        started.update(replayed=info.replayed, gap=info.gap, oldest_seq=info.oldest_seq)
    conn = call.conn
    wake = asyncio.Event()
    sub.wake = wake.set
    conn.add_close_callback(wake.set)
    conn.watch_eof()
    conn.write(encode(protocol.success(call.id, started)))
    try:
        while not conn.closed:
            wake.clear()
            lines = bus.drain(sub)
            if lines:
                conn.writelines(lines)
                if not await conn.drain():
                    break
            if sub.finished and not sub.queue:
                break
            if not sub.queue and not sub.dropped:
                await wake.wait()
    finally:
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
    core = call.core
    params = call.params
    match_event = params["match_event"]
    timeout_ms = params.get("timeout_ms")
    loop = asyncio.get_running_loop()
    found: asyncio.Future[Event | None] = loop.create_future()

    def matched(event: Event) -> None:
        if not found.done():
            found.set_result(event)

    current = core.current_match(match_event)
    if current is not None:
        matched(current)
    waiter = (
        None if found.done() else core.bus.add_waiter(match_event, matched, params.get("since_seq"))
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
            core.bus.remove_waiter(waiter)
    if event is None:
        return None  # the caller went away
    return {"type": "wait_matched", "event": event.envelope()}

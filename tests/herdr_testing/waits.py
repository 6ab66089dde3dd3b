"""Generic test helpers: wait for a condition instead of sleeping."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

DEFAULT_TIMEOUT = 10.0


def wait_until(
    predicate: Callable[[], T],
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = 0.01,
    message: str = "",
) -> T:
    """Poll ``predicate`` until it returns something truthy; return that value.

    Raises ``TimeoutError`` (with ``message``) when ``timeout`` seconds pass first.
    The timeout is a safety net for hung tests, never an assertion about speed.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(message or f"condition not met within {timeout}s")
        time.sleep(interval)


async def async_wait_until(
    predicate: Callable[[], T | Awaitable[T]],
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = 0.01,
    message: str = "",
) -> T:
    """``wait_until`` for asyncio code: yields to the loop between polls."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if isinstance(value, Awaitable):
            value = await value
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimeoutError(message or f"condition not met within {timeout}s")
        await asyncio.sleep(interval)

"""Imports without the cyclic garbage collector: start-up creates only long-lived objects
(modules, classes, functions), so collections during it find nothing and cost ~10 % of
the client's import time (docs/performance.md, "Start-up and reattach")."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    """The collector paused for the block (and re-enabled after it, as it was)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

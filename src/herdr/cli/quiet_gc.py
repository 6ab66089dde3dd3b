"""Start-up imports without garbage-collector work.

Imports make long-lived objects (modules, classes, functions), tens of thousands of
them; the cyclic collector scans them again and again while they are made and finds
nothing (~12 ms of the client's import CPU, ~19 ms of the server's, measured with
``gc.callbacks``). Merely pausing it only defers that work to the first collection
after; :func:`gc.freeze` moves them out of its sight for good (docs/performance.md,
"Start-up and reattach").
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_gc() -> Iterator[None]:
    """The collector paused for the block; what exists after it is frozen (never
    scanned again), and the collector is left enabled or not as it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()

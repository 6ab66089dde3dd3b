"""When to write ``session.json``, decided from plain values so the server's task is dumb.

Layout changes come in bursts (a script creating ten panes); writing after each one
costs an fsync apiece. The scheduler waits for a quiet `debounce`, but never longer
than `max_delay` after the first unsaved change, so a steady trickle of changes
cannot starve the file. A failed write is retried on its own (nothing else needs to
change), first after `retry_after`, then doubling up to `retry_max`: seconds, not a
tight loop, so a disk that has space again is written to soon. Generations make a
write that raced with a newer change leave the scheduler dirty. `now` is any
monotonic clock in seconds.

Server loop (sketch)::

    while True:
        deadline = scheduler.deadline()
        await wake.wait() if deadline is None else sleep_until(deadline)
        if scheduler.due(clock()):
            token = scheduler.begin()
            snapshot = mapping.capture(session, facts)        # on the loop: consistent
            ok = await to_thread(store.save, snapshot, history)  # PersistWriteError: ok=False
            scheduler.finish(token, ok=ok, now=clock())
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class SaveScheduler:
    """Debounce state for one file; every method takes `now` (monotonic seconds)."""

    debounce: float = 0.5
    max_delay: float = 5.0
    retry_after: float = 2.0  # first retry after a failed write
    retry_max: float = 10.0  # the backoff doubles up to this
    generation: int = 0  # bumped by every change
    saved_generation: int = 0  # the generation the file on disk reflects
    _first_change: float | None = None  # first change not yet on disk
    _last_change: float | None = None
    _retry_at: float | None = None
    _in_flight: int | None = None
    _failures: int = 0  # failed writes in a row

    @property
    def dirty(self) -> bool:
        """Something changed that is not on disk yet (flush this at shutdown)."""
        return self.generation != self.saved_generation

    @property
    def in_flight(self) -> bool:
        return self._in_flight is not None

    def retry_delay(self, failures: int) -> float:
        """Seconds to wait after the `failures`-th failed write in a row."""
        delay = self.retry_after * 2.0 ** min(max(failures - 1, 0), 32)
        return max(self.retry_after, min(delay, self.retry_max))

    def mark_dirty(self, now: float) -> None:
        """Record a change to anything `session.json` holds."""
        self.generation += 1
        if self._first_change is None:
            self._first_change = now
        self._last_change = now

    def deadline(self) -> float | None:
        """When the next write becomes due; None while clean or while a write runs."""
        if not self.dirty or self._in_flight is not None:
            return None
        assert self._first_change is not None and self._last_change is not None
        due = min(self._last_change + self.debounce, self._first_change + self.max_delay)
        return due if self._retry_at is None else max(due, self._retry_at)

    def due(self, now: float) -> bool:
        """Whether to start a write now."""
        deadline = self.deadline()
        return deadline is not None and now >= deadline

    def begin(self) -> int:
        """A write starts; capture the model *after* this call. Returns its token."""
        self._in_flight = self.generation
        return self.generation

    def finish(self, token: int, *, ok: bool, now: float) -> None:
        """A write ended. Changes made while it ran keep the scheduler dirty."""
        self._in_flight = None
        if not ok:
            self._failures += 1
            self._retry_at = now + self.retry_delay(self._failures)
            return
        self._failures = 0
        self._retry_at = None
        self.saved_generation = max(self.saved_generation, token)
        if not self.dirty:
            self._first_change = self._last_change = None
        else:  # a newer change is pending: its own debounce starts from its time
            self._first_change = self._last_change

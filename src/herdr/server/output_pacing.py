"""When a pane's output is searched again for ``pane.output_matched`` subscribers.

A check reads up to 10000 recent lines and runs every subscriber's matcher. Run per read
chunk, one subscriber with ``lines: 2000`` made a flooding pane's ingest search-bound
(0.6 MB/s). So: the first output after a quiet gap is checked at once (no added latency
for the line a script waits for); during a burst at most once per gap, where the gap
grows with what the last check cost, so checks take at most a fifth of a core; and a
burst always ends with one check of its final output. Pure: callers pass ``now``.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_GAP_S = 0.05  # checks of one pane during a burst: at most 20 a second
COST_FACTOR = 4.0  # idle time after a check, in multiples of what the check took


@dataclass(slots=True)
class Pace:
    """One pane's pacing: when its last check ended, the gap it earned, a queued check."""

    last_end: float = float("-inf")
    gap: float = MIN_GAP_S
    queued: bool = False


def on_output(pace: Pace, now: float) -> float | None:
    """New output at ``now``: seconds until the check runs (0.0 = run it now), or None
    when a check is already queued (it will see this output too)."""
    if pace.queued:
        return None
    wait = pace.last_end + pace.gap - now
    if wait <= 0:
        return 0.0
    pace.queued = True
    return wait


def checked(pace: Pace, started: float, ended: float) -> None:
    """A check ran from ``started`` to ``ended``: the next one waits ``gap`` after it."""
    pace.queued = False
    pace.last_end = ended
    pace.gap = max(MIN_GAP_S, COST_FACTOR * max(0.0, ended - started))

"""Save scheduling with a fake clock: debounce, bounded delay, retries, racing changes."""

from __future__ import annotations

import pytest

from herdr.persist.saver import SaveFailureLatch, SaveScheduler


def scheduler() -> SaveScheduler:
    return SaveScheduler(debounce=0.5, max_delay=5.0, retry_after=30.0)


def test_clean_scheduler_has_nothing_to_do() -> None:
    s = scheduler()
    assert not s.dirty
    assert s.deadline() is None
    assert not s.due(1e9)


def test_single_change_is_written_after_the_debounce() -> None:
    s = scheduler()
    s.mark_dirty(10.0)
    assert s.dirty
    assert s.deadline() == 10.5
    assert not s.due(10.4)
    assert s.due(10.5)


def test_burst_of_changes_is_written_once_after_it_ends() -> None:
    s = scheduler()
    for t in (10.0, 10.1, 10.2, 10.3):
        s.mark_dirty(t)
    assert s.deadline() == pytest.approx(10.8)


def test_steady_trickle_cannot_postpone_past_max_delay() -> None:
    s = scheduler()
    t = 10.0
    while t < 20.0:
        s.mark_dirty(t)
        t += 0.25
    assert s.deadline() == 15.0


def test_successful_write_makes_it_clean() -> None:
    s = scheduler()
    s.mark_dirty(10.0)
    token = s.begin()
    assert s.in_flight and s.deadline() is None  # no second write while one runs
    s.finish(token, ok=True, now=10.6)
    assert not s.dirty and not s.in_flight
    assert s.deadline() is None


def test_change_during_a_write_keeps_it_dirty_with_a_fresh_debounce() -> None:
    s = scheduler()
    s.mark_dirty(10.0)
    token = s.begin()
    s.mark_dirty(10.55)  # lands after the capture: not in the file being written
    s.finish(token, ok=True, now=10.6)
    assert s.dirty
    assert s.deadline() == pytest.approx(11.05)


def test_failed_write_is_retried_after_the_backoff_not_in_a_loop() -> None:
    s = scheduler()
    s.mark_dirty(10.0)
    token = s.begin()
    s.finish(token, ok=False, now=10.6)
    assert s.dirty
    assert s.deadline() == pytest.approx(40.6)
    s.mark_dirty(11.0)  # more changes do not shorten the backoff
    assert s.deadline() == pytest.approx(40.6)
    token = s.begin()
    s.finish(token, ok=True, now=41.0)
    assert not s.dirty
    s.mark_dirty(50.0)
    assert s.deadline() == 50.5  # backoff is forgotten after a success


def test_shutdown_flush_is_needed_only_when_dirty() -> None:
    s = scheduler()
    assert not s.dirty
    s.mark_dirty(1.0)
    assert s.dirty  # the server writes now, ignoring the debounce


def test_latch_logs_first_failure_and_recovery_once() -> None:
    latch = SaveFailureLatch()
    assert latch.succeeded() is False  # nothing to recover from
    assert latch.failed(OSError("read-only")) is True
    assert latch.failed("again") is False
    assert latch.failing and latch.last_error == "again"
    assert latch.succeeded() is True
    assert latch.succeeded() is False
    assert latch.failed("new run") is True

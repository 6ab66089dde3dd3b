"""Save scheduling with a fake clock: debounce, bounded delay, retries, racing changes."""

from __future__ import annotations

import pytest

from herdr.persist.saver import SaveScheduler


def scheduler() -> SaveScheduler:
    return SaveScheduler(debounce=0.5, max_delay=5.0, retry_after=2.0, retry_max=10.0)


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
    assert s.deadline() == pytest.approx(12.6)
    s.mark_dirty(11.0)  # more changes do not shorten the backoff
    assert s.deadline() == pytest.approx(12.6)
    token = s.begin()
    s.finish(token, ok=True, now=13.0)
    assert not s.dirty
    s.mark_dirty(50.0)
    assert s.deadline() == 50.5  # backoff is forgotten after a success


def test_failing_writes_are_retried_on_their_own_with_a_capped_backoff() -> None:
    """No new change is needed: the scheduler stays dirty and due again within seconds,
    2, 4, 8, then every 10 s however long the disk stays full."""
    s = scheduler()
    s.mark_dirty(0.0)
    now = 0.5
    waits = []
    for _ in range(7):
        assert s.due(now)
        s.finish(s.begin(), ok=False, now=now)
        deadline = s.deadline()
        assert deadline is not None
        waits.append(deadline - now)
        now = deadline
    assert waits == pytest.approx([2.0, 4.0, 8.0, 10.0, 10.0, 10.0, 10.0])
    s.finish(s.begin(), ok=True, now=now)
    assert not s.dirty and s.deadline() is None
    s.mark_dirty(now)
    s.finish(s.begin(), ok=False, now=now + 0.5)
    assert s.deadline() == pytest.approx(now + 2.5)  # a new run starts from the bottom


@pytest.mark.parametrize(
    ("first", "cap", "failures", "delay"),
    [
        (2.0, 10.0, 1, 2.0),
        (2.0, 10.0, 3, 8.0),
        (2.0, 10.0, 10_000, 10.0),
        (0.1, 0.5, 4, 0.5),
        (5.0, 1.0, 1, 5.0),  # a cap below the first retry never shortens it
    ],
    ids=["first", "third", "huge-count", "test-timings", "cap-below-first"],
)
def test_retry_delay(first: float, cap: float, failures: int, delay: float) -> None:
    s = SaveScheduler(retry_after=first, retry_max=cap)
    assert s.retry_delay(failures) == pytest.approx(delay)


def test_shutdown_flush_is_needed_only_when_dirty() -> None:
    s = scheduler()
    assert not s.dirty
    s.mark_dirty(1.0)
    assert s.dirty  # the server writes now, ignoring the debounce

"""Persistence health: failing/ok transitions, what is logged once, the ping record."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from herdr.persist.errors import PersistWriteError, SnapshotFormatError
from herdr.persist.health import PersistHealth, SaveError, iso_utc

SESSION = "/data/herdr/session.json"


def os_error(code: int, filename: str | None = None) -> OSError:
    return OSError(code, os.strerror(code), filename)


@pytest.mark.parametrize(
    ("err", "expected"),
    [
        (
            PersistWriteError(Path(SESSION), os_error(errno.ENOSPC, SESSION + ".tmp")),
            SaveError(os.strerror(errno.ENOSPC), "ENOSPC", SESSION),
        ),
        (
            PersistWriteError(Path("/d/session-history.json"), os_error(errno.EROFS)),
            SaveError(os.strerror(errno.EROFS), "EROFS", "/d/session-history.json"),
        ),
        (
            os_error(errno.EACCES, "/d/session-backups"),
            SaveError(os.strerror(errno.EACCES), "EACCES", "/d/session-backups"),
        ),
        (OSError("odd"), SaveError("odd", None, SESSION)),
        (SnapshotFormatError("$.x", "bad"), SaveError("$.x: bad", None, SESSION)),
        (RuntimeError(), SaveError("RuntimeError", None, SESSION)),
    ],
    ids=["enospc-write", "erofs-history", "bare-oserror", "no-errno", "bug", "no-message"],
)
def test_save_error_names_message_errno_and_path(err: BaseException, expected: SaveError) -> None:
    assert SaveError.of(err, SESSION) == expected


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (1_777_636_800.5, "2026-05-01T12:00:00.500Z"),
        (1_777_636_800.9999, "2026-05-01T12:00:00.999Z"),
    ],
    ids=["epoch", "half-second", "truncates"],
)
def test_iso_utc(seconds: float, text: str) -> None:
    assert iso_utc(seconds) == text


FULL = SaveError("No space left on device", "ENOSPC", SESSION)


def test_a_run_of_failures_is_logged_once_and_its_end_once() -> None:
    health = PersistHealth(SESSION, last_good_save=100.0)

    def status() -> str:
        return health.status

    assert status() == "ok"
    assert health.succeeded(now=101.0) is False  # nothing to recover from
    assert [health.failed(FULL, now=t) for t in (110.0, 112.0, 116.0)] == [True, False, False]
    assert status() == "failing"
    assert (health.failing_since, health.last_failure) == (110.0, 116.0)
    assert health.last_good_save == 101.0
    assert health.consecutive_failures == 3
    assert health.succeeded(now=120.0) is True
    assert health.succeeded(now=121.0) is False
    assert status() == "ok" and health.failing_since is None
    assert health.last_error == FULL and health.last_failure == 116.0  # what happened last
    assert health.failed(FULL, now=130.0) is True  # a new run is logged again
    assert health.failing_since == 130.0


def test_ping_record_while_failing_and_after_recovery() -> None:
    health = PersistHealth(SESSION, last_good_save=1_777_636_800.0)
    health.failed(FULL, now=1_777_636_860.0)
    assert health.to_json(unsaved_changes=True) == {
        "status": "failing",
        "path": SESSION,
        "last_good_save": "2026-05-01T12:00:00.000Z",
        "failing_since": "2026-05-01T12:01:00.000Z",
        "last_failure": "2026-05-01T12:01:00.000Z",
        "last_error": {"message": "No space left on device", "errno": "ENOSPC", "path": SESSION},
        "consecutive_failures": 1,
        "unsaved_changes": True,
    }
    health.succeeded(now=1_777_636_870.0)
    record = health.to_json(unsaved_changes=False)
    assert record["status"] == "ok" and record["failing_since"] is None
    assert record["last_good_save"] == "2026-05-01T12:01:10.000Z"


def test_never_saved_has_no_times() -> None:
    record = PersistHealth(SESSION).to_json(unsaved_changes=False)
    assert record["status"] == "ok"
    assert record["last_good_save"] is None and record["last_error"] is None

"""PURE persistence health: is ``session.json`` being saved, and if not, why and since when.

A full disk or a read-only state dir must not go unnoticed: the server keeps the last
good file and retries, and ``ping`` / ``herdr status`` say that saving fails, with the
error (message, errno name, path), when it started and when the last good save was.
The log gets one line when a run of failures starts and one when it ends, however
often the save is retried. Times are wall-clock seconds, shown as ISO-8601 UTC.
"""

from __future__ import annotations

import errno as errno_names
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from msgspec import Struct

from herdr.persist.errors import PersistWriteError

HealthStatus = Literal["ok", "failing"]


def iso_utc(seconds: float) -> str:
    """``2026-05-01T12:00:00.123Z``."""
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class SaveError(Struct, frozen=True):
    """What went wrong in one failed save."""

    message: str  # the OS's words: "No space left on device"
    errno: str | None  # "ENOSPC"; None when the failure was not an OS error
    path: str  # the file that could not be written

    @classmethod
    def of(cls, err: BaseException, default_path: str) -> SaveError:
        cause = err.cause if isinstance(err, PersistWriteError) else err
        path = str(err.path) if isinstance(err, PersistWriteError) else default_path
        if isinstance(cause, OSError):
            code = cause.errno
            name = errno_names.errorcode.get(code) if code is not None else None
            if not isinstance(err, PersistWriteError) and cause.filename:
                path = str(cause.filename)
            return cls(cause.strerror or str(cause) or type(cause).__name__, name, path)
        return cls(str(err) or type(err).__name__, None, path)

    def to_json(self) -> dict[str, object]:
        return {"message": self.message, "errno": self.errno, "path": self.path}


@dataclass(slots=True)
class PersistHealth:
    """Health of one session file; `failed` / `succeeded` say when to log."""

    path: str
    last_good_save: float | None = None
    last_failure: float | None = None
    failing_since: float | None = None
    last_error: SaveError | None = None  # kept after a recovery: what happened last
    consecutive_failures: int = 0

    @property
    def status(self) -> HealthStatus:
        return "failing" if self.consecutive_failures else "ok"

    def failed(self, error: SaveError, now: float) -> bool:
        """Record a failure; True when it should be logged (the first in a row)."""
        first = self.consecutive_failures == 0
        self.consecutive_failures += 1
        self.last_error = error
        self.last_failure = now
        if first:
            self.failing_since = now
        return first

    def succeeded(self, now: float) -> bool:
        """Record a good save; True when it ends a run of failures (log the recovery)."""
        recovered = self.consecutive_failures > 0
        self.consecutive_failures = 0
        self.failing_since = None
        self.last_good_save = now
        return recovered

    def to_json(self, *, unsaved_changes: bool) -> dict[str, object]:
        """The ``persistence`` object of ``ping`` (schema ``PersistenceHealth``)."""

        def when(seconds: float | None) -> str | None:
            return None if seconds is None else iso_utc(seconds)

        return {
            "status": self.status,
            "path": self.path,
            "last_good_save": when(self.last_good_save),
            "failing_since": when(self.failing_since),
            "last_failure": when(self.last_failure),
            "last_error": None if self.last_error is None else self.last_error.to_json(),
            "consecutive_failures": self.consecutive_failures,
            "unsaved_changes": unsaved_changes,
        }

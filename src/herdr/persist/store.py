"""The session files on disk: atomic saves, careful loads, backups of files we cannot use.

A crash (or SIGKILL, or power loss) at any instant must leave either the old or the
new ``session.json``, never a torn one (`files.atomic_write`). A file we cannot use
(corrupt, or from a newer herdr) is copied to ``session-backups/`` before anything
may replace it; if even that copy fails, saving stays blocked so the file is never
overwritten silently. A write failure (read-only disk) raises `PersistWriteError` and
leaves the previous file in place; `saver.SaveFailureLatch` keeps the log to one line.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from msgspec import Struct

from herdr.persist import history as hist
from herdr.persist import snapshot as snap
from herdr.persist.errors import PersistWriteError, SnapshotFormatError, SnapshotVersionError
from herdr.persist.files import TEMP_SUFFIX, atomic_write

log = logging.getLogger("herdr.persist")

SESSION_FILE = "session.json"
HISTORY_FILE = hist.HISTORY_FILE
BACKUP_DIR = "session-backups"
KEEP_BACKUPS = 3
_BACKUP_RE = re.compile(r"^session-(\d{8}T\d{6}\.\d{6})Z-([a-z_]+)\.json$")
_STAMP_FORMAT = "%Y%m%dT%H%M%S"

LoadStatus = Literal["loaded", "missing", "corrupt", "newer", "unreadable"]


# --------------------------------------------------------------------------- backups


def backup_bytes(
    backup_dir: Path, data: bytes, reason: str, *, now: float, keep: int = KEEP_BACKUPS
) -> Path:
    """Save `data` as ``session-<UTC time>Z-<reason>.json`` and keep the newest `keep`.

    Names sort chronologically; a clock that stepped back still yields a name after
    the newest existing backup, so rotation never deletes the copy just made.
    """
    stamp = int(now * 1_000_000)
    try:
        existing = list_backups(backup_dir)
    except OSError as err:
        raise PersistWriteError(backup_dir, err) from err
    if existing:
        stamp = max(stamp, _stamp_of(existing[-1]) + 1)
    path = backup_dir / f"session-{_format_stamp(stamp)}Z-{reason}.json"
    written = atomic_write(path, data)
    try:
        rotate_backups(backup_dir, keep)
    except OSError as err:  # the copy exists; an old one lingering is harmless
        log.warning("cannot rotate %s: %s", backup_dir, err)
    return written


def list_backups(backup_dir: Path) -> list[Path]:
    """Our backup files, oldest first (other files in the directory are left alone)."""
    try:
        names = os.listdir(backup_dir)
    except FileNotFoundError:
        return []
    return [backup_dir / n for n in sorted(names) if _BACKUP_RE.match(n)]


def rotate_backups(backup_dir: Path, keep: int = KEEP_BACKUPS) -> list[Path]:
    """Delete all but the newest `keep` backups; returns what was deleted."""
    backups = list_backups(backup_dir)
    doomed = backups[: max(0, len(backups) - keep)]
    for path in doomed:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return doomed


def _format_stamp(micros: int) -> str:
    seconds, frac = divmod(micros, 1_000_000)
    return datetime.fromtimestamp(seconds, UTC).strftime(_STAMP_FORMAT) + f".{frac:06d}"


def _stamp_of(path: Path) -> int:
    match = _BACKUP_RE.match(path.name)
    assert match is not None
    whole, frac = match.group(1).split(".")
    moment = datetime.strptime(whole, _STAMP_FORMAT).replace(tzinfo=UTC)
    return int(moment.timestamp()) * 1_000_000 + int(frac)


# --------------------------------------------------------------------------- the store


class LoadResult(Struct, frozen=True):
    """What start-up found. `snapshot` is None for every status but ``loaded``: the
    server then starts empty and logs `message` (already logged here at WARNING)."""

    status: LoadStatus
    snapshot: snap.SessionSnapshot | None = None
    message: str | None = None
    backup: Path | None = None  # where the unusable bytes were copied

    @property
    def start_empty(self) -> bool:
        return self.snapshot is None


class SessionStore:
    """``session.json`` and ``session-history.json`` of one session data dir."""

    def __init__(self, data_dir: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.data_dir = data_dir
        self.path = data_dir / SESSION_FILE
        self.history_path = data_dir / HISTORY_FILE
        self.backup_dir = data_dir / BACKUP_DIR
        self._clock = clock  # wall clock: backup names only
        self._unprotected: str | None = None  # reason of an unusable file not yet backed up

    @property
    def blocked(self) -> bool:
        """True while an unusable ``session.json`` could not be backed up: saving would
        destroy it, so `save` first retries the backup."""
        return self._unprotected is not None

    def load(self) -> LoadResult:
        """Read the snapshot. Unusable files are backed up (never deleted or rewritten)."""
        with contextlib.suppress(OSError):
            self.path.with_name(self.path.name + TEMP_SUFFIX).unlink()  # a crash leftover
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return LoadResult("missing")
        except OSError as err:
            self._unprotected = "unreadable"
            message = (
                f"cannot read {self.path} ({err.strerror or err}); starting empty "
                "and not saving over it until it can be backed up"
            )
            log.warning(message, extra={"event": "persist.load_failed", "path": str(self.path)})
            return LoadResult("unreadable", message=message)
        try:
            return LoadResult("loaded", snap.decode(data))
        except SnapshotVersionError as err:
            return self._reject("newer", data, str(err))
        except SnapshotFormatError as err:
            return self._reject("corrupt", data, str(err))

    def quarantine(self, reason: str, detail: str) -> LoadResult:
        """Back up the current file after a later stage (restore) found it unusable."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return LoadResult("missing")
        except OSError as err:
            self._unprotected = reason
            return LoadResult("unreadable", message=f"cannot read {self.path}: {err}")
        return self._reject("corrupt", data, detail, reason=reason)

    def _reject(
        self, status: LoadStatus, data: bytes, detail: str, *, reason: str | None = None
    ) -> LoadResult:
        reason = reason or status
        what = "is from a newer herdr" if status == "newer" else "is unusable"
        try:
            backup = backup_bytes(self.backup_dir, data, reason, now=self._clock())
        except PersistWriteError as err:
            self._unprotected = reason
            message = (
                f"{self.path} {what} ({detail}) and could not be backed up ({err}); "
                "starting empty and not saving over it"
            )
            log.error(message, extra={"event": "persist.backup_failed", "path": str(self.path)})
            return LoadResult(status, message=message)
        message = f"{self.path} {what} ({detail}); copied to {backup}; starting empty"
        log.warning(
            message,
            extra={"event": "persist.backup", "path": str(self.path), "backup": str(backup)},
        )
        return LoadResult(status, message=message, backup=backup)

    def _protect(self) -> None:
        """Retry the backup of an unusable file before the first save may replace it."""
        if self._unprotected is None:
            return
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            self._unprotected = None
            return
        except OSError as err:
            raise PersistWriteError(self.path, err) from err
        backup_bytes(self.backup_dir, data, self._unprotected, now=self._clock())
        self._unprotected = None

    def save(
        self,
        snapshot: snap.SessionSnapshot,
        history: Mapping[str, hist.PaneHistory] | None = None,
        *,
        limits: hist.HistoryLimits = hist.DEFAULT_LIMITS,
    ) -> None:
        """Write the snapshot, then the history; ``history=None`` (pane_history off)
        removes any history file, since it may hold secrets. Raises `PersistWriteError`
        (the previous files stay) or `SnapshotFormatError` (a bug: invalid snapshot)."""
        data = snap.encode(snapshot)
        self._protect()
        atomic_write(self.path, data)
        if history is None:
            hist.remove_history(self.history_path)
        else:
            hist.write_history(self.history_path, history, limits)

    def load_history(
        self, limits: hist.HistoryLimits = hist.DEFAULT_LIMITS
    ) -> dict[str, hist.PaneHistory]:
        """Pane history by public pane id; empty when absent or unusable (logged)."""
        return hist.read_history(self.history_path, limits)

    def remove_history(self) -> bool:
        """Delete the history file (pane_history turned off)."""
        return hist.remove_history(self.history_path)

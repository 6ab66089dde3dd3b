"""Persistence errors: each failure the server must tell apart has its own type.

A newer file is not a corrupt file (the user may downgrade back), and a failed write
is not a bug (the disk may be read-only): the caller reacts differently to each.
"""

from __future__ import annotations

from pathlib import Path


class PersistError(Exception):
    """Base class for every persistence failure."""


class SnapshotFormatError(PersistError, ValueError):
    """A document that is not valid JSON or breaks the schema; `path` names the spot."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class SnapshotVersionError(PersistError, ValueError):
    """A document written by a newer herdr: never guess at its meaning."""

    def __init__(self, found: int, supported: int, what: str = "session snapshot") -> None:
        super().__init__(f"{what} version {found} is newer than supported {supported}")
        self.found = found
        self.supported = supported


class PersistWriteError(PersistError):
    """Writing a file failed; the previous file (if any) is untouched. `cause` has the errno."""

    def __init__(self, path: Path, cause: OSError) -> None:
        super().__init__(f"cannot write {path}: {cause.strerror or cause}")
        self.path = path
        self.cause = cause

"""Repositories the user told us to trust (``trust_repository``), kept across restarts.

git refuses a repository owned by someone else ("dubious ownership") unless it is a
``safe.directory``. herdr's ``trust_repository`` passes ``-c safe.directory=<dir>`` for
one request; we also remember each directory so trusting a repository once is enough.
The file is ``<state_dir>/trusted-repositories.json``, written atomically; an unreadable
file counts as empty (it only widens what needs the flag again, never narrows it).
"""

from __future__ import annotations

import logging
from pathlib import Path

import orjson

from herdr.persist.errors import PersistWriteError
from herdr.persist.files import atomic_write

log = logging.getLogger("herdr.server.trusted_repos")

FILE_NAME = "trusted-repositories.json"
MAX_ENTRIES = 1024
MAX_FILE_BYTES = 1 << 20


class TrustedRepos:
    """The trusted directories of one server (read once, written on every change)."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE_NAME
        self._dirs: list[str] | None = None

    def _load(self) -> list[str]:
        if self._dirs is None:
            self._dirs = _read(self.path)
        return self._dirs

    def __contains__(self, directory: object) -> bool:
        return directory in self._load()

    def add(self, directories: set[str]) -> None:
        """Remember `directories`; a failed write is logged (the request still succeeded)."""
        dirs = self._load()
        new = sorted(d for d in directories if d not in dirs)
        if not new:
            return
        dirs.extend(new)
        del dirs[:-MAX_ENTRIES]
        data = orjson.dumps({"version": 1, "directories": dirs}, option=orjson.OPT_INDENT_2)
        try:
            atomic_write(self.path, data + b"\n")
        except PersistWriteError as err:
            log.warning("cannot save trusted repositories: %s", err)


def _read(path: Path) -> list[str]:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as err:
        log.warning("cannot read %s: %s", path, err)
        return []
    try:
        doc = orjson.loads(raw) if len(raw) <= MAX_FILE_BYTES else None
    except orjson.JSONDecodeError:
        doc = None
    items = doc.get("directories") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        log.warning("ignoring %s: not a trusted-repositories file", path)
        return []
    return [d for d in items if isinstance(d, str) and d.startswith("/")][-MAX_ENTRIES:]

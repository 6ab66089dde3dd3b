"""Which release notes and product announcements the user has dismissed.

One small JSON file per user (``$XDG_STATE_HOME/herdr/dismissals.json``, mode 0600,
written atomically): the server records a ``release_notes.dismiss`` /
``product_announcement.dismiss`` there and the TUI reads it to decide whether to show
the "what's new" hint. Versions and ids are only ever values inside the file, never
parts of a path. An unreadable or foreign file reads as "nothing dismissed": the worst
case is a hint shown once more, never a failure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from msgspec import Struct

from herdr.persist.files import atomic_write

FILE_NAME: Final = "dismissals.json"
FORMAT: Final = 1
KEEP: Final = 32  # newest entries kept per kind: a user dismisses a few per release
_MAX_FILE_BYTES: Final = 64 * 1024


class Dismissed(Struct, frozen=True):
    release_notes: tuple[str, ...] = ()
    announcements: tuple[tuple[str, str], ...] = ()  # (version, id)

    def with_release_notes(self, version: str) -> Dismissed:
        kept = tuple(v for v in self.release_notes if v != version)
        return Dismissed((*kept, version)[-KEEP:], self.announcements)

    def with_announcement(self, version: str, ident: str) -> Dismissed:
        key = (version, ident)
        kept = tuple(a for a in self.announcements if a != key)
        return Dismissed(self.release_notes, (*kept, key)[-KEEP:])


def parse(data: bytes) -> Dismissed:
    """The file's contents; anything malformed is dropped, never raised."""
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return Dismissed()
    if not isinstance(doc, dict):
        return Dismissed()
    notes = doc.get("release_notes")
    notes_ok = tuple(v for v in notes if isinstance(v, str)) if isinstance(notes, list) else ()
    found: list[tuple[str, str]] = []
    items = doc.get("product_announcements")
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict):
            version, ident = item.get("version"), item.get("id")
            if isinstance(version, str) and isinstance(ident, str):
                found.append((version, ident))
    return Dismissed(notes_ok[-KEEP:], tuple(found[-KEEP:]))


def render(dismissed: Dismissed) -> bytes:
    doc: dict[str, Any] = {
        "format": FORMAT,
        "release_notes": list(dismissed.release_notes),
        "product_announcements": [
            {"version": version, "id": ident} for version, ident in dismissed.announcements
        ],
    }
    return (json.dumps(doc, indent=2) + "\n").encode()


def release_hint(dismissed: Dismissed | None, version: str) -> str | None:
    """The TUI's one-line "what's new" hint for ``version``, or None.

    None when this version's notes were dismissed, and on a first install (no file
    yet: there is nothing new to a new user); herdr shows its notes after an upgrade.
    """
    if dismissed is None or version in dismissed.release_notes:
        return None
    return f"herdr {version}: what's new is in CHANGELOG.md (shown once)"


def load_optional(state_dir: Path) -> Dismissed | None:
    """The file's contents, or None when there is no file (a first run)."""
    try:
        with (state_dir / FILE_NAME).open("rb") as handle:
            data = handle.read(_MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError:
        return Dismissed()
    return Dismissed() if len(data) > _MAX_FILE_BYTES else parse(data)


def load(state_dir: Path) -> Dismissed:
    """What ``state_dir``'s file says (missing, unreadable, huge: nothing dismissed)."""
    return load_optional(state_dir) or Dismissed()


def save(state_dir: Path, dismissed: Dismissed) -> None:
    """Replace the file atomically (0600); raises ``PersistWriteError``."""
    atomic_write(state_dir / FILE_NAME, render(dismissed))

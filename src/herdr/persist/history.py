"""Pane screen history (``[experimental] pane_history``): ``session-history.json``.

Off by default because pane output may hold secrets, tokens and prompts; so the file
is 0600, bounded per pane (newest lines win), kept out of ``session.json`` and out of
backups, and deleted when the option is off. Keys are public pane ids (``w1:p3``),
which a restore preserves, so the file pairs with the snapshot without positions.
Encode/decode are pure; the three file helpers at the end do the I/O.

Document (version 1)::

    {"version": 1, "panes": {"w1:p1": {"ansi": "$ make\\r\\n\\u001b[32mok\\u001b[0m", "lines": 2}}}
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import orjson
from msgspec import Struct

from herdr.persist import _reader as r
from herdr.persist.errors import SnapshotFormatError, SnapshotVersionError
from herdr.persist.files import atomic_write, remove_file
from herdr.persist.snapshot import check_version
from herdr.runtime import ids

log = logging.getLogger("herdr.persist")

HISTORY_FILE = "session-history.json"
HISTORY_VERSION = 1


class HistoryLimits(Struct, frozen=True):
    """Per-pane bounds; the scrollback replayed on restore, not the whole scrollback."""

    max_lines: int = 5000
    max_bytes: int = 512 * 1024  # UTF-8 bytes of the ANSI text


DEFAULT_LIMITS = HistoryLimits()


class PaneHistory(Struct, frozen=True):
    """ANSI text of a pane's rows (oldest first) and how many lines it has."""

    ansi: str
    lines: int


def count_lines(text: str) -> int:
    """Lines as ``str.lines()`` counts them: a trailing newline adds none."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def bound(text: str, limits: HistoryLimits = DEFAULT_LIMITS) -> PaneHistory:
    """Keep the newest lines within `limits`, cutting at line starts where possible.

    A single line longer than `max_bytes` keeps its tail from a character boundary
    (an escape sequence cut there shows as a few literal characters, no worse).
    """
    if limits.max_lines <= 0 or limits.max_bytes <= 0:
        return PaneHistory("", 0)
    start = 0
    pos = len(text) - 1 if text.endswith("\n") else len(text)
    for _ in range(limits.max_lines):  # walk back to the start of the oldest kept line
        nl = text.rfind("\n", 0, pos)
        if nl < 0:
            start = 0
            break
        start, pos = nl + 1, nl
    kept = text[start:]
    try:
        data = kept.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: not representable in JSON
        data = kept.encode("utf-8", "replace")
        kept = data.decode("utf-8")
    if len(data) > limits.max_bytes:
        cut = len(data) - limits.max_bytes
        tail = data[cut:]
        nl = tail.find(b"\n")
        if data[cut - 1] != 0x0A and 0 <= nl < len(tail) - 1:  # not already at a line start
            tail = tail[nl + 1 :]
        kept = tail.decode("utf-8", "ignore")  # drops a split leading character
    return PaneHistory(kept, count_lines(kept))


def encode(panes: Mapping[str, PaneHistory], limits: HistoryLimits = DEFAULT_LIMITS) -> bytes:
    """Serialize, re-applying the bounds (callers may pass raw scrollback)."""
    doc: dict[str, object] = {}
    for pane_id, entry in sorted(panes.items()):
        if ids.parse_pane_id(pane_id) is None:
            raise SnapshotFormatError(r.key_path("$.panes", pane_id), "not a canonical pane id")
        kept = bound(entry.ansi, limits)
        doc[pane_id] = {"ansi": kept.ansi, "lines": kept.lines}
    return orjson.dumps(
        {"version": HISTORY_VERSION, "panes": doc}, option=orjson.OPT_APPEND_NEWLINE
    )


def decode(data: bytes | str, limits: HistoryLimits = DEFAULT_LIMITS) -> dict[str, PaneHistory]:
    """Strict parse; entries are re-bounded so a hand-edited file cannot flood a pane."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise SnapshotFormatError("$", f"not valid JSON: {err}") from None
    check_version(raw, HISTORY_VERSION, "session history")
    doc = r.obj(raw, "$")
    panes = r.obj(r.field(doc, "panes", "$"), "$.panes")
    out: dict[str, PaneHistory] = {}
    for pane_id, entry_raw in panes.items():
        path = r.key_path("$.panes", pane_id)
        if ids.parse_pane_id(pane_id) is None:
            r.fail(path, "not a canonical pane id")
        entry = r.obj(entry_raw, path)
        ansi = r.string(r.field(entry, "ansi", path), f"{path}.ansi")
        r.integer(r.field(entry, "lines", path), f"{path}.lines")
        out[pane_id] = bound(ansi, limits)
    return out


# --------------------------------------------------------------------------- files


def write_history(
    path: Path, panes: Mapping[str, PaneHistory], limits: HistoryLimits = DEFAULT_LIMITS
) -> None:
    """Atomically write the history file, mode 0600; raises `PersistWriteError`."""
    atomic_write(path, encode(panes, limits), mode=0o600)


def read_history(path: Path, limits: HistoryLimits = DEFAULT_LIMITS) -> dict[str, PaneHistory]:
    """History by pane id; {} when missing. An unusable file is logged and ignored, not
    backed up (copies of secrets are worse than a lost replay); the next save rewrites
    it. Restore never depends on it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as err:
        log.warning("cannot read %s (%s); no pane history restored", path, err)
        return {}
    try:
        return decode(data, limits)
    except (SnapshotFormatError, SnapshotVersionError) as err:
        log.warning("ignoring %s: %s", path, err, extra={"event": "persist.history_ignored"})
        return {}


def remove_history(path: Path) -> bool:
    """Delete the history file if present (option turned off); `PersistWriteError`."""
    return remove_file(path)

"""Frame diff → bytes for the host terminal, and the terminal's setup/restore (PURE).

Composed rows are compared as strings with the previous frame and only changed rows
are written (cursor to the row, the row, a reset), all inside synchronized output
(``CSI ?2026h … l``) so the host shows whole frames, never halves. Long runs of
default-style blanks become ECH + cursor-forward (or EL at the row's end) — fewer
bytes, and each row still covers its full width. A size change redraws everything.

The setup/restore sequences live here as data so the app can always put the host
terminal back — on exit, on a signal, on a crash — with one write.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from msgspec import Struct

from herdr.client.compose import Frame

SYNC_BEGIN = b"\x1b[?2026h"
SYNC_END = b"\x1b[?2026l"
HIDE_CURSOR = b"\x1b[?25l"
SHOW_CURSOR = b"\x1b[?25h"
SGR_RESET = b"\x1b[0m"
CLEAR_SCREEN = b"\x1b[2J"

# Blank runs after a reset: worth replacing with ECH + CUF from this many cells on.
_MIN_ERASE = 12
_BLANKS = re.compile(r"\x1b\[0?m( {" + str(_MIN_ERASE) + ",})")
_PROBE = ("m" + " " * _MIN_ERASE, "m" + " " * 4)


def _compress(row: str) -> str:
    """Default-style blank runs → ``ECH n`` + ``CUF n``; a trailing run → ``EL``.

    ECH/EL erase with the current (reset) background and leave the cells blank, which
    is exactly what the spaces would have drawn. EL only at the end: inside the row
    it would wipe the neighbouring pane.
    """
    tail = ""
    body = row.rstrip(" ")
    if len(row) - len(body) >= 4 and body.endswith(("\x1b[0m", "\x1b[m")):
        tail = "\x1b[K"
    else:
        body = row
    if _PROBE[0] not in body:
        return body + tail
    parts = _BLANKS.split(body)
    out = [parts[0]]
    for i in range(1, len(parts), 2):
        n = len(parts[i])
        out.append(f"\x1b[0m\x1b[{n}X\x1b[{n}C")
        out.append(parts[i + 1])
    out.append(tail)
    return "".join(out)


def render(
    prev: Frame | None, new: Frame, *, force: bool = False, rows: Collection[int] | None = None
) -> bytes:
    """Bytes that turn the screen showing ``prev`` into ``new``.

    ``prev=None``, a different size, or ``force`` (focus regained, after a foreign
    write) redraw every row. Nothing changed → ``b""``. ``rows``: the only rows that
    may differ, when the caller knows (a patched frame); the bytes are the same.
    """
    same_size = prev is not None and prev.cols == new.cols and len(prev.rows) == len(new.rows)
    if rows is not None and not force and same_size:
        assert prev is not None
        return _some_rows(prev, new, rows)
    full = force or prev is None or prev.cols != new.cols or prev.height != new.height
    parts: list[str] = []
    if full:
        parts.append("\x1b[0m\x1b[2J")
        for y, row in enumerate(new.rows):
            parts.append(f"\x1b[{y + 1};1H{_compress(row)}\x1b[0m")
    else:
        assert prev is not None
        old_rows = prev.rows
        new_rows = new.rows
        for y in range(len(new_rows)) if rows is None else sorted(set(rows)):
            row = new_rows[y]
            old = old_rows[y]
            if row is not old and row != old:
                parts.append(f"\x1b[{y + 1};1H{_compress(row)}\x1b[0m")
    cursor_moved = full or prev is None or prev.cursor != new.cursor
    if not parts and not cursor_moved:
        return b""
    if new.cursor is not None:
        x, y = new.cursor
        parts.append(f"\x1b[{y + 1};{x + 1}H\x1b[?25h")
    body = "".join(parts).encode("utf-8", "replace")
    return SYNC_BEGIN + HIDE_CURSOR + SGR_RESET + body + SYNC_END


_FRAME_START = SYNC_BEGIN + HIDE_CURSOR + SGR_RESET


def _some_rows(prev: Frame, new: Frame, rows: Collection[int]) -> bytes:
    """:func:`render` of a same-size frame where only ``rows`` may differ (the typing
    path: usually one row, so nothing else is compared)."""
    old_rows = prev.rows
    new_rows = new.rows
    parts: list[str] = []
    for y in sorted(set(rows)) if len(rows) > 1 else rows:
        row = new_rows[y]
        old = old_rows[y]
        if row is not old and row != old:
            parts.append(f"\x1b[{y + 1};1H{_compress(row)}\x1b[0m")
    cursor = new.cursor
    if not parts and prev.cursor == cursor:
        return b""
    if cursor is not None:
        parts.append(f"\x1b[{cursor[1] + 1};{cursor[0] + 1}H\x1b[?25h")
    return _FRAME_START + "".join(parts).encode("utf-8", "replace") + SYNC_END


# --------------------------------------------------------------------------- host modes

ALT_SCREEN_ON = b"\x1b[?1049h"
ALT_SCREEN_OFF = b"\x1b[?1049l"
MOUSE_ON = b"\x1b[?1000h\x1b[?1002h\x1b[?1006h"  # clicks, drags, SGR coordinates
MOUSE_OFF = b"\x1b[?1006l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1015l\x1b[?1005l"
BRACKETED_PASTE_ON = b"\x1b[?2004h"
BRACKETED_PASTE_OFF = b"\x1b[?2004l"
FOCUS_EVENTS_ON = b"\x1b[?1004h"
FOCUS_EVENTS_OFF = b"\x1b[?1004l"
KITTY_KEYBOARD_POP_ALL = b"\x1b[<99u"  # pops more entries than we ever push
MODIFY_OTHER_KEYS_OFF = b"\x1b[>4m"
CURSOR_SHAPE_DEFAULT = b"\x1b[0 q"


def kitty_keyboard_push(flags: int) -> bytes:
    """Push kitty keyboard ``flags`` (mirror of what the focused pane's program set)."""
    return f"\x1b[>{max(0, flags) & 31}u".encode()


def kitty_keyboard_pop(count: int = 1) -> bytes:
    return f"\x1b[<{max(1, count)}u".encode()


def modify_other_keys(level: int) -> bytes:
    """xterm modifyOtherKeys level 0/1/2 (``CSI >4;Nm``)."""
    return f"\x1b[>4;{min(2, max(0, level))}m".encode()


def keyboard_mirror(before: tuple[int, int], after: tuple[int, int]) -> bytes:
    """Bytes that move the host from (kitty flags, modifyOtherKeys) ``before`` to ``after``.

    Kitty flags are one entry this client pushes (replaced on change, popped at 0), so
    the host's own stack is left as found; :func:`restore_sequence` pops it on exit.
    """
    out = b""
    if before[0] != after[0]:
        if before[0]:
            out += kitty_keyboard_pop()
        if after[0]:
            out += kitty_keyboard_push(after[0])
    if before[1] != after[1]:
        out += modify_other_keys(after[1])
    return out


class HostModes(Struct, frozen=True):
    """Which host terminal modes the client turns on while attached."""

    alt_screen: bool = True
    mouse: bool = True
    bracketed_paste: bool = True
    focus_events: bool = True
    kitty_flags: int = 0  # 0: keep legacy keys (raw bytes then suit legacy panes)


DEFAULT_MODES = HostModes()


def setup_sequence(modes: HostModes = DEFAULT_MODES) -> bytes:
    """Everything to write on attach (after raw mode is set)."""
    out = [ALT_SCREEN_ON] if modes.alt_screen else []
    out += [HIDE_CURSOR, SGR_RESET, CLEAR_SCREEN]
    if modes.mouse:
        out.append(MOUSE_ON)
    if modes.bracketed_paste:
        out.append(BRACKETED_PASTE_ON)
    if modes.focus_events:
        out.append(FOCUS_EVENTS_ON)
    if modes.kitty_flags:
        out.append(kitty_keyboard_push(modes.kitty_flags))
    return b"".join(out)


def restore_sequence(modes: HostModes | None = None) -> bytes:
    """Undo every mode this client may have set, whatever ``modes`` was.

    Unconditional on purpose: after a crash nobody knows which mirrors (kitty flags,
    modifyOtherKeys) were active, and turning off a mode that is off is harmless.
    ``modes`` only decides whether to leave the alternate screen.
    """
    alt = True if modes is None else modes.alt_screen
    out = [
        SYNC_END,
        KITTY_KEYBOARD_POP_ALL,
        MODIFY_OTHER_KEYS_OFF,
        MOUSE_OFF,
        BRACKETED_PASTE_OFF,
        FOCUS_EVENTS_OFF,
        SGR_RESET,
        CURSOR_SHAPE_DEFAULT,
        SHOW_CURSOR,
    ]
    if alt:
        out.append(ALT_SCREEN_OFF)
    return b"".join(out)

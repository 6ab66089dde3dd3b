"""Read sources over a pane's emulator (herdr-spec §3.3, detection-spec §3.1).

``detection`` is what agent detection sees: the bottom rows of the whole buffer,
independent of any scroll position. ``visible`` is the screen, ``recent`` the last
N rendered rows including scrollback, ``recent_unwrapped`` the same with soft wraps
joined. Text post-processing is kept in small pure functions so it is tested
without an emulator.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from herdr.detect.agents import WHITE_SPACE, rust_trim

if TYPE_CHECKING:
    from herdr.terminal.emulator import Emulator

DEFAULT_RECENT_LINES = 80
DEFAULT_DETECTION_ROWS = 24
KITTY_PLACEHOLDER = "\U0010eeee"


# -- pure helpers ----------------------------------------------------------------


def blank_kitty_placeholders(row: str) -> str:
    """Kitty Unicode-placeholder cells (U+10EEEE + diacritics) read as one space."""
    if KITTY_PLACEHOLDER not in row:
        return row
    out: list[str] = []
    skipping = False
    for ch in row:
        if ch == KITTY_PLACEHOLDER:
            out.append(" ")
            skipping = True
        elif skipping and unicodedata.category(ch).startswith("M"):
            continue
        else:
            skipping = False
            out.append(ch)
    return "".join(out)


def clean_row(row: str) -> str:
    """One screen row as detection text: placeholders blanked, trailing whitespace gone."""
    return blank_kitty_placeholders(row).rstrip(WHITE_SPACE)


def drop_trailing_blank_rows(rows: Sequence[str]) -> list[str]:
    """Remove rows at the end whose trimmed text is empty."""
    end = len(rows)
    while end and not rust_trim(rows[end - 1]):
        end -= 1
    return list(rows[:end])


def rows_to_text(rows: Iterable[str], lines: int | None = None) -> str:
    """Clean rows, drop trailing blank ones, keep the last ``lines``; join + final ``\\n``.

    Returns ``""`` when nothing remains (the spec's empty snapshot).
    """
    kept = drop_trailing_blank_rows([clean_row(r) for r in rows])
    if lines is not None:
        kept = kept[max(0, len(kept) - lines) :]
    return "\n".join(kept) + "\n" if kept else ""


def split_plain(text: str) -> list[str]:
    """Rows of a plain formatter result (``\\n`` separated, no terminator)."""
    return text.split("\n") if text else []


def last_ansi_lines(text: str, lines: int) -> str:
    """The last ``lines`` rows of a ``\\r\\n``-separated ANSI text (styles are per row)."""
    if lines <= 0:
        return ""
    rows = text.split("\r\n")
    return "\r\n".join(rows[max(0, len(rows) - lines) :])


# -- read sources ------------------------------------------------------------------


def detection_text(emulator: Emulator) -> str:
    """detection-spec §3.1: the last ``rows`` rows of scrollback+screen, cleaned.

    Unlike ``recent`` this window is the bottom of the buffer as is (blank rows below
    the cursor included), so detection sees the screen an agent actually drew.
    """
    rows = emulator.rows if emulator.rows > 0 else DEFAULT_DETECTION_ROWS
    return _recent(emulator, max(1, rows), ansi=False, unwrap=False, skip_blank_tail=False)


def visible(emulator: Emulator, lines: int | None = None, *, ansi: bool = False) -> str:
    """The screen; with ``lines``, only its last ``lines`` (non-trailing-blank) rows."""
    if ansi:
        text = emulator.active_text(ansi=True)
        return text if lines is None else last_ansi_lines(text, lines)
    return rows_to_text(split_plain(emulator.active_text()), lines)


def recent(emulator: Emulator, lines: int = DEFAULT_RECENT_LINES, *, ansi: bool = False) -> str:
    """The last ``lines`` rendered rows of scrollback+screen, soft wraps kept as rows.

    Blank rows after the last row with text (the empty screen below the cursor) are
    not rendered output and do not count toward ``lines`` (herdr-spec §3.3).
    """
    return _recent(emulator, lines, ansi=ansi, unwrap=False)


def recent_unwrapped(
    emulator: Emulator, lines: int = DEFAULT_RECENT_LINES, *, ansi: bool = False
) -> str:
    """Same rows as ``recent``, with soft-wrapped rows joined into logical lines."""
    return _recent(emulator, lines, ansi=ansi, unwrap=True)


def _recent(
    emulator: Emulator, lines: int, *, ansi: bool, unwrap: bool, skip_blank_tail: bool = True
) -> str:
    if lines <= 0:
        return ""
    if skip_blank_tail:
        start, kept = _text_tail(emulator, lines)
        if not kept:
            return ""
        end = start + len(kept) - 1
        if not ansi and not unwrap and (len(kept) >= lines or start == 0):
            return rows_to_text(kept[-lines:])  # the window already holds the answer
    else:
        end = emulator.total_rows - 1
    text = emulator.screen_text(max(0, end - lines + 1), end, ansi=ansi, unwrap=unwrap)
    if ansi:
        return text
    return rows_to_text(split_plain(text))


def _text_tail(emulator: Emulator, lines: int) -> tuple[int, list[str]]:
    """``(start, rows)``: cleaned rows from ``start`` to the last row with text.

    The first window is ``lines`` rows above the cursor row plus the rows below it
    (the blank tail is almost always below the cursor), widened upwards only while
    everything in it is blank. ``rows`` is empty when the whole buffer is blank.
    """
    total = emulator.total_rows
    window = lines + max(0, emulator.rows - emulator.cursor[1])
    while True:
        start = max(0, total - window)
        plain = split_plain(emulator.screen_text(start, total - 1))
        kept = drop_trailing_blank_rows([clean_row(r) for r in plain])
        if kept or start == 0:
            return start, kept
        window *= 2

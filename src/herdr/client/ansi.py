"""ANSI-aware width and clipping helpers for composing frames (PURE).

Pane rows arrive already styled by the server's emulator (SGR only, one row per
string). The client must cut them to a pane's width by *display cells*, keep their
styles, never split a wide character at a boundary, and never let anything but SGR
reach the host terminal: a pane must not be able to move our cursor. Everything here
works on ``str`` and is cached where the same row is clipped frame after frame.
"""

from __future__ import annotations

import re
from functools import lru_cache

RESET = "\x1b[0m"

# One escape sequence or one control character; SGR is recognised separately.
_TOKEN = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (SGR among them)
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, terminated or not
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS / SOS / PM / APC
    r"|\x1b[ -/]*[0-~]?"  # other escapes (or a lone ESC)
    r"|[\x00-\x1f\x7f-\x9f]"  # C0 / DEL / C1 controls
)
_SGR = re.compile(r"\x1b\[[0-9;:]*m\Z")
_RESETS = frozenset(("\x1b[m", "\x1b[0m"))


# Box drawing, block elements and braille (borders, bars, spinners): one cell each, so a
# frame of them never needs wcwidth's tables (imported on the first other non-ASCII).
_NARROW_RANGES = ((0x2500, 0x259F), (0x2800, 0x28FF))
# The other characters of herdr's own chrome (sidebar dots and marks, separators, the
# ellipsis): one cell each, so the first frame does not import wcwidth (~25 ms) for them.
_NARROW_CHROME = frozenset("·●○◉—…→›▸✓")


@lru_cache(maxsize=4096)
def _wide_char_width(ch: str) -> int:
    if ch in _NARROW_CHROME:
        return 1
    code = ord(ch)
    if any(low <= code <= high for low, high in _NARROW_RANGES):
        return 1
    from wcwidth import wcwidth

    w = wcwidth(ch)
    return w if w > 0 else 0


def char_width(ch: str) -> int:
    """Cells one code point takes: 0 for combining/control, 1 or 2 otherwise."""
    if " " <= ch < "\x7f":
        return 1
    return _wide_char_width(ch)


def text_width(text: str) -> int:
    """Display width of plain text (no escapes; controls count as zero)."""
    if text.isascii() and text.isprintable():
        return len(text)
    return sum(char_width(ch) for ch in text)


def strip_ansi(text: str) -> str:
    """The printable text of an ANSI string (escapes and controls removed)."""
    return _TOKEN.sub("", text)


def ansi_width(text: str) -> int:
    """Display width of an ANSI string."""
    return text_width(strip_ansi(text))


def sanitize(text: str) -> str:
    """Plain text safe to draw: escapes and control characters removed."""
    if text.isascii() and text.isprintable():
        return text
    return strip_ansi(text)


def truncate(text: str, width: int, ellipsis: str = "…") -> str:
    """Plain ``text`` cut to at most ``width`` cells, with ``ellipsis`` when cut."""
    if width <= 0:
        return ""
    text = sanitize(text)
    if text_width(text) <= width:
        return text
    room = width - text_width(ellipsis)
    if room < 0:
        return _take(text, width)[0]
    return _take(text, room)[0] + ellipsis


def fit(text: str, width: int, ellipsis: str = "…") -> str:
    """Plain ``text`` truncated and padded with spaces to exactly ``width`` cells."""
    cut = truncate(text, width, ellipsis)
    return cut + " " * (width - text_width(cut))


def _take(text: str, width: int) -> tuple[str, int]:
    """The longest prefix of plain ``text`` that fits ``width`` cells, and its width.

    Zero-width code points after a kept character stay with it; a wide character
    that would cross the boundary is left out (the caller pads).
    """
    if text.isascii():
        part = text[:width]
        return part, len(part)
    used = 0
    end = 0
    for index, ch in enumerate(text):
        w = char_width(ch)
        if used + w > width:
            break
        used += w
        end = index + 1
    return text[:end], used


def slice_ansi(row: str, start: int, width: int) -> str:
    """Cells ``[start, start+width)`` of an ANSI row, exactly ``width`` cells wide.

    Styles in force at ``start`` are re-emitted; only SGR survives; a wide character
    cut by either edge becomes spaces; the result ends with a reset followed by the
    padding, so trailing blanks are in the default style.
    """
    if width <= 0:
        return ""
    if start <= 0:
        return clip_ansi(row, width)
    return _slice(row, start, width)


@lru_cache(maxsize=16384)
def clip_ansi(row: str, width: int) -> str:
    """The first ``width`` cells of an ANSI row; see :func:`slice_ansi`."""
    if width <= 0:
        return ""
    if "\x1b" not in row and row.isascii() and row.isprintable():
        part = row[:width]
        return part + " " * (width - len(part)) if part else " " * width
    return _slice(row, 0, width)


def _slice(row: str, start: int, width: int) -> str:
    out: list[str] = []
    pending: list[str] = []  # SGR in force, seen while skipping the first `start` cells
    col = 0  # cells of the row consumed
    end = start + width
    styled = False
    kept_last = False  # whether the previous visible character was emitted
    done = False
    pos = 0
    length = len(row)
    while pos < length and not done:
        match = _TOKEN.search(row, pos)
        stop = match.start() if match else length
        for ch in row[pos:stop]:
            w = char_width(ch)
            if w == 0:
                if kept_last:
                    out.append(ch)  # combining mark / joiner on a kept character
                continue
            if col >= end:
                done = True
                break
            if col + w <= start:
                col += w
                kept_last = False
                continue
            if pending:
                out.extend(pending)
                pending.clear()
                styled = True
            if col < start:  # wide character cut by the left edge
                out.append(" " * (col + w - start))
                kept_last = False
            elif col + w > end:  # wide character cut by the right edge
                out.append(" " * (end - col))
                kept_last = False
            else:
                out.append(ch)
                kept_last = True
            col += w
        if match is None or done:
            break
        token = match.group()
        if _SGR.match(token):
            if col < start or (col == start and not out):
                if token in _RESETS:
                    pending.clear()
                else:
                    pending.append(token)
            elif col < end:
                out.append(token)
                styled = True
        pos = match.end()
    used = min(max(col - start, 0), width)
    if styled:
        out.append(RESET)
    if used < width:
        out.append(" " * (width - used))
    return "".join(out)


# --------------------------------------------------------------------------- colours

_NAMED = {
    "black": 0,
    "red": 1,
    "green": 2,
    "yellow": 3,
    "blue": 4,
    "magenta": 5,
    "cyan": 6,
    "white": 7,
    "gray": 8,
    "grey": 8,
}
_HEX = re.compile(r"#?([0-9a-fA-F]{6})\Z")
_RGB = re.compile(r"rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)\Z")


@lru_cache(maxsize=64)
def color_sgr(value: str, *, background: bool = False) -> str:
    """SGR parameters for a config colour (``cyan``, ``bright-red``, ``#89b4fa``,
    ``rgb(1,2,3)``, ``reset``); unknown values fall back to the default colour."""
    text = value.strip().lower().replace("_", "-")
    base = 40 if background else 30
    if text in ("", "reset", "default", "none"):
        return str(base + 9)
    bright = text.startswith(("bright-", "light-"))
    name = text.split("-", 1)[1] if bright else text
    if name in _NAMED:
        code = _NAMED[name]
        if code == 8:
            return str(base + 60)
        return str(base + code + (60 if bright else 0))
    hexm = _HEX.match(text)
    if hexm:
        h = hexm.group(1)
        r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
        return f"{base + 8};2;{r};{g};{b}"
    rgbm = _RGB.match(text)
    if rgbm:
        r, g, b = (min(255, int(v)) for v in rgbm.groups())
        return f"{base + 8};2;{r};{g};{b}"
    return str(base + 9)


def sgr(*params: str | int) -> str:
    """An SGR sequence from parameters (``sgr(1, 31)`` → ``ESC[1;31m``)."""
    return "\x1b[" + ";".join(str(p) for p in params if p != "") + "m"

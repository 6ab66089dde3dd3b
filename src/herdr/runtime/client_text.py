"""Text the server hands to a user's own terminal (PURE): toasts and window titles.

Whatever an API caller sends ends up drawn by the TUI or written into an OSC string on
the host terminal, so it is cut down to printable text here, once, before it leaves
the server: no C0/C1 control character (ESC, BEL, ST, CSI…) can survive to end a
string early or start a sequence of its own. The clients sanitise again on receipt.
"""

from __future__ import annotations

import unicodedata

NOTIFICATION_TITLE_MAX = 80
NOTIFICATION_BODY_MAX = 240
WINDOW_TITLE_MAX = 256  # herdr does not cap it; a title bar shows far less anyway

_BREAKS = frozenset("\n\r\t")
_INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _printable(ch: str) -> bool:
    """Not a control, format (bidi overrides, zero-width joiners…), surrogate,
    private-use or unassigned character."""
    return unicodedata.category(ch) not in _INVISIBLE


def notification_text(value: str, max_chars: int) -> str | None:
    """One line of at most ``max_chars`` characters: breaks and tabs become one space,
    runs of spaces collapse, other controls are dropped; ``None`` when nothing is left."""
    out: list[str] = []
    space = False
    for ch in value:
        if ch in _BREAKS or ch.isspace():
            if space:
                continue
            space = True
            out.append(" ")
        elif _printable(ch):
            space = False
            out.append(ch)
        else:
            continue
        if len(out) >= max_chars:
            break
    text = "".join(out).strip()
    return text or None


def window_title_text(value: str) -> str | None:
    """A window title: like a notification line (one line, printable only), at most
    :data:`WINDOW_TITLE_MAX` characters; ``None`` when nothing printable is left."""
    return notification_text(value, WINDOW_TITLE_MAX)

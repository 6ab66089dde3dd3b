"""Which output chunks may change a pane's input modes, and its modifyOtherKeys level (PURE).

Input modes (mouse, bracketed paste, kitty keyboard flags…) change only through escape
sequences, so the emulator can keep its answer while a pane prints plain text — the
common case when a keystroke is echoed. A sequence may be split across PTY reads
(``ESC [ ? 20`` then ``04h``), so a chunk that continues an unfinished sequence counts
too. libghostty-vt does not report xterm's modifyOtherKeys level (``CSI > 4 ; N m``),
which the TUI must mirror onto the host terminal, so it is tracked here as well.
"""

from __future__ import annotations

import re

_ESC = 0x1B
_MAX_CARRY = 64  # an unfinished sequence longer than this is a string (OSC/DCS payload)
_STRING_INTRODUCERS = b"]P_^X"
_CHARSET_INTRODUCERS = b"()*+-./#% "
# CSI > 4 ; N m sets the level (no N: 0); ESC c (full reset) clears it.
_MOK = re.compile(rb"\x1b\[>4(?:;(\d*))?m|\x1bc")


def _unfinished(tail: bytes) -> bool:
    """Whether ``tail`` (starting at an ESC) is an escape sequence still missing its end."""
    if len(tail) < 2:
        return True
    kind = tail[1]
    if kind == 0x5B:  # CSI: ends with a byte in 0x40..0x7E after the parameters
        return not any(0x40 <= b <= 0x7E for b in tail[2:])
    if kind in _STRING_INTRODUCERS:  # OSC, DCS, APC, PM, SOS: end with BEL or ST
        return b"\x07" not in tail and b"\x1b\\" not in tail
    if kind in _CHARSET_INTRODUCERS:
        return len(tail) < 3
    return False


class EscapeWatch:
    """Feed every output chunk; ``feed`` says whether the input modes may have changed."""

    def __init__(self) -> None:
        self.modify_other_keys = 0
        self._carry = b""  # an unfinished sequence at the end of the last chunk

    def feed(self, data: bytes) -> bool:
        if not self._carry and _ESC not in data and 0x9B not in data:
            return False
        scan = self._carry + data if self._carry else data
        for match in _MOK.finditer(scan):
            level = match.group(1)
            self.modify_other_keys = min(2, int(level)) if level else 0
        start = scan.rfind(b"\x1b")
        tail = scan[start:] if start >= 0 else b""
        self._carry = tail if tail and len(tail) <= _MAX_CARRY and _unfinished(tail) else b""
        return True

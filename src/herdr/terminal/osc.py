"""Passive OSC 0/2 title and OSC 9 progress capture (detection-spec §3.2).

Detection reads the last title and progress string an agent printed. This
tracker watches the raw PTY byte stream next to the emulator, so it keeps the
original's exact semantics (4096-byte body cap, control-character stripping,
256-character cap, clear on empty) whatever the VT library does with titles.

It is PURE (no I/O) and fast on the hot path: instead of a per-byte Python
loop it jumps between interesting bytes with C-level searches, so a chunk
without ``ESC ]``/``ESC P``/``ESC _``/``ESC ^``/``ESC X`` costs one regex scan.
Sequences split across chunks are handled by carrying the parser state over.
"""

from __future__ import annotations

import enum
import re

MAX_BODY_BYTES = 4096
MAX_CHARS = 256

# ESC followed by an OSC or string introducer; plain CSI/ESC sequences never match.
_INTRO = re.compile(rb"\x1b[\]P_^X]")
_OSC_STOP = re.compile(rb"[\x07\x1b]")


class _State(enum.Enum):
    GROUND = 0
    ESCAPE = 1  # saw ESC in ground
    OSC = 2  # inside an OSC body
    OSC_ESCAPE = 3  # saw ESC inside an OSC body
    STRING = 4  # inside DCS/APC/PM/SOS, skipped until ST
    STRING_ESCAPE = 5
    OVERSIZED = 6  # OSC body over the cap, skipped until BEL/ST
    OVERSIZED_ESCAPE = 7


_CC = re.compile("[\x00-\x1f\x7f-\x9f]")  # Unicode general category Cc


def sanitize_osc_text(payload: bytes, max_chars: int = MAX_CHARS) -> str:
    """Lossy UTF-8 decode, drop Unicode Cc characters, keep ``max_chars``."""
    return _CC.sub("", payload.decode("utf-8", "replace"))[:max_chars]


class OscTracker:
    """Remember the latest agent OSC title/progress seen in a byte stream."""

    __slots__ = ("_body", "_state", "progress", "terminal_title", "title")

    def __init__(self) -> None:
        self._state = _State.GROUND
        self._body = bytearray()
        self.title = ""  # OSC 0/2 evidence for detection ("" = none / cleared)
        self.progress = ""  # OSC 9 payload ("" = none)
        self.terminal_title = ""  # display copy; survives clear_retained()

    def clear_retained(self) -> None:
        """Forget title/progress evidence (a new foreground agent starts clean).

        The in-flight parse state is kept, like the original: a sequence that
        spans the agent change is attributed to the new agent.
        """
        self.title = ""
        self.progress = ""

    def feed(self, data: bytes) -> None:
        """Observe one chunk of PTY output."""
        if self._state is _State.GROUND and 0x1B not in data:
            return  # plain text (an echo, a line of output): no string can start here
        pos = 0
        end = len(data)
        while pos < end:
            state = self._state
            if state is _State.GROUND:
                m = _INTRO.search(data, pos)
                if m is None:
                    if data[end - 1] == 0x1B:
                        self._state = _State.ESCAPE
                    return
                pos = m.end()
                self._enter(data[m.start() + 1])
            elif state is _State.ESCAPE:
                self._after_escape(data[pos])
                pos += 1
            elif state is _State.OSC:
                pos = self._scan_osc(data, pos, end)
            elif state is _State.OSC_ESCAPE:
                byte = data[pos]
                pos += 1
                if byte == 0x5C:  # ST
                    self._finish()
                else:
                    self._body.append(0x1B)
                    self._body.append(byte)
                    self._state = _State.OSC
                    self._check_cap()
            elif state is _State.STRING or state is _State.OVERSIZED:
                stop = self._find_string_stop(data, pos, state is _State.OVERSIZED)
                if stop < 0:
                    return
                byte = data[stop]
                pos = stop + 1
                if byte == 0x07:
                    self._state = _State.GROUND
                elif state is _State.STRING:
                    self._state = _State.STRING_ESCAPE
                else:
                    self._state = _State.OVERSIZED_ESCAPE
            else:  # STRING_ESCAPE / OVERSIZED_ESCAPE
                byte = data[pos]
                pos += 1
                if byte == 0x5C:
                    self._state = _State.GROUND
                elif byte != 0x1B:
                    self._state = (
                        _State.STRING if state is _State.STRING_ESCAPE else _State.OVERSIZED
                    )

    def _after_escape(self, byte: int) -> None:
        if byte == 0x1B:
            return
        self._state = _State.GROUND
        self._enter(byte)

    def _enter(self, byte: int) -> None:
        if byte == 0x5D:  # ]
            self._body.clear()
            self._state = _State.OSC
        elif byte in (0x50, 0x5F, 0x5E, 0x58):  # P _ ^ X
            self._state = _State.STRING

    def _scan_osc(self, data: bytes, pos: int, end: int) -> int:
        m = _OSC_STOP.search(data, pos)
        stop = end if m is None else m.start()
        self._body += data[pos:stop]
        if self._check_cap():
            return stop
        if m is None:
            return end
        if data[stop] == 0x07:
            self._finish()
        else:
            self._state = _State.OSC_ESCAPE
        return stop + 1

    def _check_cap(self) -> bool:
        if len(self._body) > MAX_BODY_BYTES:
            self._body.clear()
            self._state = _State.OVERSIZED
            return True
        return False

    @staticmethod
    def _find_string_stop(data: bytes, pos: int, bel_ends: bool) -> int:
        if not bel_ends:
            return data.find(b"\x1b", pos)
        m = _OSC_STOP.search(data, pos)
        return -1 if m is None else m.start()

    def _finish(self) -> None:
        self._state = _State.GROUND
        body = bytes(self._body)
        self._body.clear()
        command, sep, payload = body.partition(b";")
        if not sep:
            return
        if command in (b"0", b"2"):
            title = sanitize_osc_text(payload) if payload else ""
            self.title = title
            self.terminal_title = title
        elif command == b"9":
            self.progress = sanitize_osc_text(payload)

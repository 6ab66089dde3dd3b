"""Incremental parser of the host terminal's input bytes → key, mouse, paste events (PURE).

Why hand-rolled: every layer between the host terminal and the pane must keep keys
exact (kitty keyboard protocol, modifyOtherKeys, shift+enter…), so each key event
carries the ``raw`` bytes it came from and terminal mode forwards those unchanged.

The parser is a byte-driven state machine over an internal buffer: feeding a stream
in any split yields the same events as feeding it whole. Whatever cannot be decided
without more bytes (a lone ESC, a CSI cut in half, a partial UTF-8 character) stays
pending; the caller runs :meth:`InputParser.flush_pending` after ~25 ms of silence,
which turns a lone ESC into the Escape key. Nothing here raises on garbage: bytes that
form no event come out as :class:`Unknown`.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from msgspec import Struct

# Modifier bits: kitty's encoding minus one (xterm's too, for the first three).
SHIFT = 1
ALT = 2
CTRL = 4
SUPER = 8
HYPER = 16
META = 32
CAPS_LOCK = 64
NUM_LOCK = 128
_BINDING_MODS = SHIFT | ALT | CTRL | SUPER | HYPER | META

KeyKind = Literal["press", "repeat", "release"]
MouseKind = Literal["press", "release", "drag", "move", "wheel"]

MAX_SEQUENCE = 512  # a CSI/OSC longer than this is garbage, not a key
MAX_PASTE = 64 * 1024 * 1024

PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"


class Key(Struct, frozen=True):
    """One key press (or repeat/release under kitty's flag 2).

    ``key`` is a name: a single character for text keys (``"a"``, ``"?"``, ``"é"``;
    letters are lower case, shift is a modifier) or ``enter``, ``tab``, ``esc``,
    ``backspace``, ``space``, ``up``…, ``f1``…``f35``, ``kp_*``, ``left_shift``….
    ``mods`` are the SHIFT/ALT/CTRL/… bits; ``text`` is what the key types, if any;
    ``raw`` the exact bytes received.
    """

    key: str
    mods: int
    raw: bytes
    text: str = ""
    kind: KeyKind = "press"

    @property
    def binding_mods(self) -> int:
        """Modifiers that matter for key bindings (lock keys dropped)."""
        return self.mods & _BINDING_MODS


class Mouse(Struct, frozen=True):
    """An SGR (1006) or X10 mouse report; ``x``/``y`` are 0-based cells."""

    kind: MouseKind
    button: str  # left middle right none wheel_up wheel_down wheel_left wheel_right b8…
    x: int
    y: int
    mods: int
    raw: bytes


class Paste(Struct, frozen=True):
    """A bracketed paste (between ``CSI 200~`` and ``CSI 201~``)."""

    data: bytes

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


class Focus(Struct, frozen=True):
    """The host terminal gained (``CSI I``) or lost (``CSI O``) focus."""

    focused: bool


class Unknown(Struct, frozen=True):
    """Bytes that form no event: replies to queries, unsupported or broken sequences."""

    raw: bytes


InputEvent: TypeAlias = Key | Mouse | Paste | Focus | Unknown


# --------------------------------------------------------------------------- tables

_CSI_LETTER = {
    "A": "up",
    "B": "down",
    "C": "right",
    "D": "left",
    "E": "kp_begin",
    "F": "end",
    "H": "home",
    "P": "f1",
    "Q": "f2",
    "R": "f3",
    "S": "f4",
}
_SS3 = {**_CSI_LETTER, "M": "kp_enter", "X": "kp_equal", "j": "kp_multiply", "k": "kp_add"}
_SS3.update({"l": "kp_separator", "m": "kp_subtract", "n": "kp_decimal", "o": "kp_divide"})
_SS3.update({chr(ord("p") + i): f"kp_{i}" for i in range(10)})
_TILDE = {
    1: "home",
    2: "insert",
    3: "delete",
    4: "end",
    5: "pageup",
    6: "pagedown",
    7: "home",
    8: "end",
    11: "f1",
    12: "f2",
    13: "f3",
    14: "f4",
    15: "f5",
    17: "f6",
    18: "f7",
    19: "f8",
    20: "f9",
    21: "f10",
    23: "f11",
    24: "f12",
    25: "f13",
    26: "f14",
    28: "f15",
    29: "menu",
    31: "f17",
    32: "f18",
    33: "f19",
    34: "f20",
}
# Kitty functional key codes (CSI u) that are not plain characters.
_KITTY = {
    27: "esc",
    13: "enter",
    9: "tab",
    127: "backspace",
    8: "backspace",
    32: "space",
    57358: "caps_lock",
    57359: "scroll_lock",
    57360: "num_lock",
    57361: "print_screen",
    57362: "pause",
    57363: "menu",
    57399: "kp_0",
    57400: "kp_1",
    57401: "kp_2",
    57402: "kp_3",
    57403: "kp_4",
    57404: "kp_5",
    57405: "kp_6",
    57406: "kp_7",
    57407: "kp_8",
    57408: "kp_9",
    57409: "kp_decimal",
    57410: "kp_divide",
    57411: "kp_multiply",
    57412: "kp_subtract",
    57413: "kp_add",
    57414: "kp_enter",
    57415: "kp_equal",
    57416: "kp_separator",
    57417: "left",
    57418: "right",
    57419: "up",
    57420: "down",
    57421: "pageup",
    57422: "pagedown",
    57423: "home",
    57424: "end",
    57425: "insert",
    57426: "delete",
    57427: "kp_begin",
    57428: "media_play",
    57429: "media_pause",
    57430: "media_play_pause",
    57431: "media_reverse",
    57432: "media_stop",
    57433: "media_fast_forward",
    57434: "media_rewind",
    57435: "media_track_next",
    57436: "media_track_previous",
    57437: "media_record",
    57438: "lower_volume",
    57439: "raise_volume",
    57440: "mute_volume",
    57441: "left_shift",
    57442: "left_control",
    57443: "left_alt",
    57444: "left_super",
    57445: "left_hyper",
    57446: "left_meta",
    57447: "right_shift",
    57448: "right_control",
    57449: "right_alt",
    57450: "right_super",
    57451: "right_hyper",
    57452: "right_meta",
    57453: "iso_level3_shift",
    57454: "iso_level5_shift",
}
_KITTY.update({57376 + i: f"f{13 + i}" for i in range(23)})  # F13..F35
MODIFIER_KEYS = frozenset(
    name for name in _KITTY.values() if name.endswith(("_shift", "_control", "_alt"))
) | frozenset(name for name in _KITTY.values() if name.endswith(("_super", "_hyper", "_meta")))
_MOUSE_BUTTONS = ("left", "middle", "right", "none")
_WHEEL = ("wheel_up", "wheel_down", "wheel_left", "wheel_right")


def _char_key(ch: str, mods: int) -> tuple[str, int]:
    """Normalise a character key: upper-case letters become lower case + SHIFT."""
    if ch == " ":
        return "space", mods
    if len(ch) == 1 and ch.isalpha() and ch.isupper() and ch.lower() != ch:
        return ch.lower(), mods | SHIFT
    return ch, mods


def _control_key(byte: int) -> tuple[str, int]:
    """A C0 control byte (or DEL) as the key that types it."""
    if byte == 0x0D:
        return "enter", 0
    if byte == 0x09:
        return "tab", 0
    if byte == 0x1B:
        return "esc", 0
    if byte == 0x7F:
        return "backspace", 0
    if byte == 0x00:
        return "space", CTRL
    if byte < 0x1B:
        return chr(byte + 0x60), CTRL  # 0x08 → ctrl+h, 0x0a → ctrl+j
    return {0x1C: "\\", 0x1D: "]", 0x1E: "^", 0x1F: "_"}[byte], CTRL


def _params(body: bytes) -> list[list[int | None]]:
    """``1;2:3`` → [[1], [2, 3]]; empty fields are None."""
    out: list[list[int | None]] = []
    for field in body.split(b";"):
        sub: list[int | None] = []
        for part in field.split(b":"):
            sub.append(int(part) if part.isdigit() and len(part) <= 9 else None)
        out.append(sub)
    return out


def _mods_from(value: int | None) -> int:
    return max(0, (value or 1) - 1) & 0xFF


_KINDS: dict[int, KeyKind] = {2: "repeat", 3: "release"}


def _event_kind(value: int | None) -> KeyKind:
    return _KINDS.get(value or 1, "press")


# --------------------------------------------------------------------------- parser


class InputParser:
    """Feed bytes, get events; see the module docstring for the timeout contract."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._paste: bytearray | None = None

    @property
    def pending(self) -> bool:
        """True when bytes wait for more input (or for :meth:`flush_pending`)."""
        return bool(self._buf) or self._paste is not None

    @property
    def in_paste(self) -> bool:
        return self._paste is not None

    def feed(self, data: bytes) -> list[InputEvent]:
        """Parse as far as the bytes allow; keep an undecidable tail for later."""
        self._buf += data
        return self._drain(final=False)

    def flush_pending(self, *, end_paste: bool = False) -> list[InputEvent]:
        """Decide what is pending after a pause: a lone ESC is the Escape key, a cut
        sequence becomes keys or :class:`Unknown`. An open paste stays open unless
        ``end_paste`` (the paste end marker never came) — then it is delivered."""
        events: list[InputEvent] = []
        if self._paste is not None:
            if not end_paste:
                return events
            self._paste += self._buf
            self._buf.clear()
            events.append(Paste(bytes(self._paste)))
            self._paste = None
            return events
        events.extend(self._drain(final=True))
        return events

    # ------------------------------------------------------------------ internals

    def _drain(self, *, final: bool) -> list[InputEvent]:
        events: list[InputEvent] = []
        buf = self._buf
        pos = 0
        while True:
            if self._paste is not None:
                pos = self._paste_step(pos, events)
                if self._paste is not None:
                    break
                continue
            if pos >= len(buf):
                break
            result = self._parse_one(buf, pos, final)
            if result is None:
                break
            event, pos = result
            if isinstance(event, Key) and event.raw == PASTE_START:
                self._paste = bytearray()
                continue
            events.append(event)
        del buf[:pos]
        return events

    def _paste_step(self, pos: int, events: list[InputEvent]) -> int:
        """Collect paste bytes up to the end marker (which may arrive split)."""
        assert self._paste is not None
        buf = self._buf
        end = buf.find(PASTE_END, pos)
        if end < 0:
            keep = len(PASTE_END) - 1
            cut = max(pos, len(buf) - keep)
            # Hold back only a tail that could still start the end marker.
            while cut < len(buf) and not PASTE_END.startswith(bytes(buf[cut:])):
                cut += 1
            self._paste += buf[pos:cut]
            while len(self._paste) >= MAX_PASTE:  # huge paste: deliver in fixed chunks
                events.append(Paste(bytes(self._paste[:MAX_PASTE])))
                del self._paste[:MAX_PASTE]
            return cut
        self._paste += buf[pos:end]
        events.append(Paste(bytes(self._paste)))
        self._paste = None
        return end + len(PASTE_END)

    def _parse_one(self, buf: bytearray, pos: int, final: bool) -> tuple[InputEvent, int] | None:
        """One event starting at ``pos`` and the position after it, or None to wait."""
        byte = buf[pos]
        if byte == 0x1B:
            return self._parse_escape(buf, pos, final)
        if byte < 0x20 or byte == 0x7F:
            name, mods = _control_key(byte)
            return Key(name, mods, bytes(buf[pos : pos + 1])), pos + 1
        if byte < 0x80:
            ch = chr(byte)
            name, mods = _char_key(ch, 0)
            return Key(name, mods, bytes(buf[pos : pos + 1]), ch), pos + 1
        return self._parse_utf8(buf, pos, final, 0)

    def _parse_utf8(
        self, buf: bytearray, pos: int, final: bool, mods: int, start: int | None = None
    ) -> tuple[InputEvent, int] | None:
        begin = pos if start is None else start
        byte = buf[pos]
        need = 2 if 0xC2 <= byte <= 0xDF else 3 if 0xE0 <= byte <= 0xEF else 4
        if not 0xC2 <= byte <= 0xF4:
            return Unknown(bytes(buf[begin : pos + 1])), pos + 1
        if len(buf) - pos < need:
            # Wait only while what we have is a valid prefix.
            for i in range(pos + 1, len(buf)):
                if not 0x80 <= buf[i] <= 0xBF:
                    return Unknown(bytes(buf[begin:i])), i
            if final:
                return Unknown(bytes(buf[begin:])), len(buf)
            return None
        chunk = bytes(buf[pos : pos + need])
        try:
            ch = chunk.decode("utf-8")
        except UnicodeDecodeError:
            for i in range(pos + 1, pos + need):
                if not 0x80 <= buf[i] <= 0xBF:
                    return Unknown(bytes(buf[begin:i])), i
            return Unknown(bytes(buf[begin : pos + need])), pos + need
        name, mods = _char_key(ch, mods)
        return Key(name, mods, bytes(buf[begin : pos + need]), ch), pos + need

    def _parse_escape(self, buf: bytearray, pos: int, final: bool) -> tuple[InputEvent, int] | None:
        if pos + 1 >= len(buf):
            if final:
                return Key("esc", 0, b"\x1b"), pos + 1
            return None
        nxt = buf[pos + 1]
        if nxt == ord("["):
            result = self._parse_csi(buf, pos, final)
            if result is None and final:
                if pos + 2 >= len(buf):
                    return self._alt_of(buf, pos)
                return Unknown(bytes(buf[pos:])), len(buf)
            return result
        if nxt == ord("O"):
            if pos + 2 >= len(buf):
                if final:
                    return self._alt_of(buf, pos)
                return None
            final_byte = chr(buf[pos + 2])
            raw = bytes(buf[pos : pos + 3])
            name = _SS3.get(final_byte)
            if name is None:
                return Unknown(raw), pos + 3
            return Key(name, 0, raw), pos + 3
        if nxt == ord("]") or nxt == ord("P") or nxt == ord("_") or nxt == ord("^"):
            return self._parse_string(buf, pos, final)
        if nxt == 0x1B:
            # ESC ESC …: alt + whatever the second escape starts, if it makes a key.
            if pos + 2 >= len(buf):
                if final:
                    return Key("esc", ALT, bytes(buf[pos : pos + 2])), pos + 2
                return None
            if buf[pos + 2] == 0x1B:  # a run of ESCs: plain Escape keys (no recursion)
                return Key("esc", 0, b"\x1b"), pos + 1
            inner = self._parse_escape(buf, pos + 1, final)
            if inner is None:
                return None
            event, end = inner
            if isinstance(event, Key) and not (event.mods & ALT):
                if event.raw == PASTE_START:
                    return Key("esc", 0, b"\x1b"), pos + 1
                return Key(event.key, event.mods | ALT, bytes(buf[pos:end]), "", event.kind), end
            return Key("esc", 0, b"\x1b"), pos + 1
        if nxt < 0x20 or nxt == 0x7F:
            name, mods = _control_key(nxt)
            return Key(name, mods | ALT, bytes(buf[pos : pos + 2])), pos + 2
        if nxt < 0x80:
            name, mods = _char_key(chr(nxt), ALT)
            return Key(name, mods, bytes(buf[pos : pos + 2])), pos + 2
        result = self._parse_utf8(buf, pos + 1, final, ALT, start=pos)
        if result is None:
            return None
        event, end = result
        if isinstance(event, Key):
            return Key(event.key, event.mods, event.raw), end
        return event, end

    def _alt_of(self, buf: bytearray, pos: int) -> tuple[InputEvent, int]:
        """A cut ``ESC [``/``ESC O`` at a pause: alt + that character."""
        name, mods = _char_key(chr(buf[pos + 1]), ALT)
        return Key(name, mods, bytes(buf[pos : pos + 2])), pos + 2

    def _parse_string(self, buf: bytearray, pos: int, final: bool) -> tuple[InputEvent, int] | None:
        """OSC/DCS/APC/PM replies: skip to BEL or ST; nothing a user typed."""
        i = pos + 2
        limit = min(len(buf), pos + MAX_SEQUENCE)
        while i < limit:
            b = buf[i]
            if b == 0x07:
                return Unknown(bytes(buf[pos : i + 1])), i + 1
            if b == 0x1B:
                if i + 1 >= len(buf):
                    break
                if buf[i + 1] == ord("\\"):
                    return Unknown(bytes(buf[pos : i + 2])), i + 2
                return Unknown(bytes(buf[pos:i])), i
            i += 1
        if i >= pos + MAX_SEQUENCE:
            return Unknown(bytes(buf[pos:i])), i
        if final:
            return Unknown(bytes(buf[pos:])), len(buf)
        return None

    def _parse_csi(self, buf: bytearray, pos: int, final: bool) -> tuple[InputEvent, int] | None:
        i = pos + 2
        n = len(buf)
        # X10 mouse: CSI M Cb Cx Cy (three raw bytes, no parameters).
        if i < n and buf[i] == ord("M"):
            if n - i < 4:
                return None if not final else (Unknown(bytes(buf[pos:])), n)
            raw = bytes(buf[pos : i + 4])
            return _x10_mouse(raw), i + 4
        limit = min(n, pos + MAX_SEQUENCE)
        while i < limit and 0x30 <= buf[i] <= 0x3F:
            i += 1
        param_end = i
        while i < limit and 0x20 <= buf[i] <= 0x2F:
            i += 1
        if i >= limit:
            if limit < n or i >= pos + MAX_SEQUENCE:
                return Unknown(bytes(buf[pos:i])), i
            return None
        fb = buf[i]
        if not 0x40 <= fb <= 0x7E:
            # Broken sequence: report what we have, resume at the offending byte.
            return Unknown(bytes(buf[pos:i])), i
        raw = bytes(buf[pos : i + 1])
        body = bytes(buf[pos + 2 : param_end])
        inter = bytes(buf[param_end:i])
        return _decode_csi(raw, body, inter, chr(fb)), i + 1


def _x10_mouse(raw: bytes) -> InputEvent:
    cb, cx, cy = raw[3] - 32, raw[4] - 33, raw[5] - 33
    if cb < 0 or cx < 0 or cy < 0:
        return Unknown(raw)
    return _mouse_from(cb, cx, cy, release=(cb & 3) == 3 and cb < 64, raw=raw)


def _mouse_from(cb: int, x: int, y: int, *, release: bool, raw: bytes) -> Mouse:
    mods = (SHIFT if cb & 4 else 0) | (ALT if cb & 8 else 0) | (CTRL if cb & 16 else 0)
    motion = bool(cb & 32)
    if cb & 64 and not cb & 128:
        return Mouse("wheel", _WHEEL[cb & 3], x, y, mods, raw)
    extra = f"b{8 + (cb & 3) + (4 if cb & 64 else 0)}"
    button = extra if cb & 128 else _MOUSE_BUTTONS[cb & 3]
    kind: MouseKind
    if release:
        kind = "release"
    elif motion:
        kind = "move" if button == "none" else "drag"
    else:
        kind = "press"
    return Mouse(kind, button, x, y, mods, raw)


def _decode_csi(raw: bytes, body: bytes, inter: bytes, final: str) -> InputEvent:
    if inter:
        return Unknown(raw)  # DECRPM replies and the like
    if body.startswith(b"<"):
        if final not in "Mm":
            return Unknown(raw)
        nums = _params(body[1:])
        if len(nums) != 3 or any(v[0] is None for v in nums):
            return Unknown(raw)
        cb, cx, cy = (int(v[0] or 0) for v in nums)
        if cx < 1 or cy < 1:
            return Unknown(raw)
        return _mouse_from(cb, cx - 1, cy - 1, release=final == "m", raw=raw)
    if body[:1] in (b"?", b">", b"=") or body.startswith(b"<"):
        return Unknown(raw)  # replies: DA, kitty flags, DECRQM…
    params: list[list[int | None]] = _params(body) if body else [[None]]
    first = params[0][0]
    mod_field = params[1] if len(params) > 1 else [None]
    mods = _mods_from(mod_field[0])
    kind = _event_kind(mod_field[1] if len(mod_field) > 1 else None)
    if final == "~":
        if first == 27 and len(params) >= 3:  # modifyOtherKeys: CSI 27;mod;code~
            code = params[2][0]
            if code is None or code > 0x10FFFF:
                return Unknown(raw)
            return _code_key(code, mods, raw, kind)
        if first in (200, 201):
            return Key("paste_start", 0, raw) if raw == PASTE_START else Unknown(raw)
        name = _TILDE.get(first or 0)
        if name is None:
            return Unknown(raw)
        return Key(name, mods, raw, kind=kind)
    if final == "u":
        return _kitty_key(params, raw)
    if final in ("I", "O") and not body:
        return Focus(final == "I")
    if final == "Z":
        return Key("tab", mods | SHIFT, raw, kind=kind)
    name = _CSI_LETTER.get(final)
    if name is None:
        return Unknown(raw)
    if body and first not in (None, 1):
        return Unknown(raw)  # e.g. a cursor position report, not a key
    return Key(name, mods, raw, kind=kind)


def _code_key(code: int, mods: int, raw: bytes, kind: KeyKind, text: str = "") -> Key:
    name = _KITTY.get(code)
    if name is not None:
        return Key(name, mods, raw, text, kind)
    if code < 0x20 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return Key(f"u{code:04x}", mods, raw, text, kind)
    ch = chr(code)
    key, mods2 = _char_key(ch, mods)
    return Key(key, mods2, raw, text, kind)


def _kitty_key(params: list[list[int | None]], raw: bytes) -> InputEvent:
    """``CSI code[:shifted[:base]] ; mods[:event] ; text u`` (kitty keyboard protocol)."""
    code = params[0][0]
    if code is None:
        return Unknown(raw)
    shifted = params[0][1] if len(params[0]) > 1 else None
    mod_field = params[1] if len(params) > 1 else [None]
    mods = _mods_from(mod_field[0])
    kind = _event_kind(mod_field[1] if len(mod_field) > 1 else None)
    text = ""
    if len(params) > 2:
        text = "".join(
            chr(c) for c in params[2] if c is not None and 0x20 <= c <= 0x10FFFF and c != 0x7F
        )
        text = text.encode("utf-8", "ignore").decode("utf-8", "ignore")
    usable = shifted is not None and 0x20 < shifted <= 0x10FFFF and code not in _KITTY
    if usable and mods & SHIFT and shifted is not None and not 0xD800 <= shifted <= 0xDFFF:
        # The layout told us what shift makes: bind on that, not on shift+base.
        ch = chr(shifted)
        if ch.isalpha() and ch.lower() != ch:
            return Key(ch.lower(), mods, raw, text, kind)
        return Key(ch, mods & ~SHIFT, raw, text, kind)
    return _code_key(code, mods, raw, kind, text)


# --------------------------------------------------------------------------- encoders


def encode_mouse_sgr(event: Mouse, x: int, y: int) -> bytes:
    """Re-encode ``event`` as an SGR (1006) report at pane-relative ``x``/``y`` (0-based),
    for forwarding a click or wheel to a pane application that asked for the mouse."""
    if event.kind == "wheel":
        cb = 64 + _WHEEL.index(event.button) if event.button in _WHEEL else 64
    elif event.button in _MOUSE_BUTTONS:
        cb = _MOUSE_BUTTONS.index(event.button)
    elif event.button.startswith("b") and event.button[1:].isdigit():
        n = int(event.button[1:]) - 8
        cb = 128 + (n & 3) + (64 if n & 4 else 0)
    else:
        cb = 3
    if event.kind in ("drag", "move"):
        cb |= 32
    if event.mods & SHIFT:
        cb |= 4
    if event.mods & ALT:
        cb |= 8
    if event.mods & CTRL:
        cb |= 16
    final = "m" if event.kind == "release" else "M"
    return f"\x1b[<{cb};{x + 1};{y + 1}{final}".encode()

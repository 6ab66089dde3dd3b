"""Key names of ``pane send-keys`` (herdr-spec §3.3) → the bytes a terminal would send.

PURE. Every key of a call is parsed before anything is written, so one unknown name
rejects the whole call (``invalid_key``). Encodings follow xterm's legacy conventions;
cursor and Home/End keys honour the application-cursor mode (DECCKM) the program set.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from herdr.api.key_names import CHAR_NAMES
from herdr.vocab import ErrorCode, HerdrError


class InvalidKey(HerdrError):
    """A key name no terminal can send; answers ``invalid_key``."""

    def __init__(self, key: str, why: str = "unknown key") -> None:
        super().__init__(ErrorCode.INVALID_KEY, f"{why}: {key!r}")
        self.key = key


class Key(Struct, frozen=True):
    name: str  # a special key name, or "char"
    char: str = ""
    ctrl: bool = False
    alt: bool = False
    shift: bool = False


_SPECIAL = {
    "enter": "enter",
    "return": "enter",
    "cr": "enter",
    "tab": "tab",
    "esc": "esc",
    "escape": "esc",
    "backspace": "backspace",
    "bs": "backspace",
    "space": "space",
    "left": "left",
    "right": "right",
    "up": "up",
    "down": "down",
    "home": "home",
    "end": "end",
    "pageup": "pageup",
    "pgup": "pageup",
    "pagedown": "pagedown",
    "pgdn": "pagedown",
    "insert": "insert",
    "ins": "insert",
    "delete": "delete",
    "del": "delete",
}
_SPECIAL.update({f"f{n}": f"f{n}" for n in range(1, 13)})

_NAMED_CHARS = CHAR_NAMES

_MODIFIERS = {
    "ctrl": "ctrl",
    "control": "ctrl",
    "alt": "alt",
    "meta": "alt",
    "option": "alt",
    "shift": "shift",
}

_CSI_LETTER = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_TILDE = {"insert": 2, "delete": 3, "pageup": 5, "pagedown": 6}
_SS3_F = {"f1": "P", "f2": "Q", "f3": "R", "f4": "S"}
_TILDE_F = {"f5": 15, "f6": 17, "f7": 18, "f8": 19, "f9": 20, "f10": 21, "f11": 23, "f12": 24}
_CTRL_SYMBOLS = {"@": 0, " ": 0, "2": 0, "[": 27, "3": 27, "\\": 28, "4": 28, "]": 29, "5": 29}
_CTRL_SYMBOLS.update({"^": 30, "6": 30, "_": 31, "7": 31, "-": 31, "/": 31, "?": 127, "8": 127})


def parse_key(raw: str) -> Key:
    """``enter``, ``ctrl+c``, ``C-c``, ``alt+x``, ``shift+tab``, ``f5``, ``minus``, ``x``…"""
    text = raw.strip()
    if not text:
        raise InvalidKey(raw, "empty key")
    if len(text) == 3 and text[:2] in ("C-", "c-"):
        text = "ctrl+" + text[2]
    if text == "+":
        text = "plus"
    parts = text.split("+")
    if len(parts) > 1 and parts[-1] == "" and parts[-2] == "":
        parts = [*parts[:-2], "plus"]  # "ctrl++"
    *mods, base = parts
    flags = {"ctrl": False, "alt": False, "shift": False}
    for mod in mods:
        name = _MODIFIERS.get(mod.lower())
        if mod.lower() == "prefix":
            raise InvalidKey(raw, "prefix bindings cannot be sent to a pane")
        if name is None or flags[name]:
            raise InvalidKey(raw, "unknown modifier" if name is None else "repeated modifier")
        flags[name] = True
    if not base:
        raise InvalidKey(raw)
    lowered = base.lower()
    ctrl, alt, shift = flags["ctrl"], flags["alt"], flags["shift"]
    if lowered in _SPECIAL:
        return Key(_SPECIAL[lowered], ctrl=ctrl, alt=alt, shift=shift)
    char = _NAMED_CHARS.get(lowered)
    if char is None:
        if len(base) != 1 or not base.isprintable():
            raise InvalidKey(raw)
        char = base
    return Key("char", char, ctrl=ctrl, alt=alt, shift=shift)


def _modifier_param(key: Key) -> int:
    return 1 + int(key.shift) + 2 * int(key.alt) + 4 * int(key.ctrl)


def encode_key(key: Key, *, app_cursor: bool = False) -> bytes:
    """The bytes for one parsed key (InvalidKey for combinations a terminal cannot send)."""
    mod = _modifier_param(key)
    name = key.name
    if name in _CSI_LETTER:
        letter = _CSI_LETTER[name]
        if mod > 1:
            return f"\x1b[1;{mod}{letter}".encode()
        return f"\x1bO{letter}".encode() if app_cursor else f"\x1b[{letter}".encode()
    if name in _TILDE:
        code = _TILDE[name]
        return f"\x1b[{code};{mod}~".encode() if mod > 1 else f"\x1b[{code}~".encode()
    if name in _SS3_F:
        letter = _SS3_F[name]
        return f"\x1b[1;{mod}{letter}".encode() if mod > 1 else f"\x1bO{letter}".encode()
    if name in _TILDE_F:
        code = _TILDE_F[name]
        return f"\x1b[{code};{mod}~".encode() if mod > 1 else f"\x1b[{code}~".encode()
    prefix = b"\x1b" if key.alt else b""
    if name == "tab":
        return b"\x1b[Z" if key.shift and not key.ctrl else prefix + b"\t"
    if name == "enter":
        return prefix + b"\r"
    if name == "esc":
        return prefix + b"\x1b"
    if name == "backspace":
        return prefix + (b"\x08" if key.ctrl else b"\x7f")
    char = " " if name == "space" else key.char
    if key.ctrl:
        if char.isascii() and char.isalpha():
            return prefix + bytes([ord(char.lower()) - 96])
        if char in _CTRL_SYMBOLS:
            return prefix + bytes([_CTRL_SYMBOLS[char]])
        raise InvalidKey(f"ctrl+{char}", "no control code for")
    if key.shift and char.isalpha():
        char = char.upper()
    return prefix + char.encode("utf-8")


def encode_keys(keys: Sequence[str], *, app_cursor: bool = False) -> list[bytes]:
    """Parse and encode all keys first; the first bad one raises :class:`InvalidKey`."""
    return [encode_key(parse_key(k), app_cursor=app_cursor) for k in keys]


def paste(text: str, *, bracketed: bool) -> bytes:
    """Text as typed, wrapped in bracketed-paste markers when the program asked for them."""
    data = text.encode("utf-8")
    return b"\x1b[200~" + data + b"\x1b[201~" if bracketed else data

"""Key names: ``ctrl+b``, ``C-b``, ``alt+x``, ``shift+tab``, ``f1``, ``minus``, ``?`` (PURE).

One normalised :class:`KeySpec` per key so a binding written any way matches what
the input parser reports in any encoding (legacy bytes, kitty CSI u,
modifyOtherKeys): letters are lower case with SHIFT, shifted punctuation folds to
the character it types (US layout as the fallback when the terminal does not say).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from msgspec import Struct

from herdr.api.key_names import CHAR_NAMES
from herdr.client.input import ALT, CTRL, HYPER, SHIFT, SUPER, Key


class KeyNameError(ValueError):
    """A key name that cannot be parsed (the message says why)."""


class KeySpec(Struct, frozen=True, order=True):
    """A normalised key + modifiers, comparable with what the parser reports."""

    key: str
    mods: int = 0


_NAMED = {
    "enter": "enter",
    "return": "enter",
    "cr": "enter",
    "tab": "tab",
    "esc": "esc",
    "escape": "esc",
    "backspace": "backspace",
    "bs": "backspace",
    "space": "space",
    "spc": "space",
    "left": "left",
    "right": "right",
    "up": "up",
    "down": "down",
    "home": "home",
    "end": "end",
    "pageup": "pageup",
    "pgup": "pageup",
    "page_up": "pageup",
    "pagedown": "pagedown",
    "pgdn": "pagedown",
    "page_down": "pagedown",
    "insert": "insert",
    "ins": "insert",
    "delete": "delete",
    "del": "delete",
    "menu": "menu",
}
_NAMED.update({f"f{n}": f"f{n}" for n in range(1, 36)})
_CHAR_NAMES = CHAR_NAMES
_CHAR_TO_NAME = {"-": "minus", "+": "plus", " ": "space"}
_MODS = {
    "ctrl": CTRL,
    "control": CTRL,
    "c": CTRL,
    "alt": ALT,
    "meta": ALT,
    "option": ALT,
    "opt": ALT,
    "m": ALT,
    "shift": SHIFT,
    "s": SHIFT,
    "super": SUPER,
    "cmd": SUPER,
    "command": SUPER,
    "win": SUPER,
    "hyper": HYPER,
}
_MOD_ORDER = ((CTRL, "ctrl"), (ALT, "alt"), (SHIFT, "shift"), (SUPER, "super"), (HYPER, "hyper"))
# What shift makes of a key on a US layout: lets `shift+/` and `?` name the same key,
# and lets kitty's "base key + shift" reports match either spelling.
_US_SHIFT = dict(zip("`1234567890-=[]\\;',./", '~!@#$%^&*()_+{}|:"<>?', strict=True))


def normalize(key: str, mods: int) -> KeySpec:
    """One spelling per key: letters lower case (+SHIFT), shifted punctuation folded."""
    if len(key) == 1:
        if key.isalpha() and key.lower() != key:
            key = key.lower()
            mods |= 0 if mods & CTRL else SHIFT  # ctrl+B means ctrl+b, as in tmux
        elif mods & SHIFT and key in _US_SHIFT:
            key, mods = _US_SHIFT[key], mods & ~SHIFT
        elif key == " ":
            key = "space"
    elif key == "backtab":
        key, mods = "tab", mods | SHIFT
    return KeySpec(key, mods)


def parse_key(text: str) -> KeySpec:
    """``ctrl+b``, ``C-b``, ``alt+x``, ``shift+tab``, ``f1``, ``enter``, ``minus``, ``?``…"""
    raw = text
    text = text.strip()
    if not text:
        raise KeyNameError("empty key name")
    if re.fullmatch(r"[CcMmSs]-.+", text):  # emacs/tmux style: C-b, M-x, S-tab
        text = {"c": "ctrl", "m": "alt", "s": "shift"}[text[0].lower()] + "+" + text[2:]
    if text == "+":
        parts = ["plus"]
    else:
        parts = text.split("+")
        if len(parts) > 2 and parts[-1] == "" and parts[-2] == "":
            parts = [*parts[:-2], "plus"]  # "ctrl++"
    *mod_names, base = parts
    mods = 0
    for name in mod_names:
        bit = _MODS.get(name.strip().lower())
        if name.strip().lower() == "prefix":
            raise KeyNameError(f"{raw!r}: 'prefix' can only start a binding")
        if bit is None:
            hint = suggest(name.lower(), [m for m in _MODS if len(m) > 1])
            raise KeyNameError(f"{raw!r}: unknown modifier {name!r}{hint}")
        if mods & bit:
            raise KeyNameError(f"{raw!r}: modifier {name!r} given twice")
        mods |= bit
    base = base.strip()
    if not base:
        raise KeyNameError(f"{raw!r}: missing key after '+'")
    lowered = base.lower()
    if lowered in _NAMED:
        return normalize(_NAMED[lowered], mods)
    if lowered in _CHAR_NAMES:
        return normalize(_CHAR_NAMES[lowered], mods)
    if lowered == "backtab":
        return normalize("backtab", mods)
    if len(base) == 1 and base.isprintable():
        return normalize(base, mods)
    hint = suggest(lowered, [*_NAMED, *_CHAR_NAMES])
    raise KeyNameError(f"{raw!r}: unknown key {base!r}{hint}")


def format_key(spec: KeySpec) -> str:
    """The canonical name (``ctrl+b``, ``shift+tab``, ``?``, ``minus``)."""
    parts = [name for bit, name in _MOD_ORDER if spec.mods & bit]
    parts.append(_CHAR_TO_NAME.get(spec.key, spec.key))
    return "+".join(parts)


def spec_of(event: Key) -> KeySpec:
    """The spec a key event matches in binding tables."""
    return normalize(event.key, event.binding_mods)


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""

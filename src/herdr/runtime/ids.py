"""Public ids: bijective base-32 numbers and the canonical/legacy id grammars.

Ids are part of the compatibility contract (spec §1.2): scripts store `w1:p3` and
expect it to keep naming the same pane. This module is pure string work; anything
that needs the session (indexes, raw pane keys, aliases) is resolved in `model.session`
from the `*Ref` values parsed here.
"""

from __future__ import annotations

from msgspec import Struct

ALPHABET = "123456789ABCDEFGHJKMNPQRSTVWXYZ0"
_BASE = len(ALPHABET)
_DIGIT = {ch: value for value, ch in enumerate(ALPHABET, start=1)}


def encode_number(number: int) -> str:
    """Encode a positive integer in bijective base-32 (1 -> "1", 32 -> "0", 33 -> "11")."""
    if number < 1:
        raise ValueError(f"public numbers start at 1, got {number}")
    out: list[str] = []
    while number > 0:
        number, rem = divmod(number - 1, _BASE)
        out.append(ALPHABET[rem])
    return "".join(reversed(out))


def decode_number(text: str) -> int | None:
    """Decode bijective base-32; None for empty text or a character outside the alphabet."""
    if not text:
        return None
    value = 0
    for ch in text:
        digit = _DIGIT.get(ch)
        if digit is None:
            return None
        value = value * _BASE + digit
    return value


def workspace_id(number: int) -> str:
    """Canonical workspace id `w<N>`."""
    return "w" + encode_number(number)


def tab_id(workspace: str, number: int) -> str:
    """Canonical tab id `<ws>:t<N>`."""
    return f"{workspace}:t{encode_number(number)}"


def pane_id(workspace: str, number: int) -> str:
    """Canonical pane id `<ws>:p<N>`."""
    return f"{workspace}:p{encode_number(number)}"


def parse_workspace_id(text: str) -> int | None:
    """Number of a canonical `w<N>` id, else None (legacy forms are not canonical)."""
    if not text.startswith("w"):
        return None
    return decode_number(text[1:])


def parse_tab_id(text: str) -> tuple[int, int] | None:
    """(workspace number, tab number) of a canonical `w<N>:t<M>` id."""
    ws, sep, rest = text.rpartition(":t")
    ws_number = parse_workspace_id(ws) if sep else None
    number = decode_number(rest) if sep else None
    if ws_number is None or number is None:
        return None
    return ws_number, number


def parse_pane_id(text: str) -> tuple[int, int] | None:
    """(workspace number, pane number) of a canonical `w<N>:p<M>` id."""
    ws, sep, rest = text.rpartition(":p")
    ws_number = parse_workspace_id(ws) if sep else None
    number = decode_number(rest) if sep else None
    if ws_number is None or number is None:
        return None
    return ws_number, number


class WorkspaceRef(Struct, frozen=True):
    """A parsed workspace reference: exactly one of `number` (canonical) or `index`."""

    number: int | None = None
    index: int | None = None  # 1-based position (legacy "2" / "w_2")


class TabRef(Struct, frozen=True):
    """A parsed tab reference: exactly one of `number` (canonical `:t<N>`) or `index`."""

    workspace: WorkspaceRef
    number: int | None = None
    index: int | None = None  # 1-based position inside the workspace


class PaneRef(Struct, frozen=True):
    """A parsed pane reference: a public `number` in a workspace, or a raw pane key.

    `workspace` is None only for the global raw form `p_<raw>`.
    """

    workspace: WorkspaceRef | None
    number: int | None = None
    raw: int | None = None


def _decimal(text: str) -> int | None:
    """Strict positive decimal (ASCII digits only, no sign, no spaces)."""
    if not text or not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if value >= 1 else None


def parse_workspace_ref(text: str) -> WorkspaceRef | None:
    """Parse `w<N>`, legacy `w_<n>` or a bare 1-based index `"2"`."""
    number = parse_workspace_id(text)
    if number is not None:
        return WorkspaceRef(number=number)
    index = _decimal(text[2:]) if text.startswith("w_") else _decimal(text)
    return WorkspaceRef(index=index) if index is not None else None


def parse_tab_ref(text: str) -> TabRef | None:
    """Parse `<ws>:t<N>`, legacy `<ws>:<index>` or `t_<ws>_<index>`."""
    if text.startswith("t_"):
        ws_text, sep, index_text = text[2:].rpartition("_")
        ws = parse_workspace_ref(ws_text) if sep else None
        index = _decimal(index_text)
        return TabRef(ws, index=index) if ws and index is not None else None
    ws_text, sep, rest = text.rpartition(":")
    ws = parse_workspace_ref(ws_text) if sep else None
    if ws is None:
        return None
    if rest.startswith("t"):
        number = decode_number(rest[1:])
        return TabRef(ws, number=number) if number is not None else None
    index = _decimal(rest)
    return TabRef(ws, index=index) if index is not None else None


def parse_pane_ref(text: str) -> PaneRef | None:
    """Parse `<ws>:p<N>`, legacy `p_<ws>_<raw>`, `p_<raw>` or `<ws>-<n>` (decimal number)."""
    if text.startswith("p_"):
        return _parse_raw_pane_ref(text[2:])
    ws_text, sep, rest = text.rpartition(":p")
    if sep:
        ws = parse_workspace_ref(ws_text)
        number = decode_number(rest)
        return PaneRef(ws, number=number) if ws and number is not None else None
    ws_text, sep, rest = text.rpartition("-")
    ws = parse_workspace_ref(ws_text) if sep else None
    number = _decimal(rest)
    return PaneRef(ws, number=number) if ws and number is not None else None


def _parse_raw_pane_ref(rest: str) -> PaneRef | None:
    ws_text, sep, raw_text = rest.rpartition("_")
    raw = _decimal(raw_text)
    if raw is None:
        return None
    if not sep:
        return PaneRef(None, raw=raw)
    ws = parse_workspace_ref(ws_text)
    return PaneRef(ws, raw=raw) if ws else None

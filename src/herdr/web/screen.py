"""A pane's screen as compact styled runs for the page (PURE).

The emulator hands clients SGR-styled rows (:meth:`Emulator.ansi_rows`, the same rows
the TUI draws). The page gets each row as runs ``[text, style]`` where ``style`` indexes
a per-frame table of distinct styles, so a screen of a few colours costs little more
than its text. Colours stay as the terminal said them: an int is a palette index
(0-255, the page owns the palette), a string is ``#rrggbb``. Anything but SGR is
dropped, so no escape reaches the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

_TOKEN = re.compile(
    r"\x1b\[([0-9;:]*)m"  # SGR: group 1 holds its parameters
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # any other CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (hyperlinks), terminated or not
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS / SOS / PM / APC
    r"|\x1b[ -/]*[0-~]?"  # other escapes, or a lone ESC
    r"|[\x00-\x1f\x7f-\x9f]"  # controls
)

Style = tuple[tuple[str, Any], ...]
_FLAGS = {1: "b", 2: "d", 3: "i", 4: "u", 5: "k", 7: "r", 8: "h", 9: "s", 53: "o"}
_UNFLAGS = {22: ("b", "d"), 23: ("i",), 24: ("u",), 25: ("k",), 27: ("r",), 28: ("h",)}
_UNFLAGS |= {29: ("s",), 55: ("o",)}


def _ints(parts: Sequence[str]) -> list[int]:
    return [int(p) if p.isdigit() else 0 for p in parts]


def _colour(params: list[list[int]], i: int) -> tuple[int | str | None, int]:
    """The colour an extended 38/48 parameter starts at ``i``; returns it and the next index.

    Both forms occur: ``38;5;n`` / ``38;2;r;g;b`` spread over parameters, and the
    colon form ``38:5:n`` / ``38:2:[cs]:r:g:b`` inside one parameter.
    """
    head = params[i]
    if len(head) > 1:  # colon form
        sub = head[1:]
        if sub[0] == 5 and len(sub) >= 2:
            return min(sub[1], 255), i + 1
        if sub[0] == 2 and len(sub) >= 4:
            rgb = sub[-3:]
            return "#" + "".join(f"{min(c, 255):02x}" for c in rgb), i + 1
        return None, i + 1
    rest = [p[0] for p in params[i + 1 : i + 5]]
    if rest[:1] == [5]:  # a truncated form consumes what it has, never more
        return (min(rest[1], 255) if len(rest) >= 2 else None), i + 3
    if rest[:1] == [2]:
        rgb = rest[1:4]
        colour = "#" + "".join(f"{min(c, 255):02x}" for c in rgb) if len(rgb) == 3 else None
        return colour, i + 5
    return None, i + 1


def apply_sgr(style: dict[str, Any], raw: str) -> None:
    """Update ``style`` by one SGR's parameters (``raw`` as between ``ESC[`` and ``m``)."""
    params = [_ints(p.split(":")) for p in raw.split(";")] if raw else [[0]]
    i = 0
    while i < len(params):
        code = params[i][0]
        if code == 0:
            style.clear()
        elif code in _FLAGS:
            style[_FLAGS[code]] = 1
        elif code in _UNFLAGS:
            for name in _UNFLAGS[code]:
                style.pop(name, None)
        elif 30 <= code <= 37 or 90 <= code <= 97:
            style["fg"] = code - 30 if code < 90 else code - 82
        elif 40 <= code <= 47 or 100 <= code <= 107:
            style["bg"] = code - 40 if code < 100 else code - 92
        elif code in (38, 48, 58):
            colour, i = _colour(params, i)
            key = {38: "fg", 48: "bg", 58: "ul"}[code]
            if colour is not None:
                style[key] = colour
            continue
        elif code == 39:
            style.pop("fg", None)
        elif code == 49:
            style.pop("bg", None)
        elif code == 59:
            style.pop("ul", None)
        i += 1


@lru_cache(maxsize=8192)
def _keyed_runs(row: str) -> tuple[tuple[str, Style], ...]:
    """One row as ``(text, style key)`` runs; cached, as most rows repeat frame to frame."""
    runs: list[tuple[str, Style]] = []
    style: dict[str, Any] = {}
    key: Style = ()
    pos = 0

    def emit(text: str) -> None:
        if not text:
            return
        if runs and runs[-1][1] == key:
            runs[-1] = (runs[-1][0] + text, key)
        else:
            runs.append((text, key))

    for match in _TOKEN.finditer(row):
        emit(row[pos : match.start()])
        pos = match.end()
        if match.group(1) is not None:
            apply_sgr(style, match.group(1))
            key = tuple(sorted(style.items()))
    emit(row[pos:])
    return tuple(runs)


def row_runs(row: str, styles: dict[Style, int]) -> list[list[Any]]:
    """``[[text, style_index], ...]`` for one styled row; adds new styles to ``styles``."""
    out: list[list[Any]] = []
    for text, key in _keyed_runs(row):
        index = styles.setdefault(key, len(styles))
        if out and out[-1][1] == index:
            out[-1][0] += text
        else:
            out.append([text, index])
    return out


def frame(rows: Iterable[str], *, cols: int, cursor: tuple[int, int] | None) -> dict[str, Any]:
    """One screen for the page: its size, the cursor, the style table and the runs."""
    styles: dict[Style, int] = {(): 0}
    lines = [row_runs(row, styles) for row in rows]
    table: list[dict[str, Any]] = [{} for _ in styles]
    for key, index in styles.items():
        table[index] = dict(key)
    out: dict[str, Any] = {"cols": cols, "rows": len(lines), "styles": table, "lines": lines}
    if cursor is not None:
        out["cursor"] = list(cursor)
    return out

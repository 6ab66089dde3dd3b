"""PURE popup geometry: where a plugin popup's box goes in the pane area.

A popup's ``width``/``height`` (spec §9, schema ``PopupSize``) are its *outer* size,
border included: cells (an integer) or a percentage of the area (``"80%"``). Omitted
sizes are half the area, as in herdr; a size under the minimum is raised to it and one
over the area is cut to it. The box is centred. The PTY gets the inner size (the
border takes one cell on each side).
"""

from __future__ import annotations

import re

from msgspec import Struct

from herdr.runtime.layout import Rect

MIN_OUTER_COLS = 10
MIN_OUTER_ROWS = 4
_PERCENT = re.compile(r"^(100|[1-9][0-9]?)%$")
MAX_CELLS = 65535

PopupSize = int | str


class PopupSizeError(ValueError):
    """A width/height that is neither cells nor ``"NN%"``."""


def check_size(value: object, name: str) -> PopupSize | None:
    """``value`` as a popup size, ``None`` when absent; raises :class:`PopupSizeError`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise PopupSizeError(f"{name} must be a number of cells or a percentage like 80%")
    if isinstance(value, int):
        if not 0 <= value <= MAX_CELLS:
            raise PopupSizeError(f"{name} must be 0..{MAX_CELLS} cells, got {value}")
        return value
    if _PERCENT.match(value) is None:
        raise PopupSizeError(f"{name} must be a number of cells or 1%..100%, got {value!r}")
    return value


def _resolve(size: PopupSize | None, total: int, minimum: int) -> int:
    if size is None:
        cells = total // 2
    elif isinstance(size, str):
        cells = total * int(size[:-1]) // 100
    else:
        cells = size
    return max(min(cells, total), min(minimum, total))


class PopupBox(Struct, frozen=True):
    """The outer box (pane-area cells) and the PTY's size inside its border."""

    outer: Rect
    cols: int
    rows: int


def resolve(width: PopupSize | None, height: PopupSize | None, area: Rect) -> PopupBox | None:
    """The centred box in ``area``; ``None`` when the area cannot hold a bordered
    terminal of at least one cell."""
    if area.width < 3 or area.height < 3:
        return None
    w = _resolve(width, area.width, MIN_OUTER_COLS)
    h = _resolve(height, area.height, MIN_OUTER_ROWS)
    w, h = max(w, 3), max(h, 3)
    x = area.x + (area.width - w) // 2
    y = area.y + (area.height - h) // 2
    return PopupBox(Rect(x, y, w, h), w - 2, h - 2)

"""PURE cell rectangles, apart from the split trees of :mod:`herdr.runtime.layout`.

The TUI client needs only rectangles before its first frame; importing the layout module
for them built its seven dataclasses (~10 ms on a slow core) on every reattach.
"""

from __future__ import annotations

from msgspec import Struct


class Rect(Struct, frozen=True):
    """A cell rectangle; `right`/`bottom` are exclusive."""

    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    @property
    def area(self) -> int:
        return self.width * self.height

    def contains(self, x: int, y: int) -> bool:
        """True when cell (x, y) lies inside."""
        return self.x <= x < self.right and self.y <= y < self.bottom

    def to_dict(self) -> dict[str, int]:
        """The PaneLayoutRect record."""
        return {"x": self.x, "y": self.y, "width": self.width, "height": self.height}

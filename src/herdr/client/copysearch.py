"""Copy-mode search (``/``, ``?``, ``n``, ``N``): the state and its drawing (PURE).

The server searches (``pane.copy_search``: literal, smartcase, over the whole
scrollback); this module builds the request, reads the answer into a
:class:`Search` and paints the matches the viewport shows. Points are absolute
``(row, col)`` as in :mod:`herdr.client.copymode`; a match's end is inclusive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from msgspec import Struct

from herdr.client.copymode import restyle

SearchDirection = Literal["forward", "backward"]
Point = tuple[int, int]
Match = tuple[Point, Point]

MATCH_SGR = "\x1b[30;43m"  # every visible match: black on yellow
CURRENT_SGR = "\x1b[1;30;48;5;208m"  # the one the cursor is on: bold on orange


class Search(Struct, frozen=True):
    """The last search on one pane and what the server answered."""

    query: str
    direction: SearchDirection
    matches: tuple[Match, ...] = ()
    total: int = 0
    current: int | None = None  # index into ``matches``
    current_global: int | None = None  # 0-based among all ``total`` matches

    @property
    def current_match(self) -> Match | None:
        if self.current is None or not 0 <= self.current < len(self.matches):
            return None
        return self.matches[self.current]

    def status(self) -> str:
        """The status bar's ``/query [3/10]`` (or ``[no match]``)."""
        mark = "/" if self.direction == "forward" else "?"
        if not self.query:
            return mark
        if self.total == 0:
            return f"{mark}{self.query} [no match]"
        index = self.current_global if self.current_global is not None else 0
        return f"{mark}{self.query} [{index + 1}/{self.total}]"


def opposite(direction: SearchDirection) -> SearchDirection:
    return "backward" if direction == "forward" else "forward"


def request(
    pane_id: str,
    query: str,
    direction: SearchDirection,
    cursor: Point,
    *,
    revision: int,
    previous: Match | None = None,
) -> dict[str, Any]:
    """``pane.copy_search`` params; ``previous`` (the match the cursor is on) makes the
    server step past it, which is what ``n``/``N`` do."""
    params: dict[str, Any] = {
        "pane_id": pane_id,
        "query": query,
        "direction": direction,
        "cursor": {"row": cursor[0], "col": cursor[1]},
        "content_revision": revision,
    }
    if previous is not None:
        params["previous"] = {
            "start": {"row": previous[0][0], "col": previous[0][1]},
            "end": {"row": previous[1][0], "col": previous[1][1]},
        }
    return params


def _point(value: object) -> Point | None:
    if not isinstance(value, Mapping):
        return None
    row, col = value.get("row"), value.get("col")
    if isinstance(row, int) and isinstance(col, int) and row >= 0 and col >= 0:
        return row, col
    return None


def from_result(query: str, direction: SearchDirection, result: Mapping[str, Any]) -> Search:
    """The server's answer as a :class:`Search` (malformed entries are dropped)."""
    matches: list[Match] = []
    raw = result.get("matches")
    for item in raw if isinstance(raw, list) else ():
        if not isinstance(item, Mapping):
            continue
        start, end = _point(item.get("start")), _point(item.get("end"))
        if start is not None and end is not None and start <= end:
            matches.append((start, end))
    total = result.get("total")
    current = result.get("current")
    current_global = result.get("current_global")
    return Search(
        query,
        direction,
        tuple(matches),
        total if isinstance(total, int) and total >= 0 else len(matches),
        current if isinstance(current, int) and 0 <= current < len(matches) else None,
        current_global if isinstance(current_global, int) and current_global >= 0 else None,
    )


def spans(match: Match, line: int, width: int) -> tuple[int, int] | None:
    """Cells ``[first, last)`` of ``line`` covered by ``match`` (it may wrap rows)."""
    (r0, c0), (r1, c1) = match
    if not r0 <= line <= r1:
        return None
    first = c0 if line == r0 else 0
    last = c1 + 1 if line == r1 else width
    last = min(last, width)
    return (first, last) if last > first else None


def paint(rows: Sequence[str], top: int, width: int, search: Search | None) -> tuple[str, ...]:
    """``rows`` (row 0 = absolute row ``top``) with the search's matches highlighted."""
    out = tuple(rows)
    if search is None or not search.matches:
        return out
    current = search.current_match
    painted = list(out)
    last_row = top + len(rows) - 1
    for y in range(len(rows)):
        line = top + y
        marks: list[tuple[int, int, str]] = []
        for match in search.matches:
            if match[1][0] < line or match[0][0] > line:
                continue
            span = spans(match, line, width)
            if span is not None:
                marks.append((*span, CURRENT_SGR if match == current else MATCH_SGR))
        if marks and line <= last_row:
            painted[y] = restyle(painted[y], width, _disjoint(marks))
    return tuple(painted)


def _disjoint(marks: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping matches (``aa`` in ``aaa``) clipped so each cell has one style."""
    out: list[tuple[int, int, str]] = []
    end = 0
    for start, last, style in sorted(marks):
        first = max(start, end)
        if last > first:
            out.append((first, last, style))
            end = last
    return out

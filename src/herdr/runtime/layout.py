"""PURE split trees and their geometry.

A tab's layout is a binary split tree whose leaves are pane keys. Trees are immutable
(frozen dataclasses): every edit returns a new tree, so a model operation can build
its result first and commit it only when nothing failed.

Geometry convention (used by the server for PTY sizes and by the TUI for drawing,
mouse hits and border drags):

* Pane rectangles are *content* rectangles: their size is the PTY size.
* The two children of a split are separated by a 1-cell divider: a column for a
  `right` split (side by side), a row for a `down` split (stacked). The divider
  belongs to neither child. There is no outer border: panes touch the area's edges.
* Pane rectangles and divider rectangles partition the area exactly (no overlap, no
  gap, nothing outside).
* Along the split axis the cells left after the divider are shared by `ratio`:
  `first = round_half_up((size - 1) * ratio)`, clamped so each side keeps its
  minimum (1 cell per pane plus its inner dividers). When the area is too small even
  for the minimum, panes may get zero width/height (hidden) but the partition holds.
* A zoomed pane gets the whole area; the other panes and the dividers are not laid out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Generic, Literal, TypeAlias, TypeVar

from msgspec import Struct

from herdr.runtime.rect import Rect as Rect  # noqa: PLC0414 (explicit re-export: callers say L.Rect)

K = TypeVar("K", bound=Hashable)
K2 = TypeVar("K2", bound=Hashable)

SplitDirection = Literal["right", "down"]
Direction = Literal["left", "right", "up", "down"]
Path: TypeAlias = tuple[bool, ...]  # False = first child, True = second child

SPLIT_DIRECTIONS: tuple[SplitDirection, ...] = ("right", "down")
DIRECTIONS: tuple[Direction, ...] = ("left", "right", "up", "down")
MIN_RATIO = 0.1
MAX_RATIO = 0.9
DEFAULT_RATIO = 0.5


# --------------------------------------------------------------------------- tree


@dataclass(frozen=True, slots=True)
class Leaf(Generic[K]):
    """A pane slot."""

    key: K


@dataclass(frozen=True, slots=True)
class Split(Generic[K]):
    """Two subtrees; `ratio` is the share of the first one (left or top)."""

    direction: SplitDirection
    ratio: float
    first: Node[K]
    second: Node[K]


Node: TypeAlias = Leaf[K] | Split[K]


def clamp_ratio(ratio: float) -> float:
    """Clamp into [MIN_RATIO, MAX_RATIO]; non-finite values fall back to the default."""
    if not math.isfinite(ratio):
        return DEFAULT_RATIO
    return min(MAX_RATIO, max(MIN_RATIO, ratio))


def iter_leaves(node: Node[K]) -> Iterator[K]:
    """Leaf keys in tree order (first before second)."""
    stack: list[Node[K]] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, Leaf):
            yield current.key
        else:
            stack.append(current.second)
            stack.append(current.first)


def leaves(node: Node[K]) -> list[K]:
    """Leaf keys in tree order."""
    return list(iter_leaves(node))


def depth(node: Node[K]) -> int:
    """Levels in the tree (a single leaf has depth 1)."""
    if isinstance(node, Leaf):
        return 1
    return 1 + max(depth(node.first), depth(node.second))


def path_to(node: Node[K], key: K) -> Path | None:
    """Path from the root to the leaf `key`, or None when it is not in the tree."""
    if isinstance(node, Leaf):
        return () if node.key == key else None
    for side, child in ((False, node.first), (True, node.second)):
        sub = path_to(child, key)
        if sub is not None:
            return (side, *sub)
    return None


def node_at(node: Node[K], path: Path) -> Node[K] | None:
    """The subtree at `path`, or None when the path leaves the tree."""
    for step in path:
        if isinstance(node, Leaf):
            return None
        node = node.second if step else node.first
    return node


def replace_at(node: Node[K], path: Path, new: Node[K]) -> Node[K]:
    """A copy of `node` with the subtree at `path` replaced (the path must exist)."""
    if not path:
        return new
    if isinstance(node, Leaf):
        raise KeyError(path)
    if path[0]:
        return Split(node.direction, node.ratio, node.first, replace_at(node.second, path[1:], new))
    return Split(node.direction, node.ratio, replace_at(node.first, path[1:], new), node.second)


def split_leaf(
    node: Node[K],
    target: K,
    new_key: K,
    direction: SplitDirection,
    ratio: float = DEFAULT_RATIO,
) -> Node[K]:
    """Replace leaf `target` by a split of (target, new_key); the new pane goes right/below."""
    path = path_to(node, target)
    if path is None:
        raise KeyError(target)
    split = Split(direction, clamp_ratio(ratio), Leaf(target), Leaf(new_key))
    return replace_at(node, path, split)


def remove_leaf(node: Node[K], key: K) -> Node[K] | None:
    """Remove leaf `key`; its sibling takes the parent's place. None if the tree empties."""
    path = path_to(node, key)
    if path is None:
        raise KeyError(key)
    if not path:
        return None
    parent = node_at(node, path[:-1])
    assert isinstance(parent, Split)
    sibling = parent.first if path[-1] else parent.second
    return replace_at(node, path[:-1], sibling)


def swap_leaves(node: Node[K], a: K, b: K) -> Node[K]:
    """Exchange two leaves; shape and ratios are kept."""
    return map_leaves(node, lambda key: b if key == a else a if key == b else key)


def map_leaves(node: Node[K], fn: Callable[[K], K2]) -> Node[K2]:
    """The same tree with every leaf key mapped."""
    if isinstance(node, Leaf):
        return Leaf(fn(node.key))
    return Split(
        node.direction, node.ratio, map_leaves(node.first, fn), map_leaves(node.second, fn)
    )


def set_ratio(node: Node[K], path: Path, ratio: float) -> Node[K]:
    """Set the (clamped) ratio of the split at `path`; KeyError if no split is there."""
    target = node_at(node, path)
    if not isinstance(target, Split):
        raise KeyError(path)
    updated = Split(target.direction, clamp_ratio(ratio), target.first, target.second)
    return replace_at(node, path, updated)


def iter_splits(node: Node[K], path: Path = ()) -> Iterator[tuple[Path, Split[K]]]:
    """(path, split) pairs in pre-order."""
    if isinstance(node, Split):
        yield path, node
        yield from iter_splits(node.first, (*path, False))
        yield from iter_splits(node.second, (*path, True))


def split_id(index: int, path: Path) -> str:
    """Public split id: `split_<preorder index>_root` or `split_<i>_<0/1 path>`."""
    if not path:
        return f"split_{index}_root"
    return f"split_{index}_" + "".join("1" if step else "0" for step in path)


# --------------------------------------------------------------------------- resize


def _axis(direction: Direction) -> SplitDirection:
    return "right" if direction in ("left", "right") else "down"


def resize_path(node: Node[K], key: K, direction: Direction) -> Path | None:
    """The split whose divider a resize of `key` towards `direction` moves.

    Prefer the divider on the requested edge of the pane (nearest such ancestor);
    else the divider on the opposite edge, so an edge pane can still shrink.
    """
    path = path_to(node, key)
    if path is None:
        raise KeyError(key)
    axis = _axis(direction)
    wants_second = direction in ("left", "up")  # divider left/above -> pane is second child
    for want in (wants_second, not wants_second):
        for cut in range(len(path) - 1, -1, -1):
            split = node_at(node, path[:cut])
            if isinstance(split, Split) and split.direction == axis and path[cut] == want:
                return path[:cut]
    return None


def resize(node: Node[K], key: K, direction: Direction, amount: float) -> Node[K]:
    """Move the divider found by `resize_path` by `amount` (a ratio delta) towards `direction`."""
    path = resize_path(node, key, direction)
    if path is None:
        return node
    split = node_at(node, path)
    assert isinstance(split, Split)
    delta = amount if direction in ("right", "down") else -amount
    ratio = round(clamp_ratio(split.ratio + delta), 6)
    if ratio == split.ratio:
        return node
    return set_ratio(node, path, ratio)


# --------------------------------------------------------------------------- geometry


class Divider(Struct, frozen=True):
    """The 1-cell line between a split's children; `area` is the whole split's area."""

    index: int  # pre-order split index
    path: Path
    direction: SplitDirection
    ratio: float
    rect: Rect
    area: Rect

    @property
    def id(self) -> str:
        return split_id(self.index, self.path)


@dataclass(frozen=True, slots=True)
class Geometry(Generic[K]):
    """Laid-out tree: pane content rects (tree order) and dividers (pre-order)."""

    area: Rect
    panes: dict[K, Rect]
    dividers: tuple[Divider, ...]


def min_size(node: Node[K]) -> tuple[int, int]:
    """Smallest (width, height) that shows every pane with at least 1x1 cells."""
    if isinstance(node, Leaf):
        return 1, 1
    fw, fh = min_size(node.first)
    sw, sh = min_size(node.second)
    if node.direction == "right":
        return fw + 1 + sw, max(fh, sh)
    return max(fw, sw), fh + 1 + sh


def _share(total: int, ratio: float, min_first: int, min_second: int) -> tuple[int, int, int]:
    """(first, divider, second) sizes along the split axis."""
    divider = 1 if total >= 1 else 0
    avail = max(0, total - divider)
    first = math.floor(avail * ratio + 0.5)
    if min_first + min_second <= avail:
        first = min(max(first, min_first), avail - min_second)
    first = min(max(first, 0), avail)
    return first, divider, avail - first


def _cut(area: Rect, split: Split[K]) -> tuple[Rect, Rect, Rect]:
    """(first, divider, second) rectangles of a split laid out in `area`."""
    (fw, fh), (sw, sh) = min_size(split.first), min_size(split.second)
    if split.direction == "right":
        a, d, _ = _share(area.width, split.ratio, fw, sw)
        return (
            Rect(area.x, area.y, a, area.height),
            Rect(area.x + a, area.y, d, area.height),
            Rect(area.x + a + d, area.y, area.width - a - d, area.height),
        )
    a, d, _ = _share(area.height, split.ratio, fh, sh)
    return (
        Rect(area.x, area.y, area.width, a),
        Rect(area.x, area.y + a, area.width, d),
        Rect(area.x, area.y + a + d, area.width, area.height - a - d),
    )


def compute(node: Node[K], area: Rect, *, zoomed: K | None = None) -> Geometry[K]:
    """Lay the tree out in `area` (see the module docstring for the convention)."""
    if zoomed is not None:
        if path_to(node, zoomed) is None:
            raise KeyError(zoomed)
        return Geometry(area, {zoomed: area}, ())
    panes: dict[K, Rect] = {}
    dividers: list[Divider] = []
    _layout(node, area, (), panes, dividers)
    return Geometry(area, panes, tuple(dividers))


def _layout(
    node: Node[K], area: Rect, path: Path, panes: dict[K, Rect], dividers: list[Divider]
) -> None:
    if isinstance(node, Leaf):
        panes[node.key] = area
        return
    first, line, second = _cut(area, node)
    dividers.append(Divider(len(dividers), path, node.direction, node.ratio, line, area))
    _layout(node.first, first, (*path, False), panes, dividers)
    _layout(node.second, second, (*path, True), panes, dividers)


# --------------------------------------------------------------------------- queries


def _overlap(a0: int, alen: int, b0: int, blen: int) -> int:
    return max(0, min(a0 + alen, b0 + blen) - max(a0, b0))


def _candidate(r: Rect, fr: Rect, direction: Direction) -> tuple[int, int, int] | None:
    """(edge distance, -overlap, centre distance) when `r` lies in `direction` of `fr`.

    Hidden (zero-size) panes are never candidates: there is nothing to look at.
    """
    if r.area == 0:
        return None
    if direction in ("left", "right"):
        overlap = _overlap(r.y, r.height, fr.y, fr.height)
        centre = abs((2 * r.y + r.height) - (2 * fr.y + fr.height))
        gap = fr.x - r.right if direction == "left" else r.x - fr.right
    else:
        overlap = _overlap(r.x, r.width, fr.x, fr.width)
        centre = abs((2 * r.x + r.width) - (2 * fr.x + fr.width))
        gap = fr.y - r.bottom if direction == "up" else r.y - fr.bottom
    if gap < 0 or overlap <= 0:
        return None
    return gap, -overlap, centre


def neighbor(geometry: Geometry[K], key: K, direction: Direction) -> K | None:
    """The pane next to `key` in `direction`: nearest edge, then most overlap, then centre."""
    origin = geometry.panes[key]
    best: tuple[tuple[int, int, int, int], K] | None = None
    for order, (other, rect) in enumerate(geometry.panes.items()):
        if other == key:
            continue
        score = _candidate(rect, origin, direction)
        if score is not None and (best is None or (*score, order) < best[0]):
            best = ((*score, order), other)
    return best[1] if best else None


def edges(geometry: Geometry[K], key: K) -> dict[Direction, bool]:
    """Which sides of pane `key` touch the outer area."""
    r, a = geometry.panes[key], geometry.area
    return {
        "left": r.x <= a.x,
        "right": r.right >= a.right,
        "up": r.y <= a.y,
        "down": r.bottom >= a.bottom,
    }


@dataclass(frozen=True, slots=True)
class PaneHit(Generic[K]):
    """A click landed inside a pane's content."""

    key: K


class DividerHit(Struct, frozen=True):
    """A click landed on a divider (start of a border drag)."""

    divider: Divider


def hit_test(geometry: Geometry[K], x: int, y: int) -> PaneHit[K] | DividerHit | None:
    """What is at cell (x, y): a pane, a divider, or nothing (outside the area)."""
    for key, rect in geometry.panes.items():
        if rect.contains(x, y):
            return PaneHit(key)
    for divider in geometry.dividers:
        if divider.rect.contains(x, y):
            return DividerHit(divider)
    return None


def drag_ratio(divider: Divider, x: int, y: int) -> float:
    """The ratio that puts `divider` at cell (x, y) (for border drags), clamped."""
    area = divider.area
    if divider.direction == "right":
        offset, span = x - area.x, area.width - 1
    else:
        offset, span = y - area.y, area.height - 1
    if span <= 0:
        return divider.ratio
    return round(clamp_ratio(offset / span), 6)

"""Split trees and geometry: tree edits, rectangles, neighbours, hits, drags, resizes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herdr.runtime import layout as lay
from herdr.runtime.layout import (
    Direction,
    DividerHit,
    Leaf,
    Node,
    PaneHit,
    Path,
    Rect,
    Split,
    SplitDirection,
)


def right(ratio: float, first: Node[int], second: Node[int]) -> Split[int]:
    return Split("right", ratio, first, second)


def down(ratio: float, first: Node[int], second: Node[int]) -> Split[int]:
    return Split("down", ratio, first, second)


L1, L2, L3, L4 = Leaf(1), Leaf(2), Leaf(3), Leaf(4)

# herdr's own fixture: 1 | (2 / (3 | 4))
SAMPLE = right(0.3, L1, down(0.6, L2, right(0.4, L3, L4)))
AREA = Rect(0, 0, 100, 40)


# --------------------------------------------------------------------------- tree edits


def test_leaves_are_in_tree_order() -> None:
    assert lay.leaves(SAMPLE) == [1, 2, 3, 4]
    assert lay.depth(SAMPLE) == 4
    assert lay.depth(L1) == 1


@pytest.mark.parametrize(
    ("key", "path"),
    [
        (1, (False,)),
        (2, (True, False)),
        (3, (True, True, False)),
        (4, (True, True, True)),
        (9, None),
    ],
    ids=["p1", "p2", "p3", "p4", "missing"],
)
def test_path_to_and_node_at(key: int, path: Path | None) -> None:
    assert lay.path_to(SAMPLE, key) == path
    if path is not None:
        assert lay.node_at(SAMPLE, path) == Leaf(key)


def test_node_at_past_a_leaf_is_none() -> None:
    assert lay.node_at(SAMPLE, (False, True)) is None


@pytest.mark.parametrize(
    ("direction", "ratio", "expected"),
    [
        ("right", 0.5, right(0.5, L1, Leaf(9))),
        ("down", 0.25, down(0.25, L1, Leaf(9))),
        ("right", 0.0, right(0.1, L1, Leaf(9))),  # clamped
        ("down", 2.0, down(0.9, L1, Leaf(9))),
        ("right", float("nan"), right(0.5, L1, Leaf(9))),
    ],
    ids=["right", "down", "clamp-low", "clamp-high", "nan-default"],
)
def test_split_leaf_puts_new_pane_second(
    direction: SplitDirection, ratio: float, expected: Node[int]
) -> None:
    assert lay.split_leaf(L1, 1, 9, direction, ratio) == expected


def test_split_nested_leaf_keeps_the_rest() -> None:
    tree = lay.split_leaf(SAMPLE, 3, 5, "down")
    assert lay.leaves(tree) == [1, 2, 3, 5, 4]
    assert lay.node_at(tree, (True, True, False)) == down(0.5, L3, Leaf(5))


def test_split_missing_leaf_raises() -> None:
    with pytest.raises(KeyError):
        lay.split_leaf(SAMPLE, 9, 10, "right")


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (1, down(0.6, L2, right(0.4, L3, L4))),
        (2, right(0.3, L1, right(0.4, L3, L4))),
        (4, right(0.3, L1, down(0.6, L2, L3))),
    ],
    ids=["root-first", "middle", "deepest"],
)
def test_remove_leaf_sibling_takes_the_space(key: int, expected: Node[int]) -> None:
    assert lay.remove_leaf(SAMPLE, key) == expected


def test_remove_last_leaf_empties_and_missing_raises() -> None:
    assert lay.remove_leaf(L1, 1) is None
    with pytest.raises(KeyError):
        lay.remove_leaf(SAMPLE, 9)


def test_swap_keeps_shape_and_ratios() -> None:
    swapped = lay.swap_leaves(SAMPLE, 2, 4)
    assert swapped == right(0.3, L1, down(0.6, L4, right(0.4, L3, L2)))
    assert lay.swap_leaves(swapped, 2, 4) == SAMPLE


@pytest.mark.parametrize(
    ("path", "ratio", "expected"),
    [((), 0.72, 0.72), ((True,), 0.05, 0.1), ((True, True), 0.95, 0.9)],
    ids=["root", "clamp-low", "clamp-high"],
)
def test_set_ratio(path: Path, ratio: float, expected: float) -> None:
    node = lay.node_at(lay.set_ratio(SAMPLE, path, ratio), path)
    assert isinstance(node, Split)
    assert node.ratio == expected


@pytest.mark.parametrize("path", [(False,), (True, False), (True, True, True, True)], ids=str)
def test_set_ratio_needs_a_split(path: Path) -> None:
    with pytest.raises(KeyError):
        lay.set_ratio(SAMPLE, path, 0.5)


def test_split_ids_are_preorder_with_paths() -> None:
    found = [lay.split_id(i, path) for i, (path, _) in enumerate(lay.iter_splits(SAMPLE))]
    assert found == ["split_0_root", "split_1_1", "split_2_11"]


def test_map_leaves() -> None:
    assert lay.leaves(lay.map_leaves(SAMPLE, str)) == ["1", "2", "3", "4"]


# --------------------------------------------------------------------------- geometry


@pytest.mark.parametrize(
    ("node", "area", "panes", "dividers"),
    [
        (L1, Rect(0, 0, 10, 5), {1: Rect(0, 0, 10, 5)}, []),
        (
            right(0.5, L1, L2),
            Rect(0, 0, 11, 5),
            {1: Rect(0, 0, 5, 5), 2: Rect(6, 0, 5, 5)},
            [Rect(5, 0, 1, 5)],
        ),
        (
            right(0.5, L1, L2),
            Rect(0, 0, 120, 40),
            {1: Rect(0, 0, 60, 40), 2: Rect(61, 0, 59, 40)},
            [Rect(60, 0, 1, 40)],
        ),
        (
            down(0.3, L1, L2),
            Rect(2, 3, 10, 40),
            {1: Rect(2, 3, 10, 12), 2: Rect(2, 16, 10, 27)},
            [Rect(2, 15, 10, 1)],
        ),
        (
            right(0.1, L1, L2),
            Rect(0, 0, 5, 1),
            {1: Rect(0, 0, 1, 1), 2: Rect(2, 0, 3, 1)},
            [Rect(1, 0, 1, 1)],
        ),
        (
            right(0.9, L1, right(0.5, L2, L3)),
            Rect(0, 0, 10, 1),
            {1: Rect(0, 0, 6, 1), 2: Rect(7, 0, 1, 1), 3: Rect(9, 0, 1, 1)},
            [Rect(6, 0, 1, 1), Rect(8, 0, 1, 1)],
        ),
        (
            right(0.5, L1, L2),
            Rect(0, 0, 2, 3),
            {1: Rect(0, 0, 1, 3), 2: Rect(2, 0, 0, 3)},
            [Rect(1, 0, 1, 3)],
        ),
        (
            right(0.5, L1, L2),
            Rect(0, 0, 0, 3),
            {1: Rect(0, 0, 0, 3), 2: Rect(0, 0, 0, 3)},
            [Rect(0, 0, 0, 3)],
        ),
        (
            SAMPLE,
            AREA,
            {
                1: Rect(0, 0, 30, 40),
                2: Rect(31, 0, 69, 23),
                3: Rect(31, 24, 27, 16),
                4: Rect(59, 24, 41, 16),
            },
            [Rect(30, 0, 1, 40), Rect(31, 23, 69, 1), Rect(58, 24, 1, 16)],
        ),
    ],
    ids=[
        "single",
        "right-odd",
        "right-headless",
        "down-offset",
        "min-first",
        "min-nested-second",
        "too-narrow",
        "zero-width",
        "herdr-sample",
    ],
)
def test_compute_rects(
    node: Node[int], area: Rect, panes: dict[int, Rect], dividers: list[Rect]
) -> None:
    geo = lay.compute(node, area)
    assert geo.panes == panes
    assert [d.rect for d in geo.dividers] == dividers
    assert list(geo.panes) == lay.leaves(node)


def test_dividers_carry_split_area_path_and_id() -> None:
    geo = lay.compute(SAMPLE, AREA)
    third = geo.dividers[2]
    assert third.path == (True, True)
    assert third.id == "split_2_11"
    assert third.area == Rect(31, 24, 69, 16)
    assert (third.direction, third.ratio) == ("right", 0.4)


def test_zoomed_pane_gets_the_whole_area() -> None:
    geo = lay.compute(SAMPLE, AREA, zoomed=3)
    assert geo.panes == {3: AREA}
    assert geo.dividers == ()
    with pytest.raises(KeyError):
        lay.compute(SAMPLE, AREA, zoomed=9)


@pytest.mark.parametrize(
    ("node", "size"),
    [(L1, (1, 1)), (right(0.5, L1, L2), (3, 1)), (SAMPLE, (5, 3)), (down(0.5, SAMPLE, L1), (5, 5))],
    ids=["leaf", "pair", "sample", "stacked"],
)
def test_min_size(node: Node[int], size: tuple[int, int]) -> None:
    assert lay.min_size(node) == size


def trees(max_leaves: int = 12) -> st.SearchStrategy[Node[int]]:
    """Random split trees with unique integer leaves."""
    shapes = st.recursive(
        st.just(None),
        lambda children: st.tuples(
            st.sampled_from(lay.SPLIT_DIRECTIONS), st.floats(0.0, 1.0), children, children
        ),
        max_leaves=max_leaves,
    )
    return shapes.map(_number_leaves)


def _number_leaves(shape: object) -> Node[int]:
    counter = iter(range(1, 1000))

    def build(s: object) -> Node[int]:
        if s is None:
            return Leaf(next(counter))
        assert isinstance(s, tuple)
        direction, ratio, first, second = s
        return Split(direction, ratio, build(first), build(second))

    return build(shape)


areas = st.builds(
    Rect,
    st.integers(0, 20),
    st.integers(0, 20),
    st.integers(0, 80),
    st.integers(0, 40),
)


def _cells(rect: Rect) -> set[tuple[int, int]]:
    return {(x, y) for x in range(rect.x, rect.right) for y in range(rect.y, rect.bottom)}


@given(trees(), areas)
def test_panes_and_dividers_partition_the_area(node: Node[int], area: Rect) -> None:
    geo = lay.compute(node, area)
    pieces = list(geo.panes.values()) + [d.rect for d in geo.dividers]
    covered: set[tuple[int, int]] = set()
    for rect in pieces:
        assert rect.width >= 0 and rect.height >= 0
        assert area.x <= rect.x <= rect.right <= area.right
        assert area.y <= rect.y <= rect.bottom <= area.bottom
        cells = _cells(rect)
        assert not covered & cells, "pieces overlap"
        covered |= cells
    assert covered == _cells(area)


@given(trees(), areas)
def test_every_pane_is_visible_when_the_area_fits_the_minimum(node: Node[int], area: Rect) -> None:
    min_w, min_h = lay.min_size(node)
    geo = lay.compute(node, area)
    if area.width >= min_w and area.height >= min_h:
        assert all(r.width >= 1 and r.height >= 1 for r in geo.panes.values())


@given(trees(), areas)
def test_hit_test_agrees_with_the_partition(node: Node[int], area: Rect) -> None:
    geo = lay.compute(node, area)
    for key, rect in geo.panes.items():
        for x, y in list(_cells(rect))[:5]:
            assert lay.hit_test(geo, x, y) == PaneHit(key)
    for divider in geo.dividers:
        for x, y in list(_cells(divider.rect))[:5]:
            assert lay.hit_test(geo, x, y) == DividerHit(divider)


# --------------------------------------------------------------------------- queries


@pytest.mark.parametrize(
    ("key", "direction", "expected"),
    [
        (1, "right", 2),  # 2 overlaps 1 more than 3 does
        (1, "left", None),
        (1, "up", None),
        (2, "left", 1),
        (2, "down", 4),  # 4 overlaps 2 more than 3 does
        (3, "up", 2),
        (3, "left", 1),
        (3, "right", 4),
        (4, "left", 3),
        (4, "up", 2),
        (4, "right", None),
        (4, "down", None),
    ],
    ids=str,
)
def test_neighbor(key: int, direction: Direction, expected: int | None) -> None:
    assert lay.neighbor(lay.compute(SAMPLE, AREA), key, direction) == expected


def test_neighbor_ties_break_by_centre_then_tree_order() -> None:
    # 1 | (2 / 3) with 2 and 3 the same height: 1 right -> the upper one (tree order)
    node = right(0.5, L1, down(0.5, L2, L3))
    geo = lay.compute(node, Rect(0, 0, 20, 21))
    assert geo.panes[2].height == geo.panes[3].height
    assert lay.neighbor(geo, 1, "right") == 2


def test_zero_size_panes_are_never_neighbours() -> None:
    geo = lay.compute(right(0.5, L1, L2), Rect(0, 0, 2, 3))
    assert lay.neighbor(geo, 1, "right") is None


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (1, {"left": True, "right": False, "up": True, "down": True}),
        (2, {"left": False, "right": True, "up": True, "down": False}),
        (3, {"left": False, "right": False, "up": False, "down": True}),
    ],
    ids=["left-column", "top-right", "bottom-middle"],
)
def test_edges(key: int, expected: dict[str, bool]) -> None:
    assert lay.edges(lay.compute(SAMPLE, AREA), key) == expected


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        (0, 0, PaneHit(1)),
        (29, 39, PaneHit(1)),
        (30, 5, "split_0_root"),
        (50, 23, "split_1_1"),
        (58, 30, "split_2_11"),
        (59, 24, PaneHit(4)),
        (100, 0, None),
        (-1, 0, None),
        (0, 40, None),
    ],
    ids=str,
)
def test_hit_test(x: int, y: int, expected: object) -> None:
    hit = lay.hit_test(lay.compute(SAMPLE, AREA), x, y)
    if isinstance(expected, str):
        assert isinstance(hit, DividerHit)
        assert hit.divider.id == expected
    else:
        assert hit == expected


def test_hit_test_while_zoomed_sees_only_the_zoomed_pane() -> None:
    geo = lay.compute(SAMPLE, AREA, zoomed=2)
    assert lay.hit_test(geo, 30, 5) == PaneHit(2)


@pytest.mark.parametrize(
    ("index", "x", "y", "ratio"),
    [
        (0, 50, 0, round(50 / 99, 6)),
        (0, 0, 0, 0.1),
        (0, 99, 0, 0.9),
        (1, 40, 10, round(10 / 39, 6)),
        (2, 58, 24, round(27 / 68, 6)),
    ],
    ids=["middle", "clamp-left", "clamp-right", "down", "nested-unchanged"],
)
def test_drag_ratio(index: int, x: int, y: int, ratio: float) -> None:
    divider = lay.compute(SAMPLE, AREA).dividers[index]
    assert lay.drag_ratio(divider, x, y) == ratio


def test_dragging_a_divider_to_a_cell_puts_it_there() -> None:
    tree: Node[int] = right(0.5, L1, L2)
    divider = lay.compute(tree, AREA).dividers[0]
    moved = lay.set_ratio(tree, divider.path, lay.drag_ratio(divider, 70, 3))
    assert lay.compute(moved, AREA).dividers[0].rect.x == 70


# --------------------------------------------------------------------------- resize

PAIR_RIGHT = right(0.5, L1, L2)
PAIR_DOWN = down(0.5, L1, L2)
GRID = down(0.5, right(0.5, L1, L2), right(0.5, L3, L4))


@pytest.mark.parametrize(
    ("node", "key", "direction", "path", "ratio"),
    [
        (SAMPLE, 1, "right", (), 0.35),
        (PAIR_RIGHT, 2, "left", (), 0.45),
        (PAIR_RIGHT, 1, "left", (), 0.45),  # outer edge: shrink via the opposite divider
        (PAIR_RIGHT, 2, "right", (), 0.55),
        (PAIR_DOWN, 1, "up", (), 0.45),
        (PAIR_DOWN, 2, "down", (), 0.55),
        (right(0.6, down(0.5, L1, L2), L3), 1, "left", (), 0.55),
        (down(0.6, right(0.5, L1, L2), L3), 1, "up", (), 0.55),
        (GRID, 3, "right", (True,), 0.55),  # same branch, not the aligned top divider
        (SAMPLE, 3, "right", (True, True), 0.45),
        (SAMPLE, 4, "up", (True,), 0.55),
    ],
    ids=[
        "grow-right",
        "second-left",
        "outer-left",
        "outer-right",
        "outer-up",
        "outer-down",
        "fallback-ancestor-horizontal",
        "fallback-ancestor-vertical",
        "same-branch",
        "nested",
        "nested-up",
    ],
)
def test_resize(node: Node[int], key: int, direction: Direction, path: Path, ratio: float) -> None:
    assert lay.resize_path(node, key, direction) == path
    changed = lay.node_at(lay.resize(node, key, direction, 0.05), path)
    assert isinstance(changed, Split)
    assert changed.ratio == ratio


@pytest.mark.parametrize(
    ("node", "key", "direction"),
    [(L1, 1, "right"), (PAIR_DOWN, 1, "left"), (right(0.9, L1, L2), 1, "right")],
    ids=["single", "no-split-on-axis", "clamped"],
)
def test_resize_noop_returns_the_same_tree(node: Node[int], key: int, direction: Direction) -> None:
    assert lay.resize(node, key, direction, 0.05) is node


def test_resize_missing_pane_raises() -> None:
    with pytest.raises(KeyError):
        lay.resize_path(SAMPLE, 9, "left")

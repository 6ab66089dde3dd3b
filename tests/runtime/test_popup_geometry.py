"""Popup boxes (pure): sizes in cells or percent, defaults, clamps, centring."""

from __future__ import annotations

import pytest

from herdr.runtime import popup_geometry as pg
from herdr.runtime.layout import Rect

AREA = Rect(0, 0, 100, 30)


@pytest.mark.parametrize(
    ("width", "height", "outer"),
    [
        (None, None, Rect(25, 7, 50, 15)),
        (40, 10, Rect(30, 10, 40, 10)),
        ("80%", "50%", Rect(10, 7, 80, 15)),
        ("100%", "100%", Rect(0, 0, 100, 30)),
        (0, 0, Rect(45, 13, 10, 4)),
        (65535, 65535, Rect(0, 0, 100, 30)),
        ("1%", "1%", Rect(45, 13, 10, 4)),
    ],
    ids=["default-half", "cells", "percent", "whole", "minimum", "cut-to-area", "tiny-percent"],
)
def test_resolve(width: pg.PopupSize | None, height: pg.PopupSize | None, outer: Rect) -> None:
    box = pg.resolve(width, height, AREA)
    assert box is not None
    assert box.outer == outer
    assert (box.cols, box.rows) == (outer.width - 2, outer.height - 2)


def test_an_offset_area_centres_inside_it() -> None:
    box = pg.resolve(20, 6, Rect(10, 2, 40, 10))
    assert box is not None and box.outer == Rect(20, 4, 20, 6)


@pytest.mark.parametrize(
    "area", [Rect(0, 0, 2, 30), Rect(0, 0, 100, 2)], ids=["too-narrow", "too-short"]
)
def test_no_box_in_an_area_too_small(area: Rect) -> None:
    assert pg.resolve(None, None, area) is None


def test_a_small_area_still_gets_a_bordered_cell() -> None:
    box = pg.resolve(None, None, Rect(0, 0, 5, 3))
    assert box is not None and box.outer == Rect(0, 0, 5, 3) and (box.cols, box.rows) == (3, 1)


@pytest.mark.parametrize(
    "value",
    [-1, 65536, "0%", "101%", "50", "50 %", "%", "x%", 1.5, True, [], {}],
    ids=[
        "negative",
        "too-big",
        "zero-pc",
        "over-100",
        "no-sign",
        "space",
        "bare",
        "x",
        "float",
        "bool",
        "list",
        "dict",
    ],
)
def test_bad_sizes_are_refused(value: object) -> None:
    with pytest.raises(pg.PopupSizeError):
        pg.check_size(value, "width")


@pytest.mark.parametrize("value", [None, 0, 80, 65535, "1%", "80%", "100%"])
def test_good_sizes_pass(value: object) -> None:
    assert pg.check_size(value, "width") == value

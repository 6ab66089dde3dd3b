"""Tab and border names, the adaptive sidebar width and its collapse (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.client.build_view import SIDEBAR_COLLAPSE_COLS, Look, sidebar_shown, sidebar_width
from herdr.client.names import pane_title, tab_name

PANE = {"pane_id": "w1:p1", "cwd": "/home/u/proj/"}


@pytest.mark.parametrize(
    ("tab", "focused", "name"),
    [
        ({"number": 1, "label": "1"}, PANE, "proj"),
        ({"number": 1, "label": "1"}, {**PANE, "terminal_title_stripped": "vim x.py"}, "vim x.py"),
        ({"number": 2, "label": "2"}, {**PANE, "agent": "claude"}, "claude"),
        ({"number": 2, "label": "2"}, {**PANE, "foreground_cwd": "/tmp/build"}, "build"),
        ({"number": 1, "label": "build"}, {**PANE, "agent": "claude"}, "build"),
        ({"number": 1, "label": "1"}, None, "1"),
        ({"number": 3, "label": "1"}, PANE, "1"),  # a tab named "1" by someone
    ],
    ids=["dir", "osc-title", "agent", "foreground-dir", "named", "no-pane", "named-a-number"],
)
def test_tab_name(tab: dict[str, Any], focused: dict[str, Any] | None, name: str) -> None:
    assert tab_name(tab, focused) == name


@pytest.mark.parametrize(
    ("pane", "title"),
    [
        ({**PANE, "label": "server"}, "server"),
        ({**PANE, "terminal_title_stripped": "htop"}, "htop"),
        ({**PANE, "terminal_title": "  raw  "}, "raw"),
        (PANE, "proj"),
        ({"pane_id": "p", "cwd": "/"}, "/"),
    ],
    ids=["label", "osc-title", "raw-title", "dir", "root"],
)
def test_pane_title(pane: dict[str, Any], title: str) -> None:
    assert pane_title(pane) == title


@pytest.mark.parametrize(
    ("look", "labels", "width"),
    [
        (Look(), ["api"], 26),
        (Look(), ["a-rather-long-workspace-name"], 36),  # grows, up to the maximum
        (Look(), ["x" * 22], 30),
        (Look(sidebar_width=10), ["api"], 18),  # never under the minimum
        (Look(sidebar_width=50), ["api"], 50),  # an explicit width beyond the maximum
        (Look(sidebar_min_width=40, sidebar_max_width=20), [], 26),  # swapped: 20..40
    ],
    ids=["default", "long-name", "grows", "minimum", "explicit-wide", "swapped"],
)
def test_sidebar_width(look: Look, labels: list[str], width: int) -> None:
    assert sidebar_width(look, labels) == width


@pytest.mark.parametrize(
    ("cols", "visible", "narrow", "shown"),
    [
        (SIDEBAR_COLLAPSE_COLS, True, False, True),
        (SIDEBAR_COLLAPSE_COLS, False, True, False),
        (SIDEBAR_COLLAPSE_COLS - 1, True, False, False),  # marks only
        (SIDEBAR_COLLAPSE_COLS - 1, True, True, True),  # expanded there with prefix+b
    ],
    ids=["wide", "wide-hidden", "narrow", "narrow-expanded"],
)
def test_the_sidebar_collapses_on_narrow_terminals(
    cols: int, visible: bool, narrow: bool, shown: bool
) -> None:
    assert sidebar_shown(cols, visible, narrow) is shown

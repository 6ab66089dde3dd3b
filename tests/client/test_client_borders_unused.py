"""Area past a smaller session size (another client's) is blank, never border junctions."""

from __future__ import annotations

import re

import pytest

from herdr.client.borders import MainKey, PaneKey, main_template
from herdr.runtime.layout import Rect

_SGR = re.compile(r"\x1b\[[0-9;]*m")
_BOX = set("│─┼┬┴├┤┌┐└┘")


def _pane(pid: str, rect: Rect) -> PaneKey:
    return PaneKey(pid, rect, "", "", "", True)


def _text(key: MainKey) -> list[str]:
    """Each row's static text with pane slices filled with 'x'."""
    rows, _ = main_template(key)
    out = []
    for items in rows:
        line = ""
        for item in items:
            line += _SGR.sub("", item) if isinstance(item, str) else "x" * item[3]
        out.append(line)
    return out


@pytest.mark.parametrize(
    "panes",
    [
        pytest.param((_pane("w1:p1", Rect(0, 0, 80, 23)),), id="one-pane"),
        pytest.param(
            (_pane("w1:p1", Rect(0, 0, 40, 23)), _pane("w1:p2", Rect(41, 0, 39, 23))),
            id="split-right",
        ),
        pytest.param(
            (_pane("w1:p1", Rect(0, 0, 80, 11)), _pane("w1:p2", Rect(0, 12, 80, 11))),
            id="split-down",
        ),
    ],
)
def test_cells_past_the_layout_are_blank(panes: tuple[PaneKey, ...]) -> None:
    # the client is 120x35 but the session area (another client's) is 80x24
    key = MainKey(120, 35, True, panes, "w1:p1", False, "", "")
    rows = _text(key)
    assert len(rows) == 35
    assert all(len(r) == 120 for r in rows)
    for y, row in enumerate(rows):
        assert row[80:].strip() == "", (y, row)
        if y >= 24:
            assert row.strip() == "", (y, row)
    assert not any(c in _BOX for r in rows[24:] for c in r)


def test_full_size_layout_is_unchanged() -> None:
    panes = (_pane("w1:p1", Rect(0, 0, 40, 23)), _pane("w1:p2", Rect(41, 0, 39, 23)))
    rows = _text(MainKey(80, 24, True, panes, "w1:p1", False, "", ""))
    assert {row[40] for row in rows[1:]} == {"│"}

"""A pane's mirror after a rows message (pure)."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from herdr.api.attach_messages import Rows
from herdr.client.mirror import PaneMirror, apply_rows


class Case(NamedTuple):
    test_id: str
    before: PaneMirror | None
    msg: Rows
    rows: tuple[str, ...]
    scroll: tuple[int, int]


OLD = PaneMirror(rows=("a", "b", "c"), size=(5, 3))

CASES = [
    Case(
        "new_pane_blank_then_rows",
        None,
        Rows(pane_id="p", size=(5, 3), rows=[(1, "x")]),
        ("", "x", ""),
        (0, 3),
    ),
    Case(
        "changed_rows_over_the_old",
        OLD,
        Rows(pane_id="p", size=(5, 3), rows=[(2, "z")], total=40),
        ("a", "b", "z"),
        (0, 40),
    ),
    Case(
        "full_starts_blank",
        OLD,
        Rows(pane_id="p", size=(5, 3), rows=[(0, "n")], full=True),
        ("n", "", ""),
        (0, 3),
    ),
    Case(
        "taller_pads",
        OLD,
        Rows(pane_id="p", size=(5, 4), rows=[(3, "d")], offset=2, total=9),
        ("a", "b", "c", "d"),
        (2, 9),
    ),
    Case(
        "shorter_cuts",
        OLD,
        Rows(pane_id="p", size=(5, 2), rows=[]),
        ("a", "b"),
        (0, 2),
    ),
    Case(
        "rows_outside_are_dropped",
        OLD,
        Rows(pane_id="p", size=(5, 3), rows=[(-1, "?"), (3, "?"), (1, "y")]),
        ("a", "y", "c"),
        (0, 3),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.test_id for c in CASES])
def test_apply_rows(case: Case) -> None:
    mirror = apply_rows(case.before, case.msg)
    assert mirror.rows == case.rows
    assert mirror.scroll == case.scroll
    assert mirror.size == case.msg.size


def test_modes_and_cursor_are_taken_from_the_message() -> None:
    msg = Rows(
        pane_id="p",
        size=(5, 1),
        rows=[],
        cursor=(1, 0),
        mouse=1006,
        app_cursor=True,
        kitty=3,
        mok=2,
    )
    mirror = apply_rows(PaneMirror(rows=("q",), cursor=(0, 0), mouse=1), msg)
    assert (mirror.rows, mirror.cursor, mirror.mouse) == (("q",), (1, 0), 1006)
    assert (mirror.app_cursor, mirror.keyboard) == (True, (3, 2))
    hidden = apply_rows(mirror, Rows(pane_id="p", size=(5, 1), rows=[]))
    assert (hidden.cursor, hidden.mouse, hidden.keyboard) == (None, 0, (0, 0))

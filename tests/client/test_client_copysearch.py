"""Copy-mode search state and drawing (pure): status text, answers, highlight spans."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.client import copymode as cm
from herdr.client import copysearch as cs
from herdr.client.ansi import strip_ansi
from herdr.client.input import SHIFT
from herdr.client.keynames import KeySpec


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        (cs.Search("", "forward"), "/"),
        (cs.Search("", "backward"), "?"),
        (cs.Search("foo", "forward"), "/foo [no match]"),
        (cs.Search("foo", "backward", (((1, 0), (1, 2)),), 7, 0, 3), "?foo [4/7]"),
    ],
    ids=["empty-forward", "empty-backward", "no-match", "counted"],
)
def test_status(search: cs.Search, expected: str) -> None:
    assert search.status() == expected


@pytest.mark.parametrize(
    ("result", "matches", "current"),
    [
        (
            {
                "matches": [{"start": {"row": 2, "col": 1}, "end": {"row": 2, "col": 3}}],
                "total": 1,
                "current": 0,
            },
            (((2, 1), (2, 3)),),
            0,
        ),
        (
            {
                "matches": [{"start": {"row": 2}, "end": {"row": 2, "col": 3}}, "x", 5],
                "total": 3,
                "current": 0,
            },
            (),
            None,
        ),
        ({"matches": [{"start": {"row": 3, "col": 0}, "end": {"row": 2, "col": 3}}]}, (), None),
        ({"matches": "nope", "current": 4}, (), None),
        (
            {
                "matches": [{"start": {"row": 0, "col": 0}, "end": {"row": 0, "col": 0}}],
                "current": 9,
            },
            (((0, 0), (0, 0)),),
            None,
        ),
    ],
    ids=["good", "malformed-entries", "end-before-start", "not-a-list", "current-out-of-range"],
)
def test_from_result_keeps_only_well_formed(
    result: dict[str, Any], matches: tuple[cs.Match, ...], current: int | None
) -> None:
    search = cs.from_result("q", "forward", result)
    assert search.matches == matches
    assert search.current == current


@pytest.mark.parametrize(
    ("match", "line", "span"),
    [
        (((5, 2), (5, 4)), 5, (2, 5)),
        (((5, 2), (5, 4)), 6, None),
        (((5, 8), (6, 1)), 5, (8, 10)),  # wraps onto the next row
        (((5, 8), (6, 1)), 6, (0, 2)),
        (((5, 2), (5, 40)), 5, (2, 10)),  # clipped to the width
    ],
    ids=["one-row", "other-row", "wrapped-first", "wrapped-second", "clipped"],
)
def test_spans(match: cs.Match, line: int, span: tuple[int, int] | None) -> None:
    assert cs.spans(match, line, 10) == span


def test_paint_highlights_matches_and_the_current_one_differently() -> None:
    rows = ("abc abc", "xyz")
    search = cs.Search("abc", "forward", (((10, 0), (10, 2)), ((10, 4), (10, 6))), 2, 1, 1)
    painted = cs.paint(rows, 10, 8, search)
    assert strip_ansi(painted[0]).rstrip() == "abc abc"
    assert painted[0].index(cs.MATCH_SGR) < painted[0].index(cs.CURRENT_SGR)
    assert painted[1] == "xyz"  # no match there: untouched
    assert cs.paint(rows, 10, 8, None) == rows


def test_overlapping_matches_get_one_style_per_cell() -> None:
    search = cs.Search("aa", "forward", (((0, 0), (0, 1)), ((0, 1), (0, 2))), 2, 0, 0)
    painted = cs.paint(("aaa",), 0, 5, search)
    assert strip_ansi(painted[0]).rstrip() == "aaa"


def test_request_steps_past_the_previous_match() -> None:
    params = cs.request("p1", "q", "backward", (3, 4), revision=9, previous=((3, 4), (3, 5)))
    assert params == {
        "pane_id": "p1",
        "query": "q",
        "direction": "backward",
        "cursor": {"row": 3, "col": 4},
        "content_revision": 9,
        "previous": {"start": {"row": 3, "col": 4}, "end": {"row": 3, "col": 5}},
    }
    assert "previous" not in cs.request("p1", "q", "forward", (0, 0), revision=1)


@pytest.mark.parametrize(
    ("spec", "effect"),
    [
        (KeySpec("/"), cm.StartSearch("forward")),
        (KeySpec("?"), cm.StartSearch("backward")),
        (KeySpec("?", SHIFT), cm.StartSearch("backward")),
        (KeySpec("n"), cm.RepeatSearch(reverse=False)),
        (KeySpec("n", SHIFT), cm.RepeatSearch(reverse=True)),
    ],
    ids=["slash", "question", "shift-question", "n", "shift-n"],
)
def test_copy_keys_start_and_repeat_searches(spec: KeySpec, effect: cm.Effect) -> None:
    state = cm.enter("p1", (10, 5), 20, 0, (0, 4))
    new, effects = cm.handle_key(state, spec)
    assert new == state
    assert effects == [effect]


def test_jump_scrolls_the_view_to_the_match() -> None:
    state = cm.enter("p1", (10, 5), 100, 0, (0, 4))
    new, effects = cm.jump(state, 3, 7)
    assert (new.line, new.col, new.top) == (3, 7, 3)
    assert effects == [cm.Scroll(3 - state.top)]

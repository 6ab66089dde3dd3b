"""Which script focus changes (the state document's ``follow``) a client's view adopts."""

from __future__ import annotations

import pytest

from herdr.client.focus_follow import Follow, follow_step

CASES: list[tuple[str, int | None, Follow | None, int, tuple[str, str] | None]] = [
    ("first document sets the baseline", None, (3, "w1", "w1:t2"), 3, None),
    ("first document without follow", None, None, 0, None),
    ("a new script focus is adopted", 3, (4, "w1", "w1:t2"), 4, ("w1", "w1:t2")),
    ("the same seq again is not", 4, (4, "w1", "w1:t2"), 4, None),
    ("the first script focus ever", 0, (1, "w2", "w2:t1"), 1, ("w2", "w2:t1")),
    ("a workspace with no tab is not adopted", 1, (2, "w3", None), 2, None),
    ("a server restart starting over is adopted", 9, (1, "w1", "w1:t1"), 1, ("w1", "w1:t1")),
]


@pytest.mark.parametrize(
    ("last", "follow", "seq", "adopt"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_follow_step(
    last: int | None, follow: Follow | None, seq: int, adopt: tuple[str, str] | None
) -> None:
    assert follow_step(last, follow) == (seq, adopt)

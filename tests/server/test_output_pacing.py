"""Pacing of ``pane.output_matched`` checks: at once after quiet, paced in a burst, and
always once after a burst's last chunk (pure table, then a real server and PTY)."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.server import output_pacing as op
from herdr_testing import ServerHandle
from herdr_testing.held import HeldConnection

GAP = op.MIN_GAP_S

# (steps, expected): ("out", now) -> what on_output answers; ("check", start, end) runs
# checked(); the pace starts fresh (never checked).
CASES: list[tuple[str, list[tuple[Any, ...]], list[Any]]] = [
    ("first output is checked at once", [("out", 10.0)], [0.0]),
    (
        "output inside the gap queues one check for the gap's end",
        [("out", 10.0), ("check", 10.0, 10.001), ("out", 10.011)],
        [0.0, pytest.approx(GAP - 0.01)],
    ),
    (
        "more output while one is queued adds nothing",
        [("out", 10.0), ("check", 10.0, 10.001), ("out", 10.01), ("out", 10.02), ("out", 10.03)],
        [0.0, pytest.approx(GAP - 0.009), None, None],
    ),
    (
        "the queued check ran: the next output is paced again",
        [("out", 10.0), ("check", 10.0, 10.0), ("out", 10.01), ("check", 10.05, 10.05),
         ("out", 10.06)],
        [0.0, pytest.approx(GAP - 0.01), pytest.approx(GAP - 0.01)],
    ),
    (
        "after a quiet gap output is checked at once again",
        [("out", 10.0), ("check", 10.0, 10.0), ("out", 10.0 + GAP)],
        [0.0, 0.0],
    ),
    (
        "a costly check earns a longer gap (four times its cost)",
        [("out", 10.0), ("check", 10.0, 10.1), ("out", 10.2)],
        [0.0, pytest.approx(0.1 + 4 * 0.1 - 0.2)],
    ),
    (
        "the gap shrinks back once checks are cheap again",
        [("out", 10.0), ("check", 10.0, 10.1), ("out", 10.6), ("check", 10.6, 10.6),
         ("out", 10.6 + GAP)],
        [0.0, 0.0, 0.0],
    ),
    (
        "a clock step back never makes a negative gap",
        [("out", 10.0), ("check", 10.0, 9.0), ("out", 9.0 + GAP)],
        [0.0, 0.0],
    ),
]  # fmt: skip


@pytest.mark.parametrize(("steps", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pacing(steps: list[tuple[Any, ...]], expected: list[Any]) -> None:
    pace = op.Pace()
    answers: list[float | None] = []
    for step in steps:
        if step[0] == "out":
            answers.append(op.on_output(pace, step[1]))
        else:
            op.checked(pace, step[1], step[2])
    assert answers == expected


def test_a_floods_last_line_is_pushed(herdr_server: ServerHandle) -> None:
    """The marker is only in the last 3 lines at the very end of a burst: only the check
    queued after the last chunk can see it."""
    herdr_server.request("workspace.create", {"cwd": str(herdr_server.root)})
    item = {
        "type": "pane.output_matched",
        "pane_id": "w1:p1",
        "source": "recent",
        "lines": 3,
        "match": {"type": "regex", "value": r"^MARK-\d+$"},
    }
    stream = HeldConnection(
        herdr_server.socket_path, "events.subscribe", {"subscriptions": [item]}, "s", timeout=60
    )
    try:
        assert stream.next() is not None  # subscription_started
        command = "seq 1 200000; echo MARK-$((40 + 2))"
        herdr_server.request(
            "pane.send_input", {"pane_id": "w1:p1", "text": command, "keys": ["Enter"]}
        )
        matched = stream.next()
        assert matched is not None and matched["event"] == "pane.output_matched", matched
        assert matched["data"]["matched_line"].strip() == "MARK-42"
    finally:
        stream.close()

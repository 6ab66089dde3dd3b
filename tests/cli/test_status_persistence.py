"""``herdr status`` wording for the server's persistence health (ping ``persistence``)."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.cli.status import _next, _persistence_line, _summary

PATH = "/home/u/.config/herdr/session.json"
FAILING = {
    "status": "failing",
    "path": PATH,
    "last_good_save": "2026-05-01T12:00:00.000Z",
    "failing_since": "2026-05-01T12:05:00.000Z",
    "last_failure": "2026-05-01T12:06:00.000Z",
    "last_error": {"message": "No space left on device", "errno": "ENOSPC", "path": PATH},
    "consecutive_failures": 7,
    "unsaved_changes": True,
    "save_in_progress": False,
}
OK = {**FAILING, "status": "ok", "failing_since": None, "consecutive_failures": 0}


def server(health: Any, **overrides: Any) -> dict[str, Any]:
    base = {"running": True, "compatible": True, "restart_needed": False, "persistence": health}
    return {**base, **overrides}


@pytest.mark.parametrize(
    ("health", "line"),
    [
        (
            FAILING,
            "failing since 2026-05-01T12:05:00.000Z (No space left on device [ENOSPC]: "
            f"{PATH}); last good save 2026-05-01T12:00:00.000Z",
        ),
        (
            {**FAILING, "last_good_save": None, "last_error": None},
            f"failing since 2026-05-01T12:05:00.000Z (error: {PATH}); last good save never",
        ),
        (OK, "ok (last good save 2026-05-01T12:00:00.000Z)"),
        ({**OK, "last_good_save": None}, "ok (nothing saved yet)"),
        (None, "unknown"),  # an older server without the field
    ],
    ids=["failing", "failing-bare", "ok", "ok-never-saved", "old-server"],
)
def test_persistence_line(health: Any, line: str) -> None:
    assert _persistence_line(health) == line


@pytest.mark.parametrize(
    ("state", "summary", "next_words"),
    [
        (server(FAILING), "server running; saving the session fails", "free disk space"),
        (server(OK), "server running; client and server match", "no action needed"),
        (server(None), "server running; client and server match", "no action needed"),
        (
            server(FAILING, compatible=False),
            "server running; protocol mismatch",
            "herdr server stop",
        ),
        (
            server(FAILING, restart_needed=True),
            "server running; saving the session fails",
            "free disk space",
        ),
    ],
    ids=["failing", "ok", "old-server", "mismatch-first", "before-restart-advice"],
)
def test_summary_and_next(state: dict[str, Any], summary: str, next_words: str) -> None:
    assert _summary(state) == summary
    assert next_words in _next(state)
    if state["persistence"] is FAILING and state["compatible"]:
        assert PATH in _next(state)

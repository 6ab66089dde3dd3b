"""The human text of ``herdr agent approval`` (pure formatting of the wire record)."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.cli.approvals import approval_text

RECORD = {
    "pane_id": "w1:p2",
    "agent": "codex",
    "rule": "live_strong_blocker",
    "question": "Would you like to run the following command?",
    "detail": "Reason: create the file\n$ touch x",
    "options": [
        {"id": "1", "label": "Yes, proceed (y)", "keys": ["Enter"]},
        {"id": "2", "label": "No (esc)", "keys": ["Down", "Enter"]},
    ],
    "fingerprint": "0123456789abcdef",
}


@pytest.mark.parametrize(
    ("approval", "expected"),
    [
        pytest.param(None, "w1:p2: no permission dialog\n", id="none"),
        pytest.param(
            RECORD,
            "w1:p2 (codex): Would you like to run the following command?\n"
            "    Reason: create the file\n"
            "    $ touch x\n"
            "  1. Yes, proceed (y)  [Enter]\n"
            "  2. No (esc)  [Down Enter]\n"
            "rule live_strong_blocker · fingerprint 0123456789abcdef\n",
            id="dialog",
        ),
        pytest.param(
            {**RECORD, "detail": "", "agent": None, "options": []},
            "w1:p2 (agent): Would you like to run the following command?\n"
            "rule live_strong_blocker · fingerprint 0123456789abcdef\n",
            id="no-detail-no-agent",
        ),
    ],
)
def test_approval_text(approval: dict[str, Any] | None, expected: str) -> None:
    assert approval_text("w1:p2", approval) == expected

"""Every capture in ``data/captures/`` is a regression test (see herdr_testing.captures).

The files there were captured from the real agent CLIs (each file's ``note`` says
which version and which screen): ``live-*`` with ``herdr agent capture`` from a
herdr-python pane, the others with ``tmux capture-pane``. First-run trust, sign-in,
API-key and model pickers that wait for the user read ``blocked``; idle screens and
replies quoting a dialog read ``idle``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr_testing.captures import capture_files, capture_params, check_capture

CAPTURES = Path(__file__).parent / "data" / "captures"


@pytest.mark.parametrize("path", capture_params(CAPTURES))
def test_capture_keeps_its_expected_verdict(path: Path) -> None:
    check_capture(path)


@pytest.mark.parametrize("path", capture_params(CAPTURES))
def test_capture_replays_its_recorded_verdict(path: Path) -> None:
    """The recorded verdict is what replay gives when expected agrees with it."""
    result = check_capture(path)
    capture = result.capture
    if capture.expected_state == capture.verdict_state:
        assert (result.state, result.rule) == (capture.verdict_state, capture.verdict_rule)


def test_waiting_dialogs_and_prose_are_both_covered() -> None:
    """The set keeps both sides: dialogs that must block and quotes that must not."""
    states = [check_capture(path).state for path in capture_files(CAPTURES)]
    assert states.count("blocked") >= 13
    assert states.count("idle") >= 5

"""Capture files as regression tests: drop a ``herdr agent capture`` file, get a test.

``capture_params(DIR)`` turns every ``*.json`` capture in a directory into one
``pytest.param`` (id = file stem); ``replay`` runs a capture through the bundled
manifests exactly as ``herdr agent explain --file`` does without layers, and
``check_capture`` asserts its ``expected`` state (and rule, when one is given).
To keep a misdetection fixed: capture the pane, set ``expected.state`` (and
``expected.rule``, or null for "any rule") to what it should be, and commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from _pytest.mark.structures import ParameterSet

from herdr.detect.agents import SCREEN_MANIFEST_AGENTS, parse_agent_label
from herdr.detect.capture import Capture, parse_capture
from herdr.detect.manifest import DetectionInput, Evaluation, evaluate
from herdr.detect.manifest.sources import load_bundled


@dataclass(frozen=True)
class Replay:
    """A capture and what the bundled manifests say about it now."""

    capture: Capture
    evaluation: Evaluation

    @property
    def state(self) -> str:
        return self.evaluation.detection.state

    @property
    def rule(self) -> str | None:
        winner = self.evaluation.winner
        return winner.id if winner is not None else None


def capture_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.json"))


def capture_params(directory: Path) -> list[ParameterSet]:
    """One param per capture file; an empty directory still yields a visible skip."""
    files = capture_files(directory)
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"no captures in {directory}"))]
    return [pytest.param(path, id=path.stem) for path in files]


def replay(path: Path) -> Replay:
    capture = parse_capture(path.read_text(encoding="utf-8"))
    agent = parse_agent_label(capture.agent)
    assert agent is not None, f"{path.name}: unknown agent {capture.agent!r}"
    manifest = load_bundled(agent) if agent in SCREEN_MANIFEST_AGENTS else None
    inp = DetectionInput(capture.screen, capture.osc_title, capture.osc_progress)
    return Replay(capture, evaluate(manifest, inp))


def check_capture(path: Path) -> Replay:
    """Assert the capture's expected verdict; returns the replay for further checks."""
    result = replay(path)
    expected = result.capture
    where = f"{path.name} ({expected.note or 'no note'})"
    assert result.state == expected.expected_state, (
        f"{where}: state {result.state} (rule {result.rule}), expected {expected.expected_state}"
    )
    if expected.expected_rule is not None:
        assert result.rule == expected.expected_rule, f"{where}: rule {result.rule}"
    return result

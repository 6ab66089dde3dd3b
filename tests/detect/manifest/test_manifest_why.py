"""``matched_lines``: explain's "why" — the screen lines the deciding rule recognised."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.detect.agents import Agent
from herdr.detect.capture import parse_capture
from herdr.detect.manifest import DetectionInput, evaluate
from herdr.detect.manifest.sources import load_bundled
from herdr.detect.manifest.why import MAX_LINES, matched_lines

CAPTURES = Path(__file__).parents[1] / "data" / "captures"
CLAUDE_BASH = (
    "⏺ I'll clean the build directory.\n\n"
    "╭──────────────────╮\n│ Bash command     │\n╰──────────────────╯\n"
    "do you want to proceed?\nbash command: rm -rf build/test\n❯ 1. Yes\n   2. No\n\n"
    "Esc to cancel · Tab to amend · ctrl+e to explain\n"
)


@pytest.mark.parametrize(
    ("capture", "rule", "needle"),
    [
        ("live-gemini-0.61.0-trust-folder", "trust_folder_dialog", "Do you trust the files"),
        ("live-codex-0.171.0-trust-folder", "trust_folder_dialog", "› 1. Trust and continue"),
        ("live-qwen-0.15.10-model-picker", "model_picker", "Select Model"),
        ("live-amp-0.0.1790142911-login-yn", "login_prompt", "[(y)es, (n)o]"),
    ],
)
def test_lines_of_a_waiting_dialog(capture: str, rule: str, needle: str) -> None:
    cap = parse_capture((CAPTURES / f"{capture}.json").read_text(encoding="utf-8"))
    agent = {"gemini": Agent.GEMINI, "codex": Agent.CODEX, "qwen": Agent.QWEN, "amp": Agent.AMP}
    inp = DetectionInput(cap.screen, cap.osc_title, cap.osc_progress)
    ev = evaluate(load_bundled(agent[cap.agent]), inp)
    assert ev.winner is not None and ev.winner.id == rule
    lines = matched_lines(ev)
    assert any(needle in line for line in lines), lines
    assert all(line in cap.screen for line in lines)


def test_claude_bash_prompt_shows_the_question_it_saw() -> None:
    ev = evaluate(load_bundled(Agent.CLAUDE), DetectionInput(CLAUDE_BASH, "", ""))
    assert ev.winner is not None and ev.winner.id == "bash_permission_prompt"
    assert matched_lines(ev)


def test_no_winner_no_lines() -> None:
    ev = evaluate(load_bundled(Agent.GEMINI), DetectionInput("just text\n", "", ""))
    assert ev.winner is None
    assert matched_lines(ev) == []
    assert matched_lines(None) == []


def test_lines_are_bounded() -> None:
    screen = "Do you want to proceed? [y/n]\n" * 500 + "Waiting for user confirmation... [y/n]\n"
    ev = evaluate(load_bundled(Agent.CODEX), DetectionInput(screen, "", ""))
    assert len(matched_lines(ev)) <= MAX_LINES

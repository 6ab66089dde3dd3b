"""Dialogs that wait for the user read blocked; prose quoting them does not.

The blocked side is covered by real CLI screens in ``data/captures/`` (see
test_captures.py). Here each trap takes a captured dialog's own lines and puts them
where an agent's reply, a tool's output or a scrolled transcript would show them,
with the live composer still on screen: every one must stay idle (or whatever the
screen's own chrome says), never blocked by a waiting-dialog rule.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import pytest

from herdr.detect.agents import parse_agent_label
from herdr.detect.capture import parse_capture
from herdr.detect.manifest import DetectionInput, Manifest, evaluate
from herdr.detect.manifest.sources import load_bundled

CAPTURES = Path(__file__).parent / "data" / "captures"
WAITING_RULES = {
    "codex": {"trust_folder_dialog", "sign_in_screen", "selection_overlay"},
    "gemini": {"trust_folder_dialog", "auth_method_picker", "api_key_entry", "model_picker"},
    "qwen": {"auth_method_picker", "api_key_entry", "model_picker", "selection_dialog"},
    "amp": {"login_prompt"},
}

CODEX_FOOTER = [
    "",
    "› Ask Codex to do anything",
    "",
    "  fake-model default · /tmp/p",
    "  ← for agents · ? for shortcuts",
]
GEMINI_COMPOSER = [
    "─" * 60,
    " >   Type your message or @path/to/file",
    " workspace (/directory)          sandbox          /model",
]
QWEN_COMPOSER = ["─" * 60, ">   Type your message or @path/to/file", "─" * 60, "  ? for shortcuts"]


def _box(*lines: str) -> list[str]:
    width = 70
    return [
        " ╭" + "─" * width + "╮",
        *(f" │ {line:<{width - 2}} │" for line in lines),
        " ╰" + "─" * width + "╯",
    ]


@dataclass(frozen=True)
class Trap:
    id: str
    agent: str
    lines: list[str]
    state: str = "idle"
    osc_title: str = ""


TRAPS = (
    Trap(
        "codex_reply_quotes_trust_screen",
        "codex",
        [
            "• The first run shows this screen:",
            "",
            "  Trust this folder? Codex can read, edit, and run files here, subject to your",
            "  › 1. Trust and continue",
            "    2. Back to Agent Command Center",
            "  enter continue · esc back",
            *CODEX_FOOTER,
        ],
        osc_title="proj",
    ),
    Trap(
        "codex_scrolled_reply_quotes_sign_in",
        "codex",
        [
            "  Welcome to Codex, OpenAI's command-line coding agent",
            "  > 1. Sign in with ChatGPT",
            "  Press enter to continue",
            *CODEX_FOOTER,
        ],
        osc_title="proj",
    ),
    Trap(
        "codex_user_types_dialog_text_in_composer",
        "codex",
        [
            "• Done.",
            "",
            "  Trust this folder? Codex can read",
            *CODEX_FOOTER[:1],
            "› 1. Trust and continue",
            *CODEX_FOOTER[2:],
        ],
        osc_title="proj",
    ),
    Trap(
        "gemini_reply_quotes_trust_and_auth",
        "gemini",
        [
            "✦ Gemini asks on first run:",
            "  Do you trust the files in this folder?",
            "  ● 1. Trust folder (proj)",
            "  How would you like to authenticate for this project?",
            "  (Use Enter to select)",
            *GEMINI_COMPOSER,
        ],
    ),
    Trap(
        "gemini_tool_output_box_quotes_dialogs",
        "gemini",
        [
            *_box(
                "Shell cat dialogs.txt",
                "Do you trust the files in this folder?",
                "● 1. Trust folder (proj)",
                "Enter Gemini API Key",
                "(Press Enter to submit, Esc to cancel, Ctrl+C to clear stored key)",
                "Select Model",
                "(Press Esc to close)",
            ),
            *GEMINI_COMPOSER,
        ],
    ),
    Trap(
        "qwen_tool_output_box_quotes_pickers",
        "qwen",
        [
            *_box(
                "Select Authentication Method",
                "› Alibaba ModelStudio",
                "Select Model",
                "Enter to select, ↑↓ to navigate, Esc to close",
                "DeepSeek API Key · Step 1/2 · API Key",
                "Enter to submit, Esc to go back",
            ),
            *QWEN_COMPOSER,
        ],
    ),
    Trap(
        "amp_reply_quotes_login_question",
        "amp",
        [
            "Amp asks when no key is set:",
            "Would you like to log in to Amp? [(y)es, (n)o]: ",
            "╭" + "─" * 40 + "╮",
            "│ " + " " * 38 + " │",
            "╰ smart " + "─" * 33 + "╯",
        ],
    ),
)


@functools.cache
def _manifest(label: str) -> Manifest:
    agent = parse_agent_label(label)
    assert agent is not None
    return load_bundled(agent)


@pytest.mark.parametrize("trap", TRAPS, ids=[trap.id for trap in TRAPS])
def test_prose_quoting_a_waiting_dialog_is_not_blocked(trap: Trap) -> None:
    screen = "\n".join(trap.lines) + "\n"
    ev = evaluate(_manifest(trap.agent), DetectionInput(screen, trap.osc_title, ""))
    winner = ev.winner.id if ev.winner is not None else None
    assert winner not in WAITING_RULES[trap.agent]
    assert ev.detection.state == trap.state, winner


@pytest.mark.parametrize(
    ("agent", "rule"),
    [(agent, rule) for agent, rules in WAITING_RULES.items() for rule in sorted(rules)],
)
def test_every_waiting_rule_decides_a_real_capture(agent: str, rule: str) -> None:
    """Each waiting-dialog rule is backed by a screen captured from the real CLI."""
    winners = set()
    for path in sorted(CAPTURES.glob(f"{agent}-*.json")):
        capture = parse_capture(path.read_text(encoding="utf-8"))
        inp = DetectionInput(capture.screen, capture.osc_title, capture.osc_progress)
        ev = evaluate(_manifest(agent), inp)
        if ev.winner is not None and ev.detection.state == "blocked":
            winners.add(ev.winner.id)
    assert rule in winners


@pytest.mark.parametrize(
    "name",
    ["codex-0.171.0-trust-folder", "gemini-0.61.0-auth-picker", "qwen-0.15.10-model-picker"],
)
def test_dialog_pushed_up_by_a_composer_is_no_longer_waiting(name: str) -> None:
    """The same dialog lines with a live composer below them are history, not a wait."""
    capture = parse_capture((CAPTURES / f"{name}.json").read_text(encoding="utf-8"))
    composer = {"codex": CODEX_FOOTER, "gemini": GEMINI_COMPOSER, "qwen": QWEN_COMPOSER}
    screen = capture.screen.rstrip("\n") + "\n" + "\n".join(composer[capture.agent]) + "\n"
    ev = evaluate(_manifest(capture.agent), DetectionInput(screen, capture.osc_title, ""))
    winner = ev.winner.id if ev.winner is not None else None
    assert winner not in WAITING_RULES[capture.agent]
    assert ev.detection.state != "blocked"

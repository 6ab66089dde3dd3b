"""Permission dialogs read as data (detect/approval.py) on real and fixture screens.

Real screens are ``data/captures/approval-*.json``, written from the real CLIs by
``scripts/capture-approval-dialogs``; the others are the fake agents' dialogs
(tests/fixtures/fake_agent.py) and herdr's detection vectors. Each case names the
rule that must read the dialog, its question, detail and options with their keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from herdr.detect.agents import parse_agent_label
from herdr.detect.approval import Approval, extract, fingerprint
from herdr.detect.capture import parse_capture
from herdr.detect.manifest import DetectionInput, Manifest, parse_manifest
from herdr.detect.manifest.sources import load_bundled

DATA = Path(__file__).parent / "data"
CAPTURES = DATA / "captures"
RULE = "─" * 60


@cache
def _manifest(agent: str) -> Manifest:
    parsed = parse_agent_label(agent)
    assert parsed is not None
    manifest = load_bundled(parsed)
    assert manifest is not None
    return manifest


@cache
def _vector(vector_id: str) -> DetectionInput:
    for vector in json.loads((DATA / "detection_vectors.json").read_text("utf-8")):
        if vector["id"] == vector_id:
            return DetectionInput(vector["screen"], vector["osc_title"], vector["osc_progress"])
    raise KeyError(vector_id)


def _capture(name: str) -> DetectionInput:
    capture = parse_capture((CAPTURES / name).read_text("utf-8"))
    return DetectionInput(capture.screen, capture.osc_title, capture.osc_progress)


def _fake_claude(command: str = "rm -rf build", width: int = 60) -> DetectionInput:
    lines = [" ✻ Welcome to fake claude!", "", "> ask", "", "─" * width, " Bash command"]
    lines += [f"   {command}", " Do you want to proceed?", " ❯ 1. Yes", "   2. No", ""]
    return DetectionInput("\n".join([*lines, " Esc to cancel · Tab to amend"]), "✳ Claude Code")


def _fake_codex() -> DetectionInput:
    lines = ["  Allow command? rm -rf build", "› 1. Yes, proceed"]
    lines += ["  2. No, and tell Codex what to do differently"]
    return DetectionInput("\n".join([*lines, "Press enter to confirm or esc to cancel"]))


@dataclass(frozen=True)
class Case:
    agent: str
    screen: DetectionInput
    rule: str
    question: str
    detail: str
    options: tuple[tuple[str, str, tuple[str, ...]], ...]


def _numbered(*labels: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    return tuple((str(k), label, (str(k),)) for k, label in enumerate(labels, 1))


def _arrows(*labels: str, selected: int = 0) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    out = []
    for k, label in enumerate(labels):
        moves = ("Down",) * (k - selected) if k >= selected else ("Up",) * (selected - k)
        out.append((str(k + 1), label, (*moves, "Enter")))
    return tuple(out)


CASES = [
    pytest.param(
        Case(
            "claude",
            _capture("approval-claude-2.1.332.json"),
            "bash_permission_prompt",
            "Do you want to proceed?",
            "Bash command\n"
            'Tip: auto mode handles these prompts for you — choose "switch to auto mode" below\n'
            "create a file\ntouch fake-approval.txt",
            _numbered(
                "Yes",
                "Yes, and always allow access to /tmp/h5c8aga4g/proj from this project",
                "Yes, and switch to auto mode · auto mode handles these prompts for you",
                "No",
            ),
        ),
        id="claude-real-bash",
    ),
    pytest.param(
        Case(
            "claude",
            _fake_claude(),
            "bash_permission_prompt",
            "Do you want to proceed?",
            "Bash command\nrm -rf build",
            _numbered("Yes", "No"),
        ),
        id="claude-fake-bash",
    ),
    pytest.param(
        Case(
            "claude",
            _vector("T13"),
            "bash_permission_prompt",
            "do you want to proceed?",
            "bash command: rm -rf build/test",
            _numbered("Yes", "No"),
        ),
        id="claude-vector-bash",
    ),
    pytest.param(
        Case(
            "codex",
            _capture("approval-codex-0.171.0.json"),
            "live_strong_blocker",
            "Would you like to run the following command?",
            "Environment: local\nReason: create the file\n$ touch fake-approval.txt",
            _arrows(
                "Yes, proceed (y)",
                "Yes, and don't ask again for commands that start with "
                "`touch fake-approval.txt` (p)",
                "No, and tell Codex what to do differently (esc)",
            ),
        ),
        id="codex-real-exec",
    ),
    pytest.param(
        Case(
            "codex",
            _capture("hooks-review-codex-0.171.0.json"),
            "hooks_review_dialog",
            "Hooks need review",
            "1 hook is new or changed.\nHooks can run outside the sandbox after you trust them.",
            _arrows(
                "Review hooks",
                "Trust all and continue",
                "Continue without trusting (hooks won't run)",
            ),
        ),
        id="codex-real-hooks-review",
    ),
    pytest.param(
        Case(
            "codex",
            _fake_codex(),
            "live_strong_blocker",
            "Allow command? rm -rf build",
            "",
            _arrows("Yes, proceed", "No, and tell Codex what to do differently"),
        ),
        id="codex-fake-exec",
    ),
    pytest.param(
        Case(
            "opencode",
            _capture("approval-opencode-1.18.33.json"),
            "permission_required",
            "△ Permission required",
            "# Shell command\n$ touch fake-approval.txt",
            (
                ("1", "Allow once", ("Enter",)),
                ("2", "Allow always", ("Right", "Enter")),
                ("3", "Reject", ("Right", "Right", "Enter")),
            ),
        ),
        id="opencode-real-shell",
    ),
    pytest.param(
        Case(
            "gemini",
            _capture("approval-gemini-0.61.0.json"),
            "apply_or_allow_change",
            "Allow execution of [Shell]?",
            "? Shell  touch fake-approval.txt\ntouch fake-approval.txt",
            _arrows("Allow once", "Allow for this session", "No, suggest changes (esc)"),
        ),
        id="gemini-real-shell",
    ),
    pytest.param(
        Case(
            "gemini",
            _vector("M1"),
            "apply_or_allow_change",
            "Apply this change?",
            "",
            _arrows("Yes, allow once"),
        ),
        id="gemini-vector-edit",
    ),
    pytest.param(
        Case(
            "qwen",
            _capture("approval-qwen-0.15.10.json"),
            "tool_confirmation",
            "Allow execution of: 'touch'?",
            "?  Shell touch fake-approval.txt (create a file) ←\ntouch fake-approval.txt",
            _arrows(
                "Yes, allow once",
                "Always allow run 'touch *' commands in this project",
                "Always allow run 'touch *' commands for this user",
                "No, suggest changes (esc)",
            ),
        ),
        id="qwen-real-shell",
    ),
    pytest.param(
        Case(
            "qwen",
            _vector("W4"),
            "tool_confirmation",
            "Apply this change?",
            "",
            _arrows("Yes, allow once", "Yes, allow always", "No"),
        ),
        id="qwen-vector-edit",
    ),
    pytest.param(
        Case(
            "copilot",
            _vector("P1"),
            "selection_blocker",
            "Do you want to run this command?",
            "",
            _arrows("Yes", "No"),
        ),
        id="copilot-vector-command",
    ),
]


def _options(approval: Approval) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    return tuple((o.id, o.label, o.keys) for o in approval.options)


@pytest.mark.parametrize("case", CASES)
def test_dialog_is_read(case: Case) -> None:
    approval = extract(_manifest(case.agent), case.screen)
    assert approval is not None
    assert approval.rule == case.rule
    assert approval.question == case.question
    assert approval.detail == case.detail
    assert _options(approval) == case.options
    assert approval.fingerprint == fingerprint(case.rule, case.question, case.detail)


@pytest.mark.parametrize(
    ("agent", "screen"),
    [
        pytest.param(
            "claude",
            DetectionInput(
                "\n".join(
                    [
                        "● The dialog said:",
                        "  Do you want to proceed?",
                        "  ❯ 1. Yes",
                        "    2. No",
                        RULE,
                        "❯ ",
                        RULE,
                        "  ? for shortcuts",
                    ]
                ),
                "✳ Claude Code",
            ),
            id="claude-prose-quoting-a-dialog",
        ),
        pytest.param("claude", DetectionInput(""), id="claude-empty"),
        pytest.param("codex", _capture("codex-0.171.0-idle.json"), id="codex-real-idle"),
        pytest.param(
            "gemini", _capture("gemini-0.61.0-prose-idle.json"), id="gemini-real-prose-idle"
        ),
    ],
)
def test_no_dialog_reads_none(agent: str, screen: DetectionInput) -> None:
    assert extract(_manifest(agent), screen) is None


def test_a_redraw_keeps_the_fingerprint_and_another_command_changes_it() -> None:
    claude = _manifest("claude")
    wide = extract(claude, _fake_claude(width=60))
    narrow = extract(claude, _fake_claude(width=30))
    other = extract(claude, _fake_claude("rm -rf /"))
    assert wide is not None and narrow is not None and other is not None
    assert wide.fingerprint == narrow.fingerprint
    assert other.fingerprint != wide.fingerprint


def test_arrow_keys_follow_the_selected_option() -> None:
    screen = _vector("P1").screen.replace("❯ 1. Yes", "  1. Yes").replace("  2. No", "❯ 2. No")
    approval = extract(_manifest("copilot"), DetectionInput(screen))
    assert approval is not None
    assert _options(approval) == _arrows("Yes", "No", selected=1)


def test_no_manifest_or_no_table_reads_none() -> None:
    assert extract(None, _fake_claude()) is None
    plain = parse_manifest(
        'id = "claude"\n[[rules]]\nid = "b"\nstate = "blocked"\ncontains = ["proceed"]\n'
    )
    assert extract(plain, _fake_claude()) is None


def _override(pattern: str, keys: str = "arrows") -> Manifest:
    return parse_manifest(
        'id = "claude"\n[[rules]]\nid = "b"\nstate = "blocked"\ncontains = ["proceed"]\n'
        f"approval = {{ option_pattern = '{pattern}', keys = \"{keys}\" }}\n"
    )


def test_a_catastrophic_option_pattern_reads_none_instead_of_hanging() -> None:
    manifest = _override(r"^(?P<label>(a|aa)+)+$")
    screen = "proceed?\n" + "\n".join(["a" * 40 + "b"] * 40)
    assert extract(manifest, DetectionInput(screen)) is None


def test_options_are_capped_and_ids_deduplicated() -> None:
    manifest = _override(r"^\s*(?P<number>\d+)\.\s+(?P<label>\S.*)$", "number")
    lines = ["Do you want to proceed?"] + [f"{k % 20}. option {k}" for k in range(100)]
    approval = extract(manifest, DetectionInput("\n".join(lines)))
    assert approval is not None
    assert len(approval.options) <= 16
    assert len({o.id for o in approval.options}) == len(approval.options)

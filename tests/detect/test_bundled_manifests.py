"""herdr's bundled detection manifests: they load, match detection-spec §1, and
classify realistic agent screens (beyond the §11.1 vectors) correctly.

The screen fixtures below are written the way herdr's detection text looks:
rows right-trimmed, trailing blank rows dropped, one final newline.
"""

from __future__ import annotations

import functools
import json
import tomllib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from herdr.detect.manifest import DetectionInput, Manifest, evaluate, parse_manifest
from herdr_testing.captures import capture_files, replay

FALLBACK_REASON = "default_known_agent_idle_fallback"
VECTORS_FILE = Path(__file__).parent / "data" / "detection_vectors.json"
CAPTURES_DIR = Path(__file__).parent / "data" / "captures"


@dataclass(frozen=True)
class BundledSpec:
    """One row of the detection-spec §1 manifest table."""

    label: str
    file: str
    version: str
    min_engine_version: int
    rule_count: int


BUNDLED: tuple[BundledSpec, ...] = (
    BundledSpec("pi", "pi.toml", "2026.06.10.1.1", 1, 1),
    BundledSpec("claude", "claude.toml", "2026.08.21.1.2", 2, 16),
    BundledSpec("codex", "codex.toml", "2026.08.09.1.3", 3, 12),
    BundledSpec("gemini", "gemini.toml", "2026.06.10.1.2", 1, 6),
    BundledSpec("cursor", "cursor.toml", "2026.08.03.1.1", 1, 5),
    BundledSpec("devin", "devin.toml", "2026.06.15.1.1", 1, 7),
    BundledSpec("agy", "antigravity.toml", "2026.06.24.1.1", 1, 3),
    BundledSpec("cline", "cline.toml", "2026.06.10.1.1", 1, 2),
    BundledSpec("opencode", "opencode.toml", "2026.06.10.1.2", 1, 3),
    BundledSpec("copilot", "github-copilot.toml", "2026.07.07.1.2", 1, 2),
    BundledSpec("kimi", "kimi.toml", "2026.06.10.1.1", 1, 6),
    BundledSpec("kiro", "kiro.toml", "2026.08.01.1.1", 1, 5),
    BundledSpec("droid", "droid.toml", "2026.06.10.1.1", 1, 4),
    BundledSpec("amp", "amp.toml", "2026.07.09.1.1", 2, 7),
    BundledSpec("grok", "grok.toml", "2026.07.16.2.1", 3, 14),
    BundledSpec("hermes", "hermes.toml", "2026.07.24.1.1", 2, 9),
    BundledSpec("kilo", "kilo.toml", "2026.06.10.1.1", 1, 2),
    BundledSpec("qodercli", "qodercli.toml", "2026.06.10.1.1", 1, 3),
    BundledSpec("qwen", "qwen.toml", "2026.08.14.1.3", 2, 14),
    BundledSpec("maki", "maki.toml", "2026.07.09.2.1", 1, 5),
)
BY_LABEL = {spec.label: spec for spec in BUNDLED}

TOP_LEVEL_KEYS = {"id", "version", "min_engine_version", "updated_at", "aliases", "rules"}
RULE_KEYS = {
    "id",
    "state",
    "priority",
    "region",
    "visible_idle",
    "visible_blocker",
    "visible_working",
    "skip_state_update",
    "approval",  # our extension: how to read a blocked rule's dialog (detect/approval.py)
    "contains",
    "regex",
    "line_regex",
    "all",
    "any",
    "not",
}
VISIBLE_FLAG_STATE = {
    "visible_idle": "idle",
    "visible_blocker": "blocked",
    "visible_working": "working",
}


def manifest_text(file: str) -> str:
    return (files("herdr.detect") / "manifests" / file).read_text(encoding="utf-8")


@functools.cache
def bundled(label: str) -> Manifest:
    return parse_manifest(manifest_text(BY_LABEL[label].file))


def raw_toml(file: str) -> dict[str, Any]:
    return tomllib.loads(manifest_text(file))


# --- files and metadata -------------------------------------------------------


def test_manifest_directory_holds_exactly_the_bundled_files() -> None:
    directory = files("herdr.detect") / "manifests"
    present = {entry.name for entry in directory.iterdir() if entry.name.endswith(".toml")}
    assert present == {spec.file for spec in BUNDLED}


@pytest.mark.parametrize("spec", BUNDLED, ids=[spec.label for spec in BUNDLED])
def test_bundled_manifest_parses_and_validates(spec: BundledSpec) -> None:
    manifest = parse_manifest(manifest_text(spec.file))
    assert manifest.id == spec.label
    assert manifest.version == spec.version
    assert manifest.min_engine_version == spec.min_engine_version
    assert len(manifest.rules) == spec.rule_count


@pytest.mark.parametrize("spec", BUNDLED, ids=[spec.label for spec in BUNDLED])
def test_bundled_manifest_metadata_matches_spec_table(spec: BundledSpec) -> None:
    raw = raw_toml(spec.file)
    assert raw["id"] == spec.label
    assert raw["version"] == spec.version
    assert raw["min_engine_version"] == spec.min_engine_version
    assert isinstance(raw.get("updated_at"), str)
    assert set(raw) <= TOP_LEVEL_KEYS


@pytest.mark.parametrize("spec", BUNDLED, ids=[spec.label for spec in BUNDLED])
def test_bundled_rules_are_well_formed(spec: BundledSpec) -> None:
    rules: list[dict[str, Any]] = raw_toml(spec.file)["rules"]
    assert len(rules) == spec.rule_count
    ids = [rule["id"] for rule in rules]
    assert len(set(ids)) == len(ids), "rule ids must be unique within a manifest"
    for rule in rules:
        assert set(rule) <= RULE_KEYS, rule["id"]
        # every bundled rule states its outcome explicitly
        assert rule["state"] in {"idle", "working", "blocked", "unknown"}, rule["id"]
        if rule.get("skip_state_update", False):
            assert rule["state"] == "unknown", rule["id"]
        # a visible flag only makes sense on a rule of the matching state
        for flag, state in VISIBLE_FLAG_STATE.items():
            if rule.get(flag, False):
                assert rule["state"] == state, (rule["id"], flag)
        # only grok and codex declare engine 3, the one needed for top_non_empty_lines
        if rule.get("region", "").strip().startswith("top_non_empty_lines("):
            assert spec.min_engine_version >= 3, rule["id"]


# --- extra screens --------------------------------------------------------------


def screen(*rows: str) -> str:
    """Detection text: rows joined with newlines plus the final newline."""
    return "\n".join(rows) + "\n"


@dataclass(frozen=True)
class Case:
    id: str
    agent: str
    screen: str
    state: str
    rule: str | None
    vis: str
    osc_title: str = ""
    osc_progress: str = ""


RULE = "─" * 60
BOX_TOP = "╭" + "─" * 58 + "╮"
BOX_BOTTOM = "╰" + "─" * 58 + "╯"

CASES: tuple[Case, ...] = (
    # --- pi ---
    Case(
        "pi_loader_above_editor",
        "pi",
        screen(
            "  Sure, I'll run the test suite now.",
            "",
            "⠹ Working... (esc to interrupt)",
            RULE,
            ">",
            RULE,
            "~/proj (main)",
            "↑12k ↓3k $0.120 8.1%/200k claude-sonnet-4",
        ),
        "working",
        "working_literal",
        "W",
    ),
    Case(
        "pi_prose_lowercase_working_is_not_the_loader",
        "pi",
        screen(
            "  The build kept working... until the cache filled up.",
            "",
            RULE,
            ">",
            RULE,
            "~/proj (main)",
        ),
        "idle",
        None,
        "-",
    ),
    Case(
        "pi_old_loader_scrolled_far_above",
        "pi",
        screen("⠹ Working...", *[f"  output line {n}" for n in range(12)], RULE, ">", RULE),
        "idle",
        None,
        "-",
    ),
    # --- claude ---
    Case(
        "claude_prose_proceed_above_live_prompt",
        "claude",
        screen(
            "> clean the build dir",
            "⏺ Bash(rm -rf build/test)",
            "  ⎿  Do you want to proceed?",
            "     ❯ 1. Yes",
            "       2. No",
            "⏺ Removed. Do you want to proceed with the release? Yes, once tests pass.",
            "",
            RULE,
            "❯",
            RULE,
            "  ? for shortcuts",
        ),
        "idle",
        "live_prompt_box",
        "I",
        osc_title="✳ Claude Code",
    ),
    Case(
        "claude_prose_would_you_like_above_typed_prompt",
        "claude",
        screen(
            "⏺ Would you like to continue with the migration? yes/no",
            "  Enter to select · ↑/↓ to navigate · Esc to cancel is what the form shows.",
            "",
            RULE,
            "❯ yes, go ahead",
            RULE,
            "  ⏵⏵ accept edits on (shift+tab to cycle)",
        ),
        "idle",
        "live_prompt_box",
        "I",
    ),
    Case(
        "claude_live_bash_permission_dialog",
        "claude",
        screen(
            "⏺ I'll delete the stale build output.",
            "",
            RULE,
            " Bash command",
            "",
            "   rm -rf build/test",
            "   Remove stale test build",
            "",
            " Do you want to proceed?",
            " ❯ 1. Yes",
            "   2. Yes, and don't ask again for rm commands in /home/me/proj",
            "   3. No, and tell Claude what to do differently (esc)",
            "",
            " Esc to cancel · Tab to amend · ctrl+e to explain",
        ),
        "blocked",
        "bash_permission_prompt",
        "B",
        osc_title="✳ Claude Code",
    ),
    Case(
        "claude_live_generic_permission_dialog",
        "claude",
        screen(
            "⏺ Let me read the docs page.",
            "",
            RULE,
            " Fetch",
            "   https://example.com/docs",
            " Do you want to proceed?",
            " ❯ 1. Yes",
            "   2. Yes, and don't ask again for example.com",
            "   3. No, and tell Claude what to do differently (esc)",
            "",
            " Esc to cancel",
        ),
        "blocked",
        "generic_permission_prompt",
        "B",
    ),
    Case(
        "claude_dynamic_workflow_prompt",
        "claude",
        screen(
            RULE,
            " Run a dynamic workflow?",
            " ❯ 1. Yes",
            "   2. No",
            "",
            " Esc to cancel",
        ),
        "blocked",
        "dynamic_workflow_prompt",
        "B",
    ),
    Case(
        "claude_spinner_status_above_prompt",
        "claude",
        screen(
            "⏺ Reading the config loader.",
            "",
            "✻ Cogitating… (12s · ↑ 1.2k tokens · esc to interrupt)",
            "",
            RULE,
            "❯",
            RULE,
            "  ⏵⏵ accept edits on (shift+tab to cycle)",
        ),
        "working",
        "live_turn_working",
        "W",
        osc_title="✳ Claude Code",
    ),
    Case(
        "claude_mode_line_esc_to_interrupt",
        "claude",
        screen(RULE, "❯", RULE, "  ⏸ plan mode on (shift+tab to cycle) · esc to interrupt"),
        "working",
        "live_turn_working",
        "W",
    ),
    Case(
        "claude_mcp_tasks_still_running",
        "claude",
        screen(
            "⏺ Indexed the repository.",
            "",
            "✻ Worked for 1m 12s · 1 MCP task still running",
            "",
            RULE,
            "❯",
            RULE,
            "  ? for shortcuts",
        ),
        "working",
        "background_mcp_task_working",
        "W",
    ),
    Case(
        "claude_mcp_tasks_wrapped_summary",
        "claude",
        screen(
            "✻ Worked for 1m 12s while the indexer finished the repository scan ·",
            "  2 MCP tasks still running",
            RULE,
            "❯",
            RULE,
        ),
        "working",
        "background_mcp_task_working",
        "W",
    ),
    # --- codex ---
    Case(
        "codex_prose_above_composer",
        "codex",
        screen(
            "› should I keep the old config?",
            "",
            "• Do you want to keep the old config? Yes, I would keep it. Would you like to",
            "  continue with the migration? The script accepts [y/n] answers.",
            "",
            "• Ran ./migrate.sh --dry-run",
            "  └ Allow command? yes",
            "    Press enter to confirm or esc to cancel",
            "",
            "› Use /skills to list available skills",
            "",
            "  gpt-5.6-sol default · ~/proj",
        ),
        "idle",
        "osc_title_idle",
        "I",
        osc_title="project",
    ),
    Case(
        "codex_agent_message_ending_in_yn_is_prose",
        "codex",
        screen(
            "• Shall I run the destructive migration now? [y/n]",
            "",
            "› Use /skills to list available skills",
            "",
            "  gpt-5.6-sol default · ~/proj",
        ),
        "idle",
        "osc_title_idle",
        "I",
        osc_title="project",
    ),
    Case(
        "codex_live_command_approval_overlay",
        "codex",
        screen(
            "• I'll run the tests.",
            "",
            "  Would you like to run the following command?",
            "",
            "  $ cargo test --workspace",
            "",
            "› 1. Yes, proceed (y)",
            "  2. Yes, and don't ask again for this command (a)",
            "  3. No, and tell Codex what to do differently (esc)",
            "",
            "  Press enter to confirm or esc to cancel",
        ),
        "blocked",
        "live_strong_blocker",
        "B",
        osc_title="project",
    ),
    Case(
        "codex_question_overlay",
        "codex",
        screen(
            "• I need a decision before continuing.",
            "",
            "  Which database should the service use?",
            "› 1. Postgres",
            "  2. SQLite",
            "  enter to submit answer · esc to cancel",
        ),
        "blocked",
        "live_strong_blocker",
        "B",
    ),
    # --- gemini ---
    Case(
        "gemini_prose_above_composer",
        "gemini",
        screen(
            "✦ Before editing I asked: Apply this change? You answered yes, allow once.",
            "  The options were:",
            "  1. Yes, allow once",
            "  2. No, suggest changes",
            "  Do you want to proceed? yes",
            "",
            BOX_TOP,
            "│ >   Type your message or @path/to/file" + " " * 19 + "│",
            BOX_BOTTOM,
            "~/proj (main*)       no sandbox       gemini-2.5-pro (97% context left)",
        ),
        "idle",
        None,
        "-",
    ),
    Case(
        "gemini_live_shell_confirmation",
        "gemini",
        screen(
            BOX_TOP,
            "│ ?  Shell npm test",
            "│",
            "│ Allow execution of: 'npm'?",
            "│",
            "│ ● 1. Yes, allow once",
            "│   2. Yes, allow always ...",
            "│   3. No, suggest changes (esc)",
            BOX_BOTTOM,
            "⠏ Waiting for user confirmation...",
            "~/proj (main*)       no sandbox       gemini-2.5-pro (97% context left)",
        ),
        "blocked",
        "apply_or_allow_change",
        "B",
    ),
    Case(
        "gemini_responding_with_composer",
        "gemini",
        screen(
            "⠼ Reticulating splines (esc to cancel, 4s)",
            "",
            BOX_TOP,
            "│ >   Type your message or @path/to/file",
            BOX_BOTTOM,
            "~/proj (main*)       no sandbox       gemini-2.5-pro (97% context left)",
        ),
        "working",
        "esc_cancel_working",
        "W",
    ),
    # --- qwen ---
    Case(
        "qwen_prose_above_composer",
        "qwen",
        screen(
            '✦ Earlier you were asked "Apply this change?" and picked Yes, allow once.',
            "  Do you trust this folder? Trust folder (enter) / Don't trust (esc) was",
            "  shown at startup. Waiting for user confirmation... appears while a tool waits.",
            "",
            BOX_TOP,
            "│ > Type your message or @path/to/file",
            BOX_BOTTOM,
            "~/proj (main*)        qwen3-coder-plus (99% context left)",
        ),
        "idle",
        "composer_idle",
        "I",
    ),
    Case(
        "qwen_tool_confirmation_second_option_selected",
        "qwen",
        screen(
            BOX_TOP,
            "│ ?  Shell  npm test",
            "│ Allow execution of: 'npm'?",
            "│   1. Yes, allow once",
            "│ ● 2. Yes, allow always",
            "│   3. No, suggest changes (esc)",
            BOX_BOTTOM,
        ),
        "blocked",
        "tool_confirmation",
        "B",
    ),
    Case(
        "qwen_question_dialog",
        "qwen",
        screen(
            "What should I name the branch?",
            "› 1. feature/login",
            "  2. fix/login",
            "  3. Type something else",
            "↑/↓: navigate · Enter: select · Esc: cancel",
        ),
        "blocked",
        "question_dialog",
        "B",
    ),
    Case(
        "qwen_waiting_for_confirmation_localized",
        "qwen",
        screen("⠏ 等待用户确认...", "> Type your message or @path/to/file"),
        "blocked",
        "waiting_for_confirmation",
        "B",
    ),
    Case(
        "qwen_narrow_cancel_hint",
        "qwen",
        screen("⠧ Analysing the", "repository…", "(1m 5s · esc to cancel)", "> Type your message"),
        "working",
        "narrow_cancel_hint_working",
        "W",
    ),
    Case(
        "qwen_title_working_over_composer",
        "qwen",
        screen("> Type your message or @path/to/file"),
        "working",
        "osc_title_working",
        "W",
        osc_title="◐ proj",
    ),
    Case(
        "qwen_tool_progress",
        "qwen",
        screen("> Type your message or @path/to/file"),
        "working",
        "osc_tool_progress_working",
        "W",
        osc_progress="4;3;",
    ),
    # --- devin ---
    Case(
        "devin_old_trust_dialog_above_live_prompt",
        "devin",
        screen(
            "Do you trust the authors of this directory?",
            "For security, devin should not be run in directories with untrusted content.",
            "❭ 1 Yes, trust /home/me/proj",
            "· 2 No, exit",
            RULE,
            "❭",
            RULE,
            "SWE-1.6               Context: 0k / 200k tokens (0%)",
        ),
        "idle",
        "live_prompt_footer",
        "I",
    ),
    Case(
        "devin_guide_placeholder_while_working",
        "devin",
        screen(
            "⏺ Editing src/main.rs",
            RULE,
            "❭ Guide Devin while it works",
            RULE,
            "SWE-1.6               Context: 40k / 200k tokens (20%)",
        ),
        "working",
        "guide_while_working",
        "W",
    ),
    Case(
        "devin_shell_tool_waiting_with_typed_prompt",
        "devin",
        screen(
            "◔ Reading shell 3fa2c1",
            "  │ Timeout: 120s",
            "",
            RULE,
            "❭ also run the linter afterwards",
            RULE,
        ),
        "working",
        "tool_reading_timeout",
        "W",
    ),
    # --- copilot ---
    Case(
        "copilot_prose_above_input",
        "copilot",
        screen(
            '● The dialog said "Do you want to run this command?" and offered',
            "  ❯ 1. Yes",
            "    2. No",
            "  ↑↓ to navigate · Enter to select · Esc to cancel",
            "● Done, the tests pass.",
            "",
            " ~/proj [⎇ main]                                   claude-sonnet-4.5 (1x)",
            " " + RULE,
            " >  Enter @ to mention files or / for commands",
            " " + RULE,
            " Ctrl+c Exit · Ctrl+r Expand recent",
        ),
        "idle",
        None,
        "-",
    ),
    Case(
        "copilot_dialog_legend_right_above_empty_input",
        "copilot",
        screen(
            "● Quoting the dialog: ↑↓ to navigate · Enter to select · Esc to cancel",
            " " + RULE,
            " >  Enter @ to mention files or / for commands",
            " " + RULE,
        ),
        "idle",
        None,
        "-",
    ),
    Case(
        "copilot_live_command_dialog",
        "copilot",
        screen(
            "● I'll run the test suite.",
            "",
            BOX_TOP,
            "│ Run command",
            "│   npm test",
            "│ Do you want to run this command?",
            "│ ❯ 1. Yes",
            "│   2. Yes, and approve npm for the rest of the session",
            "│   3. No, and tell Copilot what to do differently (Esc)",
            "│ ↑↓ to navigate · Enter to select · Esc to cancel",
            BOX_BOTTOM,
        ),
        "blocked",
        "selection_blocker",
        "B",
    ),
    Case(
        "copilot_thinking_status",
        "copilot",
        screen(
            "◉ Thinking (Esc to cancel)",
            "",
            " " + RULE,
            " >  Enter @ to mention files or / for commands",
            " " + RULE,
            " Ctrl+c Exit · Ctrl+r Expand recent",
        ),
        "working",
        "working_cancel_hint",
        "W",
    ),
    # --- kiro ---
    Case(
        "kiro_prose_above_prompt",
        "kiro",
        screen(
            "> Tool use requires approval? How do I trust tools?",
            'You can pick "Trust, always allow" when Kiro asks; the options are',
            "Yes, single permission / Trust, always allow / No (Tab to edit).",
            "2 tool approvals pending from subagents: Approve all pending is one choice.",
            "",
            BOX_TOP,
            "│ ask a question or describe a task",
            BOX_BOTTOM,
            " /copy to clipboard · /help for commands",
        ),
        "idle",
        "prompt_idle",
        "I",
    ),
    Case(
        "kiro_live_tool_approval",
        "kiro",
        screen(
            "● Running shell: rm -rf dist",
            "",
            "Tool use requires approval",
            "  Yes, single permission",
            "❯ Trust, always allow",
            "  No (Tab to edit)",
        ),
        "blocked",
        "tool_approval",
        "B",
    ),
    Case(
        "kiro_working_marker",
        "kiro",
        screen("◔ Thinking", "Kiro is working · esc to cancel"),
        "working",
        "kiro_working_marker",
        "W",
    ),
    # --- cursor ---
    Case(
        "cursor_write_file_approval",
        "cursor",
        screen(
            "Write to this file?",
            "  src/app.ts",
            "  Proceed (y)",
            "  Reject & propose changes (esc or n or p)",
            "  Add Write(src/**) to allowlist? (tab)",
        ),
        "blocked",
        "write_file_approval",
        "B",
    ),
    Case(
        "cursor_background_tasks",
        "cursor",
        screen(BOX_TOP, "│ → Add a follow-up", BOX_BOTTOM, "  2 background tasks · ctrl+b to view"),
        "working",
        "background_task_status_working",
        "W",
    ),
    Case(
        "cursor_braille_spinner",
        "cursor",
        screen("⠙ Reading  src/app.ts", "", BOX_TOP, "│ → Add a follow-up", BOX_BOTTOM),
        "working",
        "spinner_working",
        "W",
    ),
    Case(
        "cursor_old_approval_scrolled_far_above",
        "cursor",
        screen(
            "Run this command?",
            "  Run (once) (y)",
            "  Skip (esc or n)",
            *[f"  test {n} ... ok" for n in range(14)],
            BOX_TOP,
            "│ → Add a follow-up",
            BOX_BOTTOM,
        ),
        "idle",
        None,
        "-",
    ),
    # --- droid ---
    Case(
        "droid_spinner_with_stop_hint",
        "droid",
        screen("⠙ Thinking...  (esc to stop)", "", ">", "? for help"),
        "working",
        "spinner_stop_working",
        "W",
    ),
    Case(
        "droid_stop_hint_without_spinner",
        "droid",
        screen("Streaming response (esc to stop)", ">"),
        "working",
        "stop_hint_working",
        "W",
    ),
    Case("droid_idle_prompt", "droid", screen(">", "? for help"), "idle", None, "-"),
    # --- amp ---
    Case(
        "amp_command_approval_panel",
        "amp",
        screen(
            "Run this command?",
            "  npm test",
            "  Approve   Allow all for this session   Deny with feedback",
        ),
        "blocked",
        "approval_footer",
        "B",
    ),
    Case(
        "amp_esc_to_cancel",
        "amp",
        screen("≋ Running tools…   Esc to cancel"),
        "working",
        "esc_cancel_working",
        "W",
    ),
    # --- agy ---
    Case(
        "agy_permission_prompt",
        "agy",
        screen(
            "Requesting permission for: run_command",
            "  rm -rf dist",
            "Do you want to proceed?",
            "❯ 1. Yes",
            "  2. No",
        ),
        "blocked",
        "permission_prompt",
        "B",
    ),
    Case(
        "agy_old_spinner_scrolled_far_above",
        "agy",
        screen("⠴ Analyzing codebase", *[f"  found module {n}" for n in range(10)], ">"),
        "idle",
        None,
        "-",
    ),
    # --- cline ---
    Case(
        "cline_act_mode_execute_command",
        "cline",
        screen(
            "[ACT MODE]",
            "Cline wants to execute this command:",
            "  npm test",
            "Execute command?",
            "  Yes",
            "  No",
        ),
        "blocked",
        "tool_permission",
        "B",
    ),
    Case(
        "cline_let_cline_use_tool",
        "cline",
        screen("Cline wants to read src/app.ts", "Let Cline use this tool?", "  Yes", "  No"),
        "blocked",
        "tool_permission",
        "B",
    ),
    Case(
        "cline_any_other_screen_is_working",
        "cline",
        screen(BOX_TOP, "│ >", BOX_BOTTOM),
        "working",
        "default_cline_working",
        "W",
    ),
    # --- kilo ---
    Case(
        "kilo_permission_required",
        "kilo",
        screen(
            "△ Permission required",
            "  ← Edit src/app.ts",
            "  Allow once   Allow always   Reject",
            "  Build  claude-sonnet-4  kilo",
        ),
        "blocked",
        "opencode_permission",
        "B",
    ),
    Case(
        "kilo_dialog_footer",
        "kilo",
        screen(
            "Select a session",
            "  > fix tests",
            "    refactor",
            "↑↓ select  enter confirm  esc dismiss",
        ),
        "blocked",
        "opencode_permission",
        "B",
    ),
    Case(
        "kilo_idle",
        "kilo",
        screen("  Ask anything...", "  Build  claude-sonnet-4  kilo"),
        "idle",
        None,
        "-",
    ),
    # --- opencode ---
    Case(
        "opencode_permission_required",
        "opencode",
        screen("△ Permission required", "  $ rm -rf dist", "  Allow once   Allow always   Reject"),
        "blocked",
        "permission_required",
        "B",
    ),
    Case(
        "opencode_esc_again_to_interrupt",
        "opencode",
        screen("┃ >", "opencode v1.2  Build  esc again to interrupt"),
        "working",
        "interrupt_hint_working",
        "W",
    ),
    Case("opencode_idle", "opencode", screen("┃ >", "opencode v1.2  Build"), "idle", None, "-"),
    # --- kimi ---
    Case(
        "kimi_question_panel",
        "kimi",
        screen(
            "question",
            "? Which database should I use?",
            "▶ Postgres",
            "  SQLite",
            "↑↓ select · ↵ choose · esc cancel",
        ),
        "blocked",
        "question_panel",
        "B",
    ),
    Case(
        "kimi_braille_thinking",
        "kimi",
        screen("⠹ Thinking...", "", "> "),
        "working",
        "braille_spinner_working",
        "W",
    ),
    Case(
        "kimi_background_agents",
        "kimi",
        screen(">", "kimi-k2 thinking · ctx 12% · [2 agents running]"),
        "working",
        "background_agent_status_working",
        "W",
    ),
    # --- grok ---
    Case(
        "grok_spinner_status_line",
        "grok",
        screen(
            "⠴ Explore /tmp/… + 1 more… 5.6s   19s ⇣29.7k [stop]",
            ">",
            "Esc:cancel │ Ctrl+.:shortcuts",
        ),
        "working",
        "spinner_status_working",
        "W",
    ),
    Case(
        "grok_permission_hints",
        "grok",
        screen("Run `rm -rf build`?", "1/3:select │ Ctrl+o:yolo │ Ctrl+c:cancel"),
        "blocked",
        "permission_hints_blocked",
        "B",
    ),
    Case(
        "grok_progress_busy",
        "grok",
        "",
        "working",
        "osc_progress_working",
        "W",
        osc_progress="4;1;-1",
    ),
    Case(
        "grok_custom_busy_title",
        "grok",
        "",
        "working",
        "osc_title_working",
        "W",
        osc_title="⠋ Refactoring auth - grok",
    ),
    Case(
        "grok_legacy_scope_selector",
        "grok",
        screen(
            "Allow bash: make test", "  Yes, proceed", "  No, reject", "←/→:scope  enter:confirm"
        ),
        "blocked",
        "permission_scope_selector",
        "B",
    ),
    Case(
        "grok_legacy_tool_status",
        "grok",
        screen("⠋ Run cargo test", "Ctrl+c:cancel │ Ctrl+Enter:interject"),
        "working",
        "waiting_tool_working",
        "W",
    ),
    Case(
        "grok_braille_splash_is_idle",
        "grok",
        screen("⣿⣿⡿⠿ grok", "⠿⣿⣿⡿ build", "", ">", "Shift+Enter:newline │ Ctrl+.:shortcuts"),
        "idle",
        "prompt_hints_idle",
        "I",
    ),
    # --- hermes ---
    Case(
        "hermes_dangerous_command",
        "hermes",
        screen(
            "⚠ Dangerous command: rm -rf /tmp/build",
            "  ▸ 1. Allow once",
            "    2. Deny",
            "  ↑/↓ to select · enter to confirm",
        ),
        "blocked",
        "dangerous_command_approval",
        "B",
    ),
    Case(
        "hermes_clarification",
        "hermes",
        screen(
            "Hermes needs your input",
            "  Which environment?",
            "  ▸ staging",
            "    production",
            "    Other (type your answer)",
            "  ↑/↓ select · enter confirm",
        ),
        "blocked",
        "clarification_prompt",
        "B",
    ),
    Case(
        "hermes_session_limit_confirmation",
        "hermes",
        screen(
            "Context is almost full.", "  Start a new session", "  Keep going", "  enter to confirm"
        ),
        "blocked",
        "confirmation_prompt",
        "B",
    ),
    Case(
        "hermes_classic_cancel",
        "hermes",
        screen("  (⠋) thinking... · ctrl+c cancel"),
        "working",
        "classic_cancel_working",
        "W",
    ),
    Case(
        "hermes_title_blocked_with_emoji_selector",
        "hermes",
        "",
        "blocked",
        "osc_title_blocked",
        "B",
        osc_title="⚠\ufe0f approval needed",
    ),
    # --- maki ---
    Case(
        "maki_plan_complete_form",
        "maki",
        screen(
            "Plan complete",
            "  1. Add the parser",
            "  2. Wire the CLI",
            " enter confirm · space toggle parallel · e edit plan",
            " [PLAN] opus · 8k",
        ),
        "blocked",
        "plan_complete_form",
        "B",
    ),
    Case(
        "maki_status_bar_idle",
        "maki",
        screen("❯", "╰────────────╯", " [PLAN] opus · 1.1k"),
        "idle",
        "status_bar_idle",
        "I",
    ),
    Case(
        "maki_old_permission_above_input_box",
        "maki",
        screen(
            "Permission required: bash",
            "  rm -rf target",
            " y allow · n deny",
            "✓ bash rm -rf target",
            "❯ fix the tests",
            "╰────────────╯",
            " [BUILD] opus · 12k",
        ),
        "idle",
        "status_bar_idle",
        "I",
    ),
    # --- qodercli ---
    Case(
        "qodercli_awaiting_approval",
        "qodercli",
        screen("Bash: npm test", "Awaiting approval", "  Allow   Reject"),
        "blocked",
        "confirmation_or_input_blocker",
        "B",
    ),
    Case(
        "qodercli_cancel_hint",
        "qodercli",
        screen("⠸ Reading files (esc to cancel, 3s)", ">"),
        "working",
        "cancel_hint_working",
        "W",
    ),
    Case("qodercli_idle_prompt", "qodercli", screen(">", "? for shortcuts"), "idle", None, "-"),
)

# Screens where blocker wording sits in the transcript above the agent's live
# prompt: they must never read as blocked.
PROSE_ABOVE_LIVE_PROMPT = {
    "claude": "claude_prose_proceed_above_live_prompt",
    "codex": "codex_prose_above_composer",
    "devin": "devin_old_trust_dialog_above_live_prompt",
    "copilot": "copilot_prose_above_input",
    "gemini": "gemini_prose_above_composer",
    "qwen": "qwen_prose_above_composer",
    "kiro": "kiro_prose_above_prompt",
}


def run_case(case: Case) -> tuple[str, str | None, str, str | None]:
    result = evaluate(
        bundled(case.agent),
        DetectionInput(
            screen=case.screen, osc_title=case.osc_title, osc_progress=case.osc_progress
        ),
    )
    det = result.detection
    flags = "".join(
        letter
        for letter, on in (
            ("I", det.visible_idle),
            ("B", det.visible_blocker),
            ("W", det.visible_working),
            ("S", det.skip_state_update),
        )
        if on
    )
    winner = None if result.winner is None else result.winner.id
    return det.state, winner, flags or "-", result.fallback_reason


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_extra_screen(case: Case) -> None:
    state, winner, flags, fallback_reason = run_case(case)
    assert (state, winner, flags) == (case.state, case.rule, case.vis)
    assert fallback_reason == (FALLBACK_REASON if case.rule is None else None)


def test_case_table_is_consistent() -> None:
    ids = [case.id for case in CASES]
    assert len(set(ids)) == len(ids)
    per_agent: dict[str, int] = {}
    for case in CASES:
        assert case.agent in BY_LABEL, case.id
        per_agent[case.agent] = per_agent.get(case.agent, 0) + 1
    assert {label: per_agent.get(label, 0) >= 2 for label in BY_LABEL} == dict.fromkeys(
        BY_LABEL, True
    )
    for agent, case_id in PROSE_ABOVE_LIVE_PROMPT.items():
        case = next(c for c in CASES if c.id == case_id)
        assert case.agent == agent
        assert case.state != "blocked"


@pytest.mark.parametrize("agent", sorted(PROSE_ABOVE_LIVE_PROMPT))
def test_prose_above_live_prompt_is_never_blocked(agent: str) -> None:
    case = next(c for c in CASES if c.id == PROSE_ABOVE_LIVE_PROMPT[agent])
    # with or without a neutral OSC title, the transcript never reads as blocked
    for title in ("", case.osc_title, "project"):
        plain = Case(case.id, agent, case.screen, case.state, case.rule, case.vis, title)
        state, _, flags, _ = run_case(plain)
        assert state != "blocked", title
        assert "B" not in flags


def test_every_bundled_rule_wins_somewhere() -> None:
    """Each rule is the winner of at least one §11.1 vector, extra screen or capture."""
    winners: set[tuple[str, str]] = set()
    vectors: list[dict[str, Any]] = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))
    for row in vectors:
        if row["rule"] is not None:
            winners.add((row["agent"], row["rule"]))
    for case in CASES:
        if case.rule is not None:
            winners.add((case.agent, case.rule))
    for path in capture_files(CAPTURES_DIR):  # real CLI screens (test_captures.py)
        result = replay(path)
        if result.rule is not None:
            winners.add((result.capture.agent, result.rule))
    missing = [
        (spec.label, rule["id"])
        for spec in BUNDLED
        for rule in raw_toml(spec.file)["rules"]
        if (spec.label, rule["id"]) not in winners
    ]
    assert missing == []

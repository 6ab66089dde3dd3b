"""Explain object and CLI text (detection-spec §6)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from herdr.detect.manifest import (
    DetectionInput,
    Evaluation,
    Manifest,
    evaluate,
    explain_dict,
    explain_text,
    parse_manifest,
)

TOP_KEYS = [
    "agent",
    "cached_remote_version",
    "evaluated_rules",
    "fallback_reason",
    "local_override_shadowing_remote",
    "manifest_source",
    "manifest_version",
    "matched_rule",
    "remote_update_error",
    "remote_update_status",
    "screen_detection_skipped",
    "skip_state_update",
    "skipped_update_reason",
    "state",
    "visible_blocker",
    "visible_idle",
    "visible_working",
    "warning",
]
RULE_KEYS = ["evidence", "id", "matched", "priority", "region", "state"]
EVIDENCE_KEYS = [
    "all_count",
    "any_count",
    "contains",
    "line_regex",
    "not_count",
    "regex",
    "region_bytes",
    "region_preview",
]

MANIFEST = parse_manifest(
    """
id = "claude"
version = " 2026.08.21.1 "

[[rules]]
id = "viewer"
state = "unknown"
priority = 1000
region = " bottom_lines(2) "
skip_state_update = true
contains = ["Showing Detailed Transcript"]
any = [{ contains = ["ctrl+o"] }, { contains = ["↑↓ scroll"] }]

[[rules]]
id = "prompt"
state = "idle"
priority = 950
visible_idle = true
line_regex = ['^\\s*❯']
regex = ['❯']
not = [{ contains = ["esc to cancel"] }]
all = [{ contains = ["❯"] }]

[[rules]]
id = "stateless"
priority = 1
contains = ["zzz"]
"""
)


def explain(
    evaluation: Evaluation | None, manifest: Manifest | None = MANIFEST, **overrides: Any
) -> dict[str, object]:
    args: dict[str, Any] = {
        "agent": "claude",
        "evaluation": evaluation,
        "manifest": manifest,
        "manifest_source": "bundled",
        "cached_remote_version": "2026.09.01.1",
        "local_override_shadowing_remote": True,
        "remote_update_status": "failed",
        "remote_update_error": "fetch failed: boom",
        "warning": "ignored override /x because it could not be loaded: oops",
    }
    args.update(overrides)
    return explain_dict(**args)


def test_field_set_and_sorted_serialisation() -> None:
    d = explain(evaluate(MANIFEST, DetectionInput("❯ hi\n")))
    assert sorted(d) == TOP_KEYS
    encoded = json.dumps(d, sort_keys=True, ensure_ascii=False)
    assert list(json.loads(encoded)) == TOP_KEYS
    rules = d["evaluated_rules"]
    assert isinstance(rules, list)
    assert [sorted(r) for r in rules] == [RULE_KEYS] * 3
    assert [sorted(r["evidence"]) for r in rules] == [EVIDENCE_KEYS] * 3


def test_matched_rule_and_evidence() -> None:
    d = explain(evaluate(MANIFEST, DetectionInput("❯ hi\n")))
    assert d["state"] == "idle"
    assert d["matched_rule"] == {
        "id": "prompt",
        "priority": 950,
        "region": "whole_recent",
        "state": "idle",
    }
    assert (d["visible_idle"], d["visible_blocker"], d["visible_working"]) == (True, False, False)
    assert d["fallback_reason"] is None
    assert d["skip_state_update"] is False
    assert d["skipped_update_reason"] is None
    assert d["screen_detection_skipped"] is False
    assert d["manifest_version"] == "2026.08.21.1"
    assert d["manifest_source"] == "bundled"
    assert d["cached_remote_version"] == "2026.09.01.1"
    assert d["local_override_shadowing_remote"] is True
    assert (d["remote_update_status"], d["remote_update_error"]) == ("failed", "fetch failed: boom")
    assert d["warning"] == "ignored override /x because it could not be loaded: oops"
    rules = d["evaluated_rules"]
    assert isinstance(rules, list)
    viewer, prompt, stateless = rules
    assert viewer["region"] == " bottom_lines(2) "  # raw, untrimmed
    assert viewer["state"] == "unknown"
    assert viewer["matched"] is False
    assert viewer["evidence"] == {
        "contains": ["Showing Detailed Transcript"],  # as written, not lower-cased
        "regex": [],
        "line_regex": [],
        "all_count": 0,
        "any_count": 2,
        "not_count": 0,
        "region_bytes": len("❯ hi\n".encode()),
        "region_preview": "❯ hi\n",
    }
    assert prompt["matched"] is True
    assert prompt["evidence"]["line_regex"] == ["^\\s*❯"]
    assert prompt["evidence"]["regex"] == ["❯"]
    assert (prompt["evidence"]["all_count"], prompt["evidence"]["not_count"]) == (1, 1)
    assert stateless["state"] == "unknown"


def test_skip_rule_reason() -> None:
    screen = "Showing detailed transcript\nctrl+o to toggle\n"
    d = explain(evaluate(MANIFEST, DetectionInput(screen)))
    assert d["state"] == "unknown"
    assert d["skip_state_update"] is True
    assert d["skipped_update_reason"] == "matched_rule:viewer"
    assert d["matched_rule"] == {
        "id": "viewer",
        "priority": 1000,
        "region": " bottom_lines(2) ",
        "state": "unknown",
    }


def test_fallback() -> None:
    d = explain(evaluate(MANIFEST, DetectionInput("nothing here\n")))
    assert d["state"] == "idle"
    assert d["matched_rule"] is None
    assert d["fallback_reason"] == "default_known_agent_idle_fallback"
    assert isinstance(d["evaluated_rules"], list) and len(d["evaluated_rules"]) == 3


def test_agent_without_manifest() -> None:
    d = explain(evaluate(None, DetectionInput("x")), manifest=None, manifest_source=None)
    assert d["agent"] == "claude"
    assert d["state"] == "idle"
    assert d["fallback_reason"] == "default_known_agent_idle_fallback"
    assert (d["manifest_source"], d["manifest_version"]) == (None, None)
    assert d["evaluated_rules"] == []


def test_unknown_agent_label() -> None:
    d = explain(None, agent="node", unknown_agent=True)
    assert d == {
        "agent": "node",
        "state": "unknown",
        "manifest_source": None,
        "manifest_version": None,
        "cached_remote_version": None,
        "local_override_shadowing_remote": False,
        "remote_update_status": None,
        "remote_update_error": None,
        "matched_rule": None,
        "visible_idle": False,
        "visible_blocker": False,
        "visible_working": False,
        "screen_detection_skipped": False,
        "skip_state_update": False,
        "skipped_update_reason": None,
        "fallback_reason": "unknown_agent",
        "warning": None,
        "evaluated_rules": [],
    }


PREVIEWS = [
    ("short", "abc", "abc", 3),
    ("exactly-240", "x" * 240, "x" * 240, 240),
    ("241-chars", "y" * 241, "y" * 240 + "...", 241),
    ("chars-not-bytes", "é" * 241, "é" * 240 + "...", 482),
    ("astral-bytes", "🌔\n", "🌔\n", 5),
    ("empty", "", "", 0),
]


@pytest.mark.parametrize(
    ("screen", "preview", "size"), [p[1:] for p in PREVIEWS], ids=[p[0] for p in PREVIEWS]
)
def test_region_preview_and_bytes(screen: str, preview: str, size: int) -> None:
    manifest = parse_manifest('id = "t"\n[[rules]]\nid = "r"\ncontains = ["zzz"]\n')
    d = explain(evaluate(manifest, DetectionInput(screen)), manifest=manifest)
    rules = d["evaluated_rules"]
    assert isinstance(rules, list)
    evidence = rules[0]["evidence"]
    assert evidence["region_preview"] == preview
    assert evidence["region_bytes"] == size


def test_text_mode() -> None:
    d = explain(evaluate(MANIFEST, DetectionInput("❯ hi\n")), warning=None)
    assert explain_text(d, verbose=False) == (
        "agent: claude\n"
        "state: idle\n"
        "manifest: bundled 2026.08.21.1\n"
        "rule: prompt (region=whole_recent priority=950)\n"
        'evidence: "❯ hi\\n"\n'
    )


def test_text_mode_fallback_and_warning() -> None:
    d = explain(evaluate(MANIFEST, DetectionInput("")), manifest_source=None, manifest=None)
    text = explain_text(d, verbose=False)
    assert text == (
        "agent: claude\n"
        "state: idle\n"
        "manifest: none unknown\n"
        "rule: none\n"
        "fallback_reason: default_known_agent_idle_fallback\n"
        "warning: ignored override /x because it could not be loaded: oops\n"
    )


def test_text_mode_verbose() -> None:
    screen = "Showing detailed transcript\nctrl+o to toggle\n"
    d = explain(evaluate(MANIFEST, DetectionInput(screen)), warning=None)
    lines = explain_text(d, verbose=True).splitlines()
    assert lines[:5] == [
        "agent: claude",
        "state: unknown",
        "manifest: bundled 2026.08.21.1",
        "rule: viewer (region= bottom_lines(2)  priority=1000)",
        'evidence: "Showing detailed transcript\\nctrl+o to toggle\\n"',
    ]
    assert "skipped_update_reason: matched_rule:viewer" in lines
    assert "visible: idle=false blocker=false working=false" in lines
    assert "cached_remote_version: 2026.09.01.1" in lines
    assert "local_override_shadowing_remote: true" in lines
    assert "remote_update_status: failed" in lines
    assert "remote_update_error: fetch failed: boom" in lines
    index = lines.index("evaluated_rules:")
    assert lines[index + 1 :] == [
        "  ✓ viewer priority=1000 region= bottom_lines(2)  state=unknown",
        '    matchers: contains=Array [String("Showing Detailed Transcript")] regex=Array [] '
        "line_regex=Array [] all=0 any=2 not=0",
        '    region: bytes=45 preview="Showing detailed transcript\\nctrl+o to toggle\\n"',
        "  ✗ prompt priority=950 region=whole_recent state=idle",
        '    matchers: contains=Array [] regex=Array [String("❯")] '
        'line_regex=Array [String("^\\\\s*❯")] all=1 any=0 not=1',
        '    region: bytes=45 preview="Showing detailed transcript\\nctrl+o to toggle\\n"',
        "  ✗ stateless priority=1 region=whole_recent state=unknown",
        '    matchers: contains=Array [String("zzz")] regex=Array [] line_regex=Array [] '
        "all=0 any=0 not=0",
        '    region: bytes=45 preview="Showing detailed transcript\\nctrl+o to toggle\\n"',
    ]


def test_text_mode_live_pane_skip_variant() -> None:
    """The live-pane synthetic object (built by the caller) renders its skip reason."""
    d: dict[str, object] = {
        "agent": "pi",
        "state": "working",
        "manifest_source": None,
        "manifest_version": None,
        "matched_rule": None,
        "screen_detection_skipped": True,
        "screen_detection_skip_reason": "full_lifecycle_hook_authority",
        "evaluated_rules": [],
    }
    assert explain_text(d, verbose=False) == (
        "agent: pi\n"
        "state: working\n"
        "manifest: none unknown\n"
        "rule: none\n"
        "screen_detection_skip_reason: full_lifecycle_hook_authority\n"
    )

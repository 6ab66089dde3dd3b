"""``strip_title``: whitespace and one leading activity glyph go, the rest stays."""

from __future__ import annotations

import pytest

from herdr.runtime.terminal_title import strip_title

CASES = [
    ("plain", "Claude Code", "Claude Code"),
    ("whitespace", "  vim main.py \t", "vim main.py"),
    ("empty", "", ""),
    ("only-space", "   ", ""),
    ("claude-star", "✳ Claude Code", "Claude Code"),
    ("claude-frames", "✻ Claude Code", "Claude Code"),
    ("middle-dot", "· Working", "Working"),
    ("each-glyph-✢", "✢ x", "x"),
    ("each-glyph-✶", "✶ x", "x"),
    ("each-glyph-✽", "✽ x", "x"),
    ("half-circle-◐", "◐ qwen", "qwen"),
    ("half-circle-◓", "◓ qwen", "qwen"),
    ("half-circle-◑", "◑ qwen", "qwen"),
    ("half-circle-◒", "◒ qwen", "qwen"),
    ("braille-first", "\u2800 idle", "idle"),
    ("braille-spinner", "⠋ codex", "codex"),
    ("braille-last", "\u28ff codex", "codex"),
    ("glyph-no-space", "✳Claude", "Claude"),
    ("space-before-glyph", "  ✳  Claude Code  ", "Claude Code"),
    ("only-glyph", "✳", ""),
    ("only-one-glyph-dropped", "✳ ✳ twice", "✳ twice"),
    ("two-braille", "⠋⠙ x", "⠙ x"),
    ("glyph-inside-kept", "Claude ✳ Code", "Claude ✳ Code"),
    ("trailing-glyph-kept", "Claude ✳", "Claude ✳"),
    ("near-braille-kept", "\u27ff arrow", "\u27ff arrow"),
    ("after-braille-kept", "\u2900 arrow", "\u2900 arrow"),
    ("other-star-kept", "★ star", "★ star"),
    ("bullet-kept", "• item", "• item"),
]


@pytest.mark.parametrize(("title", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_strip_title(title: str, expected: str) -> None:
    assert strip_title(title) == expected

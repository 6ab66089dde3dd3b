"""The display form of a pane's OSC title (PaneInfo ``terminal_title_stripped``).

Agents animate their title with one leading activity glyph (a braille spinner frame, or
Claude's ``✳``/``✻``… and half-circle frames); dropping it keeps the title steady for
pickers and sort keys while the raw ``terminal_title`` stays available.
"""

from __future__ import annotations

from typing import Final

_ACTIVITY_GLYPHS: Final = frozenset("·✢✳✶✻✽◐◓◑◒")


def is_activity_glyph(char: str) -> bool:
    """A braille pattern (U+2800–U+28FF) or one of the spinner glyphs agents use."""
    return "\u2800" <= char <= "\u28ff" or char in _ACTIVITY_GLYPHS


def strip_title(title: str) -> str:
    """``title`` without surrounding whitespace and at most one leading activity glyph."""
    text = title.strip()
    if text and is_activity_glyph(text[0]):
        text = text[1:].lstrip()
    return text

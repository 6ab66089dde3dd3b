"""Rust ``{:?}`` formatting of strings, for error texts and the explain CLI.

The original prints patterns and previews with Rust's Debug quoting; matching it
keeps messages and ``herdr agent explain`` text output recognisable.
"""

from __future__ import annotations

import unicodedata

_SIMPLE = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"', "\0": "\\0"}
# Approximation of Rust's "not printable" and grapheme-extend escapes.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Mn", "Me"})


def debug_str(text: str) -> str:
    """``format!("{:?}", text)`` for a Rust ``&str``."""
    out = ['"']
    for ch in text:
        simple = _SIMPLE.get(ch)
        if simple is not None:
            out.append(simple)
        elif ch.isascii() and ch.isprintable():
            out.append(ch)
        elif unicodedata.category(ch) in _ESCAPED_CATEGORIES:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def debug_json_str_array(values: list[str] | tuple[str, ...]) -> str:
    """``{:?}`` of a ``serde_json::Value`` array of strings: ``Array [String("a")]``."""
    return "Array [" + ", ".join(f"String({debug_str(v)})" for v in values) + "]"

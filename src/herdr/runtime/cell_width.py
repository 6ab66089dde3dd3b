"""wcwidth's width of one character, with its tables imported on the first question.

The server imports the modules that measure text (copy-mode motions, links) at start,
but measures only when a request asks; wcwidth's import is ~15 ms of a cold start.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache


@cache
def _table() -> Callable[[str], int]:
    from wcwidth import wcwidth as table_width

    return table_width


def wcwidth(ch: str) -> int:
    """Cells ``ch`` takes: wcwidth's answer (-1 for non-printables, as it says)."""
    return _table()(ch)

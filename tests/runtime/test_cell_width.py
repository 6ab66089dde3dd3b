"""``cell_width.wcwidth`` is wcwidth's answer; the server's start does not import it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from herdr.runtime.cell_width import wcwidth


@pytest.mark.parametrize(
    "ch", ["a", " ", "é", "\u0301", "中", "🙂", "\x07", "─"], ids=lambda ch: f"U+{ord(ch):04X}"
)
def test_answers_are_wcwidths(ch: str) -> None:
    from wcwidth import wcwidth as table_width

    assert wcwidth(ch) == table_width(ch)


def test_the_server_imports_without_wcwidth() -> None:
    code = "import sys, herdr.server.app\nprint('wcwidth' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

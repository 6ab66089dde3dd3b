"""msgspec loads without typing_extensions, and typing_extensions still loads after."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import json, sys
from herdr.cli.quick_msgspec import import_msgspec
import_msgspec()
import msgspec
after_msgspec = sorted(m for m in ("typing_extensions", "inspect") if m in sys.modules)

class Point(msgspec.Struct, frozen=True):
    x: int
    y: "int | None" = None  # a string annotation: msgspec resolves it through typing

decoded = msgspec.json.decode(b'{"x": 1, "y": null}', type=Point)
import typing_extensions  # aiohttp's import, later: a real module, not the hiding entry
print(json.dumps({
    "after_msgspec": after_msgspec,
    "decoded": [decoded.x, decoded.y],
    "typing_extensions": typing_extensions.__name__,
}))
"""


def test_msgspec_without_typing_extensions_then_typing_extensions_as_usual() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(out.stdout) == {
        "after_msgspec": [],
        "decoded": [1, None],
        "typing_extensions": "typing_extensions",
    }


def test_a_second_call_and_an_earlier_msgspec_are_no_ops() -> None:
    probe = (
        "import sys, msgspec\n"
        "from herdr.cli.quick_msgspec import import_msgspec\n"
        "import_msgspec(); import_msgspec()\n"
        "print(sys.modules.get('typing_extensions', 'absent') is not None)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "True"

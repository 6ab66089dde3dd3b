"""The user agent kind the tests add: ``zork`` (tests/fixtures/fake_zork.py draws it)."""

from __future__ import annotations

from pathlib import Path

FAKE_ZORK = Path(__file__).resolve().parents[1] / "fixtures" / "fake_zork.py"

KIND = 'label = "zork"\nname = "Zork"\nprocess_names = ["zork"]\n'

MANIFEST = """id = "zork"
version = "2026.12.1"
min_engine_version = 3

[[rules]]
id = "zork_permission"
state = "blocked"
priority = 10
contains = ["Allow this action?"]

[[rules]]
id = "zork_prompt"
state = "idle"
contains = ["zork>"]
"""

"""``pane run``/``send-text`` words and ``pane move`` focus, through the real CLI (issue 13)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from herdr_testing import ServerHandle


def ok(server: ServerHandle, *args: str) -> dict[str, Any]:
    result = server.cli(*args)
    assert result.returncode == 0, f"{args}: {result.stderr}"
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc["result"]  # type: ignore[no-any-return]


def silent(server: ServerHandle, *args: str) -> None:
    result = server.cli(*args)
    assert result.returncode == 0, f"{args}: {result.stderr}"
    assert result.stdout == ""


def wait_line(server: ServerHandle, pane: str, line: str) -> None:
    pattern = f"^{re.escape(line)}$"
    ok(server, "pane", "wait-output", pane, "--regex", pattern, "--timeout", "10000")


@pytest.fixture
def pane(herdr_server: ServerHandle) -> str:
    created = ok(herdr_server, "workspace", "create", "--label", "args")
    return str(created["root_pane"]["pane_id"])


# (flags before the pane, words after it): every word after the pane is text.
WORDS = [
    pytest.param([], ["echo", "r1", "--resume", "ID"], id="long-flag"),
    pytest.param([], ["echo", "r2", "-x", "--help", "-h"], id="help-and-short-flags"),
    pytest.param([], ["echo", "r3", "--session", "not/a/session"], id="session-after-pane"),
    pytest.param(["--session", "default"], ["echo", "r4", "--no-focus"], id="flag-before-pane"),
    pytest.param([], ["--", "echo", "r5", "--"], id="leading-double-dash"),
]


@pytest.mark.parametrize(("before", "words"), WORDS)
def test_pane_run_sends_every_word_after_the_pane(
    herdr_server: ServerHandle, pane: str, before: list[str], words: list[str]
) -> None:
    silent(herdr_server, "pane", "run", *before, pane, *words)
    echoed = words[1:] if words[0] == "--" else words  # argparse eats a leading --
    wait_line(herdr_server, pane, " ".join(echoed[1:]))


@pytest.mark.parametrize(("before", "words"), WORDS)
def test_pane_send_text_sends_every_word_after_the_pane(
    herdr_server: ServerHandle, pane: str, before: list[str], words: list[str]
) -> None:
    silent(herdr_server, "pane", "send-text", *before, pane, *words)
    silent(herdr_server, "pane", "send-keys", pane, "enter")
    echoed = words[1:] if words[0] == "--" else words  # argparse eats a leading --
    wait_line(herdr_server, pane, " ".join(echoed[1:]))


@pytest.mark.parametrize("verb", ["run", "send-text"])
def test_no_text_is_a_usage_error(herdr_server: ServerHandle, pane: str, verb: str) -> None:
    result = herdr_server.cli("pane", verb, pane)
    assert result.returncode == 2
    assert "text" in result.stderr
    assert result.stdout == ""


# (focus flags, whether the moved pane ends up focused)
MOVE_FOCUS = [
    pytest.param([], True, id="default-focuses"),
    pytest.param(["--focus"], True, id="focus"),
    pytest.param(["--no-focus"], False, id="no-focus"),
]


@pytest.mark.parametrize(("flags", "focused"), MOVE_FOCUS)
def test_pane_move_focus(
    herdr_server: ServerHandle, pane: str, flags: list[str], focused: bool
) -> None:
    split = ok(herdr_server, "pane", "split", pane, "--direction", "right", "--no-focus")
    moved = str(split["pane"]["pane_id"])
    assert ok(herdr_server, "pane", "get", pane)["pane"]["focused"] is True
    ok(herdr_server, "pane", "move", moved, "--new-tab", *flags)
    assert ok(herdr_server, "pane", "get", moved)["pane"]["focused"] is focused
    assert ok(herdr_server, "pane", "get", pane)["pane"]["focused"] is not focused


def test_pane_move_focus_and_no_focus_conflict(herdr_server: ServerHandle, pane: str) -> None:
    split = ok(herdr_server, "pane", "split", pane, "--direction", "right", "--no-focus")
    moved = str(split["pane"]["pane_id"])
    result = herdr_server.cli("pane", "move", moved, "--new-tab", "--focus", "--no-focus")
    assert result.returncode == 2
    assert ok(herdr_server, "pane", "get", moved)["pane"]["tab_id"] == split["pane"]["tab_id"]

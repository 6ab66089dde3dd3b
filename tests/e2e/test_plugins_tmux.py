"""End to end: plugins in the real TUI inside a real tmux (issue 20): the command
palette lists and runs plugin actions and catalog commands, and plugin panes open in
each placement the server offers (split, tab, zoomed) and show on screen. The harness
is ``test_tui_tmux.Tui``."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# the harness lives beside its first tests (tests/e2e is on sys.path when they run)
from test_tui_tmux import TIMEOUT, Tui, _prompt_ready  # type: ignore[import-not-found]

from herdr_testing import wait_until
from herdr_testing.fake_env import agent_bin

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

RECORDER = Path(__file__).resolve().parents[1] / "fixtures" / "plugins" / "recorder"


@pytest.fixture
def tui() -> Iterator[Tui]:
    root = Path(tempfile.mkdtemp(prefix="hp", dir="/tmp"))
    harness = Tui(root, agent_bin(root))
    try:
        yield harness
    finally:
        harness.close()
        shutil.rmtree(root, ignore_errors=True)


def _started_with_recorder(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    linked = tui.request("plugin.link", {"path": str(RECORDER)})
    assert "result" in linked, linked


def _runs(tui: Tui) -> list[dict[str, Any]]:
    path = tui.root / "s" / "herdr" / "plugins" / "test.recorder" / "runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_palette_lists_plugin_actions_and_runs_one_with_the_focused_context(tui: Tui) -> None:
    _started_with_recorder(tui)
    tui.keys("C-b", "Space")
    screen = tui.wait_text("Recorder: Record a run")
    assert "split right" in screen  # catalog commands are there too, with their keys
    tui.literal("record a run")
    tui.wait_for(
        lambda s: "Recorder: Record a run" in s and "split right" not in s,
        message="the filter did not narrow the list",
    )
    tui.keys("Enter")
    tui.wait_for(lambda s: "Recorder: Record a run" not in s, message="the palette stayed open")

    def action_run() -> dict[str, Any] | None:
        return next((r for r in _runs(tui) if r["argv"][0] == "action"), None)

    run = wait_until(action_run, TIMEOUT, message="the action never ran")
    assert run is not None
    context = json.loads(run["env"]["HERDR_PLUGIN_CONTEXT_JSON"])
    snapshot = tui.snapshot()
    assert context["invocation_source"] == "command_palette"
    assert context["focused_pane_id"] == snapshot["focused_pane_id"]


def test_palette_runs_a_catalog_command_and_esc_runs_nothing(tui: Tui) -> None:
    _started_with_recorder(tui)
    tui.keys("C-b", "Space")
    tui.wait_text("split right")
    tui.keys("Escape")
    tui.wait_for(lambda s: "split right" not in s, message="esc did not close the palette")
    assert len(tui.snapshot()["panes"]) == 1
    tui.keys("C-b", "Space")
    tui.wait_text("split right")
    tui.literal("split right")
    tui.keys("Enter")
    wait_until(lambda: len(tui.snapshot()["panes"]) == 2, TIMEOUT, message="no split")


@pytest.mark.parametrize("placement", ["split", "tab", "zoomed"])
def test_plugin_pane_opens_in_its_placement_and_shows(tui: Tui, placement: str) -> None:
    _started_with_recorder(tui)
    opened = tui.request(
        "plugin.pane.open",
        {"plugin_id": "test.recorder", "entrypoint": "viewer", "placement": placement},
    )
    assert "result" in opened, opened
    pane_id = opened["result"]["plugin_pane"]["pane"]["pane_id"]
    snapshot = tui.snapshot()
    tabs, panes = snapshot["tabs"], snapshot["panes"]
    assert len(tabs) == (2 if placement == "tab" else 1)
    assert len(panes) == 2
    if placement == "tab":  # a tab opened in the background: the TUI goes to it
        tui.wait_text("2 Viewer")
        tui.keys("C-b", "n")
    screen = tui.wait_text("recorded pane")
    if placement == "zoomed":  # the plugin pane has the whole area: the shell is hidden
        assert snapshot["focused_pane_id"] == pane_id
        assert "$" not in screen.split("recorded pane", 1)[1]

"""End to end: plugins in the real TUI inside a real tmux (issue 20): the command
palette lists and runs plugin actions and catalog commands, plugin panes open in every
placement (split, tab, zoomed, overlay, popup) and show on screen; the example pane
picker's popup is drawn over the layout, takes the keys and leaves the layout as it
was. The harness is ``test_tui_tmux.Tui``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# the harness lives beside its first tests (tests/e2e is on sys.path when they run)
from test_tui_tmux import TIMEOUT, Tui, _prompt_ready, harness  # type: ignore[import-not-found]

from herdr_testing import wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

RECORDER = Path(__file__).resolve().parents[1] / "fixtures" / "plugins" / "recorder"
PICKER = Path(__file__).resolve().parents[2] / "examples" / "plugins" / "pane-picker"


@pytest.fixture
def tui() -> Iterator[Tui]:
    with harness("hp") as opened:
        yield opened


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
    tui.wait_text("split right")  # catalog commands, with their keys; plugin actions follow
    tui.literal("record a run")  # (below the fold of a long list: filter to see them)
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


def _picker_over_two_panes(tui: Tui) -> str:
    """The TUI with two panes (a marker in the first) and the example picker linked;
    the settled screen, to compare with once a popup or overlay is gone."""
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    assert "result" in tui.request("plugin.link", {"path": str(PICKER)})
    tui.literal("echo under-the-popup")
    tui.keys("Enter")
    tui.wait_text("under-the-popup\n")
    split = tui.request("pane.split", {"target_pane_id": "w1:p1", "direction": "right"})
    assert "result" in split, split
    tui.wait_for(lambda s: s.count("$") >= 3, message="the split has no prompt")
    tui.request("pane.focus", {"pane_id": "w1:p1"})
    return _settled(tui)


def _settled(tui: Tui) -> str:
    """The screen once two captures in a row agree."""
    last = [""]

    def same() -> bool:
        screen: str = tui.screen()
        stable = screen == last[0]
        last[0] = screen
        return stable

    wait_until(same, TIMEOUT, interval=0.2, message="the screen never settled")
    return last[0]


def test_a_popup_shows_over_the_layout_takes_keys_and_esc_restores_it(tui: Tui) -> None:
    before = _picker_over_two_panes(tui)
    invoked = tui.request("plugin.action.invoke", {"action_id": "example.pane-picker.open"})
    assert "result" in invoked, invoked
    screen = tui.wait_text("Pick a pane")
    lines = screen.split("\n")
    top = next(i for i, line in enumerate(lines) if "╭ Pick a pane" in line)
    assert "╰" in "".join(lines[top + 1 :])  # a bordered box, closed below
    assert "under-the-popup" in screen  # the layout is still there around the box
    tui.wait_text("w1:p2")
    tui.literal("p2")  # typed keys reach the popup's program, not the shell under it
    tui.wait_for(
        lambda s: "filter: p2" in s and "w1:p1 " not in s, message="the filter did not narrow"
    )
    assert "p2" not in tui.request("pane.read", {"pane_id": "w1:p1", "source": "visible"})[
        "result"
    ]["read"]["text"].replace("under-the-popup", "")
    tui.keys("Escape")
    tui.wait_for(lambda s: s == before, message="the layout was not restored after Esc")
    assert tui.request("popup.close", {})["error"]["code"] == "popup_not_open"


def test_picking_in_the_popup_focuses_the_pane_and_the_popup_ends_with_it(tui: Tui) -> None:
    _picker_over_two_panes(tui)
    tui.request("plugin.action.invoke", {"action_id": "example.pane-picker.open"})
    tui.wait_text("Pick a pane")
    tui.wait_text("w1:p2")
    tui.literal("p2")
    tui.wait_text("filter: p2")
    tui.keys("Enter")
    tui.wait_for(lambda s: "Pick a pane" not in s, message="the popup stayed open")
    wait_until(lambda: tui.snapshot()["focused_pane_id"] == "w1:p2", TIMEOUT)
    assert "╭" not in _settled(tui)


def test_an_overlay_covers_the_pane_area_takes_keys_and_gives_it_back(tui: Tui) -> None:
    before = _picker_over_two_panes(tui)
    invoked = tui.request("plugin.action.invoke", {"action_id": "example.pane-picker.peek"})
    assert "result" in invoked, invoked
    screen = tui.wait_text("enter: peek")
    assert "under-the-popup" not in screen  # the overlay covers the whole pane area
    tui.wait_text("w1:p2")
    tui.literal("p1")
    tui.wait_text("filter: p1")
    tui.keys("Enter")
    tui.wait_text("w1:p1: under-the-popup | $")  # it read the pane it covers
    tui.keys("Escape")  # the overlay's program quits: the pane closes
    tui.wait_for(lambda s: s == before, message="the layout was not given back")
    assert tui.snapshot()["focused_pane_id"] == "w1:p1"


def _box_corner(screen: str) -> tuple[int, int] | None:
    """(column, row) of the popup's top-left corner on screen, if one is drawn."""
    for row, line in enumerate(screen.split("\n")):
        col = line.find("╭ Pick a pane")
        if col >= 0:
            return col, row
    return None


def test_the_popup_recentres_when_the_terminal_resizes_and_leaves_nothing_behind(
    tui: Tui,
) -> None:
    _picker_over_two_panes(tui)
    tui.request("plugin.action.invoke", {"action_id": "example.pane-picker.open"})
    first = _box_corner(tui.wait_text("Pick a pane"))
    assert first is not None
    tui.tmux("resize-window", "-t", "main", "-x", "120", "-y", "36")
    tui.wait_for(lambda s: _box_corner(s) not in (None, first), message="the box did not move")
    tui.wait_text("filter:")  # the picker redrew at its new size
    tui.keys("Escape")
    screen = tui.wait_for(lambda s: "Pick a pane" not in s, message="the popup stayed")
    assert "╭" not in _settled(tui) and "filter:" not in screen


def test_a_paste_reaches_the_popup_without_the_host_brackets(tui: Tui) -> None:
    _picker_over_two_panes(tui)
    tui.request("plugin.action.invoke", {"action_id": "example.pane-picker.open"})
    tui.wait_text("w1:p2")
    tui.tmux("set-buffer", "p2")
    tui.tmux("paste-buffer", "-p", "-t", "main")  # bracketed, as a terminal pastes
    screen = tui.wait_text("filter: p2")
    assert "200~" not in screen and "201~" not in screen
    tui.keys("Escape")
    tui.wait_for(lambda s: "Pick a pane" not in s, message="the popup stayed")

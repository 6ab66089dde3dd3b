"""End to end (real tmux, real TUI): the first-fifteen-minutes bugs of issue 16."""

from __future__ import annotations

import os
from pathlib import Path

from test_tui_tmux import (  # type: ignore[import-not-found]
    ROWS,
    TIMEOUT,
    Tui,
    _prompt_ready,
    tui,
)

from herdr_testing import wait_until

__all__ = ["tui"]  # the fixture, used by name

_JUNCTIONS = set("┌┬┐├┼┤└┴┘")


def _keep(name: str, screen: str) -> None:
    """Save a captured screen under $HERDR_E2E_SCREENS (for the write-up), if set."""
    folder = os.environ.get("HERDR_E2E_SCREENS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{name}.txt").write_text(screen)


def _area(t: Tui) -> tuple[int, int]:
    area = t.snapshot()["layouts"][0]["area"]
    return (int(area["width"]), int(area["height"]))


def test_smaller_client_hands_the_size_back_on_detach(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "v")  # two panes: a divider that could grow junctions
    tui.wait_for(lambda s: "p2" in s, message="no second pane")
    full = wait_until(lambda: _area(tui), TIMEOUT)
    tui.open("small")
    tui.tmux("resize-window", "-t", "small", "-x", "90", "-y", "24")
    # below 100 columns the sidebar collapses to its marks: no "Spaces" header there
    tui.wait_for(lambda s: "$" in s and "│" in s, "small", "small client shows nothing")
    tui.literal("echo from''small", session="small")
    tui.keys("Enter", session="small")
    tui.wait_text("fromsmall", "small")
    wait_until(lambda: _area(tui)[0] < full[0], TIMEOUT, message="small client's size not used")
    # the big client draws the smaller session: the unused area is blank, no junctions
    screen = tui.wait_for(lambda s: "fromsmall" in s, message="big client not updated")
    _keep("item1-big-client-while-small-active", screen)
    lines = screen.split("\n")
    width, height = _area(tui)
    left = lines[2].index("│") + 1  # the sidebar's edge: the pane area starts right of it
    top = 1  # the tab bar
    outside = [line[left + width :] for line in lines[top : top + height]]
    outside += [line[left:] for line in lines[top + height + 1 :]]
    assert all(part.strip() == "" for part in outside), screen
    assert not any(c in _JUNCTIONS for part in outside for c in part)
    # the small client detaches: the size passes back to the big one
    tui.keys("C-b", "q", session="small")
    tui.wait_text("HERDR-EXIT=0", "small")
    wait_until(lambda: _area(tui) == full, TIMEOUT, message="size not handed back")
    screen = tui.wait_for(
        lambda s: "│" in s.split("\n")[ROWS - 2][40:], message="big client did not grow back"
    )
    _keep("item1-big-client-after-small-detached", screen)


def test_broken_config_shows_the_whole_error_until_fixed(tui: Tui) -> None:
    config = tui.root / "c" / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[ui\nsidebar_width = 30\n")
    tui.open()
    where = f"{config}:1:4: error: TOML syntax error"
    screen = tui.wait_for(lambda s: "config.toml problems" in s, message="no config banner")
    _keep("item3-start-up-banner", screen)
    flat = "".join(line.strip() for line in screen.split("\n"))
    assert where.replace(" ", "") in flat.replace(" ", "")  # whole, with file:line:col
    # still broken: prefix+R says what failed, the banner stays
    config.write_text("[ui]\nsidebar_widht = 30\n[ui\n")
    tui.keys("C-b", "R")
    screen = tui.wait_text("config reload failed")
    _keep("item3-reload-failed", screen)
    assert "config.toml problems" in screen
    # fixed: the banner goes, the notice says reloaded
    config.write_text("[ui]\nsidebar_width = 30\n")
    tui.keys("C-b", "R")
    screen = tui.wait_for(
        lambda s: "config reloaded" in s and "config.toml problems" not in s,
        message="banner did not go away after the fix",
    )
    _keep("item3-fixed", screen)


def _first_pane_line(screen: str) -> str:
    """The first text row of the (single) pane: right of the sidebar, below the title."""
    lines = screen.split("\n")
    left = lines[2].index("│") + 1
    return lines[2][left:].strip()


def test_wheel_over_less_scrolls_less(tui: Tui) -> None:
    (tui.root / "work" / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 301)))
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("less long.txt")
    tui.keys("Enter")
    tui.wait_for(lambda s: _first_pane_line(s) == "line 1", message="less did not start")
    # two notches down over the pane (SGR wheel: button 65), 3 lines each
    tui.literal("\x1b[<65;60;10M\x1b[<65;60;10M")
    screen = tui.wait_for(lambda s: _first_pane_line(s) == "line 7", message="wheel did not scroll")
    _keep("item5-less-after-two-notches-down", screen)
    assert "q quit" not in screen  # no copy mode (its hint is in the tab bar)
    tui.literal("\x1b[<64;60;10M")  # one notch up
    screen = tui.wait_for(lambda s: _first_pane_line(s) == "line 4", message="wheel up failed")
    _keep("item5-less-after-one-notch-up", screen)
    tui.literal("q")
    tui.wait_for(_prompt_ready, message="less did not quit")

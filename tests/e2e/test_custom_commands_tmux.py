"""End to end: ``[[keys.command]]`` bindings of type ``pane``, ``popup`` and ``shell`` in
the real TUI inside a real tmux, as a user sets them up in ``config.toml`` (spec §7).
The harness is ``test_tui_tmux.Tui``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

# the harness lives beside its first tests (tests/e2e is on sys.path when they run)
from test_tui_tmux import TIMEOUT, Tui, _prompt_ready, harness  # type: ignore[import-not-found]

from herdr_testing import wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


@pytest.fixture
def tui() -> Iterator[Tui]:
    with harness("hc") as opened:
        yield opened


def test_pane_popup_and_shell_bindings_run_from_the_keyboard(tui: Tui) -> None:
    marker = tui.root / "shell-ran.txt"
    config = tui.root / "c" / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[[keys.command]]\n"
        'key = "prefix+u"\ntype = "pane"\n'
        'command = "echo over-$((6*7)); read answer"\n'
        'description = "overlay test"\n'
        "[[keys.command]]\n"
        'key = "prefix+o"\ntype = "popup"\nwidth = "60%"\nheight = 8\n'
        'command = "echo in-popup-$((6*7)); read answer"\n'
        "[[keys.command]]\n"
        'key = "prefix+y"\ntype = "shell"\n'
        f'command = "echo $HERDR_ACTIVE_PANE_ID > {marker}.tmp && mv {marker}.tmp {marker}"\n'
    )
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    focused = tui.snapshot()["focused_pane_id"]

    tui.keys("C-b", "u")  # pane: covers the active pane, zoomed
    tui.wait_text("over-42")
    assert len(tui.request("pane.list", {})["result"]["panes"]) == 2
    tui.keys("Enter")  # its command ends: the pane closes, the shell is back
    tui.wait_for(lambda s: "over-42" not in s, message="the overlay pane stayed")
    wait_until(lambda: tui.snapshot()["focused_pane_id"] == focused, TIMEOUT)

    tui.keys("C-b", "o")  # popup: drawn over the layout, takes the keys
    tui.wait_text("in-popup-42")
    assert len(tui.request("pane.list", {})["result"]["panes"]) == 1
    tui.keys("Enter")
    tui.wait_for(lambda s: "in-popup-42" not in s, message="the popup stayed open")

    tui.keys("C-b", "y")  # shell: detached, with the active pane in its environment
    wait_until(marker.exists, TIMEOUT, message="the shell binding never ran")
    assert marker.read_text().strip() == focused

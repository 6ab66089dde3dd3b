"""End to end: the settings panel writes config.toml, prefix+G opens a git worktree and
the navigator crosses sessions — in a real tmux (harness: ``test_tui_tmux.Tui``)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_tui_features_tmux import _cell_of, _inverse  # type: ignore[import-not-found]
from test_tui_tmux import TIMEOUT, Tui, _prompt_ready, harness  # type: ignore[import-not-found]

from herdr_testing import request, wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

CONFIG = (
    "# my own notes, kept as they are\n"
    "[ui]\n"
    "sidebar_width = 26   # wide enough\n"
    "confirm_close = true # ask first\n"
    "\n"
    "[keys]  # nothing here yet\n"
)


@pytest.fixture
def tui() -> Iterator[Tui]:
    with harness("hn") as opened:
        yield opened


def test_settings_toggle_writes_only_the_value_and_applies(tui: Tui) -> None:
    config = tui.root / "c" / "herdr" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(CONFIG)
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "s")
    screen = tui.wait_text("config file:")
    assert "(read-only)" in screen  # the nested keys are shown, not edited
    rows = [line for line in screen.split("\n") if "confirm_close" in line]
    assert rows and "true" in rows[0]
    # confirm_close is the eleventh simple key
    tui.keys(*["Down"] * 10)
    tui.keys("Enter")
    wait_until(
        lambda: config.read_text() == CONFIG.replace("close = true #", "close = false #"),
        TIMEOUT,
        message="config.toml not edited as expected",
    )
    screen = tui.wait_text("set ui.confirm_close = false")
    tui.wait_for(
        lambda s: any("confirm_close" in r and "false" in r for r in s.split("\n")),
        message="the panel does not show the reloaded value",
    )
    # a number past its bound is refused and the file stays as it is
    before = config.read_text()
    tui.keys(*["Up"] * 10)  # sidebar_width
    for _ in range(60):
        tui.literal("+")
    tui.wait_text("refused: sidebar_width = 81")
    assert config.read_text().replace("width = 80", "width = 26") == before
    tui.keys("q")
    tui.wait_for(lambda s: "config file:" not in s, message="settings stayed open")


def _git(cwd: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_new_worktree_key_opens_a_worktree_workspace_and_switches_to_it(tui: Tui) -> None:
    # git's global config is the private HOME's (the server and the test's git see it)
    gitconfig = tui.root / "h" / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = e2e\n\temail = e2e@example.invalid\n")
    repo = tui.root / "work"
    git_env = {**tui.env, "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"}
    _git(repo, git_env, "init", "-q", "-b", "main")
    (repo / "README").write_text("hello\n")
    _git(repo, git_env, "add", "README")
    _git(repo, git_env, "commit", "-q", "-m", "first")
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    before = tui.snapshot()
    assert len(before["workspaces"]) == 1
    tui.keys("C-b", "G")
    wait_until(
        lambda: len(tui.snapshot()["workspaces"]) == 2, TIMEOUT, message="no worktree workspace"
    )
    listed = tui.request("worktree.list", {"cwd": str(repo)})["result"]
    paths = [w["path"] for w in listed["worktrees"] if Path(w["path"]) != repo.resolve()]
    assert len(paths) == 1, listed
    checkout = paths[0]
    # the TUI follows: typing goes to the new workspace's pane, which runs in the checkout
    tui.literal("pwd")
    tui.keys("Enter")
    tui.wait_text(checkout)
    snap = tui.snapshot()
    focused = next(p for p in snap["panes"] if p["pane_id"] == snap["focused_pane_id"])
    assert focused["workspace_id"] != before["workspaces"][0]["workspace_id"]


def _work(tui: Tui, method: str, params: dict[str, object]) -> dict[str, object]:
    sock = tui.root / "c" / "herdr" / "sessions" / "work" / "herdr.sock"
    reply: dict[str, object] = request(sock, method, params)
    assert "result" in reply, reply
    result = reply["result"]
    assert isinstance(result, dict)
    return result


def _work_snapshot(tui: Tui) -> dict[str, Any]:
    snap: dict[str, Any] = _work(tui, "session.snapshot", {})["snapshot"]  # type: ignore[assignment]
    return snap


def test_navigator_lists_every_session_and_switches_between_them(tui: Tui) -> None:
    # session "work": a second server with two panes, one labelled; "old": stopped
    tui.named_sessions.append("work")
    tui.open("w", "session", "attach", "work")
    tui.wait_for(_prompt_ready, session="w", message="no prompt in work")
    tui.keys("C-b", "q", session="w")  # detached: the work server keeps running
    tui.wait_text("HERDR-EXIT=0", session="w")
    first = _work_snapshot(tui)["panes"][0]["pane_id"]
    split = _work(tui, "pane.split", {"direction": "right", "target_pane_id": first})
    target = split["pane"]["pane_id"]  # type: ignore[index]
    _work(tui, "pane.rename", {"pane_id": target, "label": "target-pane"})
    (tui.root / "c" / "herdr" / "sessions" / "old").mkdir()
    wait_until(lambda: _work_snapshot(tui)["focused_pane_id"] != target, TIMEOUT)
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.keys("C-b", "g")
    screen = tui.wait_text("target-pane")  # the other session's tree joins when it answers
    assert "session default" in screen and "session work" in screen
    assert "session old  · stopped" in screen
    tui.literal("target-pane")  # the filter works across sessions
    tui.wait_for(lambda s: "session old" not in s, message="the filter kept other rows")
    tui.keys("Enter")
    wait_until(
        lambda: _work_snapshot(tui)["focused_pane_id"] == target,
        TIMEOUT,
        message="the chosen pane of the other session was not focused",
    )
    tui.literal("echo from-$((40+2))")  # the TUI is now work's: keys go to the chosen pane
    tui.keys("Enter")
    wait_until(
        lambda: "from-42" in str(_work(tui, "pane.read", {"pane_id": target, "source": "visible"})),
        TIMEOUT,
        message="keys did not reach the other session's pane",
    )
    # and back: the session row of the default session
    tui.keys("C-b", "g")
    tui.wait_text("session default")
    tui.literal("session default")
    tui.keys("Enter")
    tui.wait_for(lambda s: "GO TO" not in s, message="the navigator stayed open")
    tui.literal("echo back-$((1+1))")
    tui.keys("Enter")
    tui.wait_text("back-2")
    focused = tui.snapshot()["focused_pane_id"]
    read = tui.request("pane.read", {"pane_id": focused, "source": "visible"})
    assert "back-2" in str(read)
    tui.keys("C-b", "q")
    assert "[detached from session default]" in tui.wait_text("HERDR-EXIT=0")


def _drag(tui: Tui, text: str) -> None:
    """Drag over ``text`` (as shown on a row without ``echo``) with the left button."""
    x, y = _cell_of(tui, text)
    end = x + len(text)
    tui.literal(f"\x1b[<0;{x + 1};{y + 1}M\x1b[<32;{end};{y + 1}M\x1b[<0;{end};{y + 1}m")
    wait_until(lambda: _inverse(tui, text), TIMEOUT, message="selection not shown")


def test_the_mouse_selection_goes_when_typing_or_when_the_pane_scrolls(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("seq -f 'line%03g' 1 100")
    tui.keys("Enter")
    tui.wait_text("line100")
    _drag(tui, "line090")
    tui.literal("x")  # typing into the pane clears the highlight
    wait_until(lambda: not _inverse(tui, "line090"), TIMEOUT, message="typing kept it")
    tui.keys("BSpace")
    _drag(tui, "line091")
    pane = tui.snapshot()["focused_pane_id"]
    # output that scrolls the pane (not typed in the TUI) clears it too
    tui.request("pane.send_text", {"pane_id": pane, "text": "seq -f 'more%02g' 1 5\n"})
    tui.wait_text("more05")
    wait_until(lambda: not _inverse(tui, "line091"), TIMEOUT, message="scrolling kept it")

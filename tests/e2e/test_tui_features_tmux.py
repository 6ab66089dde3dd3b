"""End to end: issue 16's TUI features (search, confirm-close, navigator, names…) in a
real tmux, driven by send-keys and read with capture-pane (the harness is
``test_tui_tmux.Tui``)."""

from __future__ import annotations

import re
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
    with harness("hf") as opened:
        yield opened


def _styled(tui: Tui, session: str = "main") -> str:
    return str(tui.tmux("capture-pane", "-e", "-p", "-t", session))


def _started(tui: Tui) -> None:
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")


# ------------------------------------------------------------------- 6: copy-mode search


def test_copy_mode_search_is_incremental_and_steps_with_n(tui: Tui) -> None:
    _started(tui)
    tui.tmux("set-option", "-s", "set-clipboard", "on")
    tui.literal("seq -f 'row%03g' 1 300")
    tui.keys("Enter")
    tui.wait_text("row300")
    tui.keys("C-b", "[")
    tui.wait_text("COPY")
    tui.keys("/")
    tui.wait_text("SEARCH")
    tui.literal("row04")  # incremental: each key searches again, the cursor follows
    screen = tui.wait_for(lambda s: "/row04 [1/10]" in s, message="no incremental count")
    assert "row040" in screen  # from the bottom forward wraps to the first match
    assert "row300" not in screen  # the view followed the match into the scrollback
    styled = _styled(tui)
    assert "\x1b[30;43m" in styled or "43m" in styled, "matches are not highlighted"
    tui.literal("2")
    tui.wait_text("/row042 [1/1]")
    tui.keys("BSpace")
    tui.wait_text("/row04 [1/10]")
    tui.keys("Enter")  # keep the match; back in copy mode
    tui.wait_for(lambda s: "SEARCH" not in s and "COPY" in s, message="enter left copy mode")
    tui.keys("n")
    tui.wait_text("/row04 [2/10]")
    tui.keys("n", "n", "n")  # typed faster than the answers come: each one still steps
    tui.wait_text("/row04 [5/10]")
    tui.keys("N", "N")
    tui.wait_text("/row04 [3/10]")
    # a selection from a search hit copies the found text
    tui.keys("v", "l", "l", "l", "l", "l", "y")
    tui.wait_text("copied 1 line")
    wait_until(lambda: _buffer(tui) == "row042", TIMEOUT, message="wrong text copied")
    # ? searches backward over the whole scrollback: the first row is found
    tui.keys("C-b", "[")
    tui.wait_text("COPY")
    tui.keys("?")
    tui.literal("row001")
    screen = tui.wait_text("?row001 [1/1]")
    assert re.search(r"row001", screen)
    tui.keys("Escape")  # esc puts the cursor back where it was
    tui.wait_for(lambda s: "SEARCH" not in s and "?row001" not in s, message="esc kept it")
    tui.keys("q")
    tui.wait_for(lambda s: "COPY" not in s, message="q did not leave copy mode")
    tui.wait_text("row300")


def test_copy_mode_search_without_match_says_so(tui: Tui) -> None:
    _started(tui)
    tui.literal("echo alpha beta")
    tui.keys("Enter")
    tui.wait_text("alpha beta")
    tui.keys("C-b", "[")
    tui.wait_text("COPY")
    tui.keys("n")
    tui.wait_text("no previous search")
    tui.keys("/")
    tui.literal("zzzq")
    tui.wait_text("/zzzq [no match]")


# ------------------------------------------------------------------- 9: confirm_close


def _pane_count(tui: Tui) -> int:
    return len(tui.snapshot()["panes"])


def _running(tui: Tui, name: str) -> None:
    """Wait until ``name`` is the focused pane's foreground program (the shell may
    take a moment to start it after Enter)."""

    def probe() -> bool:
        pane_id = tui.snapshot()["focused_pane_id"]
        info = tui.request("pane.process_info", {"pane_id": pane_id})["result"]["process_info"]
        return any(p.get("name") == name for p in info.get("foreground_processes", []))

    wait_until(probe, TIMEOUT, message=f"{name} never ran in the focused pane")


def test_closing_a_busy_pane_or_tab_asks_first(tui: Tui) -> None:
    _started(tui)
    tui.keys("C-b", "v")
    wait_until(lambda: _pane_count(tui) == 2, TIMEOUT, message="no split")
    # both shells have drawn their prompt: the TUI has the new focused pane too
    tui.wait_for(lambda s: s.count("$") >= 2, message="the new pane has no prompt")
    tui.literal("cat")
    tui.keys("Enter")
    _running(tui, "cat")
    tui.keys("C-b", "x")
    screen = tui.wait_text("CLOSE PANE?")
    assert "cat is running in this pane" in screen
    tui.keys("n")
    tui.wait_text("close cancelled")
    assert _pane_count(tui) == 2
    tui.keys("C-b", "x")
    tui.wait_text("CLOSE PANE?")
    tui.keys("y")
    wait_until(lambda: _pane_count(tui) == 1, TIMEOUT, message="y did not close the pane")
    # the TUI splits the pane it sees focused: wait until its own view has one pane
    tui.wait_for(lambda s: s.count("$") == 1, message="the TUI still shows the closed pane")
    # an idle shell closes at once
    tui.keys("C-b", "v")
    wait_until(lambda: _pane_count(tui) == 2, TIMEOUT, message="no split")
    tui.wait_for(lambda s: s.count("$") >= 2, message="no second prompt")
    tui.keys("C-b", "x")
    wait_until(lambda: _pane_count(tui) == 1, TIMEOUT, message="idle shell not closed")
    assert "CLOSE PANE?" not in tui.screen()
    # a tab with a program running in it asks too
    tui.keys("C-b", "c")
    wait_until(lambda: len(tui.snapshot()["tabs"]) == 2, TIMEOUT, message="no new tab")
    tui.wait_for(lambda s: "$" in s, message="no prompt in the new tab")
    tui.literal("sleep 600")
    tui.keys("Enter")
    _running(tui, "sleep")
    tui.keys("C-b", "X")
    screen = tui.wait_text("CLOSE TAB?")
    assert "sleep is running in this tab" in screen
    tui.keys("Escape")
    tui.wait_text("close cancelled")
    assert len(tui.snapshot()["tabs"]) == 2


def test_confirm_close_off_closes_at_once(tui: Tui) -> None:
    config = tui.root / "c" / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[ui]\nconfirm_close = false\n")
    _started(tui)
    tui.keys("C-b", "v")
    wait_until(lambda: _pane_count(tui) == 2, TIMEOUT, message="no split")
    # both shells have drawn their prompt: the TUI has the new focused pane too
    tui.wait_for(lambda s: s.count("$") >= 2, message="the new pane has no prompt")
    tui.literal("cat")
    tui.keys("Enter")
    _running(tui, "cat")
    tui.keys("C-b", "x")
    wait_until(lambda: _pane_count(tui) == 1, TIMEOUT, message="not closed")
    assert "CLOSE PANE?" not in tui.screen()


# ------------------------------------------------------- 8: what the help overlay lists


def _tab_labels(tui: Tui) -> list[str]:
    return [str(t.get("label")) for t in tui.snapshot()["tabs"]]


def test_session_navigator_filters_and_goes_to_a_pane(tui: Tui) -> None:
    _started(tui)
    tui.keys("C-b", "c")
    wait_until(lambda: len(tui.snapshot()["tabs"]) == 2, TIMEOUT, message="no new tab")
    tui.keys("C-b", "v")
    wait_until(lambda: len(tui.snapshot()["panes"]) == 3, TIMEOUT, message="no split")
    first_pane = tui.snapshot()["panes"][0]["pane_id"]
    tui.keys("C-b", "g")
    ids = [p["pane_id"] for p in tui.snapshot()["panes"]]
    # the navigator's rows come from its probe a moment after it opens
    screen = tui.wait_for(
        lambda s: "session default" in s and all(f"[{i}]" in s for i in ids),
        message="the navigator never listed every pane",
    )
    assert "GO TO" in screen
    for pane in tui.snapshot()["panes"]:
        assert f"[{pane['pane_id']}]" in screen  # every pane of every tab is listed
    tui.literal(first_pane)
    screen = tui.wait_for(
        lambda s: f"[{first_pane}]" in s and s.count("[") - s.count("[1/") < 4,
        message="the filter did not narrow the list",
    )
    tui.keys("Enter")
    wait_until(lambda: tui.snapshot()["focused_pane_id"] == first_pane, TIMEOUT, message="no jump")
    tui.wait_for(lambda s: "GO TO" not in s, message="the navigator stayed open")
    # esc closes without moving
    tui.keys("C-b", "g")
    tui.wait_text("GO TO")
    tui.keys("Escape")
    tui.wait_for(lambda s: "GO TO" not in s, message="esc did not close the navigator")
    assert tui.snapshot()["focused_pane_id"] == first_pane


def test_help_scrolls_and_lists_copy_mode_and_mouse(tui: Tui) -> None:
    tui.tmux("resize-window", "-t", "main", "-x", "100", "-y", "20", check=False)
    tui.open()
    tui.tmux("resize-window", "-t", "main", "-x", "100", "-y", "20")
    tui.wait_for(lambda s: "$" in s, message="no prompt")
    tui.keys("C-b", "?")
    screen = tui.wait_text("below")  # it does not fit in 20 rows: it scrolls
    assert "split right" in screen
    for _ in range(60):
        tui.keys("j")
    screen = tui.wait_for(lambda s: "0 below" in s, message="j did not scroll to the end")
    assert "copy: / ? n N" in screen or "mouse: wheel" in screen
    tui.keys("x")  # any other key closes
    tui.wait_for(lambda s: "below" not in s, message="the help stayed open")


def test_settings_move_tab_edit_scrollback_and_new_worktree(tui: Tui) -> None:
    editor = tui.root / "editor.sh"
    editor.write_text('#!/bin/sh\necho "EDITING $(wc -l < "$1") lines"\nexec sleep 600\n')
    editor.chmod(0o755)
    tui.env["EDITOR"] = str(editor)
    _started(tui)
    tui.keys("C-b", "s")
    screen = tui.wait_text("config file:")
    assert "confirm_close" in screen and "sidebar_width" in screen
    tui.keys("q")
    tui.wait_for(lambda s: "config file:" not in s, message="settings stayed open")
    # move tab right / left
    tui.keys("C-b", "c")
    wait_until(lambda: len(tui.snapshot()["tabs"]) == 2, TIMEOUT, message="no new tab")
    tui.keys("C-b", "T", "C-u")
    tui.literal("second")
    tui.keys("Enter")
    wait_until(lambda: "second" in _tab_labels(tui), TIMEOUT, message="no rename")
    tui.keys("C-b", "<")
    wait_until(lambda: _tab_labels(tui)[0] == "second", TIMEOUT, message="not moved left")
    # the TUI moves the tab it sees: wait until its own tab bar shows the new order
    tui.wait_for(lambda s: "1 second" in s, message="the tab bar kept the old order")
    tui.keys("C-b", ">")
    wait_until(lambda: _tab_labels(tui)[1] == "second", TIMEOUT, message="not moved right")
    # edit scrollback: $EDITOR opens on a copy in a new pane
    tui.literal("seq 1 40")
    tui.keys("Enter")
    tui.wait_text("40")
    tui.keys("C-b", "e")
    tui.wait_text("EDITING")
    # new worktree: the server's answer is shown (no git repository here)
    tui.keys("C-b", "G")
    tui.wait_for(lambda s: "worktree.create" in s, message="no worktree notice")


# ------------------------------------------------------------ 10: tmux habits


def test_tmux_keys_and_the_command_prompt(tui: Tui) -> None:
    _started(tui)
    tui.keys("C-b", "%")
    wait_until(lambda: len(tui.snapshot()["panes"]) == 2, TIMEOUT, message="% did not split")
    tui.keys("C-b", '"')
    wait_until(lambda: len(tui.snapshot()["panes"]) == 3, TIMEOUT, message='" did not split')
    tui.keys("C-b", ":")
    tui.wait_text(" : ")
    tui.literal("pane split --direction right")
    tui.keys("Enter")
    wait_until(lambda: len(tui.snapshot()["panes"]) == 4, TIMEOUT, message="no split from :")
    tui.keys("C-b", ":")
    tui.literal("pane nosuchverb")
    tui.keys("Enter")
    tui.wait_text("failed")
    tui.keys("C-b", "d")
    tui.wait_text("HERDR-EXIT=0")
    assert "[detached from session default]" in tui.screen()


# ------------------------------------------------------- 11, 12: names, sidebar, titles


def test_tabs_are_named_by_what_runs_and_borders_show_program_titles(tui: Tui) -> None:
    _started(tui)
    screen = tui.wait_text("Spaces · default")  # the session's name in the header
    tui.keys("C-b", "c")
    wait_until(lambda: len(tui.snapshot()["tabs"]) == 2, TIMEOUT, message="no new tab")
    screen = tui.wait_for(lambda s: "2 work" in s.split("\n")[0], message="tab not named")
    assert "1 work" in screen.split("\n")[0]  # the directory, not a bare number
    tui.literal(r"printf '\033]2;MY''TITLE\007'")
    tui.keys("Enter")
    screen = tui.wait_for(
        lambda s: "2 MYTITLE" in s.split("\n")[0] and "─ MYTITLE " in s,
        message="the program's title is not on the tab and the border",
    )
    # a tab someone named keeps its name
    tui.keys("C-b", ",")
    tui.wait_text("RENAME TAB")
    tui.literal("logs")
    tui.keys("Enter")
    tui.wait_for(lambda s: "2 logs" in s.split("\n")[0], message="rename not shown")


def test_sidebar_collapses_to_marks_on_a_narrow_terminal(tui: Tui) -> None:
    _started(tui)
    tui.wait_text("Spaces")
    tui.tmux("resize-window", "-t", "main", "-x", "90", "-y", "30")
    screen = tui.wait_for(lambda s: "Spaces" not in s, message="the sidebar stayed expanded")
    assert any(line.startswith("▌") for line in screen.split("\n"))  # the marks column
    tui.keys("C-b", "b")  # expanded on purpose, even there
    tui.wait_text("Spaces")
    tui.keys("C-b", "b")
    tui.wait_for(lambda s: "Spaces" not in s, message="prefix+b did not collapse it again")
    tui.tmux("resize-window", "-t", "main", "-x", "140", "-y", "30")
    tui.wait_text("Spaces")


# ------------------------------------------------------------- 7: mouse selection


def _cell_of(tui: Tui, text: str) -> tuple[int, int]:
    """0-based (x, y) of ``text`` on the screen, on a row that is not the command."""
    for y, line in enumerate(tui.lines()):
        if text in line and "echo" not in line:
            return line.index(text), y
    raise AssertionError(f"{text!r} not on screen")


def test_mouse_drag_copies_with_osc52_and_double_click_takes_a_word(tui: Tui) -> None:
    tui.open()
    tui.tmux("set-option", "-s", "set-clipboard", "on")
    tui.wait_for(_prompt_ready, message="no prompt")
    tui.literal("echo alpha''beta gamma-delta.txt omega")
    tui.keys("Enter")
    tui.wait_text("alphabeta gamma")
    x, y = _cell_of(tui, "alphabeta gamma")
    end = x + len("alphabeta gam") - 1
    # SGR: press, drag (32 = motion with the left button), release; 1-based cells
    tui.literal(f"\x1b[<0;{x + 1};{y + 1}M\x1b[<32;{x + 5};{y + 1}M\x1b[<32;{end + 1};{y + 1}M")
    wait_until(lambda: _inverse(tui, "alphabeta"), TIMEOUT, message="selection not shown")
    tui.literal(f"\x1b[<0;{end + 1};{y + 1}m")
    wait_until(lambda: _buffer(tui) == "alphabeta gam", TIMEOUT, message="no OSC 52 copy")
    tui.wait_text("copied 1 line")
    # a double click selects the word under the pointer (a path counts as one word)
    wx, wy = _cell_of(tui, "gamma-delta.txt")
    click = f"\x1b[<0;{wx + 3};{wy + 1}M\x1b[<0;{wx + 3};{wy + 1}m"
    tui.literal(click + click)
    wait_until(lambda: _buffer(tui) == "gamma-delta.txt", TIMEOUT, message="no word copy")
    # a plain click clears the selection and copies nothing
    tui.literal(f"\x1b[<0;{x + 1};{y + 2}M\x1b[<0;{x + 1};{y + 2}m")
    wait_until(lambda: not _inverse(tui, "alphabeta"), TIMEOUT, message="selection stayed")
    assert _buffer(tui) == "gamma-delta.txt"


def _inverse(tui: Tui, text: str) -> bool:
    """Whether the row showing ``text`` (not the command) has reverse video."""
    rows = [r for r in _styled(tui).split("\n") if text in r and "echo" not in r]
    return any(re.search(r"\x1b\[[0-9;]*;7m|\x1b\[7m", r) for r in rows)


def _buffer(tui: Tui) -> str:
    return str(tui.tmux("show-buffer", check=False))


def test_two_quick_tab_moves_both_count(tui: Tui) -> None:
    """The second move starts from where the first put the tab, even when typed before
    the server's new state reaches the TUI."""
    _started(tui)
    for n in (2, 3):
        tui.keys("C-b", "c")

        def counted(n: int = n) -> bool:
            return len(tui.snapshot()["tabs"]) == n

        def shown(screen: str, n: int = n) -> bool:
            return f"{n} " in screen and "$" in screen

        wait_until(counted, TIMEOUT, message="no new tab")
        tui.wait_for(shown, message="no new tab shown")
    last = tui.snapshot()["tabs"][2]["tab_id"]
    tui.keys("C-b", "<", "C-b", "<")  # one write: both keys before any state comes back
    wait_until(
        lambda: tui.snapshot()["tabs"][0]["tab_id"] == last, TIMEOUT, message="moved only once"
    )

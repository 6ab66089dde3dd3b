"""The session navigator's tree and filter, the command prompt's parsing, help scrolling
and the navigator prompt's keys (pure)."""

from __future__ import annotations

import pytest

from herdr.api.attach_messages import StateDoc
from herdr.client import command_line
from herdr.client import navigator as nav
from herdr.client.actions import HelpScroll, ModeChanged
from herdr.client.input import InputParser, Key
from herdr.client.modes import KeyMachine
from herdr.client.prompt import Prompt, edit

DOC = StateDoc(
    workspaces=[
        {"workspace_id": "w1", "label": "api", "agent_status": "working"},
        {"workspace_id": "w2", "label": "web"},
    ],
    tabs=[
        {"tab_id": "w1:t1", "workspace_id": "w1", "label": "build"},
        {"tab_id": "w2:t1", "workspace_id": "w2", "label": "docs"},
    ],
    panes=[
        {
            "pane_id": "w1:p1",
            "tab_id": "w1:t1",
            "workspace_id": "w1",
            "agent": "claude",
            "agent_status": "blocked",
            "cwd": "/src/api",
        },
        {"pane_id": "w1:p2", "tab_id": "w1:t1", "workspace_id": "w1", "cwd": "/src/api/"},
        {"pane_id": "w2:p1", "tab_id": "w2:t1", "workspace_id": "w2", "label": "vim"},
    ],
)


def test_the_tree_is_session_workspaces_tabs_panes() -> None:
    lines = [e.line for e in nav.entries(DOC, "default")]
    assert lines == [
        "session default",
        "  api  · working",
        "    build",
        "      api  · claude blocked  [w1:p1]",
        "      api  [w1:p2]",
        "  web",
        "    docs",
        "      vim  [w2:p1]",
    ]


@pytest.mark.parametrize(
    ("query", "shown", "first"),
    [
        ("", 8, 1),
        ("VIM", 4, 3),  # session, web, docs, the pane
        ("blocked", 4, 3),
        ("docs", 3, 2),
        ("nothing", 0, 0),
    ],
    ids=["all", "case-insensitive", "agent-state", "tab", "none"],
)
def test_filter_keeps_matches_and_their_ancestors(query: str, shown: int, first: int) -> None:
    rows = nav.filtered(nav.entries(DOC, "default"), query)
    assert len(rows) == shown
    assert nav.first_match(rows, query) == first


def _key(data: bytes) -> Key:
    parser = InputParser()
    (event,) = parser.feed(data) + parser.flush_pending()
    assert isinstance(event, Key)
    return event


@pytest.mark.parametrize(
    ("data", "choice"),
    [(b"\x1b[B", 3), (b"\x1b[A", 1), (b"\t", 3), (b"\x0e", 3), (b"\x10", 1)],
    ids=["down", "up", "tab", "ctrl-n", "ctrl-p"],
)
def test_goto_prompt_moves_the_selection(data: bytes, choice: int) -> None:
    prompt, outcome = edit(Prompt("goto", "", choice=2), _key(data))
    assert (prompt.choice, outcome) == (choice, "edit")


def test_typing_in_goto_resets_to_the_first_match() -> None:
    prompt, _ = edit(Prompt("goto", "", choice=5), _key(b"v"))
    assert (prompt.text, prompt.choice) == ("v", -1)


def test_help_mode_scrolls_with_j_k_and_closes_on_other_keys() -> None:
    m = KeyMachine()
    m.set_mode("help")
    parser = InputParser()
    assert m.handle_all(parser.feed(b"jk\x1b[6~")) == [
        HelpScroll(1),
        HelpScroll(-1),
        HelpScroll(10),
    ]
    assert m.handle_all(parser.feed(b"x")) == [ModeChanged("terminal")]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("pane split --direction right", ["pane", "split", "--direction", "right"]),
        ("herdr tab list", ["tab", "list"]),
        ("", ""),
        ("pane rename 'a b", "cannot parse: No closing quotation"),
        ("attach", "attach: not from inside the TUI"),
        ("session attach x", "session: not from inside the TUI"),
    ],
    ids=["verb", "herdr-prefix", "empty", "bad-quote", "attach", "session-attach"],
)
def test_command_prompt_parse(text: str, parsed: list[str] | str) -> None:
    assert command_line.parse(text) == parsed


@pytest.mark.parametrize(
    ("code", "out", "err", "line"),
    [
        (0, b"", b"", "pane split: ok"),
        (0, b"w1:p3\nmore\n", b"", "pane split: w1:p3"),
        (2, b"", b"usage: herdr pane\nerror: bad\n", "pane split: failed (2): usage: herdr pane"),
        (1, b'{"error": "x"}', b"", 'pane split: failed (1): {"error": "x"}'),
    ],
    ids=["silent", "output", "usage-error", "error-on-stdout"],
)
def test_command_prompt_summary(code: int, out: bytes, err: bytes, line: str) -> None:
    assert command_line.summary(["pane", "split"], code, out, err) == line


WORK = nav.OtherSession(
    "work",
    {
        "protocol": 22,
        "workspaces": [{"workspace_id": "w1", "label": "infra"}],
        "tabs": [{"tab_id": "w1:t1", "workspace_id": "w1", "label": "deploy"}],
        "panes": [
            {"pane_id": "w1:p1", "tab_id": "w1:t1", "workspace_id": "w1", "label": "tf"},
            {
                "pane_id": "w1:p2",
                "tab_id": "w1:t1",
                "workspace_id": "w1",
                "label": "ops",
                "agent": "codex",
                "agent_status": "working",
            },
        ],
        "layouts": [{"tab_id": "w1:t1", "focused_pane_id": "w1:p2"}],
    },
)
OLD = nav.OtherSession("old")
SLOW = nav.OtherSession("slow", note="not answering")


def test_other_sessions_follow_with_their_trees_or_why_not() -> None:
    tree = nav.entries(DOC, "default", [OLD, SLOW, WORK])
    lines = [e.line for e in tree]
    assert lines[8:] == [
        "session old  · stopped",
        "session slow  · not answering",
        "session work",
        "  infra",
        "    deploy",
        "      tf  [w1:p1]",
        "      ops  · codex working  [w1:p2]",
    ]
    assert {e.session for e in tree[:8]} == {None}
    assert {e.session for e in tree[8:]} == {"old", "slow", "work"}
    # the same ids in two sessions stay apart: the attached session's row is found
    assert nav.index_of(tree, "pane", "w1:p2") == 4


@pytest.mark.parametrize(
    ("query", "lines", "first"),
    [
        (
            "ops",
            ["session work", "  infra", "    deploy", "      ops  · codex working  [w1:p2]"],
            3,
        ),
        ("session old", ["session old  · stopped"], 0),
        (
            "w1:p1",
            [
                "session default",
                "  api  · working",
                "    build",
                "      api  · claude blocked  [w1:p1]",
                "session work",
                "  infra",
                "    deploy",
                "      tf  [w1:p1]",
            ],
            3,
        ),
    ],
    ids=["pane-of-another-session", "stopped-session", "id-in-both"],
)
def test_the_filter_works_across_sessions(query: str, lines: list[str], first: int) -> None:
    shown = nav.filtered(nav.entries(DOC, "default", [OLD, WORK]), query)
    assert [e.line for e in shown] == lines
    assert nav.first_match(shown, query) == first


def test_a_broken_snapshot_gives_only_the_session_row() -> None:
    odd = nav.OtherSession("odd", {"workspaces": "nope", "tabs": [1], "panes": None})
    assert [e.line for e in nav.entries(None, "default", [odd])] == [
        "session default",
        "session odd",
    ]

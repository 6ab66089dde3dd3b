"""Key names, `[keys]` bindings and the terminal/prefix/navigate mode machine."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.client.input import (
    ALT,
    CTRL,
    SHIFT,
    SUPER,
    Focus,
    InputParser,
    Key,
    Mouse,
    Paste,
    Unknown,
)
from herdr.client.keys import (
    ACTION_NAMES,
    DETACH,
    Action,
    Command,
    CustomCommand,
    CyclePane,
    FocusDir,
    HostFocus,
    KeyConfigError,
    KeyMachine,
    KeyNameError,
    KeySpec,
    ModeChanged,
    MouseInput,
    NavigateWorkspace,
    RunCommand,
    SendBytes,
    SendPaste,
    SwapDir,
    SwitchTab,
    SwitchWorkspace,
    default_bindings,
    format_key,
    help_entries,
    load_bindings,
    parse_binding,
    parse_key,
)

# --------------------------------------------------------------------------- names


class NameCase(NamedTuple):
    test_id: str
    text: str
    spec: KeySpec
    canonical: str


NAME_CASES = [
    NameCase("ctrl_b", "ctrl+b", KeySpec("b", CTRL), "ctrl+b"),
    NameCase("control_alias", "control+B", KeySpec("b", CTRL), "ctrl+b"),
    NameCase("tmux_style", "C-b", KeySpec("b", CTRL), "ctrl+b"),
    NameCase("emacs_meta", "M-x", KeySpec("x", ALT), "alt+x"),
    NameCase("alt_x", "alt+x", KeySpec("x", ALT), "alt+x"),
    NameCase("meta_is_alt", "meta+x", KeySpec("x", ALT), "alt+x"),
    NameCase("shift_tab", "shift+tab", KeySpec("tab", SHIFT), "shift+tab"),
    NameCase("backtab", "backtab", KeySpec("tab", SHIFT), "shift+tab"),
    NameCase("shift_letter", "shift+r", KeySpec("r", SHIFT), "shift+r"),
    NameCase("upper_letter", "R", KeySpec("r", SHIFT), "shift+r"),
    NameCase("f1", "f1", KeySpec("f1"), "f1"),
    NameCase("f12_upper", "F12", KeySpec("f12"), "f12"),
    NameCase("enter", "enter", KeySpec("enter"), "enter"),
    NameCase("return", "Return", KeySpec("enter"), "enter"),
    NameCase("escape", "escape", KeySpec("esc"), "esc"),
    NameCase("minus", "minus", KeySpec("-"), "minus"),
    NameCase("dash_char", "-", KeySpec("-"), "minus"),
    NameCase("plus_char", "+", KeySpec("+"), "plus"),
    NameCase("ctrl_plus", "ctrl++", KeySpec("+", CTRL), "ctrl+plus"),
    NameCase("question", "?", KeySpec("?"), "?"),
    NameCase("shift_slash_is_question", "shift+/", KeySpec("?"), "?"),
    NameCase("shift_1_is_bang", "shift+1", KeySpec("!"), "!"),
    NameCase("bracket", "[", KeySpec("["), "["),
    NameCase("space", "space", KeySpec("space"), "space"),
    NameCase("super", "super+k", KeySpec("k", SUPER), "super+k"),
    NameCase("ctrl_alt_shift", "ctrl+alt+shift+left", KeySpec("left", CTRL | ALT | SHIFT), ""),
]


@pytest.mark.parametrize("case", NAME_CASES, ids=[c.test_id for c in NAME_CASES])
def test_parse_key(case: NameCase) -> None:
    spec = parse_key(case.text)
    assert spec == case.spec
    assert parse_key(format_key(spec)) == spec  # formatting round-trips
    if case.canonical:
        assert format_key(spec) == case.canonical


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("ctrl+", "missing key"),
        ("ctlr+b", "did you mean 'ctrl'"),
        ("ctrl+ctrl+b", "twice"),
        ("entr", "did you mean 'enter'"),
        ("prefix+v", "prefix"),
        ("ab", "unknown key"),
    ],
)
def test_bad_key_names_say_why(text: str, fragment: str) -> None:
    with pytest.raises(KeyNameError, match=None) as info:
        parse_key(text)
    assert fragment in str(info.value)


def test_parse_binding_ranges() -> None:
    parsed = parse_binding("prefix+1..9")
    assert [(s.key, p, i) for s, p, i in parsed] == [(str(n), True, n) for n in range(1, 10)]
    assert parse_binding("alt+1..3")[2] == (KeySpec("3", ALT), False, 3)


# --------------------------------------------------------------------------- bindings


def test_defaults_follow_the_spec() -> None:
    b = default_bindings()
    assert b.prefix == KeySpec("b", CTRL)
    table = b.prefix_keys
    assert table[KeySpec("v")] == Command("split_right")
    assert table[KeySpec("-")] == Command("split_down")
    assert table[KeySpec("c")] == Command("new_tab")
    assert table[KeySpec("n")] == Command("next_tab")
    assert table[KeySpec("p")] == Command("previous_tab")
    for n in range(1, 10):
        assert table[KeySpec(str(n))] == SwitchTab(n)
    assert table[KeySpec("h")] == FocusDir("left")
    assert table[KeySpec("j")] == FocusDir("down")
    assert table[KeySpec("k")] == FocusDir("up")
    assert table[KeySpec("l")] == FocusDir("right")
    assert table[KeySpec("x")] == Command("close_pane")
    assert table[KeySpec("z")] == Command("zoom")
    assert table[KeySpec("q")] == DETACH
    assert table[KeySpec("b")] == Command("toggle_sidebar")
    assert table[KeySpec("r", SHIFT)] == Command("reload_config")
    assert table[KeySpec("h", SHIFT)] == SwapDir("left")
    assert table[KeySpec("tab")] == CyclePane(1)
    assert table[KeySpec("tab", SHIFT)] == CyclePane(-1)
    assert b.direct_keys == {}  # nothing steals keys from panes by default
    nav = b.navigate_keys
    assert nav[KeySpec("up")] == NavigateWorkspace(-1)
    assert nav[KeySpec("down")] == NavigateWorkspace(1)
    assert nav[KeySpec("h")] == FocusDir("left")


def test_overrides_move_keys_and_free_the_default() -> None:
    b, errors = load_bindings(
        {"prefix": "ctrl+a", "split_vertical": "prefix+|", "new_tab": ["prefix+v", "alt+t"]}
    )
    assert errors == ()
    assert b.prefix == KeySpec("a", CTRL)
    assert b.prefix_keys[KeySpec("|")] == Command("split_right")
    assert b.prefix_keys[KeySpec("v")] == Command("new_tab")  # user claims the default's key
    assert b.direct_keys[KeySpec("t", ALT)] == Command("new_tab")


def test_unbinding_with_empty_value() -> None:
    b, errors = load_bindings({"zoom": "", "detach": []})
    assert errors == ()
    assert KeySpec("z") not in b.prefix_keys
    assert KeySpec("q") not in b.prefix_keys


def test_indexed_and_custom_commands() -> None:
    b, errors = load_bindings(
        {
            "indexed": {"tabs": "alt", "workspaces": "ctrl+alt"},
            "switch_workspace": "prefix+shift+1..3",
            "command": [
                {"key": "prefix+g", "type": "popup", "command": "lazygit", "width": 80},
                {"key": "prefix+t", "command": "htop"},
            ],
            "fullscreen": "prefix+f",
        }
    )
    assert errors == ()
    assert b.direct_keys[KeySpec("4", ALT)] == SwitchTab(4)
    assert b.direct_keys[KeySpec("2", CTRL | ALT)] == SwitchWorkspace(2)
    assert b.prefix_keys[KeySpec("!")] == SwitchWorkspace(1)  # shift+1 folds to "!"
    assert b.prefix_keys[KeySpec("g")] == RunCommand(
        CustomCommand("popup", "lazygit", "", 80, None)
    )
    assert b.prefix_keys[KeySpec("t")] == RunCommand(CustomCommand("pane", "htop"))
    assert b.prefix_keys[KeySpec("f")] == Command("zoom")  # legacy alias


class BadCase(NamedTuple):
    test_id: str
    config: dict[str, object]
    path: str
    fragment: str


BAD_CASES = [
    BadCase("unknown_action", {"spilt_vertical": "prefix+v"}, "keys.spilt_vertical", "did you"),
    BadCase("bad_key", {"zoom": "prefix+ctlr+z"}, "keys.zoom", "unknown modifier"),
    BadCase("wrong_type", {"zoom": 3}, "keys.zoom", "string or a list"),
    BadCase("bad_prefix", {"prefix": "hyperdrive+b"}, "keys.prefix", "unknown modifier"),
    BadCase("plain_direct", {"new_tab": "t"}, "keys.new_tab", "stop you typing"),
    BadCase("range_needed", {"switch_tab": "prefix+t"}, "keys.switch_tab", "range"),
    BadCase("no_range", {"zoom": "prefix+1..3"}, "keys.zoom", "single key"),
    BadCase("prefix_twice", {"zoom": "prefix+ctrl+b"}, "keys.zoom", "literal prefix"),
    BadCase(
        "user_conflict",
        {"zoom": "prefix+y", "new_tab": "prefix+y"},
        "keys.new_tab",
        "already bound to zoom",
    ),
    BadCase("navigate_prefix", {"navigate_pane_left": "prefix+h"}, "keys", "no prefix"),
    BadCase("bad_indexed", {"indexed": {"panes": "alt"}}, "keys.indexed.panes", "unknown group"),
    BadCase("bad_command", {"command": [{"key": "prefix+g"}]}, "keys.command[0]", "command"),
]


@pytest.mark.parametrize("case", BAD_CASES, ids=[c.test_id for c in BAD_CASES])
def test_bad_entries_are_reported_and_defaults_survive(case: BadCase) -> None:
    b, errors = load_bindings(case.config)
    assert errors, "expected an error"
    text = " | ".join(str(e) for e in errors)
    assert case.path in text and case.fragment in text, text
    assert b.prefix_keys[KeySpec("v")] == Command("split_right")  # still usable
    with pytest.raises(KeyConfigError):
        load_bindings(case.config, strict=True)


def test_every_config_action_name_is_known() -> None:
    expected = {
        "help",
        "settings",
        "detach",
        "reload_config",
        "new_workspace",
        "rename_workspace",
        "close_workspace",
        "workspace_picker",
        "goto",
        "new_worktree",
        "open_worktree",
        "remove_worktree",
        "open_notification_target",
        "previous_workspace",
        "next_workspace",
        "previous_agent",
        "next_agent",
        "focus_agent",
        "remote_image_paste",
        "new_tab",
        "rename_tab",
        "previous_tab",
        "next_tab",
        "move_tab_previous",
        "move_tab_next",
        "switch_tab",
        "switch_workspace",
        "close_tab",
        "rename_pane",
        "edit_scrollback",
        "copy_mode",
        "split_vertical",
        "split_horizontal",
        "close_pane",
        "zoom",
        "resize_mode",
        "last_pane",
        "toggle_sidebar",
        "cycle_pane_next",
        "cycle_pane_previous",
        "navigate_workspace_up",
        "navigate_workspace_down",
        "command_prompt",  # ours: tmux's prefix+: (herdr has none)
        "command_palette",  # issue 20: prefix+space
        "cycle_machine",  # issue 19: prefix+m (saved machines, then local)
    }
    for d in ("left", "down", "up", "right"):
        expected |= {f"focus_pane_{d}", f"swap_pane_{d}", f"resize_pane_{d}"}
        expected.add(f"navigate_pane_{d}")
    assert set(ACTION_NAMES) == expected


def test_help_lists_the_everyday_keys_first() -> None:
    rows = help_entries(default_bindings())
    assert rows[0] == ("ctrl+b v, ctrl+b %", "split right")  # tmux's % too
    assert ('ctrl+b minus, ctrl+b "', "split down") in rows
    assert ("ctrl+b 1..9", "switch to tab 1-9") in rows
    assert ("ctrl+b ctrl+b", "send the prefix key to the pane") in rows


# --------------------------------------------------------------------------- machine


def run(machine: KeyMachine, data: bytes) -> list[Action]:
    parser = InputParser()
    events = parser.feed(data) + parser.flush_pending()
    return machine.handle_all(events)


def test_terminal_mode_passes_raw_bytes_coalesced() -> None:
    m = KeyMachine()
    data = b"ls -la\r\x1b[A\x1b[98;6u\x1b[27;2;13~\x1b[13;2u"
    assert run(m, data) == [SendBytes(data)]
    assert m.mode == "terminal"


class ChordCase(NamedTuple):
    test_id: str
    data: bytes
    actions: list[Action]


CHORDS = [
    ChordCase("split_right", b"\x02v", [Command("split_right")]),
    ChordCase("split_down", b"\x02-", [Command("split_down")]),
    ChordCase("new_tab", b"\x02c", [Command("new_tab")]),
    ChordCase("next_tab", b"\x02n", [Command("next_tab")]),
    ChordCase("prev_tab", b"\x02p", [Command("previous_tab")]),
    ChordCase("tab_3", b"\x023", [SwitchTab(3)]),
    ChordCase("focus_left", b"\x02h", [FocusDir("left")]),
    ChordCase("focus_down", b"\x02j", [FocusDir("down")]),
    ChordCase("close", b"\x02x", [Command("close_pane")]),
    ChordCase("zoom", b"\x02z", [Command("zoom")]),
    ChordCase("detach", b"\x02q", [DETACH]),
    ChordCase("sidebar", b"\x02b", [Command("toggle_sidebar")]),
    ChordCase("reload_shift_r", b"\x02R", [Command("reload_config")]),
    ChordCase("kitty_prefix", b"\x1b[98;5uv", [Command("split_right")]),
    ChordCase("mok_prefix", b"\x1b[27;5;98~v", [Command("split_right")]),
    ChordCase("literal_prefix", b"\x02\x02", [SendBytes(b"\x02")]),
    ChordCase("literal_kitty_prefix", b"\x1b[98;5u\x1b[98;5u", [SendBytes(b"\x1b[98;5u")]),
    ChordCase("unbound_cancels", b"\x02\x07a", [SendBytes(b"a")]),
    ChordCase("esc_cancels", b"\x02\x1b[27ua", [SendBytes(b"a")]),
]


@pytest.mark.parametrize("case", CHORDS, ids=[c.test_id for c in CHORDS])
def test_prefix_chords(case: ChordCase) -> None:
    m = KeyMachine()
    actions = [a for a in run(m, case.data) if not isinstance(a, ModeChanged)]
    assert actions == case.actions
    assert m.mode == "terminal"


def test_mode_changes_are_reported() -> None:
    m = KeyMachine()
    assert run(m, b"\x02") == [ModeChanged("prefix")]
    assert run(m, b"v") == [ModeChanged("terminal"), Command("split_right")]


def test_modifier_key_presses_do_not_cancel_the_prefix() -> None:
    m = KeyMachine()
    # kitty "report all keys": ctrl+b, then shift pressed, then shift+/ → "?"
    actions = run(m, b"\x1b[98;5u\x1b[57441;2u\x1b[47:63;2u")
    assert actions == [ModeChanged("prefix"), ModeChanged("help")]


def test_help_mode_closes_on_any_key() -> None:
    m = KeyMachine()
    run(m, b"\x02?")
    assert m.mode == "help"
    assert run(m, b"x") == [ModeChanged("terminal")]
    assert run(m, b"x") == [SendBytes(b"x")]


def test_kitty_release_of_a_consumed_key_is_swallowed() -> None:
    m = KeyMachine()
    actions = run(m, b"\x1b[98;5u\x1b[98;5:3u\x1b[118u\x1b[118;1:3u\x1b[97;1:3u")
    assert [a for a in actions if not isinstance(a, ModeChanged)] == [
        Command("split_right"),
        SendBytes(b"\x1b[97;1:3u"),  # a release we did not consume goes to the pane
    ]


def test_navigate_mode_is_persistent_with_plain_keys() -> None:
    m = KeyMachine()
    assert run(m, b"\x02w") == [ModeChanged("prefix"), ModeChanged("navigate")]
    assert run(m, b"j") == [FocusDir("down")]
    assert run(m, b"\x1b[A") == [NavigateWorkspace(-1)]
    assert run(m, b"\x1b[D") == [FocusDir("left")]  # arrows always alias h/l
    assert run(m, b"v") == [Command("split_right")]  # prefix actions without prefix
    assert run(m, b"y") == []  # unbound: swallowed, never typed into a pane
    assert m.mode == "navigate"
    assert run(m, b"q") == [ModeChanged("terminal")]


@pytest.mark.parametrize(
    ("data", "tail"),
    [
        (b"\x1b", [ModeChanged("terminal")]),
        (b"\r", [ModeChanged("terminal"), Command("navigate_select")]),
        (b"w", [ModeChanged("terminal")]),
    ],
    ids=["esc", "enter_selects", "w_toggles"],
)
def test_leaving_navigate(data: bytes, tail: list[Action]) -> None:
    m = KeyMachine()
    run(m, b"\x02w")
    assert run(m, data) == tail


def test_events_other_than_keys() -> None:
    m = KeyMachine()
    mouse = Mouse("press", "left", 1, 2, 0, b"\x1b[<0;2;3M")
    assert m.handle(mouse) == [MouseInput(mouse)]
    assert m.handle(Focus(False)) == [HostFocus(False)]
    assert m.handle(Unknown(b"\x1b[?1;2c")) == []
    m.handle_all(InputParser().feed(b"\x02"))
    assert m.handle(Paste(b"hi")) == [ModeChanged("terminal"), SendPaste(b"hi")]


def test_user_direct_binding_and_changed_prefix() -> None:
    b, _ = load_bindings({"prefix": "ctrl+a", "next_tab": ["prefix+n", "alt+n"]})
    m = KeyMachine(b)
    assert run(m, b"\x02") == [SendBytes(b"\x02")]  # ctrl+b is an ordinary key now
    assert run(m, b"\x1bn") == [Command("next_tab")]
    assert [a for a in run(m, b"\x01n") if not isinstance(a, ModeChanged)] == [Command("next_tab")]
    assert run(m, b"\x01\x01") == [
        ModeChanged("prefix"),
        ModeChanged("terminal"),
        SendBytes(b"\x01"),
    ]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_machine_never_raises_and_terminal_mode_loses_no_key(data: bytes) -> None:
    parser = InputParser()
    events = parser.feed(data) + parser.flush_pending(end_paste=True)
    m = KeyMachine()
    actions = m.handle_all(events)
    if b"\x02" not in data and b"\x1b" not in data:
        sent = b"".join(a.data for a in actions if isinstance(a, SendBytes))
        typed = b"".join(e.raw for e in events if isinstance(e, Key))
        assert sent == typed


@pytest.mark.parametrize("name", ["lparen", "rbrace", "lt", "gt", "minus"])
def test_bindings_accept_every_send_keys_char_name(name: str) -> None:
    """Names a script can send with ``pane send-keys`` also work in ``[keys]``."""
    from herdr.api.key_names import CHAR_NAMES

    assert parse_key(name).key == CHAR_NAMES[name]

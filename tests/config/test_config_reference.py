"""The config reference table against the rendered default config and our readers.

``herdr.config.reference`` is the one list of config keys and defaults. These tests
check that ``--default-config`` renders it as valid TOML holding every key once, and
that each key our code reads has the default our code actually uses.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from herdr.client.bindings import ACTION_NAMES, Bindings, load_bindings
from herdr.client.keynames import format_key
from herdr.client.settings import UiSettings, load_ui_settings
from herdr.config import server_settings
from herdr.config.default_config import render
from herdr.config.reference import (
    KEYS,
    NOT_IMPLEMENTED_YET,
    NOT_USED_YET,
    SECTION_TITLES,
    ConfigKey,
)
from herdr.config.server_settings import ServerSettings
from herdr.remote.attach import manage_ssh_config, predictive_echo

BY_KEY: dict[str, ConfigKey] = {item.key: item for item in KEYS}
_SERVER = ServerSettings()
_UI = UiSettings()

# Every key outside [keys] that our code reads, with the default that code falls back
# to (taken from its own constants where it has one).
READ_BY_OUR_CODE: dict[str, Callable[[], Any]] = {
    # herdr.config.server_settings (server side)
    "server.headless_cols": lambda: _SERVER.headless_cols,
    "server.headless_rows": lambda: _SERVER.headless_rows,
    "server.max_connections": lambda: _SERVER.max_connections,
    "update.manifest_check": lambda: _SERVER.manifest_check,
    "terminal.default_shell": lambda: _SERVER.default_shell,
    "terminal.shell_mode": lambda: _SERVER.shell_mode,
    "terminal.new_cwd": lambda: _SERVER.new_cwd,
    "advanced.scrollback_limit_bytes": lambda: _SERVER.scrollback_limit_bytes,
    "session.resume_agents_on_restore": lambda: _SERVER.resume_agents_on_restore,
    "experimental.pane_history": lambda: _SERVER.pane_history,
    "worktrees.directory": lambda: _SERVER.worktree_directory,
    "web.enabled": lambda: _SERVER.web_enabled,
    "web.port": lambda: _SERVER.web_port,
    "web.bind": lambda: _SERVER.web_bind,
    "web.read_only": lambda: _SERVER.web_read_only,
    "web.allow_typing": lambda: _SERVER.web_allow_typing,
    "web.i_know_this_is_exposed": lambda: _SERVER.web_exposed,
    # herdr.client.settings.load_ui_settings (TUI client)
    "ui.sidebar_width": lambda: _UI.sidebar_width,
    "ui.sidebar_start_collapsed": lambda: not _UI.sidebar_visible,
    "ui.sidebar_collapsed_mode": lambda: _UI.sidebar_collapsed_mode,
    "ui.tab_bar_position": lambda: _UI.tab_bar_position,
    "ui.hide_tab_bar_when_single_tab": lambda: _UI.hide_tab_bar_when_single_tab,
    "ui.status_indicators": lambda: _UI.status_indicators,
    "ui.agent_panel_sort": lambda: _UI.agent_panel_sort,
    "ui.mouse_capture": lambda: _UI.mouse,
    "ui.mouse_scroll_lines": lambda: _UI.scroll_lines,
    "ui.sound.enabled": lambda: _UI.bell,
    "ui.toast.delivery": lambda: "terminal" if _UI.osc9 else "off",
    "ui.toast.herdr.position": lambda: _UI.toast_position,
    "ui.confirm_close": lambda: _UI.confirm_close,
    "ui.copy_on_select": lambda: _UI.copy_on_select,
    "ui.sidebar_min_width": lambda: _UI.sidebar_min_width,
    "ui.sidebar_max_width": lambda: _UI.sidebar_max_width,
    # herdr.cli: launch (nested TUI guard) and status (channel shown)
    "experimental.allow_nested": lambda: False,
    "update.channel": lambda: "stable",
    # herdr.remote.attach (herdr --remote): no config file -> the default
    "remote.manage_ssh_config": lambda: manage_ssh_config({"XDG_CONFIG_HOME": "/nonexistent"}),
    "remote.predictive_echo": lambda: predictive_echo({"XDG_CONFIG_HOME": "/nonexistent"}),
}
# [keys]: the prefix, every action the client's binding table knows, the indexed groups.
KEY_ENTRIES = ("prefix", *ACTION_NAMES, "indexed.tabs", "indexed.workspaces", "indexed.agents")
USED_KEYS = {*READ_BY_OUR_CODE, *(f"keys.{name}" for name in KEY_ENTRIES)}
# Pinned literally as well: the behaviour tests and the e2e scenarios rely on these.
PINNED = {"server.headless_cols": 120, "server.headless_rows": 40, "keys.prefix": "ctrl+b"}

_SET_LINE = re.compile(r"([A-Za-z0-9_]+) = ")
_UNSET_LINE = re.compile(r"# ([A-Za-z0-9_]+) =  \(unset by default; type: ")


def _value(literal: str) -> Any:
    return tomllib.loads(f"v = {literal}")["v"]


def _lookup(doc: dict[str, Any], dotted: str) -> Any:
    node: Any = doc
    for part in dotted.split("."):
        node = node[part]
    return node


def _rendered_keys(text: str) -> list[str]:
    """Dotted names of the entries in rendered order, set or commented out."""
    table = ""
    found: list[str] = []
    for line in text.splitlines():
        if line.startswith("[") and line.endswith("]"):
            table = line[1:-1]
            continue
        match = _SET_LINE.match(line) or _UNSET_LINE.match(line)
        if match:
            found.append(f"{table}.{match.group(1)}" if table else match.group(1))
    return found


@pytest.fixture(scope="module")
def rendered() -> str:
    return render()


@pytest.fixture(scope="module")
def doc(rendered: str) -> dict[str, Any]:
    return tomllib.loads(rendered)


# --------------------------------------------------------------------------- the table


def test_keys_are_unique_and_sections_have_titles() -> None:
    assert len(BY_KEY) == len(KEYS)
    assert {item.section for item in KEYS} == set(SECTION_TITLES)


@pytest.mark.parametrize("item", KEYS, ids=[item.key for item in KEYS])
def test_entry_is_well_formed(item: ConfigKey) -> None:
    text = item.description
    assert text.strip() == text and text, "empty or padded description"
    assert text.endswith("."), "descriptions are sentences"
    assert len(text) <= 240, "keep descriptions to one or two sentences"
    if item.default is not None:
        value = _value(item.default)  # a valid TOML literal
        if item.values and item.type == "enum":
            assert value in item.values
        if item.values and item.type == "array":
            assert set(value) <= set(item.values)


@pytest.mark.parametrize("item", KEYS, ids=[item.key for item in KEYS])
def test_description_says_whether_we_use_the_key(item: ConfigKey) -> None:
    if item.key in USED_KEYS:
        assert NOT_USED_YET not in item.description
    else:
        assert item.description.endswith(NOT_USED_YET), f"{item.key} is not read by our code"
    if NOT_IMPLEMENTED_YET in item.description:
        assert item.key.startswith("keys."), "only bindings have a not-yet-implemented action"


def test_every_key_we_read_is_listed() -> None:
    assert sorted(USED_KEYS - set(BY_KEY)) == []


# --------------------------------------------------------------------------- rendering


def test_default_config_parses_and_lists_every_key_once(rendered: str) -> None:
    assert 'prefix = "ctrl+b"' in rendered
    # Entries are grouped by TOML table, so compare as sorted lists: each key once.
    assert sorted(_rendered_keys(rendered)) == sorted(item.key for item in KEYS)


@pytest.mark.parametrize("item", KEYS, ids=[item.key for item in KEYS])
def test_rendered_value_matches_the_table(item: ConfigKey, doc: dict[str, Any]) -> None:
    if item.default is None:
        with pytest.raises(KeyError):
            _lookup(doc, item.key)
    else:
        assert _lookup(doc, item.key) == _value(item.default)


# --------------------------------------------------------------------------- our readers


@pytest.mark.parametrize("key", sorted(READ_BY_OUR_CODE))
def test_reference_default_is_the_one_our_code_uses(key: str) -> None:
    default = BY_KEY[key].default
    assert default is not None
    assert _value(default) == READ_BY_OUR_CODE[key]()


@pytest.mark.parametrize("key", sorted(PINNED))
def test_pinned_defaults(key: str) -> None:
    default = BY_KEY[key].default
    assert default is not None
    assert _value(default) == PINNED[key]


def test_server_reads_the_default_config_as_its_defaults(rendered: str, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(rendered, encoding="utf-8")
    assert server_settings.load({"HERDR_CONFIG_PATH": str(path)}) == (ServerSettings(), [])


def test_client_reads_the_default_config_as_its_defaults(rendered: str, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(rendered, encoding="utf-8")
    loaded = load_ui_settings(path)
    assert loaded.warnings == []
    loaded.keys = {}
    assert loaded == UiSettings()


def _tables(bindings: Bindings) -> tuple[object, ...]:
    return (
        bindings.prefix,
        bindings.prefix_keys,
        bindings.direct_keys,
        bindings.navigate_keys,
    )


def test_key_defaults_are_the_client_defaults(doc: dict[str, Any]) -> None:
    keys: dict[str, Any] = dict(doc["keys"])
    _, errors = load_bindings(keys)
    assert errors == ()
    # Locally the client leaves remote_image_paste unbound so ctrl+v reaches the pane.
    assert keys.pop("remote_image_paste") == "ctrl+v"
    # An empty list unbinds: the client must have no default for actions the
    # reference leaves unset.
    for item in KEYS:
        name = item.key.removeprefix("keys.")
        if item.section == "keys" and item.default is None and name in ACTION_NAMES:
            keys[name] = []
    ours, _ = load_bindings({})
    theirs, errors = load_bindings(keys)
    assert errors == ()
    assert _tables(theirs) == _tables(ours)
    assert format_key(ours.prefix) == "ctrl+b"

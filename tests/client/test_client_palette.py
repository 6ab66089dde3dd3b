"""The command palette: its rows (catalog commands, enabled plugin actions offered in
the current context), filtering, and Enter running a command through the TUI's own
path or a plugin action through ``plugin.action.invoke`` on a real server."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from herdr.api.command_catalog import CATALOG
from herdr.client import palette as pal
from herdr.client.actions import Command
from herdr.client.app import App
from herdr.client.bindings import default_bindings, help_entries
from herdr.client.input import Key
from herdr.client.settings import UiSettings
from herdr_testing import ServerHandle, wait_until
from herdr_testing.state_docs import one_pane_state

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "plugins"


def _keys() -> dict[str, str]:
    out: dict[str, str] = {}
    for shown, description in help_entries(default_bindings()):
        out.setdefault(description, shown)
    return out


def test_every_catalog_command_but_the_palette_is_a_row_with_its_key() -> None:
    items = pal.catalog_items(_keys())
    assert [i.target for i in items] == [
        e.command for e in CATALOG.values() if e.id != "command_palette"
    ]
    split = next(i for i in items if i.target == "split_right")
    assert split.line == "split right  (ctrl+b v, ctrl+b %)"
    unbound = next(i for i in items if i.target == "last_pane")
    assert unbound.line == "last pane"


def test_prefix_space_opens_the_palette() -> None:
    spec = next(s for s, b in default_bindings().prefix_keys.items() if s.key == "space")
    assert not spec.mods
    assert default_bindings().prefix_keys[spec] == Command("command_palette")


def _action(action_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": action_id, "title": action_id.title(), "command": ["true"], **extra}


PLUGINS: list[dict[str, Any]] = [
    {
        "plugin_id": "p.one",
        "name": "One",
        "enabled": True,
        "actions": [
            _action("anywhere"),
            _action("on_pane", contexts=["pane"]),
            _action("on_selection", contexts=["selection"]),
            _action("win", platforms=["windows"]),
        ],
    },
    {"plugin_id": "p.off", "name": "Off", "enabled": False, "actions": [_action("x")]},
    {
        "plugin_id": "p.win",
        "enabled": True,
        "platforms": ["windows"],
        "actions": [_action("y"), _action("z", platforms=["linux"])],
    },
]


@pytest.mark.parametrize(
    ("contexts", "platform", "expected"),
    [
        (("global", "pane"), "linux", ["p.one.anywhere", "p.one.on_pane", "p.win.z"]),
        (("global",), "linux", ["p.one.anywhere", "p.win.z"]),
        (("global", "selection"), "linux", ["p.one.anywhere", "p.one.on_selection", "p.win.z"]),
        (("global",), "windows", ["p.one.anywhere", "p.one.win", "p.win.y"]),
    ],
    ids=["pane-focused", "global-only", "selection", "windows"],
)
def test_plugin_rows_are_enabled_actions_offered_here(
    contexts: tuple[str, ...], platform: str, expected: list[str]
) -> None:
    assert [i.target for i in pal.plugin_items(PLUGINS, contexts, platform)] == expected


def test_plugin_row_text_names_the_plugin() -> None:
    (item,) = pal.plugin_items(PLUGINS[:1], ("global",), "macos")
    assert (item.kind, item.line) == ("plugin", "One: Anywhere")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ["split right", "split down", "One: Record", "zoom pane"]),
        ("SPLIT", ["split right", "split down"]),
        ("split do", ["split down"]),
        ("one rec", ["One: Record"]),
        ("ctrl+b z", ["zoom pane"]),
        ("nothing like it", []),
    ],
    ids=["empty", "case", "words", "plugin", "by-key", "none"],
)
def test_filter_keeps_rows_holding_every_word(query: str, expected: list[str]) -> None:
    items = [
        pal.Item("command", "split_right", "split right", "ctrl+b v"),
        pal.Item("command", "split_down", "split down", "ctrl+b minus"),
        pal.Item("plugin", "p.one.record", "One: Record"),
        pal.Item("command", "zoom", "zoom pane", "ctrl+b z"),
    ]
    assert [i.text for i in pal.filtered(items, query)] == expected


# --- the app ---------------------------------------------------------------------------


def _run(app: App, *events: Any, setup: bool = True) -> None:
    async def scenario() -> None:
        if setup:
            app.apply_state(one_pane_state())
        app.command("command_palette")
        while app._tasks:
            await asyncio.gather(*list(app._tasks))
        app.handle_events(list(events))
        while app._tasks:
            await asyncio.gather(*list(app._tasks))

    asyncio.run(scenario())


def _typed(text: str) -> list[Key]:
    return [Key("space" if ch == " " else ch, 0, ch.encode(), ch) for ch in text]


def _app(socket: str) -> tuple[App, int, int]:
    read_end, write_end = os.pipe()
    return App(socket, settings=UiSettings(), fd_out=write_end), read_end, write_end


@pytest.mark.parametrize(
    ("typed", "mode", "prompt_kind"),
    [
        ("resize mode", "resize", None),
        ("session navigator", "prompt", "goto"),
        ("rename pane", "prompt", "pane"),
    ],
    ids=["mode-command", "opens-navigator", "opens-rename"],
)
def test_enter_runs_a_catalog_command_as_its_key_would(
    herdr_server: ServerHandle, typed: str, mode: str, prompt_kind: str | None
) -> None:
    app, read_end, write_end = _app(str(herdr_server.socket_path))
    try:
        _run(app, *_typed(typed), Key("enter", 0, b"\r"))
    finally:
        os.close(read_end)
        os.close(write_end)
    assert app.machine.mode == mode
    prompt = app.machine.prompt
    assert (prompt.kind if prompt is not None and mode == "prompt" else None) == prompt_kind


def test_esc_closes_the_palette_and_runs_nothing(herdr_server: ServerHandle) -> None:
    app, read_end, write_end = _app(str(herdr_server.socket_path))
    try:
        _run(app, *_typed("resize"), Key("esc", 0, b"\x1b"))
    finally:
        os.close(read_end)
        os.close(write_end)
    assert app.machine.mode == "terminal"
    assert app._panel() is None


def test_palette_lists_enabled_plugin_actions_and_runs_one(herdr_server: ServerHandle) -> None:
    server = herdr_server
    assert "result" in server.request("plugin.link", {"path": str(FIXTURES / "recorder")})
    assert "result" in server.request(
        "plugin.link", {"path": str(FIXTURES / "twin"), "enabled": False}
    )
    assert "result" in server.request("plugin.link", {"path": str(FIXTURES / "windows-only")})
    assert "result" in server.request("workspace.create", {"cwd": "/tmp"})  # w1, as _state
    app, read_end, write_end = _app(str(server.socket_path))
    shown: list[str] = []

    async def opened() -> None:
        app.apply_state(one_pane_state())
        app.command("command_palette")
        while app._tasks:
            await asyncio.gather(*list(app._tasks))
        app.handle_events(_typed("recorder"))
        panel = app._panel()
        assert panel is not None
        shown.extend(panel.rows)
        app.handle_events(_typed(" a run"))
        app.handle_events([Key("enter", 0, b"\r")])
        while app._tasks:
            await asyncio.gather(*list(app._tasks))

    try:
        asyncio.run(opened())
    finally:
        os.close(read_end)
        os.close(write_end)
    # the disabled twin and the windows-only plugin are not offered
    assert shown == [
        "Recorder: Exit non-zero",
        "Recorder: Flood stdout",
        "Recorder: Not a program",
        "Recorder: Record a run",
        "Recorder: Hang forever",
    ]  # by qualified id: fail, flood, missing, record, sleep
    assert app.message == ""
    assert app.machine.mode == "terminal"
    runs = Path(server.env["XDG_STATE_HOME"]) / "herdr/plugins/test.recorder/runs.jsonl"

    def action_run() -> dict[str, Any] | None:
        if not runs.exists():
            return None
        found = [json.loads(x) for x in runs.read_text().splitlines()]
        return next((r for r in found if r["argv"][0] == "action"), None)

    try:
        run = wait_until(action_run, 20.0)
    except TimeoutError:
        raise AssertionError(server.request("plugin.log.list", {})) from None
    assert run is not None
    context = json.loads(run["env"]["HERDR_PLUGIN_CONTEXT_JSON"])
    assert context["invocation_source"] == "command_palette"
    assert (context["workspace_id"], context["focused_pane_id"]) == ("w1", "w1:p1")

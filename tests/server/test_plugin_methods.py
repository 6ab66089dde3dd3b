"""plugin.* on a real server: link plugins from tests/fixtures/plugins, run their actions
(argv and environment recorded by the plugin itself), hooks, startup, panes, and
plugins that hang, fail, flood or do not exist."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.schema22 import assert_valid_result

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "plugins"
RECORDER = FIXTURES / "recorder"
TIMEOUT_MS = 2500


@pytest.fixture
def server(herdr_env: HerdrEnv) -> ServerHandle:
    env = {"HERDR_PLUGIN_TIMEOUT_MS": str(TIMEOUT_MS)}
    return ServerHandle(herdr_env, herdr_env.start_server(env=env))


def _ok(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    response = server.request(method, params)
    assert "result" in response, response
    assert_valid_result(response["result"])
    result: dict[str, Any] = response["result"]
    return result


def _error(server: ServerHandle, method: str, params: dict[str, Any]) -> str:
    response = server.request(method, params)
    assert "error" in response and "result" not in response, response
    code: str = response["error"]["code"]
    return code


def _runs(server: ServerHandle) -> list[dict[str, Any]]:
    path = Path(server.env["XDG_STATE_HOME"]) / "herdr/plugins/test.recorder/runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _log(server: ServerHandle, log_id: str) -> dict[str, Any]:
    logs = _ok(server, "plugin.log.list", {})["logs"]
    found: dict[str, Any] = next(log for log in logs if log["log_id"] == log_id)
    return found


def _finished(server: ServerHandle, log_id: str, timeout: float = 15.0) -> dict[str, Any]:
    wait_until(lambda: _log(server, log_id)["status"] != "running", timeout)
    return _log(server, log_id)


def _idle(server: ServerHandle) -> None:
    wait_until(
        lambda: all(x["status"] != "running" for x in _ok(server, "plugin.log.list", {})["logs"]),
        15.0,
    )


def test_link_list_disable_enable_unlink(server: ServerHandle) -> None:
    linked = _ok(server, "plugin.link", {"path": str(RECORDER)})
    assert linked["type"] == "plugin_linked"
    assert linked["plugin"]["plugin_id"] == "test.recorder"
    listed = _ok(server, "plugin.list", {})["plugins"]
    assert [p["plugin_id"] for p in listed] == ["test.recorder"]
    assert (
        _ok(server, "plugin.disable", {"plugin_id": "test.recorder"})["plugin"]["enabled"] is False
    )
    assert _error(server, "plugin.action.invoke", {"action_id": "test.recorder.record"}) == (
        "plugin_disabled"
    )
    assert _ok(server, "plugin.enable", {"plugin_id": "test.recorder"})["plugin"]["enabled"] is True
    actions = _ok(server, "plugin.action.list", {"plugin_id": "test.recorder"})["actions"]
    assert [a["action_id"] for a in actions] == ["fail", "flood", "missing", "record", "sleep"]
    gone = _ok(server, "plugin.unlink", {"plugin_id": "test.recorder"})
    assert gone == {"type": "plugin_unlinked", "plugin_id": "test.recorder", "removed": True}
    again = _ok(server, "plugin.unlink", {"plugin_id": "test.recorder"})
    assert again["removed"] is False
    assert _ok(server, "plugin.list", {})["plugins"] == []


def test_link_disabled_then_invoke_is_plugin_disabled(server: ServerHandle) -> None:
    _ok(server, "plugin.link", {"path": str(RECORDER), "enabled": False})
    assert _error(server, "plugin.action.invoke", {"action_id": "record"}) == "plugin_disabled"
    assert _runs(server) == []


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        ("plugin.link", {"path": "/nonexistent/plugin"}, "plugin_manifest_not_found"),
        ("plugin.link", {"path": str(FIXTURES)}, "plugin_manifest_not_found"),
        ("plugin.action.invoke", {"action_id": "nope"}, "plugin_action_not_found"),
        ("plugin.action.invoke", {"action_id": "ghost.record"}, "plugin_not_found"),
        ("plugin.action.invoke", {"action_id": "record"}, "ambiguous_plugin_action"),
        ("plugin.action.invoke", {"action_id": "test.windows-only.hello"}, "platform_unsupported"),
        ("plugin.enable", {"plugin_id": "ghost"}, "plugin_not_found"),
        ("plugin.enable", {"plugin_id": "../../etc"}, "invalid_plugin_id"),
        ("plugin.list", {"plugin_id": "a/b"}, "invalid_plugin_id"),
        ("plugin.log.list", {"plugin_id": ""}, "invalid_plugin_id"),
        ("plugin.link", {"path": 3}, "invalid_request"),
        (
            "plugin.pane.open",
            {"plugin_id": "test.recorder", "entrypoint": "nope"},
            "plugin_entrypoint_not_found",
        ),
        (
            "plugin.pane.open",
            {
                "plugin_id": "test.recorder",
                "entrypoint": "viewer",
                "placement": "popup",
                "width": "101%",
            },
            "invalid_params",
        ),
        ("plugin.pane.focus", {"pane_id": "w9:p9"}, "plugin_pane_not_found"),
    ],
    ids=[
        "link-missing",
        "link-no-manifest",
        "action-unknown",
        "plugin-unknown",
        "ambiguous",
        "wrong-os",
        "enable-unknown",
        "enable-bad-id",
        "list-bad-id",
        "log-bad-id",
        "link-bad-param",
        "pane-unknown-entrypoint",
        "pane-popup-bad-width",
        "pane-focus-unknown",
    ],
)
def test_bad_requests_get_one_specific_error_and_change_nothing(
    server: ServerHandle, method: str, params: dict[str, Any], code: str
) -> None:
    for fixture in ("recorder", "twin", "windows-only"):
        _ok(server, "plugin.link", {"path": str(FIXTURES / fixture)})
    before = _ok(server, "plugin.list", {})
    assert _error(server, method, params) == code
    assert _ok(server, "plugin.list", {}) == before
    assert _ok(server, "plugin.log.list", {})["logs"] == []
    assert _ok(server, "ping", {})["type"] == "pong"


def test_an_action_runs_as_argv_in_its_dir_with_the_spec_environment(
    server: ServerHandle,
) -> None:
    _ok(server, "plugin.link", {"path": str(RECORDER)})
    _ok(server, "workspace.create", {"cwd": "/tmp"})
    _idle(server)  # the workspace.created hook has run
    invoked = _ok(
        server,
        "plugin.action.invoke",
        {"action_id": "test.recorder.record", "context": {"selected_text": "hello"}},
    )
    assert invoked["action"]["action_id"] == "record"
    assert invoked["log"]["status"] == "running"
    log = _finished(server, invoked["log"]["log_id"])
    assert log["status"] == "succeeded" and log["exit_code"] == 0
    assert log["stdout"] == "recorded action\n"
    (run,) = [r for r in _runs(server) if r["argv"][0] == "action"]
    # Shell syntax arrives literally: no shell ever saw it.
    assert run["argv"] == ["action", "two words", "$HOME", ";", "|"]
    assert run["cwd"] == str(RECORDER)
    env = run["env"]
    state = Path(server.env["XDG_STATE_HOME"]) / "herdr/plugins/test.recorder"
    config = Path(server.env["XDG_CONFIG_HOME"]) / "herdr/plugins/config/test.recorder"
    assert env["HERDR_ENV"] == "1"
    assert env["HERDR_PLUGIN_ID"] == "test.recorder"
    assert env["HERDR_PLUGIN_ROOT"] == str(RECORDER)
    assert env["HERDR_PLUGIN_STATE_DIR"] == str(state)
    assert env["HERDR_PLUGIN_CONFIG_DIR"] == str(config) and config.is_dir()
    assert env["HERDR_PLUGIN_ACTION_ID"] == "record"
    assert env["HERDR_SOCKET_PATH"] == str(server.socket_path)
    assert env["HERDR_BIN_PATH"]
    assert env["HERDR_WORKSPACE_ID"] == "w1" and env["HERDR_PANE_ID"] == "w1:p1"
    context = json.loads(env["HERDR_PLUGIN_CONTEXT_JSON"])
    assert context["selected_text"] == "hello"
    assert context["correlation_id"] == "t1"
    assert context["focused_pane_id"] == "w1:p1"
    assert "HERDR_PLUGIN_EVENT" not in env


def test_event_hooks_fire_exactly_once_per_event(server: ServerHandle) -> None:
    _ok(server, "plugin.link", {"path": str(RECORDER)})
    for _ in range(3):
        _ok(server, "workspace.create", {"cwd": "/tmp"})
    _ok(server, "tab.create", {"workspace_id": "w2"})
    wait_until(lambda: len([r for r in _runs(server) if r["argv"] == ["hook"]]) == 3, 20.0)
    _idle(server)
    runs = _runs(server)
    hooks = [r for r in runs if r["argv"] == ["hook"]]
    assert sorted(r["env"]["HERDR_WORKSPACE_ID"] for r in hooks) == ["w1", "w2", "w3"]
    for run in hooks:
        assert run["env"]["HERDR_PLUGIN_EVENT"] == "workspace.created"
        event = json.loads(run["env"]["HERDR_PLUGIN_EVENT_JSON"])
        assert event["event"] == "workspace_created"
        assert event["data"]["workspace"]["workspace_id"] == run["env"]["HERDR_WORKSPACE_ID"]
    # Three workspaces (one root tab each) plus one more tab: four tab.created events.
    assert len([r for r in runs if r["argv"] == ["tab-hook"]]) == 4
    logged = [x for x in _ok(server, "plugin.log.list", {})["logs"] if x.get("event")]
    assert sorted(x["event"] for x in logged) == ["tab.created"] * 4 + ["workspace.created"] * 3


def test_a_disabled_plugins_hooks_do_not_fire(server: ServerHandle) -> None:
    _ok(server, "plugin.link", {"path": str(RECORDER), "enabled": False})
    _ok(server, "workspace.create", {"cwd": "/tmp"})
    _ok(server, "plugin.link", {"path": str(FIXTURES / "twin")})
    invoked = _ok(server, "plugin.action.invoke", {"action_id": "test.twin.record"})
    _finished(server, invoked["log"]["log_id"])
    assert _runs(server) == []
    assert [x["plugin_id"] for x in _ok(server, "plugin.log.list", {})["logs"]] == ["test.twin"]


def test_hung_failing_flooding_and_missing_commands_never_block_the_server(
    server: ServerHandle,
) -> None:
    _ok(server, "plugin.link", {"path": str(RECORDER)})
    ids = {
        name: _ok(server, "plugin.action.invoke", {"action_id": f"test.recorder.{name}"})["log"][
            "log_id"
        ]
        for name in ("sleep", "fail", "flood", "missing")
    }
    # While the hung one runs, the server answers at once.
    assert _log(server, ids["sleep"])["status"] == "running"
    assert _ok(server, "ping", {})["type"] == "pong"
    assert _ok(server, "workspace.create", {"cwd": "/tmp"})["type"] == "workspace_created"
    failed = _finished(server, ids["fail"])
    assert failed["status"] == "failed" and failed["exit_code"] == 3
    assert failed["stderr"] == "boom"
    flood = _finished(server, ids["flood"])
    assert flood["status"] == "succeeded"
    assert flood["stdout"].startswith("x" * 1000)
    assert len(flood["stdout"].encode()) < 65536 + 200
    assert "more bytes dropped" in flood["stdout"]
    missing = _log(server, ids["missing"])
    assert missing["status"] == "failed" and "No such file" in missing["error"]
    hung = _finished(server, ids["sleep"], timeout=30.0)
    assert hung["status"] == "failed"
    assert "timed out" in hung["error"]
    assert hung["finished_unix_ms"] >= hung["started_unix_ms"]
    assert _ok(server, "ping", {})["type"] == "pong"


def test_log_list_filters_and_limits(server: ServerHandle) -> None:
    _ok(server, "plugin.link", {"path": str(RECORDER)})
    _ok(server, "plugin.link", {"path": str(FIXTURES / "twin")})
    for action in ("test.recorder.fail", "test.twin.record", "test.recorder.fail"):
        _ok(server, "plugin.action.invoke", {"action_id": action})
    _idle(server)
    assert len(_ok(server, "plugin.log.list", {"limit": 2})["logs"]) == 2
    mine = _ok(server, "plugin.log.list", {"plugin_id": "test.twin"})["logs"]
    assert [x["plugin_id"] for x in mine] == ["test.twin"]
    assert _ok(server, "plugin.log.list", {"limit": 0})["logs"] == []


def test_a_matching_link_handler_takes_the_click_others_go_to_the_opener(
    herdr_env: HerdrEnv,
) -> None:
    record = herdr_env.root / "opened.jsonl"
    opener = f"{sys.executable} {FIXTURES.parent / 'record_argv.py'}"
    env = {"HERDR_LINK_OPENER": opener, "RECORD_ARGV_FILE": str(record)}
    server = ServerHandle(herdr_env, herdr_env.start_server(env=env))
    _ok(server, "plugin.link", {"path": str(RECORDER)})
    pane = _ok(server, "workspace.create", {"cwd": "/tmp"})["root_pane"]["pane_id"]
    _idle(server)

    def screen() -> str:
        return str(_ok(server, "pane.read", {"pane_id": pane, "source": "visible"})["read"]["text"])

    def row_of(prefix: str) -> int | None:
        rows = screen().split("\n")
        return next((i for i, row in enumerate(rows) if row.startswith(prefix)), None)

    # one line at a time, each after the shell prompted: a line typed ahead is echoed by
    # the terminal, and sh then prints its output after the prompt, not at column 0
    wait_until(lambda: screen().strip())
    found = []
    for url, text in (("https://plugin.test/a?b=1", "MINE"), ("https://else.test/", "THEIRS")):
        line = f"printf '\\033]8;;{url}\\033\\\\{text}\\033]8;;\\033\\\\\\n'\r"
        _ok(server, "pane.send_text", {"pane_id": pane, "text": line})
        row = wait_until(lambda text=text: row_of(text))  # type: ignore[misc]
        wait_until(lambda row=row: len(screen().rstrip("\n").split("\n")) > row + 1)  # type: ignore[misc]
        found.append(row)  # and the next prompt came
    mine, theirs = found
    params = {"pane_id": pane, "viewport_row": mine, "col": 0}
    got = _ok(server, "pane.link.activate", params)
    assert got == {
        "type": "pane_link_activated",
        "handled": True,
        "url": "https://plugin.test/a?b=1",
    }
    wait_until(lambda: any(r["argv"][0] == "action" for r in _runs(server)), 20.0)
    (run,) = [r for r in _runs(server) if r["argv"][0] == "action"]
    assert run["env"]["HERDR_PLUGIN_CLICKED_URL"] == "https://plugin.test/a?b=1"
    assert run["env"]["HERDR_PLUGIN_LINK_HANDLER_ID"] == "plugin-links"
    context = json.loads(run["env"]["HERDR_PLUGIN_CONTEXT_JSON"])
    assert context["invocation_source"] == "link_handler"
    assert context["focused_pane_id"] == pane
    assert not record.exists()  # the plugin took it: the opener never ran
    params = {"pane_id": pane, "viewport_row": theirs, "col": 0}
    assert _ok(server, "pane.link.activate", params)["url"] == "https://else.test/"
    wait_until(record.exists)
    assert json.loads(record.read_text().splitlines()[0]) == ["https://else.test/"]


def test_startup_runs_once_after_restore(herdr_env: HerdrEnv) -> None:
    first = herdr_env.start_server()
    assert "result" in first.request("plugin.link", {"path": str(RECORDER)})
    first.stop()
    second = ServerHandle(herdr_env, herdr_env.start_server())
    wait_until(lambda: [r["argv"] for r in _runs(second)] == [["startup"]], 20.0)
    _idle(second)
    (run,) = _runs(second)
    assert run["env"]["HERDR_PLUGIN_EVENT"] == "startup"
    logs = _ok(second, "plugin.log.list", {})["logs"]
    assert [(x["event"], x["status"]) for x in logs] == [("startup", "succeeded")]


@pytest.mark.parametrize("placement", ["split", "tab", "zoomed"])
def test_plugin_panes_open_focus_and_close(server: ServerHandle, placement: str) -> None:
    _ok(server, "plugin.link", {"path": str(RECORDER)})
    _ok(server, "workspace.create", {"cwd": "/tmp"})
    opened = _ok(
        server,
        "plugin.pane.open",
        {
            "plugin_id": "test.recorder",
            "entrypoint": "viewer",
            "placement": placement,
            "env": {"HERDR_PLUGIN_ID": "spoofed", "MINE": "1"},
        },
    )
    assert opened["type"] == "plugin_pane_opened"
    pane = opened["plugin_pane"]["pane"]
    assert opened["plugin_pane"]["entrypoint"] == "viewer"
    assert pane["cwd"] == str(RECORDER)  # spec §9: plugin commands run in the plugin's dir
    tabs = _ok(server, "tab.list", {"workspace_id": "w1"})["tabs"]
    assert len(tabs) == (2 if placement == "tab" else 1)
    if placement == "zoomed":
        layout = _ok(server, "pane.layout", {"pane_id": pane["pane_id"]})
        assert layout["layout"]["zoomed"] is True
        assert pane["focused"] is True
    wait_until(lambda: any(r["argv"][0] == "pane" for r in _runs(server)), 20.0)
    (run,) = [r for r in _runs(server) if r["argv"][0] == "pane"]
    assert run["env"]["HERDR_PLUGIN_ENTRYPOINT_ID"] == "viewer"
    assert run["env"]["HERDR_PLUGIN_ID"] == "test.recorder"  # the caller's env cannot fake it
    assert run["env"]["HERDR_PANE_ID"] == pane["pane_id"]
    context = json.loads(run["env"]["HERDR_PLUGIN_CONTEXT_JSON"])
    assert context["focused_pane_id"] == "w1:p1" and context["focused_pane_cwd"] == "/tmp"
    focused = _ok(server, "plugin.pane.focus", {"pane_id": pane["pane_id"]})
    assert focused["type"] == "plugin_pane_focused"
    assert focused["plugin_pane"]["pane"]["focused"] is True
    assert _error(server, "plugin.pane.close", {"pane_id": "w1:p1"}) == "plugin_pane_not_found"
    closed = _ok(server, "plugin.pane.close", {"pane_id": pane["pane_id"]})
    assert closed == {"type": "plugin_pane_closed", "pane_id": pane["pane_id"]}
    assert _error(server, "plugin.pane.close", {"pane_id": pane["pane_id"]}) == (
        "plugin_pane_not_found"
    )


def test_a_plugin_pane_opened_before_any_run_can_write_its_state_dir(
    server: ServerHandle,
) -> None:
    """The workspace exists before the plugin is linked, so no hook has made the plugin's
    dirs: the pane must still find HERDR_PLUGIN_STATE_DIR (it used to die at once)."""
    _ok(server, "workspace.create", {"cwd": "/tmp"})
    _ok(server, "plugin.link", {"path": str(RECORDER)})
    opened = _ok(
        server,
        "plugin.pane.open",
        {"plugin_id": "test.recorder", "entrypoint": "viewer", "placement": "split"},
    )
    pane_id = opened["plugin_pane"]["pane"]["pane_id"]
    wait_until(lambda: any(r["argv"][0] == "pane" for r in _runs(server)), 20.0)
    assert pane_id in [p["pane_id"] for p in _ok(server, "pane.list", {})["panes"]]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"placement": "split", "width": 40}, "only supported when placement is popup"),
        ({"placement": "tab", "height": "50%"}, "only supported when placement is popup"),
        ({"placement": "split", "workspace_id": "w1"}, "use target_pane_id"),
        ({"placement": "zoomed", "workspace_id": "w1"}, "use target_pane_id"),
        ({"placement": "tab", "target_pane_id": "w1:p1"}, "not target_pane_id or direction"),
        ({"placement": "tab", "direction": "down"}, "not target_pane_id or direction"),
        ({"placement": "popup", "target_pane_id": "w1:p1"}, "target the active pane"),
        ({"placement": "overlay", "direction": "right"}, "target the active pane"),
    ],
    ids=[
        "split-width",
        "tab-height",
        "split-workspace",
        "zoomed-workspace",
        "tab-target",
        "tab-direction",
        "popup-target",
        "overlay-direction",
    ],
)
def test_pane_open_params_a_placement_does_not_take_are_invalid_and_change_nothing(
    server: ServerHandle, extra: dict[str, Any], message: str
) -> None:
    """herdr 0.9's rules: width/height size popups only; each placement names its own
    target (split/zoomed: a pane, tab: a workspace, overlay/popup: the active pane)."""
    _ok(server, "plugin.link", {"path": str(RECORDER)})
    _ok(server, "workspace.create", {"cwd": "/tmp"})
    before = [p["pane_id"] for p in _ok(server, "pane.list", {})["panes"]]
    response = server.request(
        "plugin.pane.open", {"plugin_id": "test.recorder", "entrypoint": "viewer", **extra}
    )
    assert response["error"]["code"] == "invalid_params"
    assert message in response["error"]["message"]
    assert [p["pane_id"] for p in _ok(server, "pane.list", {})["panes"]] == before
    assert len(_ok(server, "tab.list", {})["tabs"]) == 1

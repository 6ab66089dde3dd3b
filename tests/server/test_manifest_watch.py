"""Edits to user kinds and local overrides apply without ``reload-agent-manifests``: the
server's stat poll (``$HERDR_AGENT_MANIFEST_WATCH_S``, tiny here) sees them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from herdr.server.manifest_watch import (
    QUIET_S,
    WARM_UP_S,
    WATCH_S,
    signature,
    warm_up_delay,
    watch_interval,
)
from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.fake_env import (
    new_workspace,
    ok,
    pane_record,
    screen,
    wait_started,
    wait_status,
)
from herdr_testing.foreign_user import NEEDS_ROOT, NOBODY
from herdr_testing.schema22 import assert_valid_result
from herdr_testing.zork_kind import FAKE_ZORK, KIND, MANIFEST

PROMPT_BLOCKS = MANIFEST.replace('"2026.12.1"', '"2026.12.2"').replace(
    'contains = ["Allow this action?"]', 'contains = ["zork>"]'
)


# --------------------------------------------------------------------------- the poll


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", WATCH_S), ("0.25", 0.25), ("0", None), ("soon", WATCH_S), ("-1", WATCH_S)],
    ids=["default", "configured", "off", "garbage", "negative"],
)
def test_watch_interval(raw: str, expected: float | None) -> None:
    assert watch_interval({"HERDR_AGENT_MANIFEST_WATCH_S": raw}) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", WARM_UP_S), ("0", 0.0), ("4", 4.0), ("soon", WARM_UP_S), ("-1", WARM_UP_S)],
    ids=["default", "at-once", "configured", "garbage", "negative"],
)
def test_warm_up_delay(raw: str, expected: float) -> None:
    assert warm_up_delay({"HERDR_AGENT_MANIFEST_WARM_UP_S": raw}) == expected


def _log_messages(env: dict[str, str]) -> list[str]:
    path = Path(env["XDG_STATE_HOME"]) / "herdr" / "server.log"
    text = path.read_text() if path.exists() else ""
    return [json.loads(line).get("msg", "") for line in text.splitlines() if line.strip()]


def test_the_rules_are_compiled_after_start_up_not_beside_it(herdr_env: HerdrEnv) -> None:
    """The start-up build waits (here: longer than the test) while a client creates a
    workspace and its shell prints; asked for, the rules are built on demand."""
    herdr_env.env["HERDR_AGENT_MANIFEST_WARM_UP_S"] = "600"
    server = ServerHandle(herdr_env, herdr_env.start_server())
    pane = f"{new_workspace(server)}:p1"
    wait_until(lambda: screen(server, pane).strip() != "", timeout=20, message="no prompt")
    messages = _log_messages(server.env)
    assert "listening" in messages
    assert "agent manifests warmed" not in messages
    listing = server.request("server.agent_manifests", {})
    assert "result" in listing, listing  # built when needed


def test_the_rules_are_warmed_once_the_delay_is_over(herdr_env: HerdrEnv) -> None:
    herdr_env.env["HERDR_AGENT_MANIFEST_WARM_UP_S"] = "0"
    server = ServerHandle(herdr_env, herdr_env.start_server())
    wait_until(
        lambda: "agent manifests warmed" in _log_messages(server.env),
        timeout=20,
        message="the start-up build never ran",
    )


def test_the_rules_wait_for_a_moment_without_output(herdr_env: HerdrEnv) -> None:
    """A pane printing (as an echo of typing does) holds the build back; it runs once
    the pane is quiet."""
    herdr_env.env["HERDR_AGENT_MANIFEST_WARM_UP_S"] = "0"
    server = ServerHandle(herdr_env, herdr_env.start_server())
    pane = f"{new_workspace(server)}:p1"
    loop = "while :; do echo tick; sleep 0.05; done"
    ok(server.request("pane.send_input", {"pane_id": pane, "text": loop, "keys": ["Enter"]}))
    wait_until(lambda: "tick" in screen(server, pane), timeout=20, message="no output")
    quiet = QUIET_S * 4  # four chances to see a quiet moment, if the output did not count
    deadline = time.monotonic() + quiet
    while time.monotonic() < deadline:
        assert "agent manifests warmed" not in _log_messages(server.env)
        time.sleep(0.1)
    ok(server.request("pane.send_input", {"pane_id": pane, "keys": ["ctrl+c"]}))
    wait_until(
        lambda: "agent manifests warmed" in _log_messages(server.env),
        timeout=20,
        message="the build never ran once the pane was quiet",
    )


def test_signature_sees_edits_but_never_follows_a_symlink(tmp_path: Path) -> None:
    watched = tmp_path / "agents"
    watched.mkdir()
    outside = tmp_path / "elsewhere.toml"
    outside.write_text("a = 1\n")
    (watched / "zork.toml").write_text(KIND)
    (watched / "notes.txt").write_text("ignored")
    (watched / "linked.toml").symlink_to(outside)
    first = signature([watched, tmp_path / "missing"])
    assert [entry[1] for entry in first] == ["", "linked.toml", "zork.toml"]

    (watched / "notes.txt").write_text("still ignored")
    outside.write_text("a = 2 # the target changed, the link did not\n")
    assert signature([watched]) == first

    (watched / "zork.toml").write_text(KIND + "# edited\n")
    assert signature([watched]) != first


@pytest.mark.parametrize(
    "change",
    [
        lambda p: os.chmod(p / "zork.toml", 0o666),
        lambda p: os.chmod(p, 0o775),
        lambda p: os.chown(p / "zork.toml", 65534, 65534),
    ],
    ids=["file-chmod", "dir-chmod", "file-chown"],
)
def test_signature_sees_what_decides_trust(tmp_path: Path, change: Any) -> None:
    """A file or directory turning foreign or writable changes what may load."""
    if "chown" in str(change.__code__.co_names) and os.geteuid() != 0:
        pytest.skip("needs root to chown to another uid (65534)")
    (tmp_path / "zork.toml").write_text(KIND)
    first = signature([tmp_path])
    change(tmp_path)
    assert signature([tmp_path]) != first


# --------------------------------------------------------------------------- live


@pytest.fixture
def zork(herdr_env: HerdrEnv) -> ServerHandle:
    bin_dir = herdr_env.root / "zork-bin"
    bin_dir.mkdir()
    (bin_dir / "zork").symlink_to(FAKE_ZORK)
    agents = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "agents"
    agents.mkdir(parents=True)
    (agents / "zork.toml").write_text(KIND, "utf-8")
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    herdr_env.env["PATH"] = f"{bin_dir}{os.pathsep}{herdr_env.env.get('PATH', '')}"
    herdr_env.env["HERDR_AGENT_MANIFEST_WATCH_S"] = "0.2"
    return ServerHandle(herdr_env, herdr_env.start_server())


def _manifest(server: ServerHandle, agent: str) -> dict[str, Any]:
    result = ok(server.request("server.agent_manifests", {}))
    assert_valid_result(result)
    entry: dict[str, Any] = next(m for m in result["manifests"] if m["agent"] == agent)
    return entry


def test_edits_apply_without_a_reload_and_a_bad_edit_keeps_the_kind(zork: ServerHandle) -> None:
    agents = Path(zork.env["XDG_CONFIG_HOME"]) / "herdr" / "agents"
    pane = f"{new_workspace(zork)}:p1"
    ok(zork.request("agent.start", {"name": "z", "kind": "zork", "pane_id": pane}))
    wait_started(zork, pane, "zork")
    wait_status(zork, pane, "idle", "done")

    (agents / "zork.manifest.toml").write_text(PROMPT_BLOCKS, "utf-8")
    wait_status(zork, pane, "blocked")  # nobody asked for a reload
    assert _manifest(zork, "zork")["active_version"] == "2026.12.2"

    # an invalid edit: the last good kind stays, the diagnostic names file:line
    (agents / "zork.manifest.toml").write_text(PROMPT_BLOCKS + "\n[[rules]]\nid = 3\n", "utf-8")
    wait_until(
        lambda: "zork.manifest.toml:" in (_manifest(zork, "zork")["warning"] or ""),
        timeout=20,
        interval=0.1,
        message="the invalid edit was never reported",
    )
    assert _manifest(zork, "zork")["active_version"] == "2026.12.2"
    assert pane_record(zork, pane)["agent"] == "zork"
    assert pane_record(zork, pane)["agent_status"] == "blocked"

    # a new kind that never was valid: no kind, one file:line diagnostic in the status
    (agents / "crush.toml").write_text('label = "crush"\nprocess_names = "crush"\n', "utf-8")

    def crush_error() -> list[str]:
        result = ok(zork.request("server.agent_manifests", {}))
        assert_valid_result(result)
        return [e for e in result.get("user_kind_errors", []) if "crush.toml:2:" in e]

    wait_until(crush_error, timeout=20, interval=0.1, message="the bad new kind was not reported")
    result = ok(zork.request("server.agent_manifests", {}))
    assert "crush" not in [m["agent"] for m in result["manifests"]]

    # a local override of a built-in agent is picked up the same way
    overrides = Path(zork.env["XDG_CONFIG_HOME"]) / "herdr" / "agent-detection"
    overrides.mkdir()
    (overrides / "claude.toml").write_text(
        'id = "claude"\n[[rules]]\nid = "x"\nstate = "idle"\ncontains = ["zzz"]\n', "utf-8"
    )
    wait_until(
        lambda: _manifest(zork, "claude")["source_kind"] == "local override",
        timeout=20,
        interval=0.1,
        message="the new override was never loaded",
    )
    # removing the override goes back to the bundled rules
    (overrides / "claude.toml").unlink()
    wait_until(
        lambda: _manifest(zork, "claude")["source_kind"] == "bundled",
        timeout=20,
        interval=0.1,
        message="the removed override stayed in use",
    )
    assert ok(zork.request("ping", {}))
    assert "Traceback" not in zork.server.log_text()


def test_a_new_kind_file_identifies_an_already_running_process(herdr_env: HerdrEnv) -> None:
    """The kind is written while ``zork`` already runs unidentified in a pane: the
    watcher loads it and the pane (no agent yet, so restarted) is identified."""
    bin_dir = herdr_env.root / "zork-bin"
    bin_dir.mkdir()
    (bin_dir / "zork").symlink_to(FAKE_ZORK)
    herdr_env.env["PATH"] = f"{bin_dir}{os.pathsep}{herdr_env.env.get('PATH', '')}"
    herdr_env.env["HERDR_AGENT_MANIFEST_WATCH_S"] = "0.2"
    server = ServerHandle(herdr_env, herdr_env.start_server())
    pane = f"{new_workspace(server)}:p1"
    ok(server.request("pane.send_input", {"pane_id": pane, "text": "zork", "keys": ["Enter"]}))

    wait_until(lambda: "zork>" in screen(server, pane), timeout=20, message="zork never ran")
    assert "agent" not in pane_record(server, pane)

    agents = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "agents"
    agents.mkdir(parents=True)
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    (agents / "zork.toml").write_text(KIND, "utf-8")
    wait_until(
        lambda: pane_record(server, pane).get("agent") == "zork",
        timeout=20,
        interval=0.1,
        message="the running zork was never identified after its kind appeared",
    )
    wait_status(server, pane, "idle", "done")


@NEEDS_ROOT
def test_a_kind_file_turning_foreign_is_refused_live(zork: ServerHandle) -> None:
    """chown to another uid (65534): the watcher reloads, the kind is refused with a
    ``file: reason`` diagnostic in ``server.agent_manifests``; chown back loads it again."""
    kind = Path(zork.env["XDG_CONFIG_HOME"]) / "herdr" / "agents" / "zork.toml"
    assert "zork" in [
        m["agent"] for m in ok(zork.request("server.agent_manifests", {}))["manifests"]
    ]

    def errors() -> list[str]:
        result = ok(zork.request("server.agent_manifests", {}))
        assert_valid_result(result)
        return list(result.get("user_kind_errors", []))

    os.chown(kind, NOBODY, NOBODY)
    wait_until(errors, timeout=20, interval=0.1, message="the refusal never showed")
    assert errors() == [f"{kind}: file owned by uid 65534, not by you (uid 0); not loaded"]
    result = ok(zork.request("server.agent_manifests", {}))
    assert "zork" not in [m["agent"] for m in result["manifests"]]

    os.chown(kind, 0, 0)
    wait_until(
        lambda: (
            "zork"
            in [m["agent"] for m in ok(zork.request("server.agent_manifests", {}))["manifests"]]
        ),
        timeout=20,
        interval=0.1,
        message="our own file again was never loaded",
    )
    assert errors() == []

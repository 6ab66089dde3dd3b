"""The example plugins of examples/plugins/ on a real server: the git-diff split and the
blocked-agent notifier."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from herdr_testing import ServerHandle, wait_until
from herdr_testing.schema22 import assert_valid_result

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"


def _ok(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    response = server.request(method, params)
    assert "result" in response, response
    assert_valid_result(response["result"])
    result: dict[str, Any] = response["result"]
    return result


def _report(server: ServerHandle, pane: str, state: str) -> None:
    params = {"pane_id": pane, "source": "custom:t", "agent": "bot", "state": state}
    _ok(server, "pane.report_agent", params)


def test_notify_blocked_runs_the_notifier_once_per_blocked_transition(
    herdr_server: ServerHandle, tmp_path: Path
) -> None:
    server = herdr_server
    _ok(server, "plugin.link", {"path": str(EXAMPLES / "notify-blocked")})
    sink = tmp_path / "notified.txt"
    writer = f"import sys; open({str(sink)!r}, 'a').write(sys.argv[1] + '\\n')"
    config = Path(server.cli("plugin", "config-dir", "example.notify-blocked").stdout.strip())
    (config / "command.json").write_text(json.dumps([sys.executable, "-c", writer]))
    _ok(server, "workspace.create", {"cwd": str(tmp_path)})

    def lines() -> list[str]:
        return sink.read_text().splitlines() if sink.exists() else []

    def settled() -> bool:
        logs = _ok(server, "plugin.log.list", {})["logs"]
        return all(x["status"] != "running" for x in logs)

    _report(server, "w1:p1", "blocked")
    wait_until(lambda: len(lines()) == 1, 20.0)
    assert lines() == ["bot in w1:p1 is blocked and needs you"]
    _report(server, "w1:p1", "working")
    _report(server, "w1:p1", "blocked")
    wait_until(lambda: len(lines()) == 2, 20.0)
    wait_until(settled, 20.0)
    assert len(lines()) == 2
    statuses = [x["status"] for x in _ok(server, "plugin.log.list", {})["logs"]]
    assert statuses and set(statuses) == {"succeeded"}


def test_git_diff_opens_the_panes_diff_in_a_split(
    herdr_server: ServerHandle, tmp_path: Path
) -> None:
    server = herdr_server
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "file.txt").write_text("original\n")
    subprocess.run([*git, "add", "file.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (repo / "file.txt").write_text("changed by the agent\n")
    _ok(server, "plugin.link", {"path": str(EXAMPLES / "git-diff")})
    _ok(server, "workspace.create", {"cwd": str(repo)})
    context = {"focused_pane_id": "w1:p1", "focused_pane_cwd": str(repo)}
    invoked = _ok(
        server, "plugin.action.invoke", {"action_id": "example.git-diff.open", "context": context}
    )
    log_id = invoked["log"]["log_id"]

    def finished() -> dict[str, Any] | None:
        logs = _ok(server, "plugin.log.list", {})["logs"]
        log = next(x for x in logs if x["log_id"] == log_id)
        return log if log["status"] != "running" else None

    log = wait_until(finished, 30.0)
    assert log is not None and log["status"] == "succeeded", log
    panes = _ok(server, "pane.list", {"workspace_id": "w1"})["panes"]
    assert [p["pane_id"] for p in panes] == ["w1:p1", "w1:p2"]
    assert panes[1]["cwd"] == str(repo) and panes[1]["focused"] is True

    def shows_diff() -> bool:
        read = _ok(server, "pane.read", {"pane_id": "w1:p2", "source": "recent"})
        return "+changed by the agent" in read["read"]["text"]

    wait_until(shows_diff, 30.0)

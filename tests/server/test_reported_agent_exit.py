"""A self-reported agent is dropped when its process exits (real server, real PTY).

The fake agent is a shell script that reports itself through the real CLI
(``$HERDR_BIN_PATH pane report-agent``, as a hook would), waits for a go-file and
exits. While it runs the pane shows it; once it has exited the pane has no agent and
an ``pane_agent_detected`` event says it was released. A report typed at the prompt
(not from inside an agent job) stays, as herdr keeps it.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import ServerHandle, wait_until
from herdr_testing.fake_env import new_workspace, ok, pane_record
from herdr_testing.schema22 import assert_valid_result

SCRIPT = """#!/bin/sh
"$HERDR_BIN_PATH" pane report-agent "$HERDR_PANE_ID" --source custom:bot --agent "$1" \\
    --state working || exit 1
while [ ! -e "$2" ]; do sleep 0.05; done
"""


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    path = tmp_path / "fake-bot"
    path.write_text(SCRIPT)
    path.chmod(0o755)
    return path


def _events(server: ServerHandle) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(20)
    sock.connect(str(server.socket_path))
    sub = {
        "id": "ev",
        "method": "events.subscribe",
        "params": {"subscriptions": [{"type": "pane.agent_detected"}]},
    }
    sock.sendall(json.dumps(sub).encode() + b"\n")
    return sock


def _released(sock: socket.socket, pane: str, agent: str) -> dict[str, Any]:
    buf = b""
    while True:
        chunk = sock.recv(65536)
        assert chunk, "the event stream ended"
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            doc = json.loads(line)
            data = doc.get("data", {})
            mine = doc.get("event") == "pane_agent_detected" and data.get("pane_id") == pane
            if mine and data.get("released") and data.get("agent") == agent:
                return dict(data)


@pytest.mark.parametrize("label", ["mybot", "claude"], ids=["custom-label", "known-label"])
def test_a_self_reported_agent_is_dropped_when_it_exits(
    herdr_server: ServerHandle, bot: Path, tmp_path: Path, label: str
) -> None:
    ws = new_workspace(herdr_server)
    pane = f"{ws}:p1"
    go = tmp_path / "go"
    events = _events(herdr_server)
    try:
        command = f"{bot} {label} {go}"
        ok(
            herdr_server.request(
                "pane.send_input", {"pane_id": pane, "text": command, "keys": ["Enter"]}
            )
        )
        wait_until(lambda: pane_record(herdr_server, pane).get("agent") == label, timeout=20)
        running = ok(herdr_server.request("agent.list", {}))
        assert_valid_result(running)
        assert [a["pane_id"] for a in running["agents"]] == [pane]
        assert pane_record(herdr_server, pane)["agent_status"] == "working"

        go.touch()  # the agent exits; the shell is back in the foreground
        released = _released(events, pane, label)
        assert released["released"] is True
    finally:
        events.close()
    record = pane_record(herdr_server, pane)
    assert record.get("agent") is None and record["agent_status"] == "unknown"
    gone = ok(herdr_server.request("agent.list", {}))
    assert_valid_result(gone)
    assert gone["agents"] == []
    assert_valid_result(ok(herdr_server.request("pane.get", {"pane_id": pane})))


def test_a_report_typed_at_the_prompt_stays(herdr_server: ServerHandle, tmp_path: Path) -> None:
    ws = new_workspace(herdr_server)
    pane = f"{ws}:p1"
    marker = tmp_path / "reported"
    command = (
        '"$HERDR_BIN_PATH" pane report-agent "$HERDR_PANE_ID" --source custom:me --agent me '
        f"--state idle && touch {marker}"
    )
    ok(
        herdr_server.request(
            "pane.send_input", {"pane_id": pane, "text": command, "keys": ["Enter"]}
        )
    )
    wait_until(marker.exists, timeout=20)
    # The reporter has exited; a later report on the same pane is answered, and by then
    # any follow-up of the first report would have run (the driver rechecks each second).
    probe = {"pane_id": pane, "source": "custom:probe", "tokens": {"t": "1"}}
    ok(herdr_server.request("pane.report_metadata", probe))
    wait_until(lambda: pane_record(herdr_server, pane).get("tokens", {}).get("t") == "1")
    assert pane_record(herdr_server, pane).get("agent") == "me"

"""Hook report methods on a live server: arbitration effects and every error code."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest

from herdr.runtime import detection_loop as dl
from herdr_testing import ServerHandle, wait_until
from herdr_testing.fake_env import code, new_workspace, ok, pane_record


@pytest.fixture(scope="module")
def ws(shared_server: ServerHandle) -> str:
    return new_workspace(shared_server)


def _report(server: ServerHandle, pane: str, **params: Any) -> dict[str, Any]:
    base = {"pane_id": pane, "source": "custom:t", "agent": "bot", "state": "working"}
    return server.request("pane.report_agent", {**base, **params})


def _meta(server: ServerHandle, pane: str, **params: Any) -> dict[str, Any]:
    return server.request("pane.report_metadata", {"pane_id": pane, "source": "s", **params})


def _fresh_pane(server: ServerHandle, ws: str) -> str:
    tab = ok(server.request("tab.create", {"workspace_id": ws}))
    return str(tab["root_pane"]["pane_id"])


def test_report_agent_sets_state_and_seq_orders(shared_server: ServerHandle, ws: str) -> None:
    pane = _fresh_pane(shared_server, ws)
    assert ok(_report(shared_server, pane))["type"] == "ok"
    record = pane_record(shared_server, pane)
    assert (record["agent"], record["agent_status"]) == ("bot", "working")
    ok(_report(shared_server, pane, seq=5))
    ok(_report(shared_server, pane, seq=3, state="idle"))
    assert pane_record(shared_server, pane)["agent_status"] == "working"
    ok(_report(shared_server, pane, seq=6, state="idle"))
    assert pane_record(shared_server, pane)["agent_status"] == "done"
    ok(shared_server.request("pane.focus", {"pane_id": pane}))
    assert pane_record(shared_server, pane)["agent_status"] == "idle"


def test_report_agent_errors(shared_server: ServerHandle, ws: str) -> None:
    pane = _fresh_pane(shared_server, ws)
    assert code(_report(shared_server, pane, agent="   ")) == "invalid_agent"
    assert code(_report(shared_server, "w99:p1")) == "pane_not_found"
    assert code(_report(shared_server, pane, state="sleeping")) == "invalid_request"


def test_clear_and_release(shared_server: ServerHandle, ws: str) -> None:
    pane = _fresh_pane(shared_server, ws)
    ok(_report(shared_server, pane, state="blocked"))
    ok(shared_server.request("agent.rename", {"target": pane, "name": "reviewer"}))
    ok(shared_server.request("pane.clear_agent_authority", {"pane_id": pane, "source": "other"}))
    assert pane_record(shared_server, pane)["agent_status"] == "blocked"
    ok(shared_server.request("pane.clear_agent_authority", {"pane_id": pane}))
    assert "agent" not in pane_record(shared_server, pane)
    ok(_report(shared_server, pane, state="working"))
    release = {"pane_id": pane, "source": "custom:t", "agent": "bot"}
    ok(shared_server.request("pane.release_agent", release))
    assert code(shared_server.request("agent.get", {"target": "reviewer"})) == "agent_not_found"
    assert pane_record(shared_server, pane)["agent_status"] == "unknown"


def test_report_agent_session_is_identity_only(shared_server: ServerHandle, ws: str) -> None:
    pane = _fresh_pane(shared_server, ws)
    params = {
        "pane_id": pane,
        "source": "herdr:claude",
        "agent": "claude",
        "agent_session_id": "abc",
        "seq": 1,
    }
    assert ok(shared_server.request("pane.report_agent_session", params))["type"] == "ok"
    assert pane_record(shared_server, pane)["agent_status"] == "unknown"


def test_pane_metadata_shows_in_records(shared_server: ServerHandle, ws: str) -> None:
    pane = _fresh_pane(shared_server, ws)
    ok(_report(shared_server, pane))
    ok(
        _meta(
            shared_server,
            pane,
            title="  Fixing tests\x07 ",
            display_agent="Bot",
            state_labels={"working": "busy"},
            tokens={"branch": "main"},
        )
    )
    record = pane_record(shared_server, pane)
    assert record["title"] == "Fixing tests"
    assert record["display_agent"] == "Bot"
    assert record["state_labels"] == {"working": "busy"}
    assert record["tokens"] == {"branch": "main"}
    assert record["agent_status"] == "working"  # presentation never changes state
    ok(_meta(shared_server, pane, clear_title=True, tokens={"branch": None}))
    record = pane_record(shared_server, pane)
    assert "title" not in record
    assert "tokens" not in record


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"source": "bad source!"}, "invalid_metadata_source"),
        ({"source": "x" * 81}, "invalid_metadata_source"),
        ({"tokens": {"bad key": "v"}}, "invalid_metadata_token"),
        ({"tokens": {f"k{i}": "v" for i in range(17)}}, "invalid_metadata_token"),
        ({"tokens": {"k": "v"}, "ttl_ms": 0}, "invalid_metadata_ttl"),
        ({"tokens": {"k": "v"}, "ttl_ms": 86_400_001}, "invalid_metadata_ttl"),
        ({"state_labels": {"sleeping": "zz"}}, "invalid_state_label"),
        ({}, "invalid_metadata_request"),
        ({"title": "a", "clear_title": True}, "invalid_metadata_request"),
        ({"agent": " ", "title": "a"}, "invalid_agent"),
    ],
)
def test_pane_metadata_errors(
    shared_server: ServerHandle, ws: str, params: dict[str, Any], error: str
) -> None:
    full = {"pane_id": f"{ws}:p1", "source": "s", **params}
    assert code(shared_server.request("pane.report_metadata", full)) == error


def test_metadata_token_limits(shared_server: ServerHandle, ws: str) -> None:
    pane = _fresh_pane(shared_server, ws)
    for batch in range(2):
        tokens = {f"t{batch}_{i}": "v" for i in range(16)}
        ok(_meta(shared_server, pane, tokens=tokens))
    assert code(_meta(shared_server, pane, tokens={"one_more": "v"})) == "metadata_token_limit"
    other = _fresh_pane(shared_server, ws)
    for i in range(32):
        ok(_meta(shared_server, other, source=f"src{i}", tokens={"k": str(i)}, seq=1))
    limited = _meta(shared_server, other, source="src32", tokens={"k": "x"}, seq=1)
    assert code(limited) == "metadata_sequence_source_limit"


def test_workspace_metadata(shared_server: ServerHandle, ws: str) -> None:
    params = {"workspace_id": ws, "source": "ci", "tokens": {"build": "green"}}
    assert ok(shared_server.request("workspace.report_metadata", params))["type"] == "ok"
    record = ok(shared_server.request("workspace.get", {"workspace_id": ws}))["workspace"]
    assert record["tokens"] == {"build": "green"}
    bad = {**params, "ttl_ms": 0}
    assert code(shared_server.request("workspace.report_metadata", bad)) == "invalid_metadata_ttl"
    missing = {**params, "workspace_id": "w99"}
    assert code(shared_server.request("workspace.report_metadata", missing)) == (
        "workspace_not_found"
    )


def test_wait_ends_when_the_pane_moves(shared_server: ServerHandle, ws: str) -> None:
    pane = _fresh_pane(shared_server, ws)
    ok(_report(shared_server, pane, state="working"))
    wait = {"target": pane, "until": ["blocked"], "timeout_ms": 20000}
    line = json.dumps({"id": "w", "method": "agent.wait", "params": wait}).encode() + b"\n"
    # Sent (and so accepted by the server) before the move's connection exists.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(shared_server.socket_path))
        sock.sendall(line)
        move = {"pane_id": pane, "destination": {"type": "new_workspace"}}
        ok(shared_server.request("pane.move", move))
        reply = json.loads(sock.makefile("rb").readline())
    assert code(reply) == "agent_not_running"


def test_ttl_token_expires_on_a_quiet_shell_pane(shared_server: ServerHandle, ws: str) -> None:
    """Expiry is scheduled on every pane, also one whose detection loop has gone quiet.

    A shell pane with no agent stops ticking once its acquisition window is over (only
    output wakes it then); a report must still schedule the token's expiry. The sleep
    only lets the window pass; nothing asserts how long anything took.
    """
    pane = _fresh_pane(shared_server, ws)
    quiet_after_s = (dl.ACQUISITION_WINDOW_MS + 2 * dl.ACQUISITION_SLOW_RECHECK_MS) / 1000
    time.sleep(quiet_after_s)
    assert "agent" not in pane_record(shared_server, pane)
    ok(_meta(shared_server, pane, tokens={"branch": "main"}))
    ok(_meta(shared_server, pane, source="ci", tokens={"flash": "done"}, ttl_ms=300))
    assert pane_record(shared_server, pane)["tokens"] == {"branch": "main", "flash": "done"}
    wait_until(
        lambda: "flash" not in pane_record(shared_server, pane).get("tokens", {}),
        message="a ttl'd token on a shell pane never expired",
    )
    assert pane_record(shared_server, pane)["tokens"] == {"branch": "main"}

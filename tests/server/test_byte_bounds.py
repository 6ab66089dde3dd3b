"""Memory is bounded by bytes (issue 11, item 6), measured as the server's RSS.

Before: 300 renames with 1 MB labels grew the server by ~290 MB (every label kept in
the model and in the replay log), and a subscriber that never reads held up to 1024
queued ``pane.output_matched`` lines of ~150 kB each (+150 MB). Now an over-long
string is refused with ``invalid_params`` before anything changes, and queues and the
log have byte budgets. RSS growth bounds are generous; they assert no growth in
proportion to the attack, not a speed.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from herdr_testing import ServerHandle, raw_exchange, wait_until

MB = 1_000_000
BIG = "x" * MB  # with the JSON around it, still under the 1 MiB request line


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def state(server: ServerHandle) -> list[Any]:
    """What the requests below could change (revisions and agent status move on their own)."""
    volatile = {
        "revision",
        "agent_status",
        "terminal_title",
        "terminal_title_stripped",
        "foreground_cwd",  # the cwd sampler fills it in when it gets to the pane
    }
    docs = []
    for method in ("workspace.list", "tab.list", "pane.list"):
        result = server.request(method, {})["result"]
        docs.append(json.loads(json.dumps(result), object_hook=lambda d: {
            k: v for k, v in d.items() if k not in volatile
        }))  # fmt: skip
    return docs


@pytest.fixture
def workspace(herdr_server: ServerHandle) -> ServerHandle:
    reply = herdr_server.request("workspace.create", {"cwd": "/tmp", "label": "keep"})
    assert "result" in reply, reply
    return herdr_server


def test_300_renames_with_1mb_labels_are_refused_and_rss_stays_flat(
    workspace: ServerHandle,
) -> None:
    pid = workspace.server.pid
    before_state = state(workspace)
    before = rss_mb(pid)
    line = json.dumps(
        {"id": "r", "method": "workspace.rename", "params": {"workspace_id": "w1", "label": BIG}}
    ).encode()
    for _ in range(300):
        reply = json.loads(raw_exchange(workspace.socket_path, line + b"\n"))
        assert reply["error"]["code"] == "invalid_params", reply
        assert "must be at most 256 characters" in reply["error"]["message"]
    grown = rss_mb(pid) - before
    assert grown < 30, f"RSS grew by {grown:.1f} MB"
    assert state(workspace) == before_state
    assert workspace.server.alive()


def _meta(**fields: Any) -> dict[str, Any]:
    return {"pane_id": "w1:p1", "source": "test", **fields}


def _agent(**fields: Any) -> dict[str, Any]:
    return {"pane_id": "w1:p1", "source": "test", "agent": "claude", "state": "idle", **fields}


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        ("workspace.create", {"label": BIG}, "label"),
        ("workspace.create", {"cwd": BIG}, "cwd"),
        ("tab.create", {"workspace_id": "w1", "label": BIG}, "label"),
        ("tab.rename", {"tab_id": "w1:t1", "label": BIG}, "label"),
        ("pane.rename", {"pane_id": "w1:p1", "label": BIG}, "label"),
        ("pane.split", {"target_pane_id": "w1:p1", "direction": "right", "cwd": BIG}, "cwd"),
        ("pane.move", {"pane_id": "w1:p1",
                       "destination": {"type": "new_workspace", "label": BIG}},
         "destination.label"),
        ("layout.apply", {"workspace_id": "w1", "tab_label": BIG,
                          "root": {"type": "pane"}}, "tab_label"),
        ("agent.rename", {"target": "w1:p1", "name": BIG}, "name"),
        ("agent.start", {"name": BIG, "kind": "claude", "pane_id": "w1:p1"}, "name"),
        ("pane.report_metadata", _meta(title=BIG), "title"),
        ("pane.report_metadata", _meta(tokens={"k": BIG}), "tokens.k"),
        ("pane.report_metadata", _meta(display_agent=BIG), "display_agent"),
        ("pane.report_metadata", _meta(state_labels={"idle": BIG}), "state_labels.idle"),
        ("workspace.report_metadata", {"workspace_id": "w1", "source": "test",
                                       "tokens": {"k": BIG}}, "tokens.k"),
        ("pane.report_agent", _agent(message=BIG), "message"),
        ("pane.report_agent", _agent(agent=BIG), "agent"),
        ("pane.report_agent", _agent(agent_session_id=BIG), "agent_session_id"),
        ("pane.report_agent_session", {"pane_id": "w1:p1", "source": "test", "agent": "pi",
                                       "agent_session_path": BIG}, "agent_session_path"),
        ("pane.release_agent", {"pane_id": "w1:p1", "source": BIG, "agent": "pi"}, "source"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "",
)  # fmt: skip
def test_a_megabyte_string_is_refused_and_changes_nothing(
    workspace: ServerHandle, method: str, params: dict[str, Any], field: str
) -> None:
    before = state(workspace)
    reply = workspace.request(method, params)
    assert reply["error"]["code"] == "invalid_params", reply
    assert reply["error"]["message"].startswith(f"params.{field}: must be at most")
    assert len(reply["error"]["message"]) < 200  # the value is not echoed
    assert state(workspace) == before


def test_a_megabyte_metadata_source_gets_its_own_code(workspace: ServerHandle) -> None:
    """The metadata rules (§3.4) check the source first: 80 characters, its own code."""
    reply = workspace.request("pane.report_metadata", {"pane_id": "w1:p1", "source": BIG})
    assert reply["error"]["code"] == "invalid_metadata_source", reply
    assert len(reply["error"]["message"]) < 200


def test_cli_rename_with_an_over_long_label_fails_clearly(workspace: ServerHandle) -> None:
    done = workspace.cli("workspace", "rename", "w1", "y" * 300)
    assert done.returncode != 0
    assert "invalid_params" in done.stderr and "256" in done.stderr, done.stderr
    assert (
        workspace.request("workspace.get", {"workspace_id": "w1"})["result"]["workspace"]["label"]
        == "keep"
    )


def _silent(server: ServerHandle, method: str, params: dict[str, Any]) -> socket.socket:
    """A connection that sends one request and then never reads."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(str(server.socket_path))
    sock.sendall(json.dumps({"id": "s", "method": method, "params": params}).encode() + b"\n")
    return sock


def test_clients_that_never_read_do_not_grow_the_server_while_a_pane_prints(
    workspace: ServerHandle,
) -> None:
    pid = workspace.server.pid
    before = rss_mb(pid)
    # Each matched line carries the last 10000 rows (~800 kB): 1024 queued would be 800 MB.
    # Checks are paced (output_pacing), so the flood is long enough for ~60 MB of them:
    # without the queues' byte bound the server grows by that (measured), with it ~18 MB.
    item = {
        "type": "pane.output_matched",
        "pane_id": "w1:p1",
        "source": "recent",
        "lines": 10000,
        "match": {"type": "regex", "value": r"^\s*\d+\s"},
    }
    silent = [
        _silent(workspace, "events.subscribe", {"subscriptions": [item]}),
        _silent(workspace, "events.subscribe", {"subscriptions": [{"type": "pane.updated"}]}),
        _silent(workspace, "client.attach", {"cols": 200, "rows": 60}),
    ]
    peak = before
    try:
        text = "yes 0123456789012345678901234567890123456789012345678901234567890"
        command = f"{text} | head -n 5000000 | cat -n; echo DONE-$((40 + 2))"
        reply = workspace.request(
            "pane.send_input", {"pane_id": "w1:p1", "text": command, "keys": ["Enter"]}
        )
        assert reply["result"]["type"] == "ok", reply

        def printed() -> bool:
            nonlocal peak
            peak = max(peak, rss_mb(pid))
            read = workspace.request(
                "pane.read", {"pane_id": "w1:p1", "source": "recent", "lines": 3}
            )
            return "DONE-42" in read["result"]["read"]["text"]

        wait_until(printed, 300, interval=0.2)
        peak = max(peak, rss_mb(pid))
        assert workspace.request("ping", {})["result"]["type"] == "pong"
    finally:
        for sock in silent:
            sock.close()
    grown = peak - before
    assert grown < 40, f"RSS grew by {grown:.1f} MB"
    assert workspace.server.alive()

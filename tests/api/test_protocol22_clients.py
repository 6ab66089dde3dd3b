"""The requests our own clients send are protocol-22 requests herdr 0.9 would accept.

The real CLI (``python -m herdr ...``, both its fast path and argparse) and the SDK
(:mod:`herdr.api.client`) talk to a real server through a recording proxy; every
request line they wrote must validate against the reference schema's ``request``
section (method known, params of the method's own shape). (What the server answers is
checked method by method in ``test_protocol22_compat``.)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr.api.client import Client, HerdrError
from herdr_testing import ServerHandle, herdr_tree
from herdr_testing.fake_env import agent_server, launch
from herdr_testing.recording_proxy import RecordingProxy
from herdr_testing.schema22 import assert_valid_request

# Command lines in order; "{name}" is an id an earlier command printed (see _remember).
CLI_COMMANDS: list[tuple[str, ...]] = [
    ("workspace", "create", "--label", "cli", "--cwd", "{root}"),
    ("workspace", "list"),
    ("workspace", "get", "{ws}"),
    ("workspace", "focus", "{ws}"),
    ("workspace", "rename", "{ws}", "renamed"),
    ("workspace", "report-metadata", "{ws}", "--source", "cli", "--token", "k=v",
     "--ttl-ms", "60000"),
    ("workspace", "report-metadata", "{ws}", "--source", "cli", "--clear-token", "k"),
    ("tab", "create", "--workspace", "{ws}", "--label", "t", "--no-focus"),
    ("tab", "list", "--workspace", "{ws}"),
    ("tab", "list"),
    ("tab", "get", "{tab}"),
    ("tab", "focus", "{tab}"),
    ("tab", "rename", "{tab}", "t2"),
    ("pane", "list"),
    ("pane", "list", "--workspace", "{ws}"),
    ("pane", "get", "{pane}"),
    ("pane", "current", "--pane", "{pane}"),
    ("pane", "split", "{pane}", "--direction", "right", "--ratio", "0.5", "--no-focus"),
    ("pane", "split", "--pane", "{pane}", "--direction", "down", "--cwd", "{root}",
     "--env", "A=1", "--right-click", "pane"),
    ("pane", "rename", "{pane}", "main"),
    ("pane", "rename", "{pane}", "--clear"),
    ("pane", "layout", "{pane}"),
    ("pane", "focus", "{pane}"),
    ("pane", "focus", "--pane", "{pane}", "--direction", "right"),
    ("pane", "neighbor", "--pane", "{pane}", "--direction", "right"),
    ("pane", "resize", "--pane", "{pane}", "--direction", "right", "--amount", "0.1"),
    ("pane", "edges", "{pane}"),
    ("pane", "zoom", "{pane}", "--toggle"),
    ("pane", "zoom", "{pane}", "--off"),
    ("pane", "swap", "--source-pane", "{pane}", "--target-pane", "{split}"),
    ("pane", "process-info", "{pane}"),
    ("pane", "send-text", "{pane}", "echo cli-marker"),
    ("pane", "send-keys", "{pane}", "Enter"),
    ("pane", "run", "{pane}", "echo cli-run"),
    ("pane", "read", "{pane}", "--source", "recent", "--lines", "20"),
    ("pane", "read", "{pane}", "--source", "visible", "--ansi"),
    ("pane", "wait-output", "{pane}", "--match", "cli-marker", "--source", "recent",
     "--timeout", "10000"),
    ("pane", "wait-output", "{pane}", "--regex", "cli-r.n", "--timeout", "10000"),
    ("pane", "report-agent", "{pane}", "--source", "cli", "--agent", "claude",
     "--state", "working", "--message", "busy", "--seq", "1"),
    ("pane", "report-agent-session", "{pane}", "--source", "cli", "--agent", "claude",
     "--agent-session-id", "0f1e2d3c-aaaa-bbbb-cccc-000000000000"),
    ("pane", "report-metadata", "{pane}", "--source", "cli", "--token", "k=v", "--title", "T",
     "--state-label", "working=busy", "--display-agent", "Claude"),
    ("pane", "report-metadata", "{pane}", "--source", "cli", "--clear-title",
     "--clear-state-labels", "--clear-display-agent"),
    ("pane", "release-agent", "{pane}", "--source", "cli", "--agent", "claude"),
    ("pane", "move", "{split}", "--tab", "{tab}", "--split", "right", "--no-focus"),
    ("pane", "move", "{down}", "--new-workspace", "--label", "moved", "--no-focus"),
    ("agent", "list"),
    ("agent", "get", "{agent}"),
    ("agent", "read", "{agent}", "--source", "visible"),
    ("agent", "send-keys", "{agent}", "Escape"),
    ("agent", "rename", "{agent}", "helper"),
    ("agent", "rename", "{agent}", "--clear"),
    ("agent", "focus", "{agent}"),
    ("agent", "prompt", "{agent}", "hello"),
    ("agent", "wait", "{agent}", "--until", "idle", "--until", "done", "--timeout", "20000"),
    ("agent", "explain", "{agent}", "--json"),
    ("agent", "start", "cli-codex", "--kind", "codex", "--pane", "{spare}", "--timeout", "20000"),
    ("server", "reload-config"),
    ("server", "agent-manifests"),
    ("server", "reload-agent-manifests"),
    ("status",),
    ("status", "server", "--json"),
    ("api", "snapshot"),
    ("tab", "close", "{tab}"),
    ("pane", "close", "{spare}"),
    ("workspace", "close", "{ws}"),
    ("server", "stop"),
]  # fmt: skip


def _remember(ids: dict[str, str], argv: tuple[str, ...], out: str) -> None:
    """Keep the ids the creating commands printed, for the command lines after them."""
    if argv[:2] not in (("workspace", "create"), ("tab", "create"), ("pane", "split")):
        return
    result = json.loads(out)["result"]
    if argv[:2] == ("workspace", "create"):
        ids["ws"] = result["workspace"]["workspace_id"]
        ids["pane"] = result["root_pane"]["pane_id"]
    elif argv[:2] == ("tab", "create"):
        ids["tab"] = result["tab"]["tab_id"]
    else:
        ids["split" if "split" not in ids else "down"] = result["pane"]["pane_id"]


@pytest.fixture
def proxied() -> Iterator[tuple[ServerHandle, RecordingProxy]]:
    with herdr_tree() as herdr:
        server = agent_server(herdr)
        proxy = RecordingProxy(server.socket_path, herdr.root / "proxy.sock")
        try:
            yield server, proxy
        finally:
            proxy.close()


def test_cli_requests_are_protocol22(proxied: tuple[ServerHandle, RecordingProxy]) -> None:
    server, proxy = proxied
    env = {"HERDR_SOCKET_PATH": str(proxy.path)}
    ids: dict[str, str] = {"root": str(server.root)}
    for argv in CLI_COMMANDS:
        if argv[:2] == ("agent", "list") and "agent" not in ids:
            spare = server.request(
                "pane.split", {"target_pane_id": ids["pane"], "direction": "down"}
            )
            ids["spare"] = spare["result"]["pane"]["pane_id"]
            agent = server.request("tab.create", {"workspace_id": ids["ws"]})["result"]
            ids["agent"] = agent["root_pane"]["pane_id"]
            launch(server, ids["agent"], "claude")
        line = tuple(part.format(**ids) for part in argv)
        proxy.clear()
        done = server.cli(*line, env=env)
        assert done.returncode == 0, f"{line}: {done.stderr}"
        sent = proxy.requests()
        assert sent, f"{line} sent no request"
        for request in sent:
            assert_valid_request(request)
        _remember(ids, argv, done.stdout)


def _sdk_calls(client: Client, root: Path) -> Iterator[str]:
    """Every typed wrapper of the SDK, with realistic arguments; yields each result type,
    or ``error:<code>`` when the server refused."""
    yield str(client.check_protocol()["type"])
    ws = client.workspace_create(cwd=str(root), label="sdk", env={"A": "1"})
    ws_id = ws["workspace"]["workspace_id"]
    pane = ws["root_pane"]["pane_id"]
    calls: list[Callable[[], Any]] = [
        client.ping,
        client.session_snapshot,
        client.workspace_list,
        lambda: client.workspace_get(ws_id),
        lambda: client.workspace_focus(ws_id),
        lambda: client.workspace_rename(ws_id, "renamed"),
        lambda: client.tab_list(ws_id),
        client.tab_list,
        lambda: client.pane_list(ws_id),
        client.pane_list,
        lambda: client.pane_get(pane),
        lambda: client.pane_layout(pane),
        client.pane_layout,
        lambda: client.pane_send_text(pane, "echo sdk-marker"),
        lambda: client.pane_send_keys(pane, ["Enter"]),
        lambda: client.pane_run(pane, "echo sdk-run"),
        lambda: client.pane_read(pane, source="recent", lines=10),
        lambda: client.pane_wait_for_output(pane, substring="sdk-marker", timeout_ms=10_000),
        lambda: client.pane_wait_for_output(pane, regex="sdk-r.n", source="recent"),
        client.agent_list,
        lambda: client.call("pane.report_metadata", pane_id=pane, source="sdk", tokens={"k": "1"}),
        lambda: client.wait_event({"event": "pane_created"}, timeout_ms=1),
    ]
    for call in calls:
        try:
            yield str(call()["type"])
        except HerdrError as exc:  # an answer is enough: the request is what is checked
            yield f"error:{exc.code}"
    tab = client.tab_create(workspace_id=ws_id, label="t", focus=False)
    tab_id = tab["tab"]["tab_id"]
    split = client.pane_split(pane, direction="right", ratio=0.5, focus=False)
    with client.events([{"type": "pane.closed"}], since_seq=0) as stream:
        client.pane_close(split["pane"]["pane_id"])
        yield str(next(iter(stream))["event"])
    closing_calls: list[Callable[[], Any]] = [
        lambda: client.tab_get(tab_id),
        lambda: client.tab_focus(tab_id),
        lambda: client.tab_rename(tab_id, "t2"),
        lambda: client.tab_close(tab_id),
        lambda: client.agent_get(pane),
        lambda: client.workspace_close(ws_id),
        client.server_stop,
    ]
    for closing in closing_calls:
        try:
            yield str(closing()["type"])
        except HerdrError as exc:
            yield f"error:{exc.code}"


def test_sdk_requests_are_protocol22(proxied: tuple[ServerHandle, RecordingProxy]) -> None:
    server, proxy = proxied
    client = Client(proxy.path, timeout=30)
    answers = list(_sdk_calls(client, server.root))
    refused = [answer for answer in answers if answer.startswith("error:")]
    # the wait times out by design; agent.get on a plain shell pane finds no agent
    assert refused == ["error:timeout", "error:agent_not_found"], answers
    sent = proxy.requests()
    assert len(sent) >= len(answers)
    for request in sent:
        assert_valid_request(request)

"""``--machine`` and ``Client(machine=...)`` against a real loopback sshd.

The "remote" is the sshd fixture's private tree (its own HOME/XDG dirs); its server is
started through ssh exactly as ``herdr --remote`` does (``herdr api ensure-server``).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from herdr.api.client import Client, HerdrError
from herdr_testing import HERDR, HerdrEnv, request
from herdr_testing.sshd import SshMachine

pytestmark = pytest.mark.slow

REPORT = ("pane", "report-agent", "--source", "custom:t", "--agent", "bot")


@pytest.fixture(scope="module")
def remote(sshd: SshMachine) -> Iterator[SshMachine]:
    """The machine with its server running (started over ssh, as --remote does)."""
    done = sshd.ssh("~/.local/bin/herdr api ensure-server")
    assert done.returncode == 0, done.stderr
    yield sshd


@pytest.fixture
def local(herdr_env: HerdrEnv, remote: SshMachine) -> HerdrEnv:
    herdr_env.env.update(remote.client_env())
    return herdr_env


def ok(herdr: HerdrEnv, *args: str) -> dict[str, Any]:
    done = herdr.cli(*args)
    assert done.returncode == 0, f"{args}: {done.stderr}"
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def error_code(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stdout
    return str(json.loads(done.stderr.strip().splitlines()[-1])["error"]["code"])


def test_pane_list_is_the_remote_servers(local: HerdrEnv, remote: SshMachine) -> None:
    there = request(remote.remote_socket(), "pane.list", {})["result"]["panes"]
    for argv in (
        ("--machine", remote.target, "pane", "list"),  # the fast path
        ("pane", "list", "--machine", remote.target, "--json"),
        (f"--machine={remote.target}", "pane", "list", "--workspace", "w1"),  # argparse
    ):
        doc = ok(local, *argv)
        assert doc["id"] == "cli:pane:list"
        assert [p["pane_id"] for p in doc["result"]["panes"]] == [p["pane_id"] for p in there]
    # nothing local was touched: no local server, no local socket
    assert not local.socket_path().exists()


def test_a_saved_machine_name_works_too(local: HerdrEnv, remote: SshMachine) -> None:
    assert local.cli("machine", "add", "box", remote.target).returncode == 0
    doc = ok(local, "--machine", "box", "workspace", "list")
    assert doc["result"]["workspaces"][0]["workspace_id"] == "w1"


def test_agent_wait_is_held_over_ssh(local: HerdrEnv, remote: SshMachine) -> None:
    pane = request(remote.remote_socket(), "pane.list", {})["result"]["panes"][0]["pane_id"]
    base = ("--machine", remote.target)
    done = local.cli(*base, *REPORT[:2], pane, *REPORT[2:], "--state", "working")
    assert done.returncode == 0, done.stderr
    waiter = subprocess.Popen(
        [*HERDR, *base, "agent", "wait", pane, "--until", "blocked", "--timeout", "30000"],
        env=local.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # working now: the wait is held on the remote server until blocked is reported
        done = local.cli(*base, *REPORT[:2], pane, *REPORT[2:], "--state", "blocked")
        assert done.returncode == 0, done.stderr
        out, err = waiter.communicate(timeout=30)
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()
    assert waiter.returncode == 0, err
    assert json.loads(out)["result"]["agent"]["agent_status"] == "blocked"


def test_sdk_events_subscribe_over_ssh(local: HerdrEnv, remote: SshMachine) -> None:
    import os

    saved = {k: os.environ.get(k) for k in remote.client_env()}
    os.environ.update(remote.client_env())
    try:
        client = Client(machine=remote.target)
        assert client.ping()["protocol"] == 22
        with client.events([{"type": "workspace.created"}]) as events:
            created = client.workspace_create(label="over-ssh")
            event = next(iter(events))
        assert event["event"] == "workspace_created"
        assert event["data"]["workspace"]["label"] == "over-ssh"
        client.workspace_close(created["workspace"]["workspace_id"])
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_async_sdk_over_ssh(local: HerdrEnv, remote: SshMachine) -> None:
    import asyncio
    import os

    from herdr.api.client import AsyncClient

    async def run() -> tuple[str, str]:
        client = AsyncClient(machine=remote.target)
        pong = await client.ping()
        async with await client.events([{"type": "workspace.created"}]) as events:
            created = await client.workspace_create(label="async-ssh")
            event = await events.__anext__()
        await client.workspace_close(created["workspace"]["workspace_id"])
        with pytest.raises(HerdrError) as caught:
            await AsyncClient(machine="ssh://127.0.0.1:1").ping()
        return f"{pong['protocol']}:{event['data']['workspace']['label']}", caught.value.code

    os.environ.update(remote.client_env())
    try:
        assert asyncio.run(run()) == ("22:async-ssh", "machine_unreachable")
    finally:
        for k in remote.client_env():
            os.environ.pop(k, None)


def test_sdk_reports_an_unreachable_machine(local: HerdrEnv, remote: SshMachine) -> None:
    import os

    os.environ.update(remote.client_env())
    try:
        with pytest.raises(HerdrError) as caught:
            Client(machine="ssh://127.0.0.1:1").ping()
        assert caught.value.code == "machine_unreachable"
    finally:
        for k in remote.client_env():
            os.environ.pop(k, None)


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (("--machine", "ssh://127.0.0.1:1", "pane", "list"), "machine_unreachable"),
        (("--machine", "-oProxyCommand=x", "pane", "list"), None),  # a usage error
        (("--machine", "ssh://127.0.0.1:x", "pane", "list"), "invalid_target"),
        (("--machine", "REMOTE", "--session", "nope", "pane", "list"), "server_not_running"),
        (("--machine", "REMOTE", "pane", "get", "w9:p9"), "pane_not_found"),
    ],
    ids=["refused-port", "option-injection", "bad-port", "no-server", "remote-error"],
)
def test_failures_get_one_answer(
    local: HerdrEnv, remote: SshMachine, argv: tuple[str, ...], code: str | None
) -> None:
    argv = tuple(remote.target if a == "REMOTE" else a for a in argv)
    done = local.cli(*argv)
    assert done.stdout == ""
    if code is None:
        assert done.returncode == 2
    else:
        assert error_code(done) == code
        verb = "get" if code == "pane_not_found" else "list"
        assert json.loads(done.stderr.strip().splitlines()[-1])["id"] == f"cli:pane:{verb}"


def test_agent_list_all_machines(local: HerdrEnv, remote: SshMachine) -> None:
    pane = request(remote.remote_socket(), "pane.list", {})["result"]["panes"][0]["pane_id"]
    request(
        remote.remote_socket(),
        "pane.report_agent",
        {"pane_id": pane, "source": "custom:t", "agent": "bot", "state": "idle"},
    )
    local.start_server()
    assert local.cli("machine", "add", "box", remote.target).returncode == 0
    assert local.cli("machine", "add", "gone", "ssh://127.0.0.1:1").returncode == 0
    done = local.cli("agent", "list", "--all-machines")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["result"]
    assert {(a["machine"], a["pane_id"]) for a in result["agents"]} >= {("box", pane)}
    assert all(a["machine"] in ("local", "box") for a in result["agents"])
    assert [u["machine"] for u in result["unreachable"]] == ["gone"]
    assert result["unreachable"][0]["error"]["code"] == "machine_unreachable"
    assert "gone" in done.stderr

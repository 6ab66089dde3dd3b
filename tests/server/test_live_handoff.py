"""Live handoff with real processes: a new server takes over every pane of a running one.

Each handoff starts a new server (``python -m herdr`` through a wrapper script given as
``import_exe``); the test stops it by pid at the end (the fixture only knows the old one).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle, request, wait_until
from herdr_testing.fake_env import agent_bin, code, launch, ok, screen, wait_status
from herdr_testing.held import HeldConnection
from herdr_testing.schema22 import assert_valid_response
from herdr_testing.servers import pings

HANDOFF_TIMEOUT = 120.0


@pytest.fixture
def successors() -> Iterator[list[int]]:
    """Pids of new servers started by handoffs; stopped (SIGTERM, then SIGKILL) at the end."""
    pids: list[int] = []
    yield pids
    for pid in reversed(pids):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    for pid in pids:
        with contextlib.suppress(AssertionError, TimeoutError):
            wait_until(functools.partial(_gone, pid), timeout=15, message=f"{pid} lingers")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _gone(pid: int) -> bool:
    return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return True


def _script(root: Path, name: str, body: str) -> str:
    path = root / name
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _herdr_exe(root: Path) -> str:
    """The new herdr, as an executable path (``import_exe`` takes one path)."""
    return _script(root, "new-herdr", f'#!/bin/sh\nexec {sys.executable} -m herdr "$@"\n')


def _handoff(server: ServerHandle, successors: list[int], **params: Any) -> dict[str, Any]:
    params.setdefault("import_exe", _herdr_exe(server.root))
    reply = _request(server.socket_path, "server.live_handoff", params)
    assert_valid_response(reply)  # herdr's published protocol-22 schema
    result = ok(reply)
    successors.append(int(result["handoff"]["new_pid"]))
    return result


def _request(path: Path, method: str, params: Any) -> dict[str, Any]:
    held = HeldConnection(path, method, params, "handoff", timeout=HANDOFF_TIMEOUT)
    try:
        reply = held.next()
    finally:
        held.close()
    assert reply is not None, "the server closed without answering"
    return reply


def _split(server: ServerHandle, command: list[str] | None = None) -> str:
    params: dict[str, Any] = {"direction": "right"}
    if command is not None:
        params["command"] = command
    created = ok(server.request("workspace.create", {"focus": True, **params}))
    return str(created["root_pane"]["pane_id"])


def _pid(server: ServerHandle, pane_id: str) -> int:
    info = ok(server.request("pane.process_info", {"pane_id": pane_id}))["process_info"]
    return int(info["shell_pid"])


def _read(server: ServerHandle, pane_id: str, source: str = "visible") -> str:
    read = ok(server.request("pane.read", {"pane_id": pane_id, "source": source, "ansi": True}))
    return str(read["read"]["text"])


def _panes(server: ServerHandle) -> list[dict[str, Any]]:
    """pane.list without what the cwd sampler fills in later."""
    panes = ok(server.request("pane.list", {}))["panes"]
    return [{k: v for k, v in p.items() if k != "foreground_cwd"} for p in panes]


def _log(server: ServerHandle) -> str:
    log = Path(server.env["XDG_STATE_HOME"]) / "herdr" / "server.log"
    return log.read_text(errors="replace")[-4000:] if log.exists() else "(no log)"


def _wait_old_gone(server: ServerHandle) -> None:
    wait_until(lambda: server.server.proc.poll() is not None, timeout=30, message="old lingers")


def test_panes_keep_their_processes_and_screens(
    herdr_server: ServerHandle, successors: list[int]
) -> None:
    server = herdr_server
    shell = _split(server)
    ok(server.request("pane.send_text", {"pane_id": shell, "text": "echo before-handoff\r"}))
    wait_until(lambda: "before-handoff" in screen(server, shell).split("echo")[-1], timeout=10)
    sleeper = _split(server, ["sleep", "300"])
    pids = {pane: _pid(server, pane) for pane in (shell, sleeper)}
    screens = {pane: (_read(server, pane), _read(server, pane, "recent")) for pane in pids}
    panes_before = _panes(server)
    seq_before = ok(server.request("ping", {}))

    result = _handoff(server, successors)
    assert result["handoff"]["panes"] == 2
    assert result["handoff"]["new_pid"] != server.server.pid
    _wait_old_gone(server)
    assert server.server.proc.returncode == 0
    assert pings(server.socket_path), _log(server)

    assert {pane: _pid(server, pane) for pane in pids} == pids
    for pid in pids.values():
        assert _alive(pid)
    assert {pane: (_read(server, pane), _read(server, pane, "recent")) for pane in pids} == screens
    assert _panes(server) == panes_before
    pong = ok(server.request("ping", {}))
    assert pong["capabilities"]["live_handoff"] is True
    assert seq_before["version"] == pong["version"]
    # the shell still works on the new server
    ok(server.request("pane.send_text", {"pane_id": shell, "text": "echo after-handoff\r"}))
    wait_until(lambda: "after-handoff" in screen(server, shell).split("echo")[-1], timeout=10)


def test_a_second_handoff_right_after_the_first(
    herdr_server: ServerHandle, successors: list[int]
) -> None:
    server = herdr_server
    sleeper = _split(server, ["sleep", "300"])
    pid = _pid(server, sleeper)
    _handoff(server, successors)
    _wait_old_gone(server)
    second = _handoff(server, successors)
    assert second["handoff"]["panes"] == 1
    wait_until(lambda: not _alive(successors[0]), timeout=30, message="first successor lingers")
    assert _pid(server, sleeper) == pid
    assert _alive(pid)


SLOW_NEVER_READY = "#!/bin/sh\nsleep 3\nexit 1\n"


def test_a_second_handoff_while_one_runs_is_refused(herdr_server: ServerHandle) -> None:
    server = herdr_server
    pane = _split(server, ["sleep", "300"])
    pid = _pid(server, pane)
    exe = _script(server.root, "slow-herdr", SLOW_NEVER_READY)
    first: list[dict[str, Any]] = []
    runner = threading.Thread(
        target=lambda: first.append(
            _request(server.socket_path, "server.live_handoff", {"import_exe": exe})
        )
    )
    runner.start()
    try:
        wait_until(
            lambda: "started the new server" in _log(server), timeout=30, message="not started"
        )
        second = _request(server.socket_path, "server.live_handoff", {"import_exe": exe})
        assert code(second) == "handoff_failed"
        assert "already in progress" in second["error"]["message"]
        assert server.server.alive()  # served while the first waits for its successor
    finally:
        runner.join(HANDOFF_TIMEOUT)
    assert code(first[0]) == "handoff_failed"
    assert _pid(server, pane) == pid


def test_many_fd_batches(herdr_env: HerdrEnv, successors: list[int]) -> None:
    """Five panes in batches of two: three SCM_RIGHTS frames, every one acked."""
    server = ServerHandle(herdr_env, herdr_env.start_server(env={"HERDR_TEST_HANDOFF_BATCH": "2"}))
    panes = [_split(server, ["sleep", "300"]) for _ in range(5)]
    pids = {pane: _pid(server, pane) for pane in panes}
    result = _handoff(server, successors)
    assert (result["handoff"]["panes"], result["handoff"]["fd_batches"]) == (5, 3)
    _wait_old_gone(server)
    assert {pane: _pid(server, pane) for pane in panes} == pids


def test_exit_of_an_adopted_process_is_noticed(
    herdr_server: ServerHandle, successors: list[int]
) -> None:
    """The new server cannot waitpid a process it did not fork: its pidfd says it ended."""
    server = herdr_server
    keep = _split(server, ["sleep", "300"])
    doomed = _split(server, ["sleep", "300"])
    pid = _pid(server, doomed)
    _handoff(server, successors)
    _wait_old_gone(server)
    os.kill(pid, signal.SIGKILL)

    def closed() -> bool:
        reply = server.request("pane.get", {"pane_id": doomed})
        return "error" in reply and reply["error"]["code"] == "pane_not_found"

    wait_until(closed, timeout=15, message="the adopted pane's exit went unnoticed")
    ok(server.request("pane.get", {"pane_id": keep}))


def test_subscribers_get_subscription_ended_and_resume_with_since_seq(
    herdr_server: ServerHandle, successors: list[int]
) -> None:
    server = herdr_server
    pane = _split(server, ["sleep", "300"])
    held = HeldConnection(
        server.socket_path,
        "events.subscribe",
        {"subscriptions": [{"type": "pane.created"}, {"type": "pane.closed"}]},
        timeout=HANDOFF_TIMEOUT,
    )
    try:
        first = held.next()
        assert first is not None and "result" in first, first
        last_seq = int(first["result"].get("last_seq", 0))
        _handoff(server, successors)
        ended: list[dict[str, Any]] = []
        while (line := held.next()) is not None:
            ended.append(line)
    finally:
        held.close()
    reasons = {e["data"]["reason"] for e in ended if e.get("event") == "subscription_ended"}
    assert reasons == {"handoff"}, ended
    _wait_old_gone(server)
    # the sequence continues on the new server: a new event gets a later seq
    ok(server.request("pane.close", {"pane_id": pane}))
    resumed = HeldConnection(
        server.socket_path,
        "events.subscribe",
        {"subscriptions": [{"type": "pane.closed"}], "since_seq": last_seq},
        timeout=30,
    )
    try:
        answer = resumed.next()
        assert answer is not None and "result" in answer, answer
        assert answer["result"].get("replay", {}).get("gap") in (False, None), answer
        event = wait_until(resumed.next, timeout=15, message="no replayed pane.closed")
        assert event is not None and event["event"] == "pane_closed", event
        assert event["data"]["pane_id"] == pane
        assert int(event["seq"]) > last_seq
    finally:
        resumed.close()


def test_attached_client_is_told_to_reconnect(
    herdr_server: ServerHandle, successors: list[int]
) -> None:
    server = herdr_server
    _split(server, ["sleep", "300"])
    attach = HeldConnection(
        server.socket_path, "client.attach", {"cols": 80, "rows": 24}, timeout=HANDOFF_TIMEOUT
    )
    try:
        started = attach.next()
        assert started is not None and "result" in started, started
        _handoff(server, successors)
        lines: list[dict[str, Any]] = []
        while (line := attach.next()) is not None:
            lines.append(line)
    finally:
        attach.close()
    byes = [line for line in lines if line.get("t") == "bye"]
    assert byes and byes[-1]["reason"] == "handoff", lines[-3:]
    again = HeldConnection(server.socket_path, "client.attach", {"cols": 80, "rows": 24})
    try:
        reattached = again.next()
        assert reattached is not None and "result" in reattached, reattached
    finally:
        again.close()


def test_a_blocked_fake_agent_is_blocked_after(herdr_env: HerdrEnv, successors: list[int]) -> None:
    bin_dir = agent_bin(herdr_env.root)
    herdr_env.env["PATH"] = f"{bin_dir}{os.pathsep}{herdr_env.env.get('PATH', '')}"
    server = ServerHandle(herdr_env, herdr_env.start_server())
    pane = _split(server)
    launch(server, pane, "claude")
    ok(server.request("pane.send_input", {"pane_id": pane, "text": "ask me", "keys": ["Enter"]}))
    wait_status(server, pane, "blocked")
    before = ok(server.request("pane.get", {"pane_id": pane}))["pane"]
    agent_pid = _pid(server, pane)
    visible = _read(server, pane)
    _handoff(server, successors)
    _wait_old_gone(server)
    after = ok(server.request("pane.get", {"pane_id": pane}))["pane"]
    assert after["agent_status"] == "blocked", _log(server)
    assert (after.get("agent"), after.get("agent_name")) == (
        before.get("agent"),
        before.get("agent_name"),
    )
    assert _pid(server, pane) == agent_pid
    assert _read(server, pane) == visible
    # it still answers: proceed, and it goes back to idle/done on the new server
    ok(server.request("pane.send_input", {"pane_id": pane, "text": "1"}))
    wait_status(server, pane, "idle", "done", "working")


def test_an_agent_on_the_alternate_screen(herdr_env: HerdrEnv, successors: list[int]) -> None:
    """The transcript viewer (alternate screen) reads the same after the handoff, and the
    agent keeps drawing through the new server (it redraws its primary screen on close;
    the primary kept under an alternate one is checked in test_replay_snapshot.py)."""
    bin_dir = agent_bin(herdr_env.root)
    herdr_env.env["PATH"] = f"{bin_dir}{os.pathsep}{herdr_env.env.get('PATH', '')}"
    server = ServerHandle(herdr_env, herdr_env.start_server())
    pane = _split(server)
    launch(server, pane, "codex")
    primary = _read(server, pane)
    ok(server.request("pane.send_keys", {"pane_id": pane, "keys": ["ctrl+o"]}))
    wait_until(lambda: "q to quit" in screen(server, pane), timeout=10)
    alternate = _read(server, pane)
    _handoff(server, successors)
    _wait_old_gone(server)
    assert _read(server, pane) == alternate
    ok(server.request("pane.send_keys", {"pane_id": pane, "keys": ["ctrl+o"]}))
    wait_until(lambda: "q to quit" not in screen(server, pane), timeout=10)
    assert _read(server, pane) == primary


def test_protocol_mismatch_changes_nothing(herdr_server: ServerHandle) -> None:
    server = herdr_server
    pane = _split(server, ["sleep", "300"])
    pid = _pid(server, pane)
    reply = _request(
        server.socket_path,
        "server.live_handoff",
        {"import_exe": _herdr_exe(server.root), "expected_version": "0.0.0-not-this"},
    )
    assert code(reply) == "protocol_mismatch"
    assert "0.0.0-not-this" in reply["error"]["message"]
    assert server.server.alive()
    assert _pid(server, pane) == pid
    ok(server.request("pane.send_text", {"pane_id": pane, "text": "x"}))


WRONG_PROTOCOL = """#!{python}
import os, sys
sys.path[:0] = {path!r}
from herdr.server import handoff_wire
fd = int(sys.argv[sys.argv.index("--handoff-fd") + 1])
import socket
sock = socket.socket(fileno=fd)
handoff_wire.send_frame(sock, {{"kind": "ready", "protocol": 999, "version": "9.9",
                                "handoff_version": 1, "pid": os.getpid()}})
sock.recv(100)
"""

# argv is: server --handoff-fd N ...: write junk to descriptor N instead of a frame
GARBAGE = '#!/bin/sh\neval "printf garbage-that-is-not-a-frame-at-all >&$3"\nsleep 1\n'


@pytest.mark.parametrize(
    ("body", "code_", "fragment"),
    [
        pytest.param(WRONG_PROTOCOL, "protocol_mismatch", "protocol 999", id="wrong-protocol"),
        pytest.param(
            "#!/bin/sh\necho broken >&2\nexit 7\n", "handoff_failed", "status 7", id="exits"
        ),
        pytest.param(GARBAGE, "handoff_failed", "did not take over", id="garbage"),
    ],
)
def test_an_incompatible_new_executable_leaves_the_old_serving(
    herdr_server: ServerHandle, body: str, code_: str, fragment: str
) -> None:
    server = herdr_server
    pane = _split(server, ["sleep", "300"])
    pid = _pid(server, pane)
    text = body.format(python=sys.executable, path=sys.path)
    exe = _script(server.root, "bad-herdr", text)
    reply = _request(server.socket_path, "server.live_handoff", {"import_exe": exe})
    assert code(reply) == code_, reply
    assert fragment in reply["error"]["message"], reply
    assert server.server.alive()
    assert _pid(server, pane) == pid
    assert _alive(pid)
    ok(server.request("pane.send_text", {"pane_id": pane, "text": "x"}))


def test_kill_9_of_the_new_server_mid_transfer_leaves_the_old_serving(
    herdr_env: HerdrEnv,
) -> None:
    server = ServerHandle(
        herdr_env,
        herdr_env.start_server(
            env={"HERDR_TEST_HANDOFF_BATCH": "2", "HERDR_TEST_HANDOFF_PAUSE_AFTER": "1"}
        ),
    )
    panes = [_split(server, ["sleep", "300"]) for _ in range(5)]
    pids = {pane: _pid(server, pane) for pane in panes}
    screens = {pane: _read(server, pane) for pane in panes}
    exe = _herdr_exe(server.root)
    queued: list[dict[str, Any]] = []
    proc = subprocess.Popen(
        [sys.executable, "-m", "herdr", "server", "handoff", "--herdr", exe, "--json"],
        env=server.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        new_pid = wait_until(
            lambda: _paused_successor(server.server.pid), timeout=60, message="no successor"
        )
        assert new_pid is not None
        # frozen: a client connecting now waits in the backlog, it is not refused
        pinger = threading.Thread(
            target=lambda: queued.append(request(server.socket_path, "ping", {}, "queued"))
        )
        pinger.start()
        os.kill(new_pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=HANDOFF_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    pinger.join(30)
    assert queued and queued[0]["result"]["type"] == "pong", queued
    assert proc.returncode == 1, (out, err)
    assert "handoff_failed" in err, err
    assert server.server.alive()
    assert {pane: _pid(server, pane) for pane in panes} == pids
    assert {pane: _read(server, pane) for pane in panes} == screens
    ok(server.request("pane.send_text", {"pane_id": panes[0], "text": "x"}))
    assert ok(server.request("workspace.create", {}))  # accepting and changing again


def _start_paused_handoff(
    herdr_env: HerdrEnv, pause_after: str
) -> tuple[ServerHandle, dict[str, int], subprocess.Popen[str], int]:
    """Five sleep panes, a CLI handoff in the background, and the new server's pid once
    the test hook paused it (fd batches of two)."""
    server = ServerHandle(
        herdr_env,
        herdr_env.start_server(
            env={"HERDR_TEST_HANDOFF_BATCH": "2", "HERDR_TEST_HANDOFF_PAUSE_AFTER": pause_after}
        ),
    )
    panes = [_split(server, ["sleep", "300"]) for _ in range(5)]
    pids = {pane: _pid(server, pane) for pane in panes}
    exe = _herdr_exe(server.root)
    proc = subprocess.Popen(
        [sys.executable, "-m", "herdr", "server", "handoff", "--herdr", exe, "--json"],
        env=server.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(lambda: "handoff test pause" in _log(server), timeout=60, message="no pause")
    new_pid = _paused_successor(server.server.pid)
    assert new_pid is not None
    return server, pids, proc, new_pid


def test_kill_9_of_the_old_server_mid_transfer_hangs_up_the_panes(herdr_env: HerdrEnv) -> None:
    """Neither side has them all: the new one leaves, every PTY closes, the pane
    processes get SIGHUP (no PTY is left without an owner, no process keeps running)."""
    server, pids, cli, new_pid = _start_paused_handoff(herdr_env, "1")
    try:
        os.kill(server.server.pid, signal.SIGKILL)
        server.server.proc.wait(30)
        with contextlib.suppress(TimeoutError):
            wait_until(functools.partial(_gone, new_pid), timeout=30)
        assert _gone(new_pid), (Path(f"/proc/{new_pid}/stat").read_text(), _log(server))
        for pid in pids.values():
            wait_until(functools.partial(_gone, pid), timeout=30, message=f"{pid} orphaned")
        assert not pings(server.socket_path)
    finally:
        cli.kill()
        cli.wait()
        with contextlib.suppress(ProcessLookupError):
            os.kill(new_pid, signal.SIGKILL)


def test_kill_9_of_the_old_server_after_adoption_leaves_the_new_one_serving(
    herdr_env: HerdrEnv, successors: list[int]
) -> None:
    """The new one holds everything and its peer is dead: it keeps the panes."""
    server, pids, cli, new_pid = _start_paused_handoff(herdr_env, "adopted")
    successors.append(new_pid)
    try:
        os.kill(server.server.pid, signal.SIGKILL)
        server.server.proc.wait(30)
        wait_until(lambda: pings(server.socket_path), timeout=30, message="nobody serves")
        assert {pane: _pid(server, pane) for pane in pids} == pids
        assert all(_alive(pid) for pid in pids.values())
        ok(server.request("pane.send_text", {"pane_id": next(iter(pids)), "text": "x"}))
    finally:
        cli.kill()
        cli.wait()


def _paused_successor(parent: int) -> int | None:
    """The new server once it holds PTY masters (it pauses after the first batch)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) != parent:
                continue
            if b"--handoff-fd" not in (entry / "cmdline").read_bytes():
                continue
            fds = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
            if sum(1 for target in fds if target == "/dev/ptmx") >= 2:
                return int(entry.name)
    return None


def test_200_panes_hand_off(herdr_env: HerdrEnv, successors: list[int]) -> None:
    server = ServerHandle(herdr_env, herdr_env.start_server())
    ws = ok(server.request("workspace.create", {"command": ["sleep", "600"]}))
    ws_id = ws["workspace"]["workspace_id"]
    for _ in range(199):  # one workspace per tab of panes keeps every pane a usable size
        ok(server.request("tab.create", {"workspace_id": ws_id, "command": ["sleep", "600"]}))
    panes = ok(server.request("pane.list", {}))["panes"]
    assert len(panes) == 200
    pids = {p["pane_id"]: _pid(server, p["pane_id"]) for p in panes}
    started = time.monotonic()
    result = _handoff(server, successors)
    elapsed = time.monotonic() - started
    print(f"\n200-pane handoff: {elapsed:.2f} s round trip, server says {result['handoff']}")
    assert result["handoff"]["panes"] == 200
    assert result["handoff"]["fd_batches"] == 1
    _wait_old_gone(server)
    assert {p: _pid(server, p) for p in pids} == pids
    assert all(_alive(pid) for pid in pids.values())


def test_the_web_view_keeps_its_address_and_token(
    herdr_server: ServerHandle, successors: list[int]
) -> None:
    """Open pages reconnect to the new server: same port, same token, cookie still good."""
    from herdr_testing.web_view import cookie_header, http_get, start_web

    server = herdr_server
    _split(server)
    view = start_web(server)
    assert http_get(view.base + "/", cookie_header(view)).status == 200
    _handoff(server, successors)
    _wait_old_gone(server)
    again = ok(server.request("web.start", {"port": 0}))
    assert again["url"] == view.url  # the new server runs the same view
    assert http_get(view.base + "/", cookie_header(view)).status == 200
    assert http_get(view.base + "/", {"Cookie": f"{view.cookie}=wrong"}).status == 401


def test_plugin_startup_runs_again_on_the_new_server(
    herdr_server: ServerHandle, successors: list[int]
) -> None:
    """Spec §9: ``[[startup]]`` runs after restore and after a live handoff."""
    import json

    server = herdr_server
    recorder = Path(__file__).resolve().parents[1] / "fixtures" / "plugins" / "recorder"
    ok(server.request("plugin.link", {"path": str(recorder)}))
    runs = Path(server.env["XDG_STATE_HOME"]) / "herdr/plugins/test.recorder/runs.jsonl"

    def startups() -> int:
        if not runs.exists():
            return 0
        return sum(
            json.loads(line)["argv"] == ["startup"] for line in runs.read_text().splitlines()
        )

    before = startups()  # linked after this server started: its startup ran before that
    _split(server)
    _handoff(server, successors)
    _wait_old_gone(server)
    wait_until(lambda: startups() == before + 1, timeout=30, message="no startup run")

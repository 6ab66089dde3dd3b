"""File descriptors and the listen backlog under pressure, on a live server.

The server raises its soft RLIMIT_NOFILE to the hard limit (pane programs keep the
one it was given); connections past ``[server] max_connections`` or into the
descriptor reserve get one ``too_many_connections`` line (null id) and are closed, so
pane creation still works; EMFILE on accept is logged and answered; the backlog is
SOMAXCONN, and the CLI waits out a full backlog instead of saying no server runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr.api.client import AsyncClient, Client, HerdrError
from herdr_testing import HERDR, HerdrEnv, Server, pings, request, wait_until

_SUBSCRIPTIONS = {"subscriptions": [{"type": "pane.created"}]}
SUBSCRIBE = json.dumps({"id": "sub", "method": "events.subscribe", "params": _SUBSCRIPTIONS})
SUBSCRIBE_LINE = SUBSCRIBE.encode() + b"\n"
PING = b'{"id":"p","method":"ping","params":{}}\n'


# --------------------------------------------------------------------------- helpers


def start_with_nofile(herdr: HerdrEnv, soft: int, hard: int) -> Server:
    """``herdr server`` started with RLIMIT_NOFILE (soft, hard), waited for."""
    output = herdr.root / f"server-{len(herdr.servers)}.out"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    with output.open("wb") as sink:
        proc = subprocess.Popen(
            [*HERDR, "server"],
            env=herdr.env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=limit,  # noqa: PLW1509 - the limit must be set in the child
        )
    server = Server(proc, herdr.socket_path(), herdr.env, output)
    herdr.servers.append(server)

    def ready() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"server exited early:\n{server.log_text()}")
        return pings(server.socket_path)

    wait_until(ready, 20, message=f"server not ready:\n{server.log_text()}")
    return server


def write_config(herdr: HerdrEnv, text: str) -> None:
    path = Path(herdr.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def log_records(herdr: HerdrEnv) -> list[dict[str, Any]]:
    path = Path(herdr.env["XDG_STATE_HOME"]) / "herdr" / "server.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def first_line(sock: socket.socket) -> dict[str, Any] | None:
    buf = b""
    while b"\n" not in buf:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            return None
        buf += chunk
    doc: dict[str, Any] = json.loads(buf.split(b"\n", 1)[0])
    return doc


def subscribe(path: Path) -> tuple[socket.socket, dict[str, Any] | None]:
    """A held subscription, and its first line (started, or a refusal)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(path))
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        sock.sendall(SUBSCRIBE_LINE)
    return sock, first_line(sock)


def is_refusal(doc: dict[str, Any] | None) -> bool:
    return bool(
        doc is not None
        and doc.get("id") is None
        and doc.get("error", {}).get("code") == "too_many_connections"
    )


@contextlib.contextmanager
def held_until_refused(
    path: Path, most: int
) -> Iterator[tuple[list[socket.socket], dict[str, Any]]]:
    """Open subscriptions until the server refuses one; yields (held, refusal)."""
    held: list[socket.socket] = []
    refusal: dict[str, Any] | None = None
    try:
        for _ in range(most):
            sock, doc = subscribe(path)
            if is_refusal(doc):
                sock.close()
                refusal = doc
                break
            assert doc is not None and doc["result"]["type"] == "subscription_started", doc
            held.append(sock)
        assert refusal is not None, f"no refusal after {len(held)} held connections"
        yield held, refusal
    finally:
        for sock in held:
            sock.close()


def serves(path: Path) -> bool:
    """A ping is answered (not refused: a closed connection may not be noticed yet)."""
    try:
        return "result" in request(path, "ping", {})
    except OSError:
        return False


def nofile_of(pid: int) -> tuple[int, int]:
    soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    return soft, hard


def open_fds(pid: int) -> set[int]:
    return {int(name) for name in os.listdir(f"/proc/{pid}/fd")}


def workspace_with_output(path: Path, cwd: Path, command: str, expect: str) -> str:
    """Create a workspace (a new pane: a pty pair and a process), see it run; its pane id.

    ``expect`` must not occur in ``command`` itself (the typed line is echoed, and may
    share a row with the shell's prompt).
    """
    client = Client(path)
    created = client.workspace_create(cwd=str(cwd))
    pane: str = created["root_pane"]["pane_id"]
    client.pane_run(pane, command)
    client.pane_wait_for_output(pane, regex=expect, timeout_ms=15000)
    return pane


def test_soft_limit_is_raised_and_panes_keep_the_original(herdr_env: HerdrEnv) -> None:
    server = start_with_nofile(herdr_env, 256, 4096)
    assert nofile_of(server.pid) == (4096, 4096)
    workspace_with_output(
        server.socket_path, herdr_env.root, "echo nofile=$(ulimit -n)", "nofile=256$"
    )


# --------------------------------------------------------------------------- the cap


def test_connection_cap_from_config(herdr_env: HerdrEnv) -> None:
    write_config(herdr_env, "[server]\nmax_connections = 6\n")
    server = herdr_env.start_server()
    with held_until_refused(server.socket_path, 20) as (held, refusal):
        assert len(held) == 6
        assert "max_connections" in refusal["error"]["message"]
        # the held ones keep working: free one slot, create a pane, all five see it
        held.pop().close()
        wait_until(lambda: serves(server.socket_path))
        created = request(server.socket_path, "workspace.create", {"cwd": str(herdr_env.root)})
        pane_id = created["result"]["root_pane"]["pane_id"]
        for sock in held:
            event = first_line(sock)
            assert event is not None and event["data"]["pane"]["pane_id"] == pane_id
    # all closed: the server serves again, up to the cap
    wait_until(lambda: serves(server.socket_path))
    with held_until_refused(server.socket_path, 20) as (held, _refusal):
        assert len(held) == 6
    logged = [r for r in log_records(herdr_env) if r["msg"].startswith("refused a connection:")]
    assert logged and logged[0]["level"] == "warning"
    wait_until(server.alive, message="the server is gone")


def test_cap_follows_reload_config(herdr_env: HerdrEnv) -> None:
    write_config(herdr_env, "[server]\nmax_connections = 6\n")
    server = herdr_env.start_server()
    write_config(herdr_env, "[server]\nmax_connections = 3\n")
    reloaded = request(server.socket_path, "server.reload_config", {})
    assert reloaded["result"]["status"] == "applied", reloaded
    with held_until_refused(server.socket_path, 20) as (held, _refusal):
        assert len(held) == 3


# --------------------------------------------------------------------------- fd exhaustion


@pytest.fixture
def low_fd_server(herdr_env: HerdrEnv) -> Server:
    """A server that may open 64 descriptors, soft and hard (it cannot raise them)."""
    return start_with_nofile(herdr_env, 64, 64)


def test_low_ulimit_refuses_connections_before_panes_fail(
    herdr_env: HerdrEnv, low_fd_server: Server
) -> None:
    path = low_fd_server.socket_path
    first = workspace_with_output(path, herdr_env.root, "echo be$((1))fore", "be1fore")
    with held_until_refused(path, 64) as (held, refusal):
        assert "file descriptors" in refusal["error"]["message"]
        assert max(open_fds(low_fd_server.pid)) < 64
        # a slot frees up: pane creation still works (the reserve), the held see it
        held.pop().close()
        wait_until(lambda: serves(path))
        workspace_with_output(path, herdr_env.root, "echo at-the-$((6*7))", "at-the-42")
        for sock in held:
            event = first_line(sock)
            assert event is not None and event["event"] == "pane_created"
        # and the first pane still answers
        assert "be1fore" in Client(path).pane_read(first, source="recent")["read"]["text"]
    wait_until(lambda: serves(path), message="did not recover")
    with held_until_refused(path, 64) as (again, _refusal):
        assert len(again) >= len(held)
    logged = [r for r in log_records(herdr_env) if r["msg"].startswith("refused a connection:")]
    assert logged, "the refusals were not logged"
    wait_until(low_fd_server.alive, message="the server is gone")


def test_burst_of_cli_calls_near_the_cap_all_succeed(
    herdr_env: HerdrEnv, low_fd_server: Server
) -> None:
    """Two slots left and 30 CLI calls at once: refused ones retry and get through."""
    path = low_fd_server.socket_path
    with held_until_refused(path, 64) as (held, _refusal):
        held.pop().close()
        held.pop().close()
        procs = [
            subprocess.Popen(
                [*HERDR, "workspace", "list"],
                env=herdr_env.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(30)
        ]
        results = [(proc.wait(60), *proc.communicate()) for proc in procs]
    failed = [r for r in results if r[0] != 0]
    assert failed == []
    assert all(json.loads(out)["result"]["type"] == "workspace_list" for _, out, _ in results)


def test_emfile_on_accept_is_logged_and_answered(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server()
    soft, hard = nofile_of(server.pid)
    used = open_fds(server.pid)
    lowest_free = min(set(range(max(used) + 2)) - used)
    resource.prlimit(server.pid, resource.RLIMIT_NOFILE, (lowest_free, hard))
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(10)
        sock.connect(str(server.socket_path))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(PING)
        doc = first_line(sock)
        sock.close()
    finally:
        resource.prlimit(server.pid, resource.RLIMIT_NOFILE, (soft, hard))
    assert is_refusal(doc), doc
    record = wait_until(
        lambda: next((r for r in log_records(herdr_env) if "accept failed" in r["msg"]), None),
        message="EMFILE was not logged",
    )
    assert record is not None
    assert record["level"] == "error"
    assert "Too many open files" in record["msg"]
    # descriptors are back: the server accepts again, and holds none it did not before
    # (one it held then may be gone: start-up reads files in the background for a while)
    wait_until(lambda: serves(server.socket_path), message="did not recover")
    wait_until(lambda: open_fds(server.pid) <= used, message="descriptors leaked")


# --------------------------------------------------------------------------- the backlog


@contextlib.contextmanager
def stopped(server: Server) -> Iterator[None]:
    """The server process stopped (it accepts nothing), continued afterwards."""
    os.kill(server.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.pid, signal.SIGCONT)


def connect_nonblocking(path: Path) -> socket.socket | None:
    """A connection queued in the backlog, or None when the backlog is full (EAGAIN)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        sock.connect(str(path))
    except BlockingIOError:
        sock.close()
        return None
    return sock


def test_backlog_holds_a_burst_of_connections(herdr_env: HerdrEnv) -> None:
    """300 clients connect while the server cannot accept (a stall): none is turned away."""
    server = herdr_env.start_server()
    socks: list[socket.socket] = []
    try:
        with stopped(server):
            for _ in range(300):
                sock = connect_nonblocking(server.socket_path)
                assert sock is not None, f"backlog full after {len(socks)} connections"
                sock.setblocking(True)
                sock.sendall(PING)
                socks.append(sock)
        for sock in socks:
            sock.settimeout(10)
            doc = first_line(sock)
            assert doc is not None and doc["result"]["type"] == "pong", doc
    finally:
        for sock in socks:
            sock.close()


def _sleeping(pid: int, *, task: bool = False) -> bool:
    """Whether ``pid`` (a thread of ours with ``task``) waits in a sleep (backing off)."""
    where = f"/proc/self/task/{pid}/wchan" if task else f"/proc/{pid}/wchan"
    try:
        wchan = Path(where).read_text()
    except OSError:
        return False
    return "nanosleep" in wchan


def test_cli_waits_out_a_full_backlog(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server()
    with full_backlog(server) as fillers:
        cli = subprocess.Popen(
            [*HERDR, "pane", "list"],
            env=herdr_env.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_until(lambda: _sleeping(cli.pid) or cli.poll() is not None)
        for sock in fillers:
            sock.close()
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 0, err
    assert json.loads(out)["result"]["type"] == "pane_list"


@contextlib.contextmanager
def full_backlog(server: Server) -> Iterator[list[socket.socket]]:
    """The server stopped and its backlog full: every new connect gets EAGAIN."""
    fillers: list[socket.socket] = []
    try:
        with stopped(server):
            while (sock := connect_nonblocking(server.socket_path)) is not None:
                fillers.append(sock)
                assert len(fillers) <= socket.SOMAXCONN + 1
            yield fillers
    finally:
        for sock in fillers:
            sock.close()


def test_sdk_waits_out_a_full_backlog(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server()
    outcome: list[object] = []
    tid: list[int] = []

    def ping() -> None:
        tid.append(threading.get_native_id())
        try:
            outcome.append(Client(server.socket_path).ping())
        except Exception as exc:  # reported below
            outcome.append(exc)

    with full_backlog(server) as fillers:
        thread = threading.Thread(target=ping)
        thread.start()
        wait_until(lambda: tid and (_sleeping(tid[0], task=True) or not thread.is_alive()))
        for sock in fillers:
            sock.close()
    thread.join(60)
    assert len(outcome) == 1 and isinstance(outcome[0], dict), outcome
    assert outcome[0]["type"] == "pong"


@pytest.mark.parametrize("kind", ["sync", "asyncio", "uvloop"])
def test_sdk_reports_a_backlog_that_stays_full(herdr_env: HerdrEnv, kind: str) -> None:
    """Connects keep failing with EAGAIN: after ~1 s, too_many_connections (the selector
    loop even reports such a connect as done; the SDK notices it is not connected)."""
    server = herdr_env.start_server()

    def ping() -> object:
        if kind == "sync":
            return Client(server.socket_path).ping()
        if kind == "uvloop":
            import uvloop

            return uvloop.run(AsyncClient(server.socket_path).ping())
        return asyncio.run(AsyncClient(server.socket_path).ping())

    with full_backlog(server), pytest.raises(HerdrError) as info:
        ping()
    assert info.value.code == "too_many_connections"


def test_socket_file_without_listener_is_server_not_running(herdr_env: HerdrEnv) -> None:
    path = herdr_env.root / "dead.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # the file stays; connecting is refused (ECONNREFUSED)
    result = herdr_env.cli("pane", "list", env={"HERDR_SOCKET_PATH": str(path)})
    assert result.returncode == 1
    assert json.loads(result.stderr)["error"]["code"] == "server_not_running"


# --------------------------------------------------------------------------- pure parts


@pytest.mark.parametrize(
    ("held", "cap", "fd", "ceiling", "refused"),
    [
        pytest.param(0, 512, 10, 992, False, id="idle"),
        pytest.param(511, 512, 600, 992, False, id="last-slot"),
        pytest.param(512, 512, 600, 992, True, id="at-the-cap"),
        pytest.param(5, 512, 991, 992, False, id="just-below-the-reserve"),
        pytest.param(5, 512, 992, 992, True, id="into-the-reserve"),
    ],
)
def test_over_capacity(held: int, cap: int, fd: int, ceiling: int, refused: bool) -> None:
    from herdr.server.limits import over_capacity

    why = over_capacity(held=held, max_connections=cap, fd=fd, ceiling=ceiling)
    assert (why is not None) is refused


def test_throttle_logs_first_then_counts() -> None:
    from herdr.server.limits import Throttle

    throttle = Throttle(interval=5.0)
    # log now, two suppressed within 5 s, then log again saying two went unlogged
    assert [throttle.ready(t) for t in (100.0, 101.0, 102.0, 106.0)] == [0, None, None, 2]


def test_tui_connection_waits_out_a_full_backlog(herdr_env: HerdrEnv) -> None:
    """The TUI's command connection (on uvloop, as the client runs) retries EAGAIN too."""
    import uvloop

    from herdr.client.connection import Connection

    server = herdr_env.start_server()
    outcome: list[object] = []
    tid: list[int] = []

    def call() -> None:
        tid.append(threading.get_native_id())
        try:
            conn = Connection(str(server.socket_path))
            outcome.append(uvloop.run(conn.call("ping", {})))
        except Exception as exc:  # reported below
            outcome.append(exc)

    with full_backlog(server) as fillers:
        thread = threading.Thread(target=call)
        thread.start()
        # the loop's first step is the connect; a later wait in epoll is its backoff
        wait_until(lambda: tid and (_in_epoll(tid[0]) or not thread.is_alive()))
        for sock in fillers:
            sock.close()
    thread.join(60)
    assert len(outcome) == 1 and isinstance(outcome[0], dict), outcome
    assert outcome[0]["result"]["type"] == "pong"


def _in_epoll(tid: int) -> bool:
    try:
        return "epoll" in Path(f"/proc/self/task/{tid}/wchan").read_text()
    except OSError:
        return False

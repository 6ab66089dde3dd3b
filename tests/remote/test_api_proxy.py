"""``herdr api proxy``: stdio <-> this machine's server socket, the remote end of ssh.

Run here without ssh (its stdin/stdout are what ssh would connect): it relays a
request and the server's answer byte for byte, passes a large answer intact through
its bounded chunks, keeps a held stream open, answers exactly one error line when no
server runs (starting none), and refuses a server of another protocol.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from herdr_testing import HERDR, HerdrEnv, ServerHandle, request, wait_until

pytestmark = pytest.mark.slow


def proxy(
    env: dict[str, str], data: bytes, *args: str, timeout: float = 30
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*HERDR, "api", "proxy", *args],
        env=env,
        input=data,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def line(method: str, params: dict[str, object], rid: str = "p1") -> bytes:
    return json.dumps({"id": rid, "method": method, "params": params}).encode() + b"\n"


def test_a_request_and_its_answer_pass_through(herdr_server: ServerHandle) -> None:
    done = proxy(herdr_server.env, line("ping", {}), "--expect-protocol", "22")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["id"] == "p1" and doc["result"]["type"] == "pong"


def test_a_large_answer_arrives_intact(herdr_server: ServerHandle) -> None:
    sock = herdr_server.socket_path
    ws = request(sock, "workspace.create", {})["result"]["workspace"]["workspace_id"]
    pane = f"{ws}:p1"
    run = {"pane_id": pane, "text": "seq 100000 140000", "keys": ["Enter"]}
    request(sock, "pane.send_input", run)
    read = {"pane_id": pane, "source": "recent", "lines": 50000}

    def direct() -> str:
        return str(request(sock, "pane.read", read)["result"]["read"]["text"])

    # "\n140000\n": seq's last line, not the command line echoing "seq 100000 140000"
    wait_until(lambda: "\n140000\n" in direct(), timeout=60, message="seq never finished")
    done = proxy(herdr_server.env, line("pane.read", read, "r"))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) > 64 * 1024  # more than one of the proxy's chunks
    text = json.loads(done.stdout)["result"]["read"]["text"]
    numbers = [int(n) for n in text.split() if n.isdigit()]
    # a window of seq's output, every line whole and in order across the chunks
    assert len(numbers) > 5000
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    # and a request line bigger than one chunk reaches the server whole
    big = "y" * 100_000
    done = proxy(herdr_server.env, line("pane.send_text", {"pane_id": pane, "text": big}))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["type"] == "ok"


def test_no_server_is_one_error_line_and_starts_nothing(herdr_env: HerdrEnv) -> None:
    done = proxy(herdr_env.env, line("ping", {}))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert doc["id"] is None and doc["error"]["code"] == "server_not_running"
    assert not herdr_env.socket_path().exists()


def test_another_protocol_is_refused(herdr_server: ServerHandle) -> None:
    done = proxy(herdr_server.env, line("ping", {}), "--expect-protocol", "21")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == "protocol_mismatch"


def test_a_held_stream_stays_open_until_stdin_ends(herdr_server: ServerHandle) -> None:
    sub = line("events.subscribe", {"subscriptions": [{"type": "workspace.created"}]})
    proc = subprocess.Popen(
        [*HERDR, "api", "proxy"],
        env=herdr_server.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(sub)
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["result"]["type"] == "subscription_started"
        request(herdr_server.socket_path, "workspace.create", {"label": "seen"})
        event = json.loads(proc.stdout.readline())
        assert event["event"] == "workspace_created"
        proc.stdin.close()  # the client went away: the proxy ends
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

"""One-shot requests answered in the accept callback (``Listener`` with ``handle_now``,
``Dispatcher.handle_now``): a request already read when its connection is accepted,
for a method that answers at once, is answered there; anything else takes the usual
path with nothing lost, and the answers are the same either way."""

from __future__ import annotations

import asyncio
import inspect
import json
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from herdr.server import dispatch
from herdr.server.methods import build_table
from herdr.server.transport import Connection, Listener
from herdr_testing import ServerHandle


def test_immediate_methods_answer_at_once() -> None:
    """The list holds only plain-function handlers of the table, none of the methods
    that hold their connection or run hooks after the answer."""
    table = build_table()
    for name in dispatch.IMMEDIATE:
        assert name in table, name
        assert not inspect.iscoroutinefunction(table[name].handler), name
    for held in ("events.subscribe", "events.wait", "client.attach", "agent.wait"):
        assert held not in dispatch.IMMEDIATE
    for hooked in ("server.stop", "server.live_handoff"):
        assert hooked not in dispatch.IMMEDIATE


# --- the listener: which path a connection takes -----------------------------------------


def _listen_and_run(clients: list[bytes], *, now_answer: bytes | None = b"now\n") -> dict[str, Any]:
    """A listener with recording handlers; each client connects and sends its bytes
    before the loop may accept (so they are there at accept), then reads to EOF."""
    seen: dict[str, Any] = {"now": [], "line": [], "replies": []}

    async def handle_line(line: bytes, conn: Connection) -> bytes:
        seen["line"].append(line)
        return b"usual\n"

    def handle_now(line: bytes, sock: socket.socket) -> bytes | None:
        seen["now"].append(line)
        if now_answer == b"raise":
            raise RuntimeError("boom")
        return now_answer

    def read_all(s: socket.socket) -> bytes:
        s.settimeout(10)
        out = b""
        while chunk := s.recv(1 << 20):
            out += chunk
        return out

    async def main() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.sock"
            listener = Listener(handle_line, handle_now=handle_now)
            await listener.start(path)
            socks = []
            for data in clients:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(str(path))  # queued in the backlog: the loop has not run yet
                if data:
                    s.sendall(data)
                socks.append(s)
            for s, data in zip(socks, clients, strict=True):
                if not data.endswith(b"\n"):
                    await asyncio.sleep(0.05)  # accepted meanwhile; the line ends later
                    s.sendall(b"rest\n")
            replies = await asyncio.gather(*(asyncio.to_thread(read_all, s) for s in socks))
            seen["replies"] = list(replies)
            for s in socks:
                s.close()
            await listener.close()

    asyncio.run(main())
    return seen


def test_a_whole_one_shot_line_is_answered_at_accept() -> None:
    seen = _listen_and_run([b'{"id":"a"}\n'])
    assert seen["now"] == [b'{"id":"a"}\n']
    assert seen["line"] == []
    assert seen["replies"] == [b"now\n"]


def test_a_declined_line_takes_the_usual_path_whole() -> None:
    seen = _listen_and_run([b'{"id":"a"}\n'], now_answer=None)
    assert seen["now"] == [b'{"id":"a"}\n']
    assert seen["line"] == [b'{"id":"a"}']  # read at accept, handed on, nothing lost
    assert seen["replies"] == [b"usual\n"]


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b'{"id":"a"}\n{"id":"b"}\n', id="two-lines"),
        pytest.param(b'{"id":"a"', id="half-a-line"),
        pytest.param(b"", id="nothing-yet"),
    ],
)
def test_anything_but_one_whole_line_takes_the_usual_path(data: bytes) -> None:
    seen = _listen_and_run([data])
    assert seen["now"] == []
    assert len(seen["line"]) == 1 and seen["replies"] == [b"usual\n"]
    if data.startswith(b'{"id":"a"'):
        assert seen["line"][0].startswith(b'{"id":"a"')


def test_a_failing_immediate_handler_still_answers_one_line() -> None:
    seen = _listen_and_run([b'{"id":"a"}\n'], now_answer=b"raise")
    (reply,) = seen["replies"]
    doc = json.loads(reply)
    assert doc["id"] is None and doc["error"]["code"] == "internal_error"
    assert seen["line"] == []


def test_an_answer_larger_than_the_socket_takes_is_delivered_whole() -> None:
    big = b"x" * (8 * 1024 * 1024) + b"\n"
    seen = _listen_and_run([b'{"id":"a"}\n'], now_answer=big)
    assert seen["replies"] == [big]


# --- the dispatcher, on a real server: the same answers either way ----------------------


def _one_shot(path: str | Path, data: bytes, *, split: bool) -> dict[str, Any]:
    """Send a request whole (answered at accept) or in two writes (the usual path)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(str(path))
        if split:
            s.sendall(data[:5])
            time.sleep(0.05)
            s.sendall(data[5:])
        else:
            s.sendall(data)
        out = b""
        while chunk := s.recv(1 << 20):
            out += chunk
    assert out.count(b"\n") == 1, out
    doc: dict[str, Any] = json.loads(out)
    return doc


@pytest.mark.parametrize(
    "request_doc",
    [
        {"id": "r", "method": "ping", "params": {}},
        {"id": "r", "method": "workspace.list", "params": {}},
        {"id": "r", "method": "pane.list", "params": {}},
        {"id": "r", "method": "pane.get", "params": {"pane_id": "w1:p1"}},
        {"id": "r", "method": "pane.get", "params": {"pane_id": "w9:p9"}},  # not found
        {"id": "r", "method": "pane.get", "params": {}},  # invalid params
        {"id": "r", "method": "pane.list", "params": {"bogus": 1}},
        {"id": "r", "method": "agent.list", "params": {}},
        {"id": "r", "method": "ping"},  # no params
        {"id": 7, "method": "ping", "params": {}},  # id not a string
        {"id": "r", "method": "no.such", "params": {}},
        {"id": "r", "method": ["ping"], "params": {}},  # a method that is no string
        {"id": "r", "method": "ping", "params": []},  # params not an object
        ["ping"],  # not an object
    ],
)
def test_answers_are_the_same_at_accept_and_the_usual_way(
    herdr_server: ServerHandle, request_doc: object
) -> None:
    herdr_server.request("workspace.create", {"label": "w"})
    _settled(herdr_server)
    line = json.dumps(request_doc).encode() + b"\n"
    whole = _one_shot(herdr_server.socket_path, line, split=False)
    split = _one_shot(herdr_server.socket_path, line, split=True)
    assert whole == split


P = "w1:p1"
# a request for every immediate method (valid params where the method can be used on a
# fresh workspace, so the handler runs): answered at accept and the usual way alike
EVERY_IMMEDIATE: dict[str, dict[str, Any]] = {
    "ping": {},
    "session.snapshot": {},
    "workspace.list": {},
    "workspace.get": {"workspace_id": "w1"},
    "tab.list": {},
    "tab.get": {"tab_id": "w1:t1"},
    "pane.list": {},
    "pane.get": {"pane_id": P},
    "pane.current": {"caller_pane_id": P},
    "pane.read": {"pane_id": P, "source": "visible"},
    "pane.send_text": {"pane_id": P, "text": ""},
    "pane.send_keys": {"pane_id": P, "keys": []},
    "pane.send_input": {"pane_id": P, "text": ""},
    "pane.process_info": {"pane_id": P},
    "pane.neighbor": {"pane_id": P, "direction": "left"},
    "pane.edges": {"pane_id": P},
    "layout.export": {"pane_id": P},
    "agent.list": {},
    "agent.get": {"target": P},
    "agent.read": {"target": P, "source": "visible"},
    "agent.explain": {"target": P},
    "pane.report_agent": {"pane_id": P, "source": "test", "agent": "claude", "state": "idle"},
    "pane.report_agent_session": {"pane_id": P, "source": "test", "agent": "claude"},
    "pane.release_agent": {"pane_id": P, "source": "test", "agent": "claude"},
    "pane.report_metadata": {"pane_id": P, "source": "test", "title": "t"},
    "workspace.report_metadata": {
        "workspace_id": "w1",
        "source": "test",
        "tokens": {"branch": "main"},
    },
}
AGENT_NEEDED = {"agent.get", "agent.read", "agent.explain"}
CHANGES_STATE = {"pane.report_agent", "pane.report_agent_session", "pane.release_agent"}


def _settled(server: ServerHandle) -> None:
    """Wait until pane w1:p1's record stays the same for a moment (its shell started)."""
    deadline = time.monotonic() + 10
    last = None
    while time.monotonic() < deadline:
        now = server.request("pane.get", {"pane_id": P})
        if now == last:
            return
        last = now
        time.sleep(0.3)


def test_every_immediate_method_is_covered() -> None:
    assert set(EVERY_IMMEDIATE) == dispatch.IMMEDIATE


@pytest.mark.parametrize("method", sorted(EVERY_IMMEDIATE))
def test_every_immediate_method_answers_alike(herdr_server: ServerHandle, method: str) -> None:
    herdr_server.request("workspace.create", {"label": "w"})
    if method in AGENT_NEEDED:
        report = EVERY_IMMEDIATE["pane.report_agent"]
        assert "result" in herdr_server.request("pane.report_agent", report)
    _settled(herdr_server)  # the shell's start-up output would change a pane's record
    doc = {"id": "r", "method": method, "params": EVERY_IMMEDIATE[method]}
    line = json.dumps(doc).encode() + b"\n"
    whole = _one_shot(herdr_server.socket_path, line, split=False)
    split = _one_shot(herdr_server.socket_path, line, split=True)
    for reply in (whole, split):
        assert "result" in reply, reply  # the handler ran
    if method in CHANGES_STATE:
        assert whole.keys() == split.keys()
    else:
        assert whole == split


def test_an_immediate_send_reaches_the_pane(herdr_server: ServerHandle) -> None:
    created = herdr_server.request("workspace.create", {"label": "w"})["result"]
    pane_id = created["root_pane"]["pane_id"]
    doc = {
        "id": "s",
        "method": "pane.send_text",
        "params": {"pane_id": pane_id, "text": "echo imm$((6*7))\r"},
    }
    reply = _one_shot(herdr_server.socket_path, json.dumps(doc).encode() + b"\n", split=False)
    assert "result" in reply, reply
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        read = herdr_server.request("pane.read", {"pane_id": pane_id, "source": "recent"})
        if "imm42" in json.dumps(read):
            return
        time.sleep(0.05)
    raise AssertionError("the text never reached the pane")


def test_a_subscription_whose_client_half_closed_at_once_is_still_answered(
    herdr_server: ServerHandle,
) -> None:
    """``printf '{..events.subscribe..}\\n' | nc -U``: the request and the EOF are both
    read before the handler runs (the line at accept), and the answer still goes out."""
    params = {"subscriptions": [{"type": "workspace.created"}]}
    line = json.dumps({"id": "s", "method": "events.subscribe", "params": params}).encode()
    for _ in range(30):
        reply = herdr_server.raw(line + b"\n", half_close=True, timeout=10)
        first = json.loads(reply.splitlines()[0]) if reply else {}
        assert first.get("result", {}).get("type") == "subscription_started", reply

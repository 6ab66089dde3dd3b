"""Envelope and error formats, and the transport's bounds, on a live server."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from typing import Any

import pytest

from herdr.api import protocol
from herdr_testing import ServerHandle, pings


def one_reply(server: ServerHandle, data: bytes, **kwargs: Any) -> dict[str, Any]:
    lines = server.raw(data, **kwargs).splitlines()
    assert len(lines) == 1, lines
    doc: dict[str, Any] = json.loads(lines[0])
    return doc


def line(doc: object) -> bytes:
    return json.dumps(doc).encode() + b"\n"


@pytest.mark.parametrize(
    ("request_doc", "rid", "code", "needle"),
    [
        pytest.param(
            {"id": "a", "method": "nope.nope", "params": {}},
            "a",
            "invalid_request",
            "unknown method",
            id="unknown-method",
        ),
        pytest.param(
            {"id": "a2", "method": "x" * 1_000_000, "params": {}},
            "a2",
            "invalid_request",
            "unknown method 'xxx",
            id="unknown-method-megabyte",
        ),
        pytest.param(
            {"id": "b", "method": "server.live_handoff", "params": {"import_exe": "/nonexistent"}},
            "b",
            "handoff_failed",
            "cannot start the new server",
            id="handoff-to-a-missing-executable",
        ),
        pytest.param(
            {"id": "c", "method": "ping"}, "c", "invalid_request", "params", id="params-missing"
        ),
        pytest.param(
            {"id": "d", "method": "ping", "params": []},
            "d",
            "invalid_request",
            "params: expected object",
            id="params-not-object",
        ),
        pytest.param(
            {"id": 7, "method": "ping", "params": {}},
            "",
            "invalid_request",
            "id",
            id="id-not-string",
        ),
        pytest.param(
            {"method": "ping", "params": {}}, "", "invalid_request", "id", id="id-missing"
        ),
        pytest.param(
            {"id": "e", "method": 5, "params": {}},
            "e",
            "invalid_request",
            "method",
            id="method-not-string",
        ),
        pytest.param([1, 2], "", "invalid_request", "object", id="array"),
        # the id was readable: every error answer carries it (issue 13)
        pytest.param(
            {"id": "m1", "params": {}}, "m1", "invalid_request", "method", id="method-missing"
        ),
        pytest.param(
            {"id": "m2", "method": None, "params": {}},
            "m2",
            "invalid_request",
            "method",
            id="method-null",
        ),
        pytest.param(
            {"id": "m3", "method": ["ping"], "params": {}},
            "m3",
            "invalid_request",
            "method",
            id="method-array",
        ),
        pytest.param(
            {"id": "m4", "method": "ping", "params": None},
            "m4",
            "invalid_request",
            "params",
            id="params-null",
        ),
        pytest.param(
            {"id": "m5", "method": "ping", "params": "x"},
            "m5",
            "invalid_request",
            "params",
            id="params-string",
        ),
        pytest.param(
            {"id": "m6", "method": "pane.get", "params": {"pane_id": 5}},
            "m6",
            "invalid_request",
            "pane_id",
            id="param-wrong-type",
        ),
        pytest.param(
            {"id": "m7", "method": "pane.get", "params": {"pane_id": "w9:p9"}},
            "m7",
            "pane_not_found",
            "w9:p9",
            id="handler-error",
        ),
        pytest.param(
            {"id": "", "method": 1, "params": {}}, "", "invalid_request", "method", id="id-empty"
        ),
        # no readable id: the fallback "" (spec §3.1)
        pytest.param(
            {"id": None, "method": "ping", "params": {}}, "", "invalid_request", "id", id="id-null"
        ),
        pytest.param(
            {"id": ["a"], "method": 5}, "", "invalid_request", "id", id="id-array-and-bad-method"
        ),
        pytest.param(
            {"id": {"x": "a"}, "method": "ping", "params": {}},
            "",
            "invalid_request",
            "id",
            id="id-object",
        ),
        pytest.param("ping", "", "invalid_request", "object", id="string"),
        pytest.param(
            {"id": "f", "method": "events.subscribe", "params": {}},
            "f",
            "invalid_request",
            "params.subscriptions: missing",
            id="missing-field",
        ),
        pytest.param(
            {"id": "g", "method": "events.subscribe", "params": {"subscriptions": 3}},
            "g",
            "invalid_request",
            "params.subscriptions: expected array",
            id="wrong-type",
        ),
        pytest.param(
            {
                "id": "h",
                "method": "events.subscribe",
                "params": {"subscriptions": [{"type": "nope"}]},
            },
            "h",
            "invalid_request",
            "params.subscriptions[0].type",
            id="bad-subscription",
        ),
        pytest.param(
            {
                "id": "i",
                "method": "events.wait",
                "params": {"match_event": {"event": "pane_closed"}},
            },
            "i",
            "invalid_request",
            "params.match_event.pane_id",
            id="wait-missing-filter",
        ),
        pytest.param(
            {
                "id": "j",
                "method": "events.wait",
                "params": {"match_event": {"event": "layout_updated"}},
            },
            "j",
            "unsupported_event_wait_match",
            "layout_updated",
            id="wait-unsupported",
        ),
        pytest.param(
            {
                "id": "k",
                "method": "events.wait",
                "params": {"match_event": {"event": "pane_created"}, "timeout_ms": -1},
            },
            "k",
            "invalid_request",
            "params.timeout_ms",
            id="negative-timeout",
        ),
        pytest.param(
            {
                "id": "l",
                "method": "events.subscribe",
                "params": {"subscriptions": [{"type": "pane.scroll_changed", "pane_id": "w9:p9"}]},
            },
            "l",
            "pane_not_found",
            "w9:p9",
            id="subscription-unknown-pane",
        ),
    ],
)
def test_error_envelopes(
    shared_server: ServerHandle, request_doc: object, rid: str, code: str, needle: str
) -> None:
    doc = one_reply(shared_server, line(request_doc))
    assert set(doc) == {"id", "error"}
    assert doc["id"] == rid
    assert set(doc["error"]) == {"code", "message"}
    assert doc["error"]["code"] == code
    assert needle in doc["error"]["message"]
    assert len(doc["error"]["message"]) < 2000  # nothing a client sent is echoed whole


def test_unknown_fields_are_ignored(shared_server: ServerHandle) -> None:
    doc = one_reply(
        shared_server, line({"id": "x", "method": "ping", "params": {"zz": 1}, "extra": True})
    )
    assert doc["result"]["type"] == "pong"


def test_request_without_newline_is_answered_at_eof(shared_server: ServerHandle) -> None:
    doc = one_reply(shared_server, b'{"id":"n","method":"ping","params":{}}', half_close=True)
    assert doc["id"] == "n"


def test_only_the_first_line_counts(shared_server: ServerHandle) -> None:
    data = line({"id": "1", "method": "ping", "params": {}}) + line(
        {"id": "2", "method": "ping", "params": {}}
    )
    assert one_reply(shared_server, data)["id"] == "1"


def test_invalid_utf8_is_invalid_request(shared_server: ServerHandle) -> None:
    doc = one_reply(shared_server, b'{"id":"\xff\xfe","method":"ping","params":{}}\n')
    assert doc == {"id": "", "error": doc["error"]}
    assert doc["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("data", [b"\n", b"   \r\n", b""], ids=["empty", "blank", "nothing"])
def test_empty_lines_are_dropped(shared_server: ServerHandle, data: bytes) -> None:
    assert shared_server.raw(data, half_close=True) == b""
    assert pings(shared_server.socket_path)


def test_oversized_line_is_dropped_and_others_are_served(shared_server: ServerHandle) -> None:
    big = b'{"id":"big","method":"ping","params":{"x":"' + b"a" * (
        protocol.MAX_REQUEST_LINE_BYTES + 10
    )
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(shared_server.socket_path))
    try:
        with pytest.raises((BrokenPipeError, ConnectionResetError)):
            sock.sendall(big + b'"}}\n')
            sock.sendall(b"x" * 1_000_000)  # keeps writing after the server dropped us
        reply = b""
        with contextlib.suppress(OSError):
            reply = sock.recv(100)
        assert reply == b""
    finally:
        sock.close()
    assert pings(shared_server.socket_path)


def test_line_of_exactly_the_limit_is_accepted(shared_server: ServerHandle) -> None:
    head = b'{"id":"L","method":"ping","params":{"pad":"'
    tail = b'"}}'
    pad = protocol.MAX_REQUEST_LINE_BYTES - len(head) - len(tail)
    doc = one_reply(shared_server, head + b"a" * pad + tail + b"\n")
    assert doc["result"]["type"] == "pong"


def test_client_that_never_sends_newline_is_dropped_after_bound(
    shared_server: ServerHandle,
) -> None:
    slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    slow.settimeout(protocol.FIRST_LINE_TIMEOUT_S + 10)
    slow.connect(str(shared_server.socket_path))
    try:
        slow.sendall(b'{"id":"slow","method":"ping"')
        started = time.monotonic()
        # meanwhile other clients are served
        for _ in range(5):
            assert pings(shared_server.socket_path)
        reply = slow.recv(100)
        waited = time.monotonic() - started
    finally:
        slow.close()
    assert reply == b""
    assert waited >= protocol.FIRST_LINE_TIMEOUT_S - 1


def test_client_vanishing_mid_line_and_mid_stream(shared_server: ServerHandle) -> None:
    for payload in (b'{"id":"v","meth', b""):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(str(shared_server.socket_path))
        if payload:
            sock.sendall(payload)
        sock.close()
    # a subscriber that disappears while its stream is open
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(shared_server.socket_path))
    sock.sendall(line({"id": "s", "method": "events.subscribe", "params": {"subscriptions": []}}))
    assert b"subscription_started" in sock.recv(1000)
    sock.close()
    assert pings(shared_server.socket_path)


def test_many_concurrent_connections(shared_server: ServerHandle) -> None:
    socks = []
    for _ in range(50):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(str(shared_server.socket_path))
        socks.append(s)
    try:
        for i, s in enumerate(socks):
            s.sendall(line({"id": str(i), "method": "ping", "params": {}}))
        for i, s in enumerate(socks):
            s.settimeout(10)
            assert json.loads(s.recv(4096))["id"] == str(i)
    finally:
        for s in socks:
            s.close()


@pytest.mark.parametrize(
    "data",
    [b'{"id":"u","method":"ping"\n', b'{"id":"u","method":"ping","params":{}} x\n', b"u\n"],
    ids=["truncated", "trailing-garbage", "bare-word"],
)
def test_unparseable_lines_get_the_fallback_id(shared_server: ServerHandle, data: bytes) -> None:
    """An id inside a line that is not JSON was never read: ``""`` (spec §3.1)."""
    doc = one_reply(shared_server, data)
    assert doc == {"id": "", "error": doc["error"]}
    assert doc["error"]["code"] == "invalid_request"

"""Protocol fuzzing: whatever a client sends, it gets one specific answer (or is dropped
at a bound) and the next client is still served."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from herdr.api import protocol
from herdr_testing import ServerHandle, pings

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Answers that say "your request was wrong"; internal_error would mean a server bug.
CLIENT_ERRORS = protocol.ERROR_CODES - {protocol.INTERNAL_ERROR}


def is_client_error(code: str) -> bool:
    return code in CLIENT_ERRORS or code.startswith("invalid_") or code.endswith("_failed")


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)

# Held or destructive methods are exercised separately.
# (server.live_handoff replaces the server: tests/server/test_live_handoff.py.)
FUZZED_METHODS = sorted(
    set(protocol.METHODS) - protocol.HELD_METHODS - {"server.stop", "server.live_handoff"}
)


def replies(server: ServerHandle, data: bytes) -> list[dict[str, Any]]:
    raw = server.raw(data, half_close=True, timeout=10)
    return [json.loads(line) for line in raw.splitlines()]


def assert_one_client_error(server: ServerHandle, data: bytes) -> None:
    docs = replies(server, data)
    assert len(docs) <= 1
    if docs:
        doc = docs[0]
        if "error" in doc:
            assert is_client_error(doc["error"]["code"]), doc
            assert isinstance(doc["error"]["message"], str)
        else:
            assert isinstance(doc["result"]["type"], str)


@FUZZ
@given(data=st.binary(max_size=300))
def test_random_bytes(shared_server: ServerHandle, data: bytes) -> None:
    assert_one_client_error(shared_server, data)
    assert pings(shared_server.socket_path)


@FUZZ
@given(doc=json_values)
def test_random_json_documents(shared_server: ServerHandle, doc: object) -> None:
    assert_one_client_error(shared_server, json.dumps(doc).encode() + b"\n")


@FUZZ
@given(
    method=st.sampled_from(FUZZED_METHODS) | st.text(max_size=15),
    params=json_values,
    rid=st.text(max_size=10),
)
def test_random_params_for_every_method(
    shared_server: ServerHandle, method: str, params: object, rid: str
) -> None:
    line = json.dumps({"id": rid, "method": method, "params": params}).encode() + b"\n"
    docs = replies(shared_server, line)
    assert len(docs) == 1
    doc = docs[0]
    assert doc["id"] == rid
    if "error" in doc:
        assert is_client_error(doc["error"]["code"]), doc


@FUZZ
@given(
    subscriptions=st.lists(
        st.fixed_dictionaries(
            {"type": st.sampled_from(protocol.SUBSCRIPTION_TYPES) | st.text(max_size=8)},
            optional={"pane_id": json_values, "agent_status": json_values},
        ),
        max_size=3,
    ),
    since_seq=st.none() | st.integers(min_value=-5, max_value=10**6),
)
def test_subscribe_params(
    shared_server: ServerHandle, subscriptions: list[dict[str, Any]], since_seq: int | None
) -> None:
    params: dict[str, Any] = {"subscriptions": subscriptions}
    if since_seq is not None:
        params["since_seq"] = since_seq
    line = json.dumps({"id": "s", "method": "events.subscribe", "params": params}).encode()
    sock_reply = shared_server.raw(line + b"\n", half_close=True, timeout=10)
    first = json.loads(sock_reply.splitlines()[0])
    if "error" in first:
        assert is_client_error(first["error"]["code"]), first
    else:
        assert first["result"]["type"] == "subscription_started"


@FUZZ
@given(match_event=json_values, timeout_ms=st.none() | st.integers(-1, 30))
def test_wait_params(
    shared_server: ServerHandle, match_event: object, timeout_ms: int | None
) -> None:
    params: dict[str, Any] = {"match_event": match_event, "timeout_ms": timeout_ms}
    line = json.dumps({"id": "w", "method": "events.wait", "params": params}).encode()
    docs = replies(shared_server, line + b"\n")
    # A valid wait with no timeout holds until we hang up (half_close = EOF): no answer.
    assert len(docs) <= 1
    if docs and "error" in docs[0]:
        assert is_client_error(docs[0]["error"]["code"]), docs[0]


def test_server_survived(shared_server: ServerHandle) -> None:
    assert shared_server.herdr.servers[0].alive()

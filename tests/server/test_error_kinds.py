"""Which error code a malformed request gets, drawn where herdr's serde draws it.

A request whose params do not *deserialize* (wrong JSON type, unknown enum or tag value,
missing field, an integer outside its format, ``params`` not an object) is answered
``invalid_request``; params that parse but break a limit of ours (string length, a minimum
stricter than the format) get ``invalid_params``; a well-formed id naming nothing gets the
``*_not_found`` code. Every answer is exactly one line, keeps the request id, and changes
nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from herdr.api.schema import method_params_refs, request_defs
from herdr.api.validate import ParamsValidator
from herdr_testing import ServerHandle
from herdr_testing.fake_env import new_workspace, ok

VALIDATE = ParamsValidator(request_defs(), method_params_refs())

_MATCH = {"type": "substring", "value": "x"}

# (method, params, malformed?) judged by the validator alone, including methods that have
# no handler yet (their schema is declared all the same).
PURE: list[Any] = [
    pytest.param("pane.get", {"pane_id": 5}, True, id="wrong-type"),
    pytest.param("pane.get", {}, True, id="missing-field"),
    pytest.param("pane.read", {"pane_id": "p", "lines": 1.5}, True, id="float-for-integer"),
    pytest.param("pane.read", {"pane_id": "p", "lines": True}, True, id="bool-for-integer"),
    pytest.param("pane.read", {"pane_id": "p", "source": "nope"}, True, id="unknown-enum"),
    pytest.param(
        "events.subscribe", {"subscriptions": [{"type": "pane.nope"}]}, True, id="unknown-tag"
    ),
    pytest.param(
        "pane.copy_motion",
        {"pane_id": "p", "cursor": {"row": 0, "col": 0}, "motion": "teleport"},
        True,
        id="unknown-motion",
    ),
    pytest.param(
        "pane.link.activate",
        {"pane_id": "p", "viewport_row": 0, "col": 65536},
        True,
        id="u16-overflow",
    ),
    pytest.param(
        "events.wait",
        {"match_event": {"event": "pane_created"}, "timeout_ms": -1},
        True,
        id="negative-unsigned",
    ),
    pytest.param("workspace.rename", {"workspace_id": "w1", "label": "x" * 300}, False, id="len"),
    pytest.param(
        "pane.report_metadata", {"pane_id": "p", "source": "s", "ttl_ms": 0}, False, id="ttl-min"
    ),
]


@pytest.mark.parametrize(("method", "params", "malformed"), PURE)
def test_the_validator_tells_malformed_from_over_a_limit(
    method: str, params: dict[str, Any], malformed: bool
) -> None:
    problem = VALIDATE(method, params)
    assert problem is not None
    assert problem.malformed is malformed, problem


@pytest.fixture(scope="module")
def ws(shared_server: ServerHandle) -> str:
    return new_workspace(shared_server)


def _sub(**extra: Any) -> dict[str, Any]:
    return {"subscriptions": [{"type": "pane.output_matched", "pane_id": "{pane}", **extra}]}


LIVE: list[Any] = [
    pytest.param(("ping", [], "invalid_request", "params: expected object"), id="params-array"),
    pytest.param(("ping", None, "invalid_request", "params: expected object"), id="params-null"),
    pytest.param(("ping", 7, "invalid_request", "params: expected object"), id="params-number"),
    pytest.param(("pane.get", {"pane_id": 5}, "invalid_request", "pane_id"), id="wrong-type"),
    pytest.param(("pane.get", {}, "invalid_request", "params.pane_id: missing"), id="missing"),
    pytest.param(
        (
            "pane.read",
            {"pane_id": "{pane}", "source": "everything"},
            "invalid_request",
            "params.source",
        ),
        id="unknown-enum",
    ),
    pytest.param(
        (
            "pane.read",
            {"pane_id": "{pane}", "source": "visible", "lines": 2**32},
            "invalid_request",
            "params.lines",
        ),
        id="u32-overflow",
    ),
    pytest.param(
        (
            "pane.split",
            {"target_pane_id": "{pane}", "direction": "sideways"},
            "invalid_request",
            "params.direction",
        ),
        id="unknown-direction",
    ),
    pytest.param(
        (
            "events.subscribe",
            {"subscriptions": [{"type": "pane.nope", "pane_id": "{pane}"}]},
            "invalid_request",
            "params.subscriptions[0].type",
        ),
        id="unknown-subscription-type",
    ),
    pytest.param(
        (
            "events.subscribe",
            _sub(source="recent"),
            "invalid_request",
            "params.subscriptions[0].match: missing",
        ),
        id="subscription-missing-match",
    ),
    pytest.param(
        (
            "pane.report_agent",
            {"pane_id": "{pane}", "source": "s", "agent": "a", "state": "sleeping"},
            "invalid_request",
            "params.state",
        ),
        id="unknown-agent-state",
    ),
    pytest.param(
        (
            "workspace.rename",
            {"workspace_id": "{ws}", "label": "y" * 300},
            "invalid_params",
            "must be at most 256",
        ),
        id="over-long-label",
    ),
    pytest.param(
        (
            "pane.report_metadata",
            {"pane_id": "{pane}", "source": "s", "ttl_ms": 0},
            "invalid_metadata_ttl",  # parses; the handler's own code (its precheck)
            "ttl_ms",
        ),
        id="ttl-below-minimum",
    ),
    pytest.param(
        (
            "agent.wait",
            {"target": "{pane}", "targets": ["{pane}", 3]},
            "invalid_request",
            "targets",
        ),
        id="wait-targets-not-strings",
    ),
    pytest.param(
        ("agent.wait", {"target": "{pane}", "mode": "some"}, "invalid_request", "mode"),
        id="wait-unknown-mode",
    ),
    pytest.param(("pane.get", {"pane_id": "w99:p9"}, "pane_not_found", "w99:p9"), id="unknown-id"),
    pytest.param(
        ("workspace.get", {"workspace_id": "w99"}, "workspace_not_found", "w99"), id="unknown-ws"
    ),
]


def _fill(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**names) if "{" in value else value
    if isinstance(value, dict):
        return {k: _fill(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, names) for v in value]
    return value


def _state(server: ServerHandle) -> Any:
    snap = ok(server.request("session.snapshot", {}))["snapshot"]
    return snap["workspaces"], snap["tabs"], snap["panes"], snap["agents"]


@pytest.mark.parametrize("case", LIVE)
def test_each_malformed_request_gets_exactly_one_answer_with_its_code(
    shared_server: ServerHandle, ws: str, case: tuple[str, Any, str, str]
) -> None:
    method, params, code, needle = case
    names = {"ws": ws, "pane": f"{ws}:p1"}
    before = _state(shared_server)
    line = json.dumps({"id": "kind-1", "method": method, "params": _fill(params, names)})
    lines = shared_server.raw(line.encode() + b"\n").splitlines()
    assert len(lines) == 1, lines
    reply = json.loads(lines[0])
    assert reply["id"] == "kind-1"
    assert reply["error"]["code"] == code, reply
    assert needle in reply["error"]["message"], reply
    assert _state(shared_server) == before
    assert shared_server.server.alive()


@pytest.mark.parametrize(
    ("line", "rid"),
    [
        pytest.param(b'{"id": "keep", "method": 5, "params": {}}', "keep", id="bad-method"),
        pytest.param(b'{"id": "keep", "method": "ping"}', "keep", id="no-params"),
        pytest.param(b'{"id": 12, "method": "ping", "params": {}}', "", id="numeric-id"),
        pytest.param(b'{"method": "ping", "params": {}}', "", id="no-id"),
        pytest.param(b'{"id": "x", "method": "ping", "params": {}', "", id="not-json"),
    ],
)
def test_error_answers_keep_the_id_when_it_could_be_read(
    shared_server: ServerHandle, line: bytes, rid: str
) -> None:
    lines = shared_server.raw(line + b"\n").splitlines()
    assert len(lines) == 1, lines
    reply = json.loads(lines[0])
    assert reply["id"] == rid
    assert reply["error"]["code"] == "invalid_request"

"""Schema-driven fuzzing of every method against one real server.

For each method of the exported request schema (plus ``client.attach``), hypothesis draws
params from the method's own definition: valid shapes with random and hostile values
(ids like ``w999:p999``, ``-rf``, ``../x``, huge and odd unicode strings, edge integers)
and invalid ones (a wrong type, a missing required field, an out-of-range integer,
unknown keys, params that are not an object). Every request must get exactly one
answer line: a ``result``, or an ``error`` whose code is one we define and whose message
is a string; ``internal_error`` is a server bug. After each method's batch the server
must still answer ``ping``, and the fixture's workspaces are rebuilt if the batch
changed them (closes, moves, layouts).

Bounds: waits get a short ``timeout_ms``; subscriptions and attach are read up to their
first line; ``server.stop`` and ``server.live_handoff`` only get params that fail
validation. Panes run ``/bin/cat`` so text sent to them is only echoed. The run is
derandomized (same examples every time, so a CI failure reproduces locally);
``HERDR_FUZZ_EXAMPLES`` raises the per-method count and ``HERDR_FUZZ_RANDOM=1`` draws
fresh examples, for a longer hunt locally.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from herdr.api import protocol, schema
from herdr.runtime.agents import START_KINDS
from herdr.server.methods import build_table
from herdr_testing import HerdrEnv, Server, make_env, pings, raw_exchange, request
from herdr_testing.schema_strategies import IdPools, ParamStrategies, json_values

EXAMPLES = int(os.environ.get("HERDR_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not os.environ.get("HERDR_FUZZ_RANDOM"),
    database=None,
    print_blob=True,
    suppress_health_check=list(HealthCheck),
)

# Codes defined outside protocol.ERROR_CODES (rule-specific families of §3.6).
EXTRA_CODES = frozenset(
    {
        "agent_explain_unavailable",
        "no_approval",
        "approval_changed",
        "approval_option_not_found",
        "invalid_agent",
        "invalid_metadata_request",
        "invalid_metadata_source",
        "invalid_metadata_token",
        "invalid_metadata_ttl",
        "metadata_sequence_source_limit",
        "metadata_token_limit",
        "layout_apply_failed",
        "pane_input_failed",
        "pane_split_failed",
        "tab_create_failed",
        "workspace_create_failed",
        "pane_clear_failed",
        "edit_scrollback_failed",
        "workspace_move_block_failed",
        "worktree_create_failed",
        "worktree_git_failed",
        "worktree_list_failed",
        "worktree_open_failed",
        "worktree_remove_failed",
    }
)
KNOWN_CODES = (protocol.ERROR_CODES | EXTRA_CODES) - {protocol.INTERNAL_ERROR}

ATTACH = "client.attach"
SCHEMA_REFS = schema.method_params_refs()
# The dispatch table's only method outside the schema; its params, by the precheck.
ATTACH_PARAMS = {
    "type": "object",
    "properties": {
        "cols": {"type": ["integer", "null"], "format": "uint16", "minimum": 0},
        "rows": {"type": ["integer", "null"], "format": "uint16", "minimum": 0},
        "workspace_id": {"type": ["string", "null"]},
        "tab_id": {"type": ["string", "null"]},
    },
}
# Valid calls would stop or replace the fixture server: fuzz only params that fail.
NEVER_VALID = frozenset({"server.stop", "server.live_handoff"})
# Answer first, then keep the connection for a stream: read the first line only.
STREAMING = frozenset({"events.subscribe", ATTACH})
# Hold until a match or their timeout: clamp the timeout so each answers quickly.
WAITING = frozenset({"events.wait", "pane.wait_for_output", "agent.wait", "agent.prompt"})
WAIT_CAP_MS = 40
# Remove what later examples target, or add panes (a process each): restore after each.
RESHAPING = frozenset(
    {"workspace.close", "tab.close", "pane.close", "pane.move"}
    | {"workspace.create", "tab.create", "pane.split", "layout.apply"}
)
READ_TIMEOUT_S = 15.0

ALL_METHODS = sorted({*SCHEMA_REFS, ATTACH})
# What each method answered, printed at the end (``pytest -s``) to show what was reached.
OUTCOMES: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)


def test_fuzzed_methods_are_the_schema_and_the_dispatch_table() -> None:
    assert set(SCHEMA_REFS) == set(protocol.METHODS)
    assert set(build_table()) <= set(ALL_METHODS)


# --- the fixture server ------------------------------------------------------------------


CLOSE_PANE = ("pane.close", "pane_id")
Shape = tuple[frozenset[str], frozenset[str], frozenset[str]]  # workspace, tab, pane ids


@dataclass
class Fixture:
    """One server with two workspaces (a split, a second tab) rebuilt when a batch broke it."""

    herdr: HerdrEnv
    server: Server
    ids: dict[str, list[str]] = field(default_factory=dict)
    shape: Shape = (frozenset(), frozenset(), frozenset())

    @property
    def path(self) -> Path:
        return self.server.socket_path

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        doc = request(self.path, method, params)
        assert "result" in doc, doc
        result: dict[str, Any] = doc["result"]
        return result

    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = self.call("session.snapshot", {})["snapshot"]
        return snap

    def current_shape(self) -> Shape:
        snap = self.snapshot()
        return (
            frozenset(w["workspace_id"] for w in snap["workspaces"]),
            frozenset(t["tab_id"] for t in snap["tabs"]),
            frozenset(p["pane_id"] for p in snap["panes"]),
        )

    def build(self) -> None:
        for workspace_id in self.current_shape()[0]:
            self.call("workspace.close", {"workspace_id": workspace_id})
        first = self.call("workspace.create", {"label": "fuzz-a"})
        pane = first["root_pane"]["pane_id"]
        self.call("pane.split", {"target_pane_id": pane, "direction": "right"})
        self.call("tab.create", {"workspace_id": first["workspace"]["workspace_id"]})
        second = self.call("workspace.create", {"label": "fuzz-b"})
        report = {"source": "fuzz", "agent": "claude", "state": "idle"}
        self.call("pane.report_agent", {"pane_id": second["root_pane"]["pane_id"], **report})
        self.shape = self.current_shape()
        ws, tabs, panes = (sorted(ids) for ids in self.shape)
        agents = [a["name"] for a in self.snapshot().get("agents", []) if a.get("name")]
        self.ids = {"workspaces": ws, "tabs": tabs, "panes": panes}
        self.ids["agents"] = [*agents, "claude", "fuzz-agent"]

    def restore(self) -> None:
        """Close what a call added; rebuild when it removed or moved something of ours."""
        shape = self.current_shape()
        if shape == self.shape:
            return
        if all(base <= now for base, now in zip(self.shape, shape, strict=True)):
            closers = ("workspace.close", "workspace_id"), ("tab.close", "tab_id"), CLOSE_PANE
            for (method, key), base, now in zip(closers, self.shape, shape, strict=True):
                for extra in sorted(now - base):
                    request(self.path, method, {key: extra})  # may be gone with its parent
            if self.current_shape() == self.shape:
                return
        self.build()


@pytest.fixture(scope="module")
def fixture() -> Iterator[Fixture]:
    root = Path(tempfile.mkdtemp(prefix="hf", dir="/tmp"))
    herdr = HerdrEnv(root, make_env(root))
    try:
        server = herdr.start_server(env={"SHELL": "/bin/cat"})
        fx = Fixture(herdr, server)
        fx.build()
        yield fx
    finally:
        herdr.close()
        shutil.rmtree(root, ignore_errors=True)


def strategies_for(fx: Fixture) -> ParamStrategies:
    pools = IdPools(
        workspaces=lambda: fx.ids["workspaces"],
        tabs=lambda: fx.ids["tabs"],
        panes=lambda: fx.ids["panes"],
        agents=lambda: fx.ids["agents"],
    )
    defs = {**schema.request_defs(), "ClientAttachParams": ATTACH_PARAMS}
    return ParamStrategies(defs, pools)


# --- bounding the calls that hold or would be destructive --------------------------------


def _cap_timeout(params: dict[str, Any]) -> None:
    value = params.get("timeout_ms")
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        params["timeout_ms"] = min(value or 0, WAIT_CAP_MS)


def bound(method: str, params: Any, fx: Fixture) -> Any:
    """Make a drawn call answer quickly and leave the fixture server running."""
    if not isinstance(params, dict):
        return params
    params = dict(params)
    if method in ("events.wait", "pane.wait_for_output", "agent.wait"):
        _cap_timeout(params)
    if method == "agent.prompt" and isinstance(params.get("wait"), dict):
        wait = dict(params["wait"])
        _cap_timeout(wait)
        params["wait"] = wait
    real_start = params.get("pane_id") in fx.ids["panes"] and params.get("kind") in START_KINDS
    if method == "agent.start" and real_start:  # would type an agent command into a real pane
        params["pane_id"] = "w999:p999"
    return params


def never_valid(ps: ParamStrategies, method: str) -> st.SearchStrategy[Any]:
    node = {"$ref": f"#/{SCHEMA_REFS[method]}"}
    return st.one_of(ps.invalid(node, "", 0), json_values.filter(lambda v: not isinstance(v, dict)))


# --- one exchange ------------------------------------------------------------------------


def first_line(path: Path, data: bytes) -> bytes:
    """The first line a held method answers; then hang up."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(READ_TIMEOUT_S)
        sock.connect(str(path))
        sock.sendall(data)
        got = b""
        while b"\n" not in got:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
        return got.split(b"\n", 1)[0]


def exchange(fx: Fixture, method: str, params: Any, rid: str) -> list[dict[str, Any]]:
    line = json.dumps({"id": rid, "method": method, "params": params}).encode() + b"\n"
    if method in STREAMING:
        raw = first_line(fx.path, line)
    else:  # a held wait ends without an answer when the client hangs up: no half-close
        hang_up = method not in WAITING
        raw = raw_exchange(fx.path, line, timeout=READ_TIMEOUT_S, half_close=hang_up)
    return [json.loads(part) for part in raw.splitlines()]


def assert_one_answer(docs: list[dict[str, Any]], rid: str, method: str, params: Any) -> None:
    context = f"{method} {json.dumps(params)[:300]}"
    assert len(docs) == 1, f"{len(docs)} answer lines for {context}: {docs}"
    doc = docs[0]
    if "error" in doc:
        error = doc["error"]
        assert error["code"] != protocol.INTERNAL_ERROR, f"internal_error for {context}: {error}"
        assert error["code"] in KNOWN_CODES, f"unknown code for {context}: {error}"
        assert isinstance(error["message"], str)
        # A request line that was not valid JSON (a lone surrogate) has no id to echo.
        assert doc["id"] in (rid, ""), doc
    else:
        assert doc["id"] == rid, doc
        assert isinstance(doc["result"], dict) and isinstance(doc["result"].get("type"), str), doc


# --- the fuzz run ------------------------------------------------------------------------


@pytest.mark.parametrize("method", ALL_METHODS)
def test_every_method_answers_once_with_a_known_code(fixture: Fixture, method: str) -> None:
    ps = strategies_for(fixture)
    if method in NEVER_VALID:
        drawn = never_valid(ps, method)
    else:
        drawn = ps.params("ClientAttachParams" if method == ATTACH else SCHEMA_REFS[method])
    counter = iter(range(10**9))

    @FUZZ
    @given(params=drawn)
    def run(params: Any) -> None:
        params = bound(method, params, fixture)
        rid = f"f{next(counter)}"
        docs = exchange(fixture, method, params, rid)
        assert_one_answer(docs, rid, method, params)
        answer = docs[0]
        OUTCOMES[method][answer["error"]["code"] if "error" in answer else "result"] += 1
        assert fixture.server.proc.poll() is None, fixture.server.log_text()[-2000:]
        if method in RESHAPING:
            fixture.restore()

    try:
        run()
    finally:
        assert pings(fixture.path), f"no pong after {method}:\n{fixture.server.log_text()[-2000:]}"
        fixture.restore()


def test_server_survived_and_logged_no_handler_failure(fixture: Fixture) -> None:
    for method, counts in sorted(OUTCOMES.items()):
        print(f"{method}: {dict(counts.most_common())}")
    assert fixture.server.alive()
    log = fixture.server.log_text()  # the server's stderr: warnings and errors
    assert "ERROR" not in log and "Traceback" not in log, log[-3000:]

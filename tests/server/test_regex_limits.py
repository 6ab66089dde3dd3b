"""A client's catastrophic regex never stalls other clients (issue 11, item 5).

``^(a|a)*$`` on a pane line of 30 ``a`` and a ``b`` backtracks 2^30 ways: without a
limit that search holds the server's only loop for minutes, so a ping from another
connection would time out. With one, the bad request gets ``regex_timeout`` (a
subscription item ends with that reason) and every ping is answered.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from herdr_testing import ServerHandle, wait_until
from herdr_testing.held import HeldConnection

CATASTROPHIC = r"^(a|a)*$"
BAD_LINE = "a" * 30 + "b"
# Prints BAD_LINE without echoing it: the command line itself holds no run of a's. One
# printf writes the whole line at once: written as a's and then b, the screen could show
# the a's alone for a moment, which the pattern matches quickly instead of timing out.
PRINT_BAD_LINE = "printf '%s\\n' \"$(printf 'a%.0s' $(seq 30))b\""


class Pinger:
    """Pings from its own connections until stopped; every ping must be answered."""

    def __init__(self, server: ServerHandle) -> None:
        self.server = server
        self.answered = 0
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.is_set():
            try:
                reply = self.server.request("ping", {}, rid="ping")  # 10 s socket timeout
            except OSError as exc:
                self.failures.append(repr(exc))
                return
            if reply.get("result", {}).get("type") != "pong":
                self.failures.append(repr(reply))
                return
            self.answered += 1

    def __enter__(self) -> Pinger:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)


@pytest.fixture
def pane(herdr_server: ServerHandle) -> str:
    reply = herdr_server.request("workspace.create", {"cwd": str(herdr_server.root)})
    pane_id: str = reply["result"]["root_pane"]["pane_id"]
    wait_until(lambda: "#" in read(herdr_server, pane_id) or "$" in read(herdr_server, pane_id))
    return pane_id


def read(server: ServerHandle, pane_id: str) -> str:
    reply = server.request("pane.read", {"pane_id": pane_id, "source": "recent"})
    text: str = reply["result"]["read"]["text"]
    return text


def print_bad_line(server: ServerHandle, pane_id: str) -> None:
    reply = server.request(
        "pane.send_input", {"pane_id": pane_id, "text": PRINT_BAD_LINE, "keys": ["Enter"]}
    )
    assert reply["result"]["type"] == "ok", reply


def wait_params(pane_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "pane_id": pane_id,
        "source": "recent",
        "match": {"type": "regex", "value": CATASTROPHIC},
        **extra,
    }


def test_wait_on_text_already_there_gets_regex_timeout_and_pings_go_on(
    herdr_server: ServerHandle, pane: str
) -> None:
    print_bad_line(herdr_server, pane)
    wait_until(lambda: BAD_LINE in read(herdr_server, pane))
    with Pinger(herdr_server) as pinger:
        wait_until(lambda: pinger.answered > 0)
        reply = herdr_server.request("pane.wait_for_output", wait_params(pane), rid="bad")
        before = pinger.answered
        wait_until(lambda: pinger.answered > before or pinger.failures)
    assert pinger.failures == []
    assert reply["id"] == "bad"
    assert reply["error"]["code"] == "regex_timeout", reply
    assert "searching one line took over 20 ms" in reply["error"]["message"]
    assert herdr_server.server.alive()


def test_pending_wait_fails_when_the_bad_line_arrives_while_pings_are_answered(
    herdr_server: ServerHandle, pane: str
) -> None:
    waiting = HeldConnection(
        herdr_server.socket_path, "pane.wait_for_output", wait_params(pane), "bad"
    )
    try:
        with Pinger(herdr_server) as pinger:
            wait_until(lambda: pinger.answered > 0)
            print_bad_line(herdr_server, pane)
            answer = waiting.next()  # the wait re-checks on the new output, once
            before = pinger.answered
            wait_until(lambda: pinger.answered > before or pinger.failures)
        assert pinger.failures == []
        assert answer is not None
        assert answer["id"] == "bad"
        assert answer["error"]["code"] == "regex_timeout", answer
        assert waiting.next() is None  # exactly one answer, then the server closes
    finally:
        waiting.close()


def test_subscription_item_ends_with_regex_timeout_and_the_rest_go_on(
    herdr_server: ServerHandle, pane: str
) -> None:
    bad_item = {
        "type": "pane.output_matched",
        "pane_id": pane,
        "source": "recent",
        "match": {"type": "regex", "value": CATASTROPHIC},
    }
    good_item = {**bad_item, "match": {"type": "regex", "value": r"^a+b$"}}
    stream = HeldConnection(
        herdr_server.socket_path,
        "events.subscribe",
        {"subscriptions": [bad_item, {"type": "workspace.created"}]},
        "sub",
    )
    other = HeldConnection(
        herdr_server.socket_path, "events.subscribe", {"subscriptions": [good_item]}, "good"
    )
    try:
        for conn in (stream, other):
            started = conn.next()
            assert started is not None and started["result"]["type"] == "subscription_started"
        with Pinger(herdr_server) as pinger:
            wait_until(lambda: pinger.answered > 0)
            print_bad_line(herdr_server, pane)
            ended = stream.next()
            matched = other.next()
            before = pinger.answered
            wait_until(lambda: pinger.answered > before or pinger.failures)
        assert pinger.failures == []
        assert ended is not None and ended["event"] == "subscription_ended", ended
        assert ended["data"]["reason"] == "regex_timeout"
        assert ended["data"]["subscription"]["match"]["value"] == CATASTROPHIC
        assert "too slow" in ended["data"]["message"]
        # Another subscriber on the same pane and output is not affected ...
        assert matched is not None and matched["event"] == "pane.output_matched"
        assert matched["data"]["matched_line"] == BAD_LINE
        # ... and the ended item's own stream keeps its other item.
        herdr_server.request("workspace.create", {"cwd": str(herdr_server.root)})
        created = stream.next()
        assert created is not None and created["event"] == "workspace_created", created
    finally:
        stream.close()
        other.close()


def test_a_lone_bad_item_ends_its_stream(herdr_server: ServerHandle, pane: str) -> None:
    item = {
        "type": "pane.output_matched",
        "pane_id": pane,
        "source": "recent",
        "match": {"type": "regex", "value": CATASTROPHIC},
    }
    stream = HeldConnection(
        herdr_server.socket_path, "events.subscribe", {"subscriptions": [item]}, "s"
    )
    try:
        started = stream.next()
        assert started is not None and started["result"]["type"] == "subscription_started"
        print_bad_line(herdr_server, pane)
        ended = stream.next()
        assert ended is not None and ended["data"]["reason"] == "regex_timeout", ended
        assert stream.next() is None  # nothing left to stream: the server closes it
    finally:
        stream.close()
    assert herdr_server.server.alive()


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (r"(?:a{65535}){65535}", "invalid_regex"),  # compiling would never finish
        (r"a{1000}{1000}", "invalid_regex"),
        ("a" * 4097, "invalid_params"),  # the pattern itself is too long
    ],
    ids=["nested-repeat", "repeat-repeat", "too-long"],
)
@pytest.mark.parametrize("method", ["pane.wait_for_output", "events.subscribe"])
def test_patterns_that_would_blow_up_are_refused_before_anything_runs(
    herdr_server: ServerHandle, pane: str, method: str, value: str, code: str
) -> None:
    match = {"type": "regex", "value": value}
    item = {"pane_id": pane, "source": "recent", "match": match}
    if method == "events.subscribe":
        params: dict[str, Any] = {"subscriptions": [{"type": "pane.output_matched", **item}]}
    else:
        params = {**item, "timeout_ms": 1}
    reply = herdr_server.request(method, params)
    assert reply["error"]["code"] == code, reply
    assert len(reply["error"]["message"]) < 500  # the pattern is not echoed whole
    assert herdr_server.server.alive()


def test_cli_wait_output_reports_regex_timeout(herdr_server: ServerHandle, pane: str) -> None:
    print_bad_line(herdr_server, pane)
    wait_until(lambda: BAD_LINE in read(herdr_server, pane))
    done = herdr_server.cli("pane", "wait-output", pane, "--regex", CATASTROPHIC, timeout=60)
    assert done.returncode != 0
    assert "regex_timeout" in done.stderr, done.stderr
    assert herdr_server.server.alive()

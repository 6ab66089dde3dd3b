"""The event bus as plain values: seq, replay log, filters, lag, end-of-stream, waits."""

from __future__ import annotations

import json
from typing import Any

import pytest

from herdr.runtime.events import (
    Event,
    EventBus,
    Filter,
    FilterEnded,
    LineQueue,
    compile_match,
    compile_subscription,
)


def encode(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode() + b"\n"


def decode(lines: list[bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines]


def bus(**kwargs: Any) -> EventBus:
    return EventBus(encode, **kwargs)


def ws_created(b: EventBus, n: int) -> Event:
    return b.publish("workspace_created", {"workspace": {"workspace_id": f"w{n}"}})


def subscribe(b: EventBus, *items: dict[str, Any], since_seq: int | None = None) -> Any:
    return b.subscribe([compile_subscription(i) for i in items], since_seq)


def test_seq_is_monotonic_and_type_repeats_kind() -> None:
    b = bus()
    events = [ws_created(b, i) for i in range(3)]
    assert [e.seq for e in events] == [1, 2, 3]
    assert all(e.data["type"] == "workspace_created" for e in events)
    assert b.last_seq == 3


def test_lifecycle_subscription_gets_snake_case_kind_with_seq() -> None:
    b = bus()
    sub, info = subscribe(b, {"type": "workspace.created"})
    assert info.last_seq == 0
    ws_created(b, 1)
    b.publish("tab_created", {"tab": {"tab_id": "w1:t1"}})
    (doc,) = decode(b.drain(sub))
    assert doc == {
        "event": "workspace_created",
        "data": {"type": "workspace_created", "workspace": {"workspace_id": "w1"}},
        "seq": 1,
    }


def test_shared_line_is_encoded_once() -> None:
    calls = []

    def counting(doc: dict[str, Any]) -> bytes:
        calls.append(doc)
        return encode(doc)

    b = EventBus(counting)
    subs = [b.subscribe([compile_subscription({"type": "pane.created"})])[0] for _ in range(20)]
    b.publish("pane_created", {"pane": {"pane_id": "w1:p1"}})
    assert len(calls) == 1
    assert all(len(b.drain(s)) == 1 for s in subs)


def test_since_seq_replays_missed_events_then_goes_live() -> None:
    b = bus()
    for i in range(5):
        ws_created(b, i)
    sub, info = subscribe(b, {"type": "workspace.created"}, since_seq=2)
    assert (info.replayed, info.gap, info.last_seq, info.oldest_seq) == (3, False, 5, 1)
    ws_created(b, 9)
    assert [d["seq"] for d in decode(b.drain(sub))] == [3, 4, 5, 6]


@pytest.mark.parametrize(
    ("since", "gap"),
    [(0, True), (3, True), (4, False), (10, False), (11, True)],
    ids=["far-behind", "just-evicted", "oldest-kept", "current", "future"],
)
def test_gap_reported_when_log_no_longer_reaches_back(since: int, gap: bool) -> None:
    b = bus(log_size=6)
    for i in range(10):
        ws_created(b, i)  # seqs 1..10; 5..10 kept, 1..4 evicted
    _, info = subscribe(b, {"type": "workspace.created"}, since_seq=since)
    assert info.oldest_seq == 5
    assert info.gap is gap


def test_volatile_events_are_live_only() -> None:
    b = bus()
    subscribe(b, {"type": "pane.created"})
    b.publish("pane_output_changed", {"pane_id": "w1:p1", "revision": 1})
    b.publish("pane_created", {"pane": {"pane_id": "w1:p1"}})
    _, info = subscribe(b, {"type": "pane.created"}, since_seq=0)
    assert info.replayed == 1
    assert b.oldest_seq == 2


def test_wants_tracks_interest() -> None:
    b = bus()
    assert not b.wants("pane_output_changed")
    waiter = b.add_waiter({"event": "pane_output_changed", "pane_id": "w1:p1"}, lambda e: None)
    assert waiter is not None
    assert b.wants("pane_output_changed")
    b.remove_waiter(waiter)
    assert not b.wants("pane_output_changed")
    sub, _ = subscribe(b, {"type": "pane.agent_status_changed", "pane_id": "w1:p1"})
    assert b.wants("pane_agent_status_changed")
    b.unsubscribe(sub)
    assert not b.wants("pane_agent_status_changed")


def test_filtered_agent_status_stream_keeps_dot_kind() -> None:
    b = bus()
    sub, _ = subscribe(
        b, {"type": "pane.agent_status_changed", "pane_id": "w1:p1", "agent_status": "blocked"}
    )
    for pane, status in (("w1:p1", "working"), ("w1:p2", "blocked"), ("w1:p1", "blocked")):
        b.publish(
            "pane_agent_status_changed",
            {"pane_id": pane, "workspace_id": "w1", "agent_status": status},
        )
    (doc,) = decode(b.drain(sub))
    assert doc["event"] == "pane.agent_status_changed"
    assert doc["data"] == {"pane_id": "w1:p1", "workspace_id": "w1", "agent_status": "blocked"}
    assert doc["seq"] == 3


def test_pane_scoped_subscription_ends_explicitly_when_pane_closes() -> None:
    b = bus()
    sub, _ = subscribe(b, {"type": "pane.scroll_changed", "pane_id": "w1:p1"})
    b.publish("pane_scroll_changed", {"pane_id": "w1:p1", "workspace_id": "w1", "scroll": {}})
    b.publish("pane_closed", {"pane_id": "w1:p1", "workspace_id": "w1"})
    docs = decode(b.drain(sub))
    assert [d["event"] for d in docs] == ["pane.scroll_changed", "subscription_ended"]
    assert docs[1]["data"]["reason"] == "pane_closed"
    assert docs[1]["data"]["pane_id"] == "w1:p1"
    assert sub.finished


def test_mixed_subscription_continues_after_one_pane_ends() -> None:
    b = bus()
    sub, _ = subscribe(
        b,
        {"type": "pane.scroll_changed", "pane_id": "w1:p1"},
        {"type": "workspace.created"},
    )
    b.publish("pane_closed", {"pane_id": "w1:p1", "workspace_id": "w1"})
    assert not sub.finished
    ws_created(b, 2)
    kinds = [d["event"] for d in decode(b.drain(sub))]
    assert kinds == ["subscription_ended", "workspace_created"]


def test_pane_scoped_subscription_follows_a_move() -> None:
    b = bus()
    sub, _ = subscribe(b, {"type": "pane.scroll_changed", "pane_id": "w1:p1"})
    b.publish("pane_moved", {"previous_pane_id": "w1:p1", "pane": {"pane_id": "w2:p1"}})
    b.publish("pane_scroll_changed", {"pane_id": "w2:p1", "workspace_id": "w2", "scroll": {}})
    (doc,) = decode(b.drain(sub))
    assert doc["data"]["pane_id"] == "w2:p1"


def test_slow_subscriber_drops_with_lag_marker_and_never_blocks() -> None:
    b = bus(queue_limit=4)
    sub, _ = subscribe(b, {"type": "workspace.created"})
    for i in range(10):
        ws_created(b, i)
    docs = decode(b.drain(sub))
    assert [d.get("seq") for d in docs[:3]] == [1, 2, 3]
    for doc, kind in zip(docs[3:], ("events_lost", "subscription_lagged"), strict=True):
        assert doc["event"] == kind
        assert doc["data"] == {"type": kind, "dropped": 7, "first_seq": 4, "last_seq": 10}
    ws_created(b, 11)
    assert [d["seq"] for d in decode(b.drain(sub))] == [11]


def test_lag_marker_precedes_next_event_if_not_drained() -> None:
    b = bus(queue_limit=2)
    sub, _ = subscribe(b, {"type": "workspace.created"})
    for i in range(3):
        ws_created(b, i)
    sub.queue.clear()  # the writer took what was queued, the drop is still pending
    ws_created(b, 4)
    kinds = [d["event"] for d in decode(b.drain(sub))]
    assert kinds == ["events_lost", "subscription_lagged", "workspace_created"]


def test_end_all_finishes_every_stream() -> None:
    b = bus()
    sub, _ = subscribe(b, {"type": "workspace.created"})
    b.end_all("server_stopping")
    (doc,) = decode(b.drain(sub))
    assert doc["data"]["reason"] == "server_stopping"
    assert sub.finished


@pytest.mark.parametrize(
    ("match", "data", "expected"),
    [
        ({"event": "pane_closed", "pane_id": "w1:p1"}, {"pane_id": "w1:p1"}, True),
        ({"event": "pane_closed", "pane_id": "w1:p1"}, {"pane_id": "w1:p2"}, False),
        ({"event": "pane_created", "workspace_id": "w1"}, {"pane": {"workspace_id": "w1"}}, True),
        ({"event": "pane_created", "pane_id": None}, {"pane": {"pane_id": "w3:p1"}}, True),
        (
            {"event": "pane_output_changed", "pane_id": "w1:p1", "min_revision": 5},
            {"pane_id": "w1:p1", "revision": 4},
            False,
        ),
        (
            {"event": "pane_output_changed", "pane_id": "w1:p1", "min_revision": 5},
            {"pane_id": "w1:p1", "revision": 5},
            True,
        ),
    ],
    ids=["pane-id", "other-pane", "nested-record", "null-filter", "below-rev", "at-rev"],
)
def test_compile_match(match: dict[str, Any], data: dict[str, Any], expected: bool) -> None:
    event = Event(1, match["event"], data)
    assert compile_match(match)(event) is expected


def test_waiter_fires_once_and_since_seq_sees_the_log() -> None:
    b = bus()
    hits: list[int] = []
    waiter = b.add_waiter({"event": "workspace_created"}, lambda e: hits.append(e.seq))
    ws_created(b, 1)
    ws_created(b, 2)
    assert hits == [1]
    assert waiter is not None and waiter.done
    late: list[int] = []
    assert b.add_waiter({"event": "workspace_created"}, lambda e: late.append(e.seq), 1) is None
    assert late == [2]


# --- byte bounds ------------------------------------------------------------------------


def labelled(b: EventBus, n: int, size: int) -> Event:
    return b.publish("workspace_renamed", {"workspace_id": f"w{n}", "label": "x" * size})


def test_log_keeps_at_most_its_byte_budget_and_reports_the_gap() -> None:
    b = bus(log_bytes=10_000)
    events = [labelled(b, n, 1000) for n in range(1, 31)]  # ~1.1 kB encoded each
    assert b.log_bytes <= 10_000
    kept = list(b.logged_since(0))
    assert kept == events[-len(kept) :]  # the newest, in order
    assert 5 <= len(kept) < 10
    oldest = kept[0].seq
    assert b.oldest_seq == oldest
    _, info = subscribe(b, {"type": "workspace.renamed"}, since_seq=oldest - 2)
    assert info.gap is True
    sub, info = subscribe(b, {"type": "workspace.renamed"}, since_seq=oldest - 1)
    assert (info.gap, info.replayed) == (False, len(kept))
    assert [d["seq"] for d in decode(b.drain(sub))] == [e.seq for e in kept]


def test_log_bytes_follow_evictions_by_count_too() -> None:
    b = bus(log_size=3)
    for n in range(10):
        labelled(b, n, 100)
    assert b.log_bytes == sum(len(e.line) for e in b.logged_since(0))
    assert len(list(b.logged_since(0))) == 3


def test_an_event_larger_than_the_whole_budget_is_not_kept() -> None:
    b = bus(log_bytes=500)
    labelled(b, 1, 100)
    labelled(b, 2, 1000)
    assert list(b.logged_since(0)) == []
    assert b.log_bytes == 0
    _, info = subscribe(b, {"type": "workspace.renamed"}, since_seq=0)
    assert info.gap is True


def test_slow_subscriber_lags_by_bytes_like_by_count() -> None:
    b = bus(queue_bytes=5_000)
    sub, _ = subscribe(b, {"type": "workspace.renamed"})
    for n in range(1, 21):
        labelled(b, n, 1000)
    assert sub.queue.nbytes <= 5_000
    docs = decode(b.drain(sub))
    kept = [d["seq"] for d in docs if d["event"] == "workspace_renamed"]
    assert kept == list(range(1, len(kept) + 1)) and 2 <= len(kept) < 5
    lag = docs[-1]
    assert lag["event"] == "subscription_lagged"
    assert lag["data"]["dropped"] == 20 - len(kept)
    assert (lag["data"]["first_seq"], lag["data"]["last_seq"]) == (len(kept) + 1, 20)
    assert sub.queue.nbytes == 0
    labelled(b, 21, 10)  # drained: it flows again
    assert [d["seq"] for d in decode(b.drain(sub))] == [21]


def test_one_event_larger_than_the_queue_budget_still_reaches_an_idle_subscriber() -> None:
    b = bus(queue_bytes=100)
    sub, _ = subscribe(b, {"type": "workspace.renamed"})
    labelled(b, 1, 1000)
    labelled(b, 2, 1000)  # the queue is not empty now: this one is dropped
    docs = decode(b.drain(sub))
    assert [d["event"] for d in docs] == ["workspace_renamed", "events_lost", "subscription_lagged"]


def test_line_queue_counts_its_bytes() -> None:
    q = LineQueue()
    q.append(b"abc")
    q.extend(iter([b"de", b"f"]))
    assert q.nbytes == 6
    assert q.popleft() == b"abc"
    assert q.nbytes == 3
    q.clear()
    assert (len(q), q.nbytes) == (0, 0)


# --- a filter ending itself -------------------------------------------------------------


class _GivesUp(Filter):
    kinds = frozenset({"workspace_renamed"})

    def __init__(self) -> None:
        super().__init__({"type": "test.gives_up"})
        self.calls = 0

    def apply(self, event: Event) -> tuple[str, dict[str, Any]] | None:
        self.calls += 1
        raise FilterEnded("regex_timeout", "too slow")


def test_a_filter_that_gives_up_ends_its_item_once_and_is_not_asked_again() -> None:
    b = bus()
    gives_up = _GivesUp()
    sub, _ = b.subscribe([gives_up, compile_subscription({"type": "workspace.created"})])
    labelled(b, 1, 1)
    labelled(b, 2, 1)
    ws_created(b, 3)
    docs = decode(b.drain(sub))
    assert [d["event"] for d in docs] == ["subscription_ended", "workspace_created"]
    assert docs[0]["data"] == {
        "type": "subscription_ended",
        "subscription": {"type": "test.gives_up"},
        "reason": "regex_timeout",
        "pane_id": None,
        "message": "too slow",
    }
    assert gives_up.calls == 1
    assert not sub.finished  # its other item goes on


def test_when_every_item_gave_up_the_stream_finishes() -> None:
    b = bus()
    sub, _ = b.subscribe([_GivesUp()])
    labelled(b, 1, 1)
    assert sub.finished
    assert [d["data"]["reason"] for d in decode(b.drain(sub))] == ["regex_timeout"]

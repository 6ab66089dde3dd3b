"""``pane.output_matched`` fan-out: work shared between subscribers, results per subscriber.

Each check of an output change is done once for every subscriber with the same pane,
source, lines, matcher and format, and the pushed line is encoded once; these tests pin
that this sharing never changes what any one subscriber sees (its own matches, in
order, once each, with the event's seq) and that it really is shared.

No PTYs here: a terminal's emulator is fed directly and each chunk gets the check event
the host publishes (when it does so is ``output_pacing``'s, tested on its own).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from herdr.config.server_settings import ServerSettings
from herdr.runtime import model as m
from herdr.runtime.events import OUTPUT_CHECK_KIND, EventBus, Subscriber
from herdr.server import methods_events
from herdr.server.core import encode
from herdr.server.info import ServerInfo
from herdr.server.methods_io import OutputMatchFilter
from herdr.server.panes import PaneHost, Terminal
from herdr.server.views import ViewedPanes
from herdr.terminal.emulator import Emulator

LINE = r"^T\d+$"


class Rig:
    """A host with emulator-only terminals and a bus whose encodes are counted."""

    def __init__(self, tmp: Path, panes: int = 1) -> None:
        self.encoded = 0

        def counting(obj: Any) -> bytes:
            self.encoded += 1
            return encode(obj)

        info = ServerInfo(tmp / "herdr.sock", None, tmp, tmp)
        bus = EventBus(counting)
        self.host = PaneHost(info, bus, ServerSettings(), {"HOME": str(tmp)}, ViewedPanes())
        created = self.host.session.create_workspace(str(tmp))
        self.panes: list[m.PaneLoc] = [created.loc]
        while len(self.panes) < panes:
            loc = self.host.session.split_pane(self.panes[-1].pane_id, direction="right")
            self.panes.append(loc)
        self.terms: dict[str, Terminal] = {}
        for loc in self.panes:
            term = Terminal(loc.pane.terminal_id, Emulator(80, 24))
            self.host.terminals[term.terminal_id] = term
            self.terms[loc.pane_id] = term

    @property
    def bus(self) -> EventBus:
        return self.host.bus

    def subscribe(self, pane: int = 0, **item: Any) -> Subscriber:
        spec: dict[str, Any] = {
            "type": "pane.output_matched",
            "pane_id": self.panes[pane].pane_id,
            "source": "recent",
            "lines": 1,
            "match": {"type": "regex", "value": LINE},
        }
        spec.update(item)
        sub, _info = self.bus.subscribe([OutputMatchFilter(spec, self.host)])
        return sub

    def output(self, text: str, pane: int = 0) -> None:
        """One PTY chunk, then the check ``PaneHost`` runs for it (paced in the server)."""
        loc = self.panes[pane]
        term = self.terms[loc.pane_id]
        term.emulator.feed(text.replace("\n", "\r\n").encode())
        self.bus.publish(OUTPUT_CHECK_KIND, {"pane_id": loc.pane_id, "revision": term.revision})


def events(rig: Rig, sub: Subscriber) -> list[dict[str, Any]]:
    return [json.loads(line) for line in rig.bus.drain(sub)]


def matched(rig: Rig, sub: Subscriber) -> list[str]:
    docs = events(rig, sub)
    assert all(d["event"] == "pane.output_matched" for d in docs)
    return [d["data"]["matched_line"] for d in docs]


def test_same_and_different_matchers_each_get_their_own_matches_in_order(
    tmp_path: Path,
) -> None:
    rig = Rig(tmp_path)
    same_a = rig.subscribe()
    same_b = rig.subscribe()
    odd = rig.subscribe(match={"type": "regex", "value": r"^T\d*[13579]$"})
    word = rig.subscribe(match={"type": "substring", "value": "done"})
    for n in range(1, 8):
        rig.output(f"T{n}\n")
    rig.output("done\n")
    rig.output("T8\n")
    expected = [f"T{n}" for n in range(1, 8)] + ["T8"]
    assert matched(rig, same_a) == expected
    assert matched(rig, same_b) == expected
    assert matched(rig, odd) == ["T1", "T3", "T5", "T7"]
    assert matched(rig, word) == ["done"]


def test_each_subscriber_keeps_its_own_last_line(tmp_path: Path) -> None:
    """A line is new per subscriber: one that already pushed it is not told again."""
    rig = Rig(tmp_path)
    first = rig.subscribe()
    rig.output("T1\n")
    second = rig.subscribe()  # joins after T1 was pushed to ``first``
    rig.output("x\n")  # no match in the window: nothing for anyone
    rig.output("T1\n")  # the same line again: new to ``second`` only
    assert matched(rig, first) == ["T1"]
    assert matched(rig, second) == ["T1"]


def test_late_subscriber_gets_no_earlier_lines(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    early = rig.subscribe()
    rig.output("T1\nT2\n")
    rig.output("T3\n")
    late = rig.subscribe()
    assert rig.bus.drain(late) == []
    rig.output("T4\n")
    rig.output("T5\n")
    assert matched(rig, early) == ["T2", "T3", "T4", "T5"]
    assert matched(rig, late) == ["T4", "T5"]


def test_subscribers_see_only_their_pane(tmp_path: Path) -> None:
    rig = Rig(tmp_path, panes=2)
    left = rig.subscribe(pane=0)
    right = rig.subscribe(pane=1)
    rig.output("T1\n", pane=0)
    rig.output("T2\n", pane=1)
    rig.output("T3\n", pane=0)
    left_docs, right_docs = events(rig, left), events(rig, right)
    assert [d["data"]["matched_line"] for d in left_docs] == ["T1", "T3"]
    assert [d["data"]["matched_line"] for d in right_docs] == ["T2"]
    assert {d["data"]["pane_id"] for d in left_docs} == {rig.panes[0].pane_id}
    assert {d["data"]["read"]["pane_id"] for d in right_docs} == {rig.panes[1].pane_id}


SPECS: list[dict[str, Any]] = [
    {},
    {},
    {"match": {"type": "substring", "value": "T"}},
    {"source": "recent_unwrapped"},
    {"source": "visible", "lines": None},
    {"source": "recent", "lines": 3},
    {"format": "ansi"},
    {"source": "detection", "lines": None, "match": {"type": "substring", "value": "T"}},
]


def run_specs(tmp: Path, specs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    rig = Rig(tmp)
    subs = [rig.subscribe(**spec) for spec in specs]
    for chunk in ["T1\n", "noise\n", "T2\nT3\n", "\x1b[31mT4\x1b[0m\n", "T4\n", "T5\n"]:
        rig.output(chunk)
    return [events(rig, sub) for sub in subs]


def test_sharing_changes_nothing_any_subscriber_sees(tmp_path: Path) -> None:
    """Many subscribers on one bus get exactly what each would get alone."""
    together = run_specs(tmp_path / "all", SPECS)
    for index, spec in enumerate(SPECS):
        (alone,) = run_specs(tmp_path / f"one{index}", [spec])
        assert together[index] == alone, spec
        assert alone, spec  # every spec matched something
    for docs in together:
        for doc in docs:
            assert set(doc) == {"event", "data", "seq"}
            assert set(doc["data"]) == {"pane_id", "matched_line", "read"}
            assert set(doc["data"]["read"]) == {
                "pane_id",
                "workspace_id",
                "tab_id",
                "source",
                "format",
                "text",
                "revision",
                "truncated",
            }
    plain, ansi = together[0][-1]["data"]["read"], together[6][-1]["data"]["read"]
    assert plain["format"] == "text" and plain["text"].strip() == "T5"
    assert ansi["format"] == "ansi"
    # one output change, one seq: the same for every subscriber that was told about it
    assert together[0][-1]["seq"] == together[1][-1]["seq"] == together[6][-1]["seq"]


def test_identical_subscriptions_share_one_encoded_line(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    subs = [rig.subscribe() for _ in range(5)]
    other = rig.subscribe(match={"type": "substring", "value": "T"})
    rig.encoded = 0
    rig.output("T1\n")
    assert rig.encoded == 2  # one line for the five identical subscriptions, one for other
    lines = [rig.bus.drain(sub) for sub in subs]
    assert all(got == lines[0] for got in lines) and len(lines[0]) == 1
    assert len(rig.bus.drain(other)) == 1


def test_pane_move_and_close_still_tracked(tmp_path: Path) -> None:
    rig = Rig(tmp_path, panes=2)
    sub = rig.subscribe(pane=1)
    pane_id = rig.panes[1].pane_id
    rig.bus.publish("pane_closed", {"pane_id": pane_id, "workspace_id": "w1"})
    docs = events(rig, sub)
    assert [d["event"] for d in docs] == ["subscription_ended"]
    assert sub.finished


# --- the stream pump ------------------------------------------------------------------


def run(coro: Callable[[], Any]) -> Any:
    return asyncio.run(coro())


def test_pump_sends_at_once_when_idle_and_batches_while_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(methods_events, "BATCH_S", 3600.0)  # never elapses in this test

    async def scenario() -> None:
        sub = Subscriber(filters=[], limit=10)
        pump = methods_events._Pump(sub)
        pump.wake()
        assert pump.ready.is_set()  # nothing written yet: go at once
        pump.ready.clear()
        pump.wrote()
        pump.wake()
        assert not pump.ready.is_set() and pump.timer is not None  # busy: batch
        pump.wake()  # more lines: still one pending write
        assert not pump.ready.is_set()
        sub.finished = True
        pump.wake()  # the end of the stream is never held back
        assert pump.ready.is_set() and pump.timer is None

    run(scenario)


def test_pump_timer_releases_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(methods_events, "BATCH_S", 0.001)

    async def scenario() -> None:
        pump = methods_events._Pump(Subscriber(filters=[], limit=10))
        pump.wrote()
        pump.wake()
        await asyncio.wait_for(pump.ready.wait(), 30)
        assert pump.timer is None

    run(scenario)

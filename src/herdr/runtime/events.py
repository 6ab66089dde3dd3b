"""The event bus: sequencing, a bounded replay log, filtered subscriptions, waits.

No asyncio and no I/O here: the transport gives each subscriber a ``wake`` callback
and drains its queue of already-encoded lines, so the bus can be tested with plain
values and publishing never blocks on a slow client. Every logged event gets a
monotonically increasing ``seq``; a reconnecting subscriber passes ``since_seq`` to
replay what it missed (and is told when the log no longer reaches back that far).

Memory is bounded by bytes as well as by count: the log drops its oldest events while
their encoded lines exceed ``log_bytes``, and a subscriber whose queue would exceed
``queue_bytes`` loses live events (counted, then reported as ``events_lost`` and
``subscription_lagged``) exactly as it does beyond ``queue_limit`` lines.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from msgspec import Struct

from herdr.api import protocol

Data = dict[str, Any]
Encode = Callable[[dict[str, Any]], bytes]

DEFAULT_LOG_SIZE = 4096
# Encoded bytes (the decoded data kept beside each line takes a few times more): room
# for the whole count of typical events (~0.5-2 kB), not for thousands of huge ones.
DEFAULT_LOG_BYTES = 8 * 1024 * 1024
DEFAULT_QUEUE_LIMIT = 1024
# Per subscriber; a pane.output_matched line carries its read (up to 10000 lines).
DEFAULT_QUEUE_BYTES = 4 * 1024 * 1024

# High-rate kinds that are delivered live but never kept in the replay log, so output
# bursts cannot push lifecycle history out of it.
# Internal, never subscribable by name: a pane's output is due another search for its
# pane.output_matched filters (published at a paced rate, see server.output_pacing).
OUTPUT_CHECK_KIND = "pane_output_check"
VOLATILE_KINDS = frozenset({"pane_output_changed", protocol.PANE_SCROLL_CHANGED, OUTPUT_CHECK_KIND})

# What a subscriber with pane-scoped filters also hears: the end and moves of panes.
_PANE_TRACKING = frozenset({"pane_closed", "pane_moved"})

# Event.memo key under which the bus keeps lines it encoded for filters' payloads.
_LINE_MEMO = "bus.applied_line"

# Records an event may carry; ids asked for by filters are looked up in them too.
_RECORD_KEYS = ("pane", "tab", "workspace")


@dataclass(slots=True)
class Event:
    seq: int
    kind: str
    data: Data
    line: bytes = b""  # encoded envelope, filled once (when logged, or on first delivery)
    # Scratch space shared by every filter that sees this event during one fan-out
    # (see :meth:`memo`); dropped when the fan-out ends.
    _memo: dict[Any, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def envelope(self) -> dict[str, Any]:
        return protocol.event_envelope(self.kind, self.data, self.seq)

    def memo(self) -> dict[Any, Any]:
        """A dict that lives for one fan-out of this event, for filters to share work.

        Filters of many subscribers often compute the same thing for one event (look up
        the same pane, search the same text, build the same payload); the first one
        stores it here and the rest reuse it. Keys should be namespaced tuples.
        """
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        return memo

    def end_fan_out(self) -> None:
        self._memo = None


def event_field(data: Mapping[str, Any], name: str) -> Any:
    """``data[name]``, else the field of the embedded record (``data.pane.pane_id``)."""
    if name in data:
        return data[name]
    for key in _RECORD_KEYS:
        record = data.get(key)
        if isinstance(record, Mapping) and name in record:
            return record[name]
    return None


# --- subscription filters ---------------------------------------------------------------


class Filter:
    """One item of ``events.subscribe``: which bus kinds it hears and what it pushes.

    A ``shared`` filter pushes the bus event itself (encoded once for all subscribers);
    others transform it in :meth:`apply`. When several filters return the very same
    ``data`` object for one event (shared through :meth:`Event.memo`), the line is
    encoded once for all of them, so ``data`` must not change once returned.
    """

    kinds: frozenset[str] = frozenset()
    shared = False

    def __init__(self, item: Mapping[str, Any]) -> None:
        self.item = dict(item)
        # The pane a pane-scoped filter follows: the bus offers it only events whose
        # ``data.pane_id`` is this pane, ends it when the pane closes, follows moves.
        self.pane_id: str | None = None
        self.ended = False

    def apply(self, event: Event) -> tuple[str, Data] | None:
        """The ``(kind, data)`` to push for ``event``, or ``None`` to skip it."""
        return None


class FilterEnded(Exception):
    """Raised by :meth:`Filter.apply` when its item can never push again (its regex ran
    out of time): the bus ends that item with ``reason`` and offers it nothing more."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class LifecycleFilter(Filter):
    """``workspace.created`` etc.: pushes the snake_case bus event unchanged."""

    shared = True

    def __init__(self, item: Mapping[str, Any]) -> None:
        super().__init__(item)
        self.kinds = frozenset({protocol.pushed_kind(str(item["type"]))})


class PaneFilter(Filter):
    """A pane-scoped stream; ends explicitly when its pane closes, follows moves."""

    def __init__(self, item: Mapping[str, Any]) -> None:
        super().__init__(item)
        self.pane_id = str(item["pane_id"])

    def matches_pane(self, data: Mapping[str, Any]) -> bool:
        return data.get("pane_id") == self.pane_id


class AgentStatusFilter(PaneFilter):
    kinds = frozenset({"pane_agent_status_changed"})

    def __init__(self, item: Mapping[str, Any]) -> None:
        super().__init__(item)
        self.status = item.get("agent_status")

    def apply(self, event: Event) -> tuple[str, Data] | None:
        data = event.data
        if not self.matches_pane(data):
            return None
        if self.status is not None and data.get("agent_status") != self.status:
            return None
        return protocol.AGENT_STATUS_CHANGED, {k: v for k, v in data.items() if k != "type"}


class ScrollFilter(PaneFilter):
    kinds = frozenset({protocol.PANE_SCROLL_CHANGED})

    def apply(self, event: Event) -> tuple[str, Data] | None:
        if not self.matches_pane(event.data):
            return None
        data = event.data
        return protocol.SCROLL_CHANGED, {
            "pane_id": data.get("pane_id"),
            "workspace_id": data.get("workspace_id"),
            "scroll": data.get("scroll"),
        }


FilterFactory = Callable[[Mapping[str, Any]], Filter]


def compile_subscription(
    item: Mapping[str, Any], custom: Mapping[str, FilterFactory] | None = None
) -> Filter:
    """Build the filter for one (already schema-validated) subscription item."""
    kind = str(item["type"])
    if custom and kind in custom:
        return custom[kind](item)
    if kind == protocol.AGENT_STATUS_CHANGED:
        return AgentStatusFilter(item)
    if kind == protocol.SCROLL_CHANGED:
        return ScrollFilter(item)
    if kind in protocol.LIFECYCLE_SUBSCRIPTIONS:
        return LifecycleFilter(item)
    raise ValueError(f"unsupported subscription type {kind!r}")


# --- waits ------------------------------------------------------------------------------


def compile_match(match_event: Mapping[str, Any]) -> Callable[[Event], bool]:
    """Predicate for ``events.wait``: same kind, every given filter field equal.

    ``min_revision`` means ``revision >= min_revision``; ``null`` filters are ignored.
    """
    kind = match_event["event"]
    wanted = {k: v for k, v in match_event.items() if k != "event" and v is not None}
    min_revision = wanted.pop("min_revision", None)

    def matches(event: Event) -> bool:
        if event.kind != kind:
            return False
        if min_revision is not None:
            revision = event.data.get("revision")
            if not isinstance(revision, int) or revision < min_revision:
                return False
        return all(event_field(event.data, k) == v for k, v in wanted.items())

    return matches


@dataclass(eq=False, slots=True)
class Waiter:
    kind: str
    matches: Callable[[Event], bool]
    on_match: Callable[[Event], None]
    done: bool = False


# --- subscribers ------------------------------------------------------------------------


class LineQueue(deque[bytes]):
    """A deque of encoded lines that knows how many bytes it holds (``nbytes``)."""

    def __init__(self) -> None:
        super().__init__()
        self.nbytes = 0

    def append(self, line: bytes) -> None:
        super().append(line)
        self.nbytes += len(line)

    def extend(self, lines: Iterable[bytes]) -> None:
        lines = list(lines)
        super().extend(lines)
        self.nbytes += sum(map(len, lines))

    def popleft(self) -> bytes:
        line = super().popleft()
        self.nbytes -= len(line)
        return line

    def clear(self) -> None:
        super().clear()
        self.nbytes = 0


@dataclass(eq=False)
class Subscriber:
    """A live subscription: a bounded queue of encoded lines and a wake callback.

    ``filters`` is fixed at creation (a filter may end or follow a pane move, but never
    stops being pane-scoped), so the kinds it hears are computed once. The queue holds
    at most ``limit`` lines and ``byte_limit`` bytes of live events (one batch more when
    it was empty, so a single large event still gets through).
    """

    filters: list[Filter]
    limit: int
    byte_limit: int = DEFAULT_QUEUE_BYTES
    wake: Callable[[], None] = lambda: None
    queue: LineQueue = field(default_factory=LineQueue)
    dropped: int = 0
    first_dropped: int = 0
    last_dropped: int = 0
    finished: bool = False  # no more lines will ever be queued (close after draining)
    scoped: bool = field(init=False)
    heard: frozenset[str] = field(init=False)  # every kind this subscriber listens for
    by_kind: dict[str, list[Filter]] = field(init=False)  # the filters hearing each kind

    def __post_init__(self) -> None:
        self.scoped = any(f.pane_id is not None for f in self.filters)
        self.by_kind = {}
        for f in self.filters:
            for kind in f.kinds:
                self.by_kind.setdefault(kind, []).append(f)
        self.heard = frozenset(self.by_kind) | (_PANE_TRACKING if self.scoped else frozenset())

    def kinds(self) -> set[str]:
        return set(self.heard)

    def would_overflow(self, lines: list[bytes]) -> bool:
        """Whether queueing ``lines`` (and a lag marker) breaks a limit."""
        queue = self.queue
        if len(queue) + len(lines) + 1 > self.limit:
            return True
        return bool(queue.nbytes) and queue.nbytes + sum(map(len, lines)) > self.byte_limit


class ReplayInfo(Struct, frozen=True):
    last_seq: int
    replayed: int
    gap: bool
    oldest_seq: int | None


class EventBus:
    """Sequences events, keeps the last ``log_size`` (at most ``log_bytes`` encoded), fans
    out to subscribers and waits."""

    def __init__(
        self,
        encode: Encode,
        *,
        log_size: int = DEFAULT_LOG_SIZE,
        log_bytes: int = DEFAULT_LOG_BYTES,
        queue_limit: int = DEFAULT_QUEUE_LIMIT,
        queue_bytes: int = DEFAULT_QUEUE_BYTES,
    ) -> None:
        self._encode = encode
        self._log: deque[Event] = deque()
        self._log_size = log_size
        self._log_byte_limit = log_bytes
        self._log_bytes = 0
        self._evicted_upto = 0
        self._seq = 0
        self._queue_limit = queue_limit
        self._queue_bytes = queue_bytes
        self._subscribers: list[Subscriber] = []
        self._waiters: list[Waiter] = []
        self._interest: Counter[str] = Counter()

    # -- publishing ------------------------------------------------------------------

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def oldest_seq(self) -> int | None:
        return self._log[0].seq if self._log else None

    def logged(self) -> list[Event]:
        """The logged events, oldest first (a live handoff carries them over)."""
        return list(self._log)

    @property
    def evicted_upto(self) -> int:
        """The newest seq dropped from the log (a ``since_seq`` before it is a gap)."""
        return self._evicted_upto

    def adopt_log(
        self, last_seq: int, evicted_upto: int, events: Iterable[tuple[int, str, Data]]
    ) -> None:
        """Continue another server's sequence: its counter, its logged events and its
        eviction mark, so ``since_seq`` replays resume here (live handoff). Call before
        anything is published."""
        for seq, kind, data in events:
            self._remember(Event(seq, kind, data))
        self._seq = max(self._seq, last_seq)
        self._evicted_upto = max(self._evicted_upto, evicted_upto)

    def wants(self, kind: str) -> bool:
        """Whether anyone listens for ``kind`` (lets hot paths skip building events)."""
        return self._interest[kind] > 0

    def publish(self, kind: str, data: Data) -> Event:
        """Assign the next seq, log (unless volatile) and deliver. ``data.type`` = kind."""
        data["type"] = kind
        self._seq += 1
        event = Event(self._seq, kind, data)
        if kind not in VOLATILE_KINDS:
            self._remember(event)
        if self._interest[kind] > 0:
            self._deliver(event)
        return event

    def _remember(self, event: Event) -> None:
        """Log ``event``, dropping the oldest while over the count or the byte budget.

        The event is encoded here, once (delivery reuses the line): its length is what
        the event weighs in the log.
        """
        log = self._log
        log.append(event)
        self._log_bytes += len(self._line(event))
        while log and (len(log) > self._log_size or self._log_bytes > self._log_byte_limit):
            oldest = log.popleft()
            self._log_bytes -= len(oldest.line)
            self._evicted_upto = oldest.seq

    @property
    def log_bytes(self) -> int:
        """Encoded bytes of the events in the replay log."""
        return self._log_bytes

    def _line(self, event: Event) -> bytes:
        if not event.line:
            event.line = self._encode(event.envelope())
        return event.line

    def _deliver(self, event: Event) -> None:
        kind = event.kind
        try:
            for sub in list(self._subscribers):
                if kind in sub.heard:
                    self._offer(sub, event, live=True)
        finally:
            event.end_fan_out()
        if self._waiters and self._interest[event.kind]:
            for waiter in list(self._waiters):
                if not waiter.done and waiter.kind == event.kind and waiter.matches(event):
                    self.remove_waiter(waiter)
                    waiter.on_match(event)

    def _offer(self, sub: Subscriber, event: Event, *, live: bool) -> int:
        """Queue what ``event`` means for ``sub``; returns the number of lines queued.

        Live lines beyond the queue limit are dropped and counted (a lag marker goes
        out later); end-of-stream lines always get through.
        """
        if sub.finished:
            return 0
        kind = event.kind
        pane_id = event.data.get("pane_id")
        lines: list[bytes] = []
        ends: list[bytes] = []
        for f in sub.by_kind.get(kind, ()):
            if f.ended:
                continue
            if f.shared:
                lines.append(self._line(event))
                continue
            if f.pane_id is not None and f.pane_id != pane_id:
                continue  # another pane's event: a pane-scoped filter would skip it
            try:
                out = f.apply(event)
            except FilterEnded as end:
                f.ended = True
                ends.append(self.ended_line(f, end.reason, end.message))
                continue
            if out is not None:
                lines.append(self._applied_line(event, out[0], out[1]))
        if sub.scoped and kind in _PANE_TRACKING:
            ends.extend(self._track_pane(sub, event))
        if lines and live and sub.would_overflow(lines):
            if not sub.dropped:
                sub.first_dropped = event.seq
            sub.dropped += 1
            sub.last_dropped = event.seq
            lines = []
        if not lines and not ends:
            return 0
        if sub.dropped:
            sub.queue.extend(self.lag_lines(sub))
        sub.queue.extend(lines)
        sub.queue.extend(ends)
        if ends and all(f.ended for f in sub.filters):
            sub.finished = True
        sub.wake()
        return len(lines)

    def _applied_line(self, event: Event, kind: str, data: Data) -> bytes:
        """Encode what a filter returned, once per distinct ``data`` object per event."""
        memo = event.memo()
        key = (_LINE_MEMO, kind, id(data))
        hit = memo.get(key)
        if hit is not None and hit[0] is data:
            line: bytes = hit[1]
            return line
        line = self._encode(protocol.event_envelope(kind, data, event.seq))
        memo[key] = (data, line)  # holding ``data`` keeps its id from being reused
        return line

    def drain(self, sub: Subscriber) -> list[bytes]:
        """Take every queued line, plus a lag marker if events were dropped since."""
        lines = list(sub.queue)
        sub.queue.clear()
        if sub.dropped:
            lines.extend(self.lag_lines(sub))
        return lines

    def lag_lines(self, sub: Subscriber) -> list[bytes]:
        """Consume pending drops into ``events_lost`` then ``subscription_lagged``.

        Both say the same (how many, which seqs); the first is the name herdr 0.9
        clients watch for, the second the one our clients always had.
        """
        lines = [
            self._encode(
                protocol.event_envelope(
                    kind,
                    {
                        "type": kind,
                        "dropped": sub.dropped,
                        "first_seq": sub.first_dropped,
                        "last_seq": sub.last_dropped,
                    },
                    None,
                )
            )
            for kind in (protocol.EVENTS_LOST, protocol.SUBSCRIPTION_LAGGED)
        ]
        sub.dropped = 0
        return lines

    def _track_pane(self, sub: Subscriber, event: Event) -> list[bytes]:
        lines: list[bytes] = []
        if event.kind == "pane_closed":
            for f in sub.filters:
                if not f.ended and f.pane_id == event.data.get("pane_id"):
                    f.ended = True
                    lines.append(self.ended_line(f, "pane_closed"))
        elif event.kind == "pane_moved":
            pane = event.data.get("pane")
            new_id = pane.get("pane_id") if isinstance(pane, Mapping) else None
            for f in sub.filters:
                if f.pane_id is not None and f.pane_id == event.data.get("previous_pane_id"):
                    f.pane_id = str(new_id) if new_id else f.pane_id
        return lines

    def ended_line(self, f: Filter, reason: str, message: str | None = None) -> bytes:
        data: Data = {
            "type": protocol.SUBSCRIPTION_ENDED,
            "subscription": f.item,
            "reason": reason,
            "pane_id": f.pane_id,
        }
        if message is not None:
            data["message"] = message
        return self._encode(protocol.event_envelope(protocol.SUBSCRIPTION_ENDED, data, None))

    # -- subscriptions -----------------------------------------------------------------

    def subscribe(
        self, filters: list[Filter], since_seq: int | None = None
    ) -> tuple[Subscriber, ReplayInfo]:
        """Register a subscriber; with ``since_seq``, queue matching logged events first."""
        sub = Subscriber(filters=filters, limit=self._queue_limit, byte_limit=self._queue_bytes)
        replayed = 0
        gap = False
        if since_seq is not None:
            gap = since_seq < self._evicted_upto or since_seq > self._seq
            for event in self._log:
                if event.seq > since_seq:
                    try:
                        replayed += self._offer(sub, event, live=False)
                    finally:
                        event.end_fan_out()
        self._subscribers.append(sub)
        self._interest.update(sub.kinds())
        info = ReplayInfo(self._seq, replayed, gap, self.oldest_seq)
        return sub, info

    def unsubscribe(self, sub: Subscriber) -> None:
        if sub in self._subscribers:
            self._subscribers.remove(sub)
            self._interest.subtract(sub.kinds())

    def end_all(self, reason: str) -> None:
        """Tell every subscriber its stream is over (server shutdown)."""
        for sub in list(self._subscribers):
            if not sub.finished:
                for f in sub.filters:
                    if not f.ended:
                        f.ended = True
                        sub.queue.append(self.ended_line(f, reason))
                sub.finished = True
                sub.wake()

    # -- waits -------------------------------------------------------------------------

    def add_waiter(
        self,
        match_event: Mapping[str, Any],
        on_match: Callable[[Event], None],
        since_seq: int | None = None,
    ) -> Waiter | None:
        """Wait for the next matching event; with ``since_seq`` a logged one counts.

        Returns ``None`` when a logged event already matched (``on_match`` was called).
        """
        waiter = Waiter(str(match_event["event"]), compile_match(match_event), on_match)
        if since_seq is not None:
            for event in self.logged_since(since_seq):
                if waiter.matches(event):
                    on_match(event)
                    return None
        self._waiters.append(waiter)
        self._interest[waiter.kind] += 1
        return waiter

    def remove_waiter(self, waiter: Waiter) -> None:
        if not waiter.done:
            waiter.done = True
            self._waiters.remove(waiter)
            self._interest[waiter.kind] -= 1

    def logged_since(self, since_seq: int) -> Iterable[Event]:
        return [e for e in self._log if e.seq > since_seq]

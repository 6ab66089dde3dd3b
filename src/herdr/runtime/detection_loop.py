"""Per-pane detection loop: probing, reading, debouncing, publishing (PURE).

The decisions of detection-spec §2.8–§2.9 (who is in the foreground, when to probe)
and §8 (start-up grace, no screen read while an idle pane's content is unchanged, the
working→idle confirmation hold, blocker refresh, publish only on change). The async
driver (one task per pane) owns the clock, the PTY and the engine; this module owns
every decision, so it is tested with plain values and a fake clock.

Time is **integer milliseconds of a monotonic clock**, like `agent_state`.

Driving one pane::

    state = new_loop_state(now)
    while True:
        await sleep_until(decision_deadline)          # or earlier: output woke us
        state, d = run_tick(state, now, foreground_pgid=..., content_seq=...,
                            probe=..., screen=...)
        for event in d.events: ...                     # AgentProcessDetected/StateChanged
        if d.clear_osc: ...                            # forget OSC title/progress
        decision_deadline = d.next_deadline            # None: wait for output only
    # on PTY output: decision_deadline = wake_on_output(state, decision_deadline, now)

`tick` itself never performs I/O: when it needs a probe or a screen evaluation it
returns ``need="probe"``/``need="screen"`` with the state unchanged, and the caller
calls it again with that input filled in (`run_tick` does exactly this).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from msgspec import Struct

from herdr.detect.agents import Agent
from herdr.vocab import AgentStatus

IDLE = AgentStatus.IDLE.value
WORKING = AgentStatus.WORKING.value
BLOCKED = AgentStatus.BLOCKED.value
UNKNOWN = AgentStatus.UNKNOWN.value

# §8.1
TICK_IDENTIFIED_MS = 300
TICK_UNIDENTIFIED_MS = 500
TICK_FAST_MS = 50
PENDING_IDLE_RECHECK_MS = 100
PENDING_IDLE_CONFIRMATIONS = 3
PENDING_IDLE_CAP_MS = 700
STABLE_VISIBLE_SIGNAL_REFRESH_MS = 800
STARTUP_GRACE_MS = 3000
FIRST_TICK_DELAY_MS = 50
# §2.8–§2.9
AGENT_MISS_CONFIRMATION_ATTEMPTS = 6
RELEASE_REACQUIRE_SUPPRESSION_MS = 1000
PROCESS_RECHECK_IDENTIFIED_MS = 5000
PROCESS_RECHECK_MISSING_GROUP_MS = 30_000
ACQUISITION_WINDOW_MS = 8000
ACQUISITION_FAST_WINDOW_MS = 1500
ACQUISITION_FAST_RECHECK_MS = 500
ACQUISITION_SLOW_RECHECK_MS = 2000
ACQUISITION_IDLE_RESET_MS = 2000
# Output wakes (beyond the original's fixed tick): a burst is coalesced for a frame,
# and output never drives ticks closer together than the fast tick.
OUTPUT_WAKE_DELAY_MS = 15
MIN_OUTPUT_TICK_GAP_MS = TICK_FAST_MS
# A pane with no agent reads no screen: its output ticks only watch the foreground
# group (and open acquisition windows), for which §8.1's cadence is 500 ms. A shell
# running a loop flips its group on every command, and each flip seen is a probe (a
# third of the server's CPU with 16 such panes streaming): half the original's
# cadence still names a new agent twice as fast, at 2.5x fewer probes than 100 ms.
NO_AGENT_OUTPUT_TICK_GAP_MS = 250

ShellAction = Literal["observe", "report_exit", "clear", "replacement"]


# --------------------------------------------------------------------------- records


class Detection(Struct, frozen=True):
    """One screen evaluation as plain values (from the engine's `AgentDetection`)."""

    state: str
    visible_idle: bool = False
    visible_blocker: bool = False
    visible_working: bool = False


class ProbeResult(Struct, frozen=True):
    """What a foreground-job probe found (§2.3)."""

    agent: Agent | None
    process_group_id: int | None = None
    foreground_is_pane_shell: bool = False


class ScreenResult(Struct, frozen=True):
    """The screen evaluation for the current agent.

    ``skip``: the manifest winner for the screen *without OSC* says skip_state_update
    (§8.3 step 8). ``detection``: the evaluation *with OSC* (None when ``skip``, or when
    it said skip itself).
    """

    skip: bool
    detection: Detection | None = None


class DetectionLike(Protocol):
    """The engine's `AgentDetection`, structurally (no import of the engine)."""

    @property
    def state(self) -> str: ...
    @property
    def skip_state_update(self) -> bool: ...
    @property
    def visible_idle(self) -> bool: ...
    @property
    def visible_blocker(self) -> bool: ...
    @property
    def visible_working(self) -> bool: ...


def screen_result(without_osc: DetectionLike, with_osc: DetectionLike | None) -> ScreenResult:
    """The tick's screen input from two verdicts: without OSC (skip check), with OSC."""
    if without_osc.skip_state_update:
        return ScreenResult(True)
    if with_osc is None or with_osc.skip_state_update:
        return ScreenResult(False, None)
    detection = Detection(
        with_osc.state, with_osc.visible_idle, with_osc.visible_blocker, with_osc.visible_working
    )
    return ScreenResult(False, detection)


class TickInput(Struct, frozen=True):
    """Per-tick observations; `probe`/`screen` are filled in when `tick` asks."""

    foreground_pgid: int | None
    content_seq: int
    probe: ProbeResult | None = None
    screen: ScreenResult | None = None


class Published(Struct, frozen=True):
    """The last published detection (state and visible flags)."""

    state: str = UNKNOWN
    visible_idle: bool = False
    visible_blocker: bool = False
    visible_working: bool = False


class PendingIdle(Struct, frozen=True):
    """A working→idle hold waiting for confirmation."""

    started_at: int | None = None
    confirmations: int = 0

    @property
    def active(self) -> bool:
        return self.started_at is not None


NO_PENDING = PendingIdle()


class Presence(Struct, frozen=True):
    """The agent the loop believes is in the foreground, and consecutive misses."""

    agent: Agent | None = None
    misses: int = 0


class Release(Struct, frozen=True):
    """Graceful release: probes finding `agent` count as none until `until`."""

    agent: Agent
    until: int


class AgentProcessDetected(Struct, frozen=True):
    """Loop event → `agent_state.apply_process_detected`."""

    agent: Agent
    at: int


class StateChanged(Struct, frozen=True):
    """Loop event → `agent_state.apply_detection` (visible_idle is not transmitted)."""

    agent: Agent | None
    state: str
    visible_blocker: bool
    visible_working: bool
    process_exited: bool
    observed_at: int


LoopEvent = AgentProcessDetected | StateChanged


NO_PRESENCE = Presence()
NOT_PUBLISHED = Published()


@dataclass(slots=True)
class LoopState:
    """Loop state of one pane (§8.2). Treat as a value: `tick` returns a new one."""

    started_at: int
    presence: Presence = NO_PRESENCE
    published: Published = NOT_PUBLISHED
    last_refresh_at: int | None = None
    pending_idle: PendingIdle = NO_PENDING
    grace_until: int | None = None
    last_scan_seq: int | None = None
    has_probed: bool = False
    last_probe_at: int = 0
    last_pgid: int | None = None
    observed_pgid: int | None = None
    acquisition_started_at: int | None = None
    last_content_change_at: int | None = None
    last_content_seq: int | None = None
    pending_shell_clear: bool = False
    exit_reported: bool = False
    restore_probe_pending: bool = False
    release: Release | None = None
    release_was_active: bool = False
    full_lifecycle_active: bool = False
    last_tick_at: int | None = None


class TickDecision(Struct, frozen=True):
    """What a tick decided. With ``need`` set nothing was decided yet: call again."""

    need: Literal["probe", "screen"] | None = None
    screen_agent: Agent | None = None
    events: tuple[LoopEvent, ...] = ()
    clear_osc: bool = False
    probed: bool = False
    screen_read: bool = False
    next_deadline: int | None = None


# --------------------------------------------------------------------------- lifecycle


def new_loop_state(now: int, *, restore_probe: bool = False) -> LoopState:
    """A fresh loop (published state unknown; the spec's two loops unified, §12)."""
    return LoopState(started_at=now, last_probe_at=now, restore_probe_pending=restore_probe)


def reset(state: LoopState, now: int) -> LoopState:
    """Manifest reload, FULL authority turning on, graceful release: start over."""
    fresh = new_loop_state(now)
    fresh.full_lifecycle_active = state.full_lifecycle_active
    fresh.last_tick_at = state.last_tick_at
    return fresh


def begin_graceful_release(state: LoopState, agent: Agent, now: int) -> LoopState:
    """After a release: reset, and ignore that agent in probes for 1 s (§2.8)."""
    fresh = reset(state, now)
    fresh.release = Release(agent, now + RELEASE_REACQUIRE_SUPPRESSION_MS)
    return fresh


def set_full_lifecycle_active(state: LoopState, active: bool, now: int) -> LoopState:
    """Push the live-FULL flag from arbitration; false → true resets the loop (§9.2)."""
    if active == state.full_lifecycle_active:
        return state
    fresh = reset(state, now) if active else copy_state(state)
    fresh.full_lifecycle_active = active
    return fresh


# --------------------------------------------------------------------------- presence


def observe_presence(presence: Presence, agent: Agent | None) -> tuple[Presence, bool]:
    """A found agent switches at once; a missing one is dropped after 6 misses."""
    if agent is not None:
        return Presence(agent), agent != presence.agent
    if presence.agent is None:
        return Presence(), False
    misses = presence.misses + 1
    if misses < AGENT_MISS_CONFIRMATION_ATTEMPTS:
        return Presence(presence.agent, misses), False
    return Presence(), True


def shell_action(
    prev: Agent | None, new: Agent | None, foreground_is_shell: bool, exit_reported: bool
) -> ShellAction:
    """`foreground_shell_agent_action` (§2.8): publish an exit before clearing."""
    if prev is None:
        return "observe"
    if exit_reported:
        if new == prev:
            return "replacement"
        return "clear" if new is None else "observe"
    if new is not None:
        return "observe"
    return "report_exit" if foreground_is_shell else "observe"


def group_changed(observed: int | None, last: int | None) -> bool:
    return observed != last and (observed is not None or last is not None)


class ProbeInput(Struct, frozen=True):
    """Inputs of `should_probe` (§2.9)."""

    current_agent: Agent | None
    suppressed_agent: Agent | None
    foreground_pgid: int | None
    last_pgid: int | None
    has_probed: bool
    acquisition_age: int | None
    pending_shell_clear: bool
    pending_restore_probe: bool
    since_last_probe: int


def should_probe(p: ProbeInput) -> bool:
    """`should_probe_foreground_job` (§2.9)."""
    if p.pending_shell_clear or p.pending_restore_probe:
        return True
    changed = group_changed(p.foreground_pgid, p.last_pgid)
    if p.suppressed_agent is not None:
        return not p.has_probed or changed
    if p.acquisition_age is not None and p.acquisition_age <= ACQUISITION_WINDOW_MS:
        fast = p.acquisition_age <= ACQUISITION_FAST_WINDOW_MS
        interval = ACQUISITION_FAST_RECHECK_MS if fast else ACQUISITION_SLOW_RECHECK_MS
        if p.since_last_probe >= interval:
            return True
    if p.current_agent is None:
        missing = (
            p.foreground_pgid is None and p.since_last_probe >= PROCESS_RECHECK_MISSING_GROUP_MS
        )
        return not p.has_probed or changed or missing
    return changed or p.since_last_probe >= PROCESS_RECHECK_IDENTIFIED_MS


def skip_probe_for_full_lifecycle(active: bool, p: ProbeInput) -> bool:
    """Under a live FULL hook the routine probe is skipped while nothing moved."""
    return (
        active
        and p.foreground_pgid is not None
        and not p.pending_shell_clear
        and p.suppressed_agent is None
        and p.has_probed
        and not group_changed(p.foreground_pgid, p.last_pgid)
    )


def _probe_input(s: LoopState, fg: int | None, now: int) -> ProbeInput:
    started = s.acquisition_started_at
    return ProbeInput(
        current_agent=s.presence.agent,
        suppressed_agent=s.release.agent if s.release is not None else None,
        foreground_pgid=fg,
        last_pgid=s.last_pgid,
        has_probed=s.has_probed,
        acquisition_age=None if started is None else now - started,
        pending_shell_clear=s.pending_shell_clear,
        pending_restore_probe=s.restore_probe_pending,
        since_last_probe=now - s.last_probe_at,
    )


def sync_acquisition(s: LoopState, content_changed: bool, moved: bool, now: int) -> None:
    """Output in a pane without an agent opens a window of faster probes (§2.9)."""
    if s.presence.agent is not None or s.release is not None or moved:
        return
    started, last_change = s.acquisition_started_at, s.last_content_change_at
    if content_changed:
        quiet = last_change is None or now - last_change >= ACQUISITION_IDLE_RESET_MS
        if started is None or (now - started > ACQUISITION_WINDOW_MS and quiet):
            s.acquisition_started_at = now
        s.last_content_change_at = now
        return
    if started is None or last_change is None:
        return
    if now - started > ACQUISITION_WINDOW_MS and now - last_change >= ACQUISITION_IDLE_RESET_MS:
        s.acquisition_started_at = None
        s.last_content_change_at = None


def _apply_probe(s: LoopState, probe: ProbeResult, fg: int | None, moved: bool, now: int) -> bool:
    """Run the presence/shell rules on a probe; True when the agent changed."""
    had_probed = s.has_probed
    s.last_probe_at, s.has_probed, s.restore_probe_pending = now, True, False
    found = probe.agent
    if s.release is not None:
        if found == s.release.agent:
            found = None
        else:
            s.release = None
    prev = s.presence.agent
    action = shell_action(prev, found, probe.foreground_is_pane_shell, s.exit_reported)
    changed = False
    if action == "report_exit":
        s.pending_shell_clear = True
    else:
        s.pending_shell_clear = s.exit_reported = False
        if action == "clear":
            s.presence, changed = Presence(), prev is not None
        elif action == "replacement":
            s.presence, changed = Presence(prev), True
        else:
            s.presence, changed = observe_presence(s.presence, found)
    # Only kernel-reported groups are tracked: an inferred one would look like a change.
    s.last_pgid = None if fg is None else (probe.process_group_id or fg)
    if found is not None:
        s.acquisition_started_at = s.last_content_change_at = None
    elif s.presence.agent is None and had_probed and moved:
        s.acquisition_started_at = now
    return changed and (prev != s.presence.agent or action == "replacement")


# --------------------------------------------------------------------------- publishing


def hold_working_to_idle(
    pending: PendingIdle,
    prev: Published,
    nxt: Published,
    *,
    agent_changed: bool,
    process_exited: bool,
    now: int,
) -> tuple[bool, PendingIdle]:
    """§8.3 step 10a: hold a plain working→idle until confirmed; (hold?, new pending)."""
    applies = (
        prev.state == WORKING
        and nxt.state == IDLE
        and not nxt.visible_idle
        and not nxt.visible_blocker
        and not agent_changed
        and not process_exited
    )
    if not applies:
        return False, NO_PENDING
    if pending.started_at is None:
        return True, PendingIdle(now, 0)
    if now - pending.started_at >= PENDING_IDLE_CAP_MS:
        return False, NO_PENDING
    confirmations = pending.confirmations + 1
    if confirmations >= PENDING_IDLE_CONFIRMATIONS:
        return False, NO_PENDING
    return True, PendingIdle(pending.started_at, confirmations)


def published_from(detection: Detection) -> Published:
    """Visible flags only count together with their own state."""
    state = detection.state
    return Published(
        state,
        detection.visible_idle and state == IDLE,
        detection.visible_blocker and state == BLOCKED,
        detection.visible_working and state == WORKING,
    )


def decide_publish(
    prev: Published,
    detection: Detection,
    pending: PendingIdle,
    last_refresh_at: int | None,
    *,
    agent_changed: bool,
    process_exited: bool,
    now: int,
) -> tuple[Published | None, PendingIdle]:
    """`decide_screen_detection_publish`: what to publish (None: nothing) and the hold."""
    nxt = published_from(detection)
    held, pending = hold_working_to_idle(
        pending, prev, nxt, agent_changed=agent_changed, process_exited=process_exited, now=now
    )
    if held:
        return None, pending
    stable_blocker = nxt.visible_blocker and prev.visible_blocker
    refresh_due = stable_blocker and (
        last_refresh_at is None or now - last_refresh_at >= STABLE_VISIBLE_SIGNAL_REFRESH_MS
    )
    if nxt != prev or agent_changed or process_exited or refresh_due:
        return nxt, pending
    return None, pending


def should_skip_screen_read(
    s: LoopState, agent_changed: bool, process_exited: bool, content_seq: int
) -> bool:
    """§8.3 step 6: an idle pane whose content did not change is not read."""
    return (
        s.published.state == IDLE
        and s.presence.agent is not None
        and not s.pending_idle.active
        and not agent_changed
        and not process_exited
        and s.last_scan_seq == content_seq
    )


# --------------------------------------------------------------------------- the tick


@dataclass(slots=True)
class _TickWork:
    events: list[LoopEvent]
    moved: bool = False
    exited: bool = False
    agent_changed: bool = False
    clear_osc: bool = False
    probed: bool = False
    screen_read: bool = False
    screen: Callable[[Agent], ScreenResult] | None = None


def tick(state: LoopState, inp: TickInput, now: int) -> tuple[LoopState, TickDecision]:
    """One run of the tick body (§8.3). Never mutates `state`."""
    return _run(state, inp, now, None, None)


def copy_state(s: LoopState) -> LoopState:
    """A copy of `s` (``dataclasses.replace`` costs ~10x more: it walks the fields)."""
    return LoopState(
        s.started_at,
        s.presence,
        s.published,
        s.last_refresh_at,
        s.pending_idle,
        s.grace_until,
        s.last_scan_seq,
        s.has_probed,
        s.last_probe_at,
        s.last_pgid,
        s.observed_pgid,
        s.acquisition_started_at,
        s.last_content_change_at,
        s.last_content_seq,
        s.pending_shell_clear,
        s.exit_reported,
        s.restore_probe_pending,
        s.release,
        s.release_was_active,
        s.full_lifecycle_active,
        s.last_tick_at,
    )


def _run(
    state: LoopState,
    inp: TickInput,
    now: int,
    probe: Callable[[], ProbeResult] | None,
    screen: Callable[[Agent], ScreenResult] | None,
) -> tuple[LoopState, TickDecision]:
    """The tick; a missing input is asked of ``probe``/``screen``, or, without them,
    returned as a ``need`` (with `state` unchanged)."""
    s = copy_state(state)
    work = _TickWork(events=[], screen=screen)
    _expire_release(s, now)
    fg = inp.foreground_pgid
    work.moved = moved = group_changed(fg, s.last_pgid)
    probe_in = _probe_input(s, fg, now)
    wants = should_probe(probe_in) and not skip_probe_for_full_lifecycle(
        s.full_lifecycle_active, probe_in
    )
    if wants:
        found = inp.probe
        if found is None:
            if probe is None:
                return state, TickDecision(need="probe")
            found = probe()
        work.probed = True
        if _apply_probe(s, found, fg, moved, now):
            _on_agent_change(s, work, now)
    s.observed_pgid, s.last_tick_at = fg, now
    done = _tick_body(s, inp, work, now)
    if done is not None:
        return state, done
    return s, _decision(s, work)


def _expire_release(s: LoopState, now: int) -> None:
    """§8.3 step 1: when a suppression has just ended, re-probe from scratch."""
    if s.release is not None and now >= s.release.until:
        s.release = None
    if s.release is None and s.release_was_active:
        s.has_probed = False
        s.acquisition_started_at = s.last_content_change_at = None
    s.release_was_active = s.release is not None


def _on_agent_change(s: LoopState, work: _TickWork, now: int) -> None:
    """§8.3 step 2: a new (or replaced) agent starts over behind a start-up grace."""
    work.agent_changed = work.clear_osc = True
    s.pending_idle, s.last_scan_seq = NO_PENDING, None
    agent = s.presence.agent
    if agent is None:
        s.grace_until = None
        return
    s.grace_until = now + STARTUP_GRACE_MS
    s.published, s.last_refresh_at = Published(UNKNOWN), None
    work.events.append(AgentProcessDetected(agent, now))


def _tick_body(s: LoopState, inp: TickInput, work: _TickWork, now: int) -> TickDecision | None:
    """Steps 3–11; returns a `need` decision when an input is missing."""
    agent = s.presence.agent
    work.exited = exited = s.pending_shell_clear and agent is not None and not s.exit_reported
    if s.full_lifecycle_active and not exited:
        s.pending_idle = NO_PENDING
        return None
    if s.grace_until is not None:
        grace_over = now >= s.grace_until
        s.grace_until = None if exited or grace_over else s.grace_until
        s.pending_idle = NO_PENDING
        if not exited:
            return None
        s.last_scan_seq = None
    detection = _observe_screen(s, inp, work, now)
    if isinstance(detection, TickDecision):
        return detection
    if detection is None:
        s.pending_idle = NO_PENDING
        return None
    _publish(s, work, detection, now)
    return None


def _observe_screen(
    s: LoopState, inp: TickInput, work: _TickWork, now: int
) -> Detection | TickDecision | None:
    """Steps 6–9: the detection for this tick (None: skipped or nothing to read)."""
    agent, exited = s.presence.agent, work.exited
    if agent is None:
        # No agent: nothing to evaluate (always unknown); content changes are seen
        # from the content counter, without reading the screen.
        sync_acquisition(s, inp.content_seq != s.last_content_seq, work.moved, now)
        s.last_content_seq = inp.content_seq
        return Detection(UNKNOWN)
    if exited:
        s.last_scan_seq = inp.content_seq
        return Detection(IDLE, visible_idle=True)
    if should_skip_screen_read(s, work.agent_changed, exited, inp.content_seq):
        return None
    seen = inp.screen
    if seen is None:
        if work.screen is None:
            return TickDecision(need="screen", screen_agent=agent)
        seen = work.screen(agent)
    work.screen_read = True
    s.last_scan_seq = inp.content_seq
    if seen.skip or seen.detection is None:
        return None
    return seen.detection


def _publish(s: LoopState, work: _TickWork, detection: Detection, now: int) -> None:
    """Steps 10–11: decide, then record and emit the publish."""
    agent, exited = s.presence.agent, work.exited
    nxt, s.pending_idle = decide_publish(
        s.published,
        detection,
        s.pending_idle,
        s.last_refresh_at,
        agent_changed=work.agent_changed,
        process_exited=exited,
        now=now,
    )
    if nxt is None:
        return
    s.published = nxt
    s.last_refresh_at = now if nxt.visible_blocker or nxt.visible_working else None
    if exited:
        s.exit_reported = True
    work.events.append(
        StateChanged(agent, nxt.state, nxt.visible_blocker, nxt.visible_working, exited, now)
    )


def _decision(s: LoopState, work: _TickWork) -> TickDecision:
    return TickDecision(
        events=tuple(work.events),
        clear_osc=work.clear_osc,
        probed=work.probed,
        screen_read=work.screen_read,
        next_deadline=next_deadline(s),
    )


# --------------------------------------------------------------------------- scheduling


def next_deadline(s: LoopState) -> int | None:
    """When the next tick is due without new output (None: only output wakes it).

    An idle pane with an agent and unchanged content has nothing to do but the 5 s
    identity recheck; working/blocked/unknown panes keep the 300 ms cadence; holds,
    grace, exits and releases get their own timers.
    """
    last = s.last_tick_at
    if last is None:
        return s.started_at + FIRST_TICK_DELAY_MS
    due = _timer_candidates(s, last)
    if not due:
        return None
    return max(min(due), last + TICK_FAST_MS)


def _timer_candidates(s: LoopState, last: int) -> list[int]:
    due: list[int] = []
    if s.release is not None:
        due.append(s.release.until)
    if s.pending_shell_clear or s.restore_probe_pending:
        due.append(last + TICK_FAST_MS)
    if s.pending_idle.active:
        due.append(last + PENDING_IDLE_RECHECK_MS)
    if s.grace_until is not None:
        due.append(s.grace_until)
    if s.presence.agent is not None:
        due.append(s.last_probe_at + PROCESS_RECHECK_IDENTIFIED_MS)
        reading = not s.full_lifecycle_active and s.grace_until is None
        if reading and (s.published.state != IDLE or s.last_scan_seq is None):
            due.append(last + TICK_IDENTIFIED_MS)
        return due
    if not s.has_probed:
        due.append(last + TICK_UNIDENTIFIED_MS)
    started = s.acquisition_started_at
    if started is not None and last - started <= ACQUISITION_WINDOW_MS:
        fast = last - started <= ACQUISITION_FAST_WINDOW_MS
        interval = ACQUISITION_FAST_RECHECK_MS if fast else ACQUISITION_SLOW_RECHECK_MS
        due.append(s.last_probe_at + interval)
    if s.observed_pgid is None:
        due.append(s.last_probe_at + PROCESS_RECHECK_MISSING_GROUP_MS)
    return due


def wake_on_output(s: LoopState, scheduled: int | None, now: int) -> int:
    """The deadline after PTY output: soon (coalesced), at most every 50 ms (100 ms
    while no agent is identified).

    A pending working→idle hold keeps its own 100 ms cadence (its confirmations count
    ticks), so output does not pull it forward.
    """
    if s.pending_idle.active and scheduled is not None:
        return scheduled
    soon = now + OUTPUT_WAKE_DELAY_MS
    if s.last_tick_at is not None:
        gap = (
            MIN_OUTPUT_TICK_GAP_MS if s.presence.agent is not None else NO_AGENT_OUTPUT_TICK_GAP_MS
        )
        soon = max(soon, s.last_tick_at + gap)
    return soon if scheduled is None else min(scheduled, soon)


def run_tick(
    state: LoopState,
    now: int,
    *,
    foreground_pgid: int | None,
    content_seq: int,
    probe: Callable[[], ProbeResult],
    screen: Callable[[Agent], ScreenResult],
) -> tuple[LoopState, TickDecision]:
    """`tick`, calling ``probe``/``screen`` at the point it needs them (one pass: the
    same decisions as calling `tick` again with the input filled in)."""
    return _run(state, TickInput(foreground_pgid, content_seq), now, probe, screen)

"""Detection loop decisions with a fake clock (detection-spec §2.8–§2.9, §8, §11.4)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import pytest

from herdr.detect.agents import Agent, parse_canonical_agent_label
from herdr.detect.manifest.model import AgentDetection
from herdr.runtime import agent_state as ags
from herdr.runtime import detection_loop as dl
from herdr.runtime.detection_loop import (
    AgentProcessDetected,
    Detection,
    LoopState,
    Presence,
    ProbeInput,
    ProbeResult,
    Published,
    ScreenResult,
    StateChanged,
    TickDecision,
    TickInput,
)
from herdr_testing.records import replace

VECTORS = json.loads((Path(__file__).parent / "data" / "debounce_vectors.json").read_text())[
    "vectors"
]
SHELL = 10
AGENT_PGID = 42

OBSERVATIONS: dict[str, ScreenResult] = {
    "plain_idle": ScreenResult(False, Detection("idle")),
    "idle_vi": ScreenResult(False, Detection("idle", visible_idle=True)),
    "working_vw": ScreenResult(False, Detection("working", visible_working=True)),
    "blocked_vb": ScreenResult(False, Detection("blocked", visible_blocker=True)),
    "blocked": ScreenResult(False, Detection("blocked")),
    "skip": ScreenResult(True, None),
}


@dataclass
class FakePane:
    """A pane as the loop sees it: foreground group, a probe and a screen."""

    agent: Agent | None
    fg: int | None = AGENT_PGID
    seq: int = 0
    screen: ScreenResult = OBSERVATIONS["plain_idle"]
    probes: list[int] = field(default_factory=list)
    reads: list[int] = field(default_factory=list)
    now: int = 0

    def probe(self) -> ProbeResult:
        self.probes.append(self.now)
        if self.fg == SHELL:
            return ProbeResult(None, SHELL, True)
        return ProbeResult(self.agent, self.fg, False)

    def read(self, agent: Agent) -> ScreenResult:
        assert agent == self.agent
        self.reads.append(self.now)
        return self.screen

    def tick(self, state: LoopState, now: int) -> tuple[LoopState, TickDecision]:
        self.now = now
        return dl.run_tick(
            state,
            now,
            foreground_pgid=self.fg,
            content_seq=self.seq,
            probe=self.probe,
            screen=self.read,
        )


def identified(agent: Agent, published: Published, **changes: Any) -> LoopState:
    """An agent identified long ago: no grace, probed recently, nothing pending."""
    state = replace(
        dl.new_loop_state(-60_000),
        presence=Presence(agent),
        published=published,
        has_probed=True,
        last_probe_at=-1_000,
        last_pgid=AGENT_PGID,
        observed_pgid=AGENT_PGID,
        last_tick_at=-300,
    )
    return replace(state, **changes)


def _agent(label: str | None) -> Agent | None:
    return None if label is None else parse_canonical_agent_label(label)


def _initial(vector: dict[str, Any], agent: Agent) -> tuple[LoopState, FakePane]:
    if vector.get("agent_appears"):
        state = replace(
            dl.new_loop_state(-60_000),
            has_probed=True,
            last_probe_at=-1_000,
            last_pgid=SHELL,
            observed_pgid=SHELL,
            last_tick_at=-300,
        )
        return state, FakePane(agent)
    init = vector["initial"]
    published = Published(
        init["state"], init.get("vi", False), init.get("vb", False), init.get("vw", False)
    )
    refreshed = init.get("refreshed_at", -300 if init.get("vb") or init.get("vw") else None)
    state = identified(
        agent,
        published,
        last_refresh_at=refreshed,
        last_scan_seq=init.get("last_scan_seq"),
        full_lifecycle_active=vector.get("full_lifecycle", False),
    )
    return state, FakePane(agent)


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_debounce_vector(vector: dict[str, Any]) -> None:
    agent = _agent(vector["agent"])
    assert agent is not None
    state, pane = _initial(vector, agent)
    publishes: list[dict[str, Any]] = []
    detected: list[int] = []
    for step in vector["ticks"]:
        t = step["t"]
        pane.seq = step.get("seq", pane.seq + 1)
        obs = step["obs"]
        if obs == "shell":
            pane.fg = SHELL
        else:
            pane.screen = OBSERVATIONS[obs]
        state, decision = pane.tick(state, t)
        for event in decision.events:
            if isinstance(event, AgentProcessDetected):
                assert event.agent == agent
                detected.append(event.at)
            else:
                publishes.append(_publish_record(event))
    assert publishes == [_expected(p) for p in vector["publishes"]]
    assert detected == vector.get("detected", [])
    if "reads" in vector:
        assert pane.reads == vector["reads"]
    if "pending_started_at_end" in vector:
        assert state.pending_idle.started_at == vector["pending_started_at_end"]


def _publish_record(event: StateChanged) -> dict[str, Any]:
    return {
        "t": event.observed_at,
        "agent": event.agent.label if event.agent else None,
        "state": event.state,
        "vb": event.visible_blocker,
        "vw": event.visible_working,
        "exited": event.process_exited,
    }


def _expected(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "t": p["t"],
        "agent": p["agent"],
        "state": p["state"],
        "vb": p.get("vb", False),
        "vw": p.get("vw", False),
        "exited": p.get("exited", False),
    }


def test_fixture_holds_all_spec_vectors() -> None:
    assert [v["id"] for v in VECTORS] == [f"DV{i}" for i in range(1, 16)]


# --------------------------------------------------------------------------- tick protocol


def test_tick_asks_for_probe_then_screen_without_changing_state() -> None:
    state = identified(Agent.CODEX, Published("working", visible_working=True))
    inp = TickInput(foreground_pgid=SHELL, content_seq=1)
    same, decision = dl.tick(state, inp, 0)
    assert decision.need == "probe" and same is state
    inp = replace(inp, foreground_pgid=AGENT_PGID)
    _, decision = dl.tick(state, inp, 0)
    assert decision.need == "screen" and decision.screen_agent == Agent.CODEX
    new, decision = dl.tick(state, replace(inp, screen=OBSERVATIONS["blocked_vb"]), 0)
    assert decision.need is None and decision.screen_read
    assert new.published.state == "blocked" and state.published.state == "working"


def test_agent_change_resets_and_clears_osc() -> None:
    state = identified(Agent.CODEX, Published("working", visible_working=True))
    pane = FakePane(Agent.CLAUDE, fg=77)
    state, decision = pane.tick(state, 0)
    assert decision.clear_osc and decision.probed
    assert decision.events == (AgentProcessDetected(Agent.CLAUDE, 0),)
    assert state.published == Published("unknown")
    assert state.grace_until == dl.STARTUP_GRACE_MS


def test_no_agent_pane_never_reads_the_screen() -> None:
    state = replace(dl.new_loop_state(0), has_probed=True, last_pgid=SHELL)
    pane = FakePane(None, fg=SHELL)
    for t in range(0, 3000, 300):
        pane.seq += 1
        state, decision = pane.tick(state, t)
        assert decision.events == ()
    assert pane.reads == []


def test_full_lifecycle_pause_and_reset() -> None:
    state = identified(Agent.KIMI, Published("idle", visible_idle=True))
    paused = dl.set_full_lifecycle_active(state, True, now=5)
    assert paused.full_lifecycle_active and paused.presence.agent is None  # reset
    assert dl.set_full_lifecycle_active(paused, True, now=6) is paused
    resumed = dl.set_full_lifecycle_active(paused, False, now=7)
    assert not resumed.full_lifecycle_active


def test_process_exit_is_published_even_if_a_skip_rule_matches() -> None:
    state = identified(Agent.CODEX, Published("working", visible_working=True))
    pane = FakePane(Agent.CODEX, fg=SHELL, screen=OBSERVATIONS["skip"])
    state, decision = pane.tick(state, 0)
    assert [e.process_exited for e in decision.events if isinstance(e, StateChanged)] == [True]
    assert pane.reads == []


# --------------------------------------------------------------------------- presence


def test_presence_misses_clear_after_six() -> None:
    presence = Presence(Agent.CODEX)
    for _ in range(dl.AGENT_MISS_CONFIRMATION_ATTEMPTS - 1):
        presence, changed = dl.observe_presence(presence, None)
        assert not changed and presence.agent == Agent.CODEX
    presence, changed = dl.observe_presence(presence, None)
    assert changed and presence == Presence()


def test_presence_hit_resets_misses_and_switches() -> None:
    presence, _ = dl.observe_presence(Presence(Agent.CODEX, 4), Agent.CODEX)
    assert presence == Presence(Agent.CODEX, 0)
    presence, changed = dl.observe_presence(presence, Agent.CLAUDE)
    assert changed and presence.agent == Agent.CLAUDE
    assert dl.observe_presence(Presence(), None) == (Presence(), False)


C, X = Agent.CODEX, Agent.CLAUDE


@pytest.mark.parametrize(
    ("prev", "new", "is_shell", "exit_reported", "action"),
    [
        (None, C, True, False, "observe"),
        (None, None, True, True, "observe"),
        (C, C, True, True, "replacement"),
        (C, None, True, True, "clear"),
        (C, X, True, True, "observe"),
        (C, X, False, False, "observe"),
        (C, None, True, False, "report_exit"),
        (C, None, False, False, "observe"),
    ],
)
def test_shell_action(
    prev: Agent | None, new: Agent | None, is_shell: bool, exit_reported: bool, action: str
) -> None:
    assert dl.shell_action(prev, new, is_shell, exit_reported) == action


def test_miss_without_shell_is_confirmed_six_times() -> None:
    state = identified(Agent.CODEX, Published("idle", visible_idle=True), last_scan_seq=1)
    pane = FakePane(None, fg=99)  # another job, not the shell, no agent
    now = 0
    for _ in range(dl.AGENT_MISS_CONFIRMATION_ATTEMPTS - 1):
        now += dl.PROCESS_RECHECK_IDENTIFIED_MS
        pane.seq = 1
        state, decision = pane.tick(state, now)
        assert decision.probed and state.presence.agent == Agent.CODEX
    state, decision = pane.tick(state, now + dl.PROCESS_RECHECK_IDENTIFIED_MS)
    assert state.presence.agent is None
    assert [e.state for e in decision.events if isinstance(e, StateChanged)] == ["unknown"]


def test_graceful_release_suppresses_the_same_agent_for_one_second() -> None:
    state = dl.begin_graceful_release(
        identified(Agent.CODEX, Published("idle")), Agent.CODEX, now=0
    )
    pane = FakePane(Agent.CODEX)
    state, decision = pane.tick(state, 50)
    assert decision.probed and state.presence.agent is None
    state, decision = pane.tick(state, 300)
    assert not decision.probed  # suppressed: only when never probed or the group moved
    state, decision = pane.tick(state, 1000)  # suppression over: history forgotten
    assert decision.probed and state.presence.agent == Agent.CODEX
    assert any(isinstance(e, AgentProcessDetected) for e in decision.events)


def test_graceful_release_is_cancelled_by_another_agent() -> None:
    state = dl.begin_graceful_release(
        identified(Agent.CODEX, Published("idle")), Agent.CODEX, now=0
    )
    state, _ = FakePane(Agent.CLAUDE, fg=55).tick(state, 50)
    assert state.release is None and state.presence.agent == Agent.CLAUDE


# --------------------------------------------------------------------------- probe scheduling


def _probe(**changes: Any) -> ProbeInput:
    base = ProbeInput(
        current_agent=None,
        suppressed_agent=None,
        foreground_pgid=5,
        last_pgid=5,
        has_probed=True,
        acquisition_age=None,
        pending_shell_clear=False,
        pending_restore_probe=False,
        since_last_probe=0,
    )
    return replace(base, **changes)


@pytest.mark.parametrize(
    ("changes", "probe"),
    [
        ({}, False),
        ({"pending_shell_clear": True}, True),
        ({"pending_restore_probe": True}, True),
        ({"has_probed": False}, True),
        ({"foreground_pgid": 6}, True),
        ({"foreground_pgid": None, "last_pgid": None, "since_last_probe": 29_999}, False),
        ({"foreground_pgid": None, "last_pgid": None, "since_last_probe": 30_000}, True),
        ({"foreground_pgid": None, "last_pgid": 5}, True),
        ({"suppressed_agent": C, "since_last_probe": 60_000}, False),
        ({"suppressed_agent": C, "foreground_pgid": 7}, True),
        ({"suppressed_agent": C, "has_probed": False}, True),
        ({"acquisition_age": 1500, "since_last_probe": 499}, False),
        ({"acquisition_age": 1500, "since_last_probe": 500}, True),
        ({"acquisition_age": 1501, "since_last_probe": 500}, False),
        ({"acquisition_age": 1501, "since_last_probe": 2000}, True),
        ({"acquisition_age": 8000, "since_last_probe": 2000}, True),
        ({"acquisition_age": 8001, "since_last_probe": 2000}, False),
        ({"current_agent": C, "since_last_probe": 4999}, False),
        ({"current_agent": C, "since_last_probe": 5000}, True),
        ({"current_agent": C, "foreground_pgid": 9}, True),
    ],
)
def test_should_probe(changes: dict[str, Any], probe: bool) -> None:
    assert dl.should_probe(_probe(**changes)) is probe


@pytest.mark.parametrize(
    ("active", "changes", "skip"),
    [
        (True, {"current_agent": C}, True),
        (False, {"current_agent": C}, False),
        (True, {"foreground_pgid": None, "last_pgid": None}, False),
        (True, {"pending_shell_clear": True}, False),
        (True, {"suppressed_agent": C}, False),
        (True, {"has_probed": False}, False),
        (True, {"foreground_pgid": 8}, False),
    ],
)
def test_full_lifecycle_skips_routine_probes(
    active: bool, changes: dict[str, Any], skip: bool
) -> None:
    assert dl.skip_probe_for_full_lifecycle(active, _probe(**changes)) is skip


@pytest.mark.parametrize(
    ("observed", "last", "changed"),
    [(1, 1, False), (1, 2, True), (None, 2, True), (2, None, True), (None, None, False)],
)
def test_group_changed(observed: int | None, last: int | None, changed: bool) -> None:
    assert dl.group_changed(observed, last) is changed


def test_inferred_groups_are_not_tracked() -> None:
    state = replace(dl.new_loop_state(0), has_probed=False)
    pane = FakePane(None, fg=None)
    state, decision = pane.tick(state, 50)
    assert decision.probed and state.last_pgid is None
    pane.fg = 33
    state, _ = pane.tick(state, 350)
    assert state.last_pgid == 33


def test_output_opens_an_acquisition_window() -> None:
    state = replace(
        dl.new_loop_state(0),
        has_probed=True,
        last_pgid=SHELL,
        last_content_seq=1,
        last_probe_at=1250,
    )
    pane = FakePane(None, fg=SHELL, seq=1)
    state, decision = pane.tick(state, 1000)
    assert state.acquisition_started_at is None and not decision.probed
    pane.seq = 2
    state, _ = pane.tick(state, 1300)
    assert state.acquisition_started_at == 1300
    state, decision = pane.tick(state, 1700)
    assert not decision.probed  # 450 ms since the last probe < 500 ms fast recheck
    state, decision = pane.tick(state, 1800)
    assert decision.probed
    pane.agent, pane.fg = Agent.CODEX, 61
    state, decision = pane.tick(state, 2300)
    assert state.presence.agent == Agent.CODEX and state.acquisition_started_at is None


def test_acquisition_window_is_discarded_after_quiet() -> None:
    state = replace(
        dl.new_loop_state(0),
        acquisition_started_at=0,
        last_content_change_at=6500,
        last_content_seq=5,
    )
    dl.sync_acquisition(state, False, False, 8400)
    assert state.acquisition_started_at == 0  # quiet only 1.9 s
    dl.sync_acquisition(state, False, False, 8500)
    assert state.acquisition_started_at is None and state.last_content_change_at is None


def test_new_output_after_an_old_window_reopens_it() -> None:
    state = replace(dl.new_loop_state(0), acquisition_started_at=0, last_content_change_at=100)
    dl.sync_acquisition(state, True, False, 9000)
    assert state.acquisition_started_at == 9000
    busy = replace(dl.new_loop_state(0), acquisition_started_at=0, last_content_change_at=8900)
    dl.sync_acquisition(busy, True, False, 9000)
    assert busy.acquisition_started_at == 0  # never quiet for 2 s: keep the old window


def test_probe_after_group_change_without_agent_opens_window() -> None:
    state = replace(dl.new_loop_state(0), has_probed=True, last_pgid=SHELL, last_content_seq=0)
    pane = FakePane(None, fg=70)
    state, decision = pane.tick(state, 500)
    assert decision.probed and state.acquisition_started_at == 500


# --------------------------------------------------------------------------- publish decisions


def test_hold_caps_at_700_ms() -> None:
    prev, nxt = Published("working", visible_working=True), Published("idle")
    held, pending = dl.hold_working_to_idle(
        dl.NO_PENDING, prev, nxt, agent_changed=False, process_exited=False, now=0
    )
    assert held and pending.started_at == 0
    held, pending = dl.hold_working_to_idle(
        pending, prev, nxt, agent_changed=False, process_exited=False, now=699
    )
    assert held and pending.confirmations == 1
    held, pending = dl.hold_working_to_idle(
        pending, prev, nxt, agent_changed=False, process_exited=False, now=700
    )
    assert not held and not pending.active


@pytest.mark.parametrize(
    ("nxt", "agent_changed", "exited"),
    [
        (Published("idle", visible_idle=True), False, False),
        (Published("idle"), True, False),
        (Published("idle"), False, True),
    ],
)
def test_hold_does_not_apply(nxt: Published, agent_changed: bool, exited: bool) -> None:
    held, pending = dl.hold_working_to_idle(
        dl.PendingIdle(0, 1),
        Published("working"),
        nxt,
        agent_changed=agent_changed,
        process_exited=exited,
        now=10,
    )
    assert not held and not pending.active


def test_visible_flags_only_count_with_their_state() -> None:
    weird = Detection("working", visible_idle=True, visible_blocker=True, visible_working=True)
    assert dl.published_from(weird) == Published("working", False, False, True)


def test_skip_read_only_for_idle_unchanged_panes() -> None:
    state = identified(Agent.CODEX, Published("idle"), last_scan_seq=7)
    assert dl.should_skip_screen_read(state, False, False, 7)
    assert not dl.should_skip_screen_read(state, False, False, 8)
    assert not dl.should_skip_screen_read(state, True, False, 7)
    assert not dl.should_skip_screen_read(state, False, True, 7)
    working = replace(state, published=Published("working"))
    assert not dl.should_skip_screen_read(working, False, False, 7)
    holding = replace(state, pending_idle=dl.PendingIdle(0, 0))
    assert not dl.should_skip_screen_read(holding, False, False, 7)


# --------------------------------------------------------------------------- scheduling


def test_first_tick_after_50_ms() -> None:
    assert dl.next_deadline(dl.new_loop_state(1000)) == 1050


def test_idle_unchanged_pane_sleeps_until_identity_recheck() -> None:
    state = identified(Agent.CODEX, Published("idle", visible_idle=True), last_scan_seq=3)
    pane = FakePane(Agent.CODEX, seq=3)
    state, decision = pane.tick(state, 0)
    assert pane.reads == []
    assert decision.next_deadline == state.last_probe_at + dl.PROCESS_RECHECK_IDENTIFIED_MS


@pytest.mark.parametrize(
    ("changes", "deadline"),
    [
        ({"published": Published("working")}, 300),
        ({"published": Published("blocked", visible_blocker=True)}, 300),
        ({"pending_idle": dl.PendingIdle(0, 1)}, 100),
        ({"grace_until": 2000}, 2000),
        ({"grace_until": 10}, 50),
        ({"pending_shell_clear": True}, 50),
        ({"full_lifecycle_active": True, "published": Published("working")}, 4000),
    ],
)
def test_next_deadline_for_agent_panes(changes: dict[str, Any], deadline: int) -> None:
    state = identified(
        Agent.CODEX,
        Published("idle"),
        last_scan_seq=1,
        last_tick_at=0,
        last_probe_at=-1000,
    )
    assert dl.next_deadline(replace(state, **changes)) == deadline


def test_next_deadline_for_agentless_panes() -> None:
    quiet = replace(
        dl.new_loop_state(0), has_probed=True, last_tick_at=100, last_probe_at=0, observed_pgid=5
    )
    assert dl.next_deadline(quiet) is None  # only output wakes it
    no_group = replace(quiet, observed_pgid=None)
    assert dl.next_deadline(no_group) == 30_000
    window = replace(quiet, acquisition_started_at=100)
    assert dl.next_deadline(window) == 500
    slow = replace(quiet, acquisition_started_at=-5000, last_tick_at=200)
    assert dl.next_deadline(slow) == 2000
    release = replace(quiet, release=dl.Release(Agent.CODEX, 900))
    assert dl.next_deadline(release) == 900


def test_wake_on_output_is_coalesced_and_rate_limited() -> None:
    state = identified(Agent.CODEX, Published("idle"), last_tick_at=1000)
    assert dl.wake_on_output(state, None, 1100) == 1100 + dl.OUTPUT_WAKE_DELAY_MS
    assert dl.wake_on_output(state, None, 1010) == 1000 + dl.MIN_OUTPUT_TICK_GAP_MS
    assert dl.wake_on_output(state, 1040, 1030) == 1040  # already sooner
    assert dl.wake_on_output(state, 6000, 1100) == 1115
    holding = replace(state, pending_idle=dl.PendingIdle(1000, 0))
    assert dl.wake_on_output(holding, 1100, 1010) == 1100


@pytest.mark.parametrize(
    ("agent", "now", "deadline"),
    [
        pytest.param(Agent.CODEX, 1010, 1050, id="agent-50ms-gap"),
        pytest.param(None, 1010, 1250, id="no-agent-250ms-gap"),
        pytest.param(None, 1200, 1250, id="no-agent-gap-not-yet-over"),
        pytest.param(Agent.CODEX, 1100, 1115, id="agent-quiet-coalesce"),
        pytest.param(None, 1250, 1265, id="no-agent-quiet-coalesce"),
    ],
)
def test_output_ticks_of_a_pane_without_agent_are_spaced_wider(
    agent: Agent | None, now: int, deadline: int
) -> None:
    """No agent: nothing to read, only the group to watch (§8.1 cadence 500 ms; ours 250)."""
    state = identified(Agent.CODEX, Published("idle"), last_tick_at=1000)
    state = replace(state, presence=Presence(agent))
    assert dl.wake_on_output(state, None, now) == deadline


def test_blocker_drawn_while_idle_is_published_on_the_output_wake() -> None:
    """The latency path: idle pane, output arrives, next tick (≤ 50 ms) publishes."""
    state = identified(Agent.CLAUDE, Published("idle", visible_idle=True), last_scan_seq=1)
    pane = FakePane(Agent.CLAUDE, seq=1, screen=OBSERVATIONS["idle_vi"])
    state, decision = pane.tick(state, 0)
    assert pane.reads == [] and decision.next_deadline is not None
    pane.seq, pane.screen = 2, OBSERVATIONS["blocked_vb"]
    wake = dl.wake_on_output(state, decision.next_deadline, 20)
    assert wake == 50
    state, decision = pane.tick(state, wake)
    assert [e.state for e in decision.events if isinstance(e, StateChanged)] == ["blocked"]


# --------------------------------------------------------------------------- engine, arbitration


@pytest.mark.parametrize(
    ("without_osc", "with_osc", "expected"),
    [
        (AgentDetection("idle", skip_state_update=True), None, ScreenResult(True)),
        (
            AgentDetection("idle"),
            AgentDetection("working", visible_working=True),
            ScreenResult(False, Detection("working", visible_working=True)),
        ),
        (
            AgentDetection("idle"),
            AgentDetection("idle", skip_state_update=True),
            ScreenResult(False),
        ),
    ],
)
def test_screen_result_from_engine_verdicts(
    without_osc: AgentDetection, with_osc: AgentDetection | None, expected: ScreenResult
) -> None:
    assert dl.screen_result(without_osc, with_osc) == expected


def test_loop_events_drive_arbitration_end_to_end() -> None:
    """Agent appears, works, finishes unseen (done), then exits: events fit §9."""
    term = ags.TerminalAgentState()
    statuses: list[str] = []

    def feed(events: tuple[dl.LoopEvent, ...]) -> None:
        for event in events:
            if isinstance(event, AgentProcessDetected):
                ags.apply_process_detected(term, event.agent, at=event.at)
            else:
                ags.apply_detection(
                    term,
                    event.agent,
                    ags.parse_state(event.state),
                    visible_blocker=event.visible_blocker,
                    visible_working=event.visible_working,
                    process_exited=event.process_exited,
                    at=event.observed_at,
                )
            statuses.append(ags.pane_status(term))

    state = replace(dl.new_loop_state(0), has_probed=True, last_pgid=SHELL, last_tick_at=0)
    pane = FakePane(Agent.CODEX, fg=AGENT_PGID, screen=OBSERVATIONS["idle_vi"])
    timeline = [(t, "idle_vi") for t in range(300, 3900, 300)]  # appears at 300, grace
    timeline += [(3900, "working_vw"), (4200, "plain_idle")]
    timeline += [(t, "plain_idle") for t in (4300, 4400, 4500)]  # hold, then idle
    for t, obs in timeline:
        pane.seq += 1
        pane.screen = OBSERVATIONS[obs]
        state, decision = pane.tick(state, t)
        feed(decision.events)
    pane.fg = SHELL
    for t in (4800, 4850):  # exit published, then the agent is cleared
        state, decision = pane.tick(state, t)
        feed(decision.events)
    assert statuses == ["unknown", "idle", "working", "done", "unknown", "unknown"]
    assert term.label is None and term.recent_exit is not None


# --------------------------------------------------------------------------- one pass


def _two_step(pane: FakePane, state: LoopState, now: int) -> tuple[LoopState, TickDecision]:
    """The `tick` protocol: call again with the asked-for input filled in."""
    pane.now = now
    inp = TickInput(pane.fg, pane.seq)
    while True:
        new, decision = dl.tick(state, inp, now)
        if decision.need == "probe":
            inp = replace(inp, probe=pane.probe())
        elif decision.need == "screen":
            assert decision.screen_agent is not None
            inp = replace(inp, screen=pane.read(decision.screen_agent))
        else:
            return new, decision


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_run_tick_in_one_pass_decides_as_the_tick_protocol(vector: dict[str, Any]) -> None:
    """`run_tick` calls the probe and the screen where the tick needs them: the same
    states, decisions, probes and reads as asking `tick` again with the input."""
    agent = _agent(vector["agent"])
    assert agent is not None
    one, pane_one = _initial(vector, agent)
    two, pane_two = _initial(vector, agent)
    for step in vector["ticks"]:
        for pane in (pane_one, pane_two):
            pane.seq = step.get("seq", pane.seq + 1)
            if step["obs"] == "shell":
                pane.fg = SHELL
            else:
                pane.screen = OBSERVATIONS[step["obs"]]
        one, decided_one = pane_one.tick(one, step["t"])
        two, decided_two = _two_step(pane_two, two, step["t"])
        assert (one, decided_one) == (two, decided_two)
    assert (pane_one.probes, pane_one.reads) == (pane_two.probes, pane_two.reads)


def test_copy_state_copies_every_field() -> None:
    """Each field set to a value of its own: a field added to `LoopState` but not to
    `copy_state` fails here."""
    values: dict[str, Any] = {}
    for number, f in enumerate(fields(LoopState), start=1):
        default = getattr(dl.new_loop_state(0), f.name)
        if isinstance(default, bool):
            values[f.name] = not default
        elif f.name in ("presence", "published", "pending_idle", "release"):
            values[f.name] = {
                "presence": Presence(Agent.CLAUDE, 2),
                "published": Published("working", visible_working=True),
                "pending_idle": dl.PendingIdle(5, 1),
                "release": dl.Release(Agent.CODEX, 9),
            }[f.name]
        else:
            values[f.name] = 1000 + number
    state = LoopState(**values)
    copied = dl.copy_state(state)
    assert copied == state and copied is not state
    assert {f.name: getattr(copied, f.name) for f in fields(LoopState)} == values

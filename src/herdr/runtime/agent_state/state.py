"""State & queries: the records of one terminal's agent and what they mean (PURE).

`TerminalAgentState` is the arbitration state of §9.1; the queries derive the effective
label, state and status from it; `_begin`/`_finish` frame every rule so it returns an
`Update` describing what moved (the seen/done rules of §9.8 live in `_finish`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from msgspec import Struct

from herdr.detect.agents import Agent, is_full_lifecycle, parse_agent_label
from herdr.runtime.metadata import (
    EMPTY_PRESENTATION,
    MetadataTokens,
    Presentation,
    PresentationEntry,
    effective_presentation,
)
from herdr.vocab import AgentStatus

# mypy's view of the status words; tests/runtime/test_agent_state.py checks them
# against herdr.vocab (REPORTABLE_STATES, STATUS_WORDS).
State = Literal["idle", "working", "blocked", "unknown"]
Status = Literal["idle", "working", "blocked", "done", "unknown"]

IDLE: State = AgentStatus.IDLE.value
WORKING: State = AgentStatus.WORKING.value
BLOCKED: State = AgentStatus.BLOCKED.value
UNKNOWN: State = AgentStatus.UNKNOWN.value
DONE: Status = AgentStatus.DONE.value
STATES: frozenset[str] = frozenset({IDLE, WORKING, BLOCKED, UNKNOWN})

# Why a FULL source is parked (`_Parked.reason`).
_HOOK_CLEAR = "hook_clear"
_PROCESS_EXIT = "process_exit"


# --------------------------------------------------------------------------- records


class SessionRef(Struct, frozen=True):
    """A resumable agent session: an id, or (pi/omp) a session file path."""

    kind: Literal["id", "path"]
    value: str


class AgentSession(Struct, frozen=True):
    """A session identity owned by an official (source, agent) pair."""

    source: str
    agent: str
    ref: SessionRef


class HookAuthority(Struct, frozen=True):
    """The accepted state report of one hook source."""

    source: str
    label: str
    state: State
    message: str | None
    reported_at: int
    session_ref: SessionRef | None = None


class RecentExit(Struct, frozen=True):
    agent: Agent
    observed_at: int


class _Buffered(Struct, frozen=True):
    """A FULL state report waiting for its session claim (replayed by §9.6)."""

    hook: HookAuthority
    seq: int


@dataclass(slots=True)
class _Parked:
    """A FULL source suppressed after a clear or a process exit."""

    label: str
    session_ref: SessionRef | None
    observed_at: int
    reason: str
    replacement_ref: SessionRef | None = None
    pending: _Buffered | None = None


class Snapshot(Struct, frozen=True):
    """What the outside world sees of a terminal's agent at one moment."""

    label: str | None
    state: State
    status: Status
    presentation: Presentation


@dataclass(slots=True)
class TerminalAgentState:
    """Arbitration state of one terminal (§9.1); create one per terminal."""

    detected_agent: Agent | None = None
    fallback_state: State = UNKNOWN
    fallback_visible_blocker: bool = False
    fallback_observed_at: int | None = None
    hook: HookAuthority | None = None
    recent_exit: RecentExit | None = None
    persisted_session: AgentSession | None = None
    hook_seqs: dict[str, int] = field(default_factory=dict)
    parked: dict[str, _Parked] = field(default_factory=dict)
    stale_sessions: dict[str, list[tuple[str, SessionRef]]] = field(default_factory=dict)
    presentation_entries: dict[str, PresentationEntry] = field(default_factory=dict)
    tokens: MetadataTokens = field(default_factory=MetadataTokens)
    metadata_seqs: dict[str, int] = field(default_factory=dict)
    metadata_token_seq_sources: set[str] = field(default_factory=set)
    metadata_agents: dict[str, Agent] = field(default_factory=dict)
    metadata_order: int = 0
    acquisition_pending: bool = False
    agent_name: str | None = None
    name_owner: tuple[str, SessionRef | None] | None = None
    # The process group of the agent that reported the current hook (see `reporter`).
    hook_job: int | None = None
    # Effective values as last published (kept in sync by every mutation).
    state: State = UNKNOWN
    label: str | None = None
    presentation: Presentation = EMPTY_PRESENTATION
    seen: bool = True


class Update(Struct, frozen=True):
    """What one applied (or ignored) event changed.

    ``accepted`` is False when a rule ignored the event (the socket still answers
    ``{}``). On a release (``agent_released``) the event's agent is
    ``previous.label`` and ``final_status`` the status it finished with.
    ``completed`` is a completion transition (done/idle) that may notify unless
    ``suppress_notification``.
    """

    accepted: bool
    previous: Snapshot
    current: Snapshot
    effective_changed: bool = False
    agent_released: bool = False
    session_changed: bool = False
    tokens_changed: bool = False
    name_changed: bool = False
    completed: bool = False
    suppress_notification: bool = False
    full_lifecycle_active: bool = False
    final_status: Status | None = None

    @property
    def agent_changed(self) -> bool:
        """Emit ``pane.agent_detected``."""
        return self.previous.label != self.current.label or self.agent_released

    @property
    def state_changed(self) -> bool:
        """Internal state moved: bump ``state_change_seq``."""
        return self.previous.state != self.current.state

    @property
    def presentation_changed(self) -> bool:
        return self.previous.presentation != self.current.presentation

    @property
    def status_changed(self) -> bool:
        """Emit ``pane.agent_status_changed`` (status, agent or presentation moved)."""
        return (
            self.previous.status != self.current.status
            or self.previous.label != self.current.label
            or self.presentation_changed
        )


class _Before(Struct, frozen=True):
    snapshot: Snapshot
    session: AgentSession | None
    agent_name: str | None


# --------------------------------------------------------------------------- queries


def _parse(label: str | None) -> Agent | None:
    return None if label is None else parse_agent_label(label)


def _hook_is_full(hook: HookAuthority) -> bool:
    return is_full_lifecycle(hook.source, hook.label)


def _hook_effective(st: TerminalAgentState, hook: HookAuthority) -> bool:
    """A FULL hook counts only while its agent's process is on screen (§9.2)."""
    if not _hook_is_full(hook):
        return True
    agent = _parse(hook.label)
    return agent is None or (st.detected_agent == agent and st.recent_exit is None)


def full_lifecycle_active(st: TerminalAgentState) -> bool:
    """A live FULL authority: screen detection for the pane is paused."""
    hook = st.hook
    return hook is not None and _hook_is_full(hook) and _hook_effective(st, hook)


def effective_label(st: TerminalAgentState) -> str | None:
    """The effective hook's label, else the detected agent's unless it just exited."""
    hook = st.hook
    if hook is not None and _hook_effective(st, hook):
        return hook.label
    if st.recent_exit is None and st.detected_agent is not None:
        return st.detected_agent.label
    return None


def effective_known_agent(st: TerminalAgentState) -> Agent | None:
    return _parse(effective_label(st))


def visible_blocker_overrides_hook(st: TerminalAgentState) -> bool:
    """The four guards of §9.3, all required."""
    hook = st.hook
    if hook is None or full_lifecycle_active(st) or not st.fallback_visible_blocker:
        return False
    observed = st.fallback_observed_at
    not_older = observed is not None and hook.reported_at <= observed
    hook_agent = _parse(hook.label)
    same_agent = hook_agent is not None and hook_agent == st.detected_agent
    return not_older and hook.state != BLOCKED and same_agent


def effective_state(st: TerminalAgentState) -> State:
    if visible_blocker_overrides_hook(st):
        return BLOCKED
    hook = st.hook
    if hook is not None and _hook_effective(st, hook):
        return hook.state
    return st.fallback_state


def session_identity(st: TerminalAgentState) -> AgentSession | None:
    """The session to persist/resume: the hook's reference, else the persisted one."""
    hook = st.hook
    if hook is not None and hook.session_ref is not None:
        return AgentSession(hook.source, hook.label, hook.session_ref)
    return st.persisted_session


def is_agent_terminal(st: TerminalAgentState) -> bool:
    return st.agent_name is not None or effective_label(st) is not None


def agent_status(state: State, seen: bool) -> Status:
    """Public status: an idle agent nobody has looked at since it finished is ``done``."""
    if state == IDLE:
        return IDLE if seen else DONE
    return state


def pane_status(st: TerminalAgentState) -> Status:
    """Public ``agent_status`` of a pane; agent-less panes are ``unknown``."""
    return agent_status(st.state, st.seen) if is_agent_terminal(st) else UNKNOWN


def rollup_member(st: TerminalAgentState) -> Status | None:
    """This pane's contribution to its tab/workspace rollup (None: no agent)."""
    return pane_status(st) if is_agent_terminal(st) else None


def snapshot(st: TerminalAgentState) -> Snapshot:
    return Snapshot(st.label, st.state, pane_status(st), st.presentation)


def is_completion(prev_label: str | None, prev: State, label: str | None, new: State) -> bool:
    """working/blocked → idle, or unknown → idle for the same known label."""
    if new != IDLE:
        return False
    if prev in (WORKING, BLOCKED):
        return True
    return prev == UNKNOWN and prev_label is not None and prev_label == label


def _same_owner(source: str, label: str, session: AgentSession | None) -> bool:
    return session is not None and session.source == source and session.agent == label


def _process_present(st: TerminalAgentState, label: str) -> bool:
    known = _parse(label)
    return known is not None and st.detected_agent == known and st.recent_exit is None


# ---------------------------------------------------------------------- the frame of every rule


def _begin(st: TerminalAgentState) -> _Before:
    return _Before(snapshot(st), session_identity(st), st.agent_name)


def _recompute(st: TerminalAgentState, now: int) -> bool:
    """Refresh the effective label/state/presentation; True when any moved."""
    state = effective_state(st)
    label = effective_label(st)
    hook_source = st.hook.source if st.hook is not None else None

    def visible(entry: PresentationEntry) -> bool:
        if entry.agent_label is not None and entry.agent_label != label:
            return False
        return entry.applies_to_source is None or entry.applies_to_source == hook_source

    presentation = effective_presentation(st.presentation_entries.values(), visible, now)
    changed = (label, state, presentation) != (st.label, st.state, st.presentation)
    st.label, st.state, st.presentation = label, state, presentation
    return changed


def _finish_acquisition(st: TerminalAgentState) -> bool:
    """The first idle after (re)acquiring a process is not a completion."""
    reached_idle = st.acquisition_pending and st.state == IDLE
    if reached_idle:
        st.acquisition_pending = False
    return reached_idle and st.recent_exit is None


def _finish(
    st: TerminalAgentState,
    before: _Before,
    now: int,
    *,
    viewed: bool,
    launch_pending: bool,
    accepted: bool = True,
    released: bool = False,
    tokens_changed: bool = False,
) -> Update:
    """Recompute, apply the seen/done rules and describe the change (§9.8)."""
    effective_changed = _recompute(st, now)
    suppress = st.state == IDLE and (_finish_acquisition(st) or launch_pending)
    name_changed = st.agent_name != before.agent_name
    prev = before.snapshot
    completed = False
    if effective_changed or released or name_changed:
        if st.state != IDLE:
            st.seen = True
        elif not suppress and is_completion(prev.label, prev.state, st.label, st.state):
            st.seen = viewed
            completed = True
    return Update(
        accepted=accepted,
        previous=prev,
        current=snapshot(st),
        effective_changed=effective_changed,
        agent_released=released,
        session_changed=before.session != session_identity(st),
        tokens_changed=tokens_changed,
        name_changed=name_changed,
        completed=completed,
        suppress_notification=suppress,
        full_lifecycle_active=full_lifecycle_active(st),
        final_status=agent_status(st.state, st.seen) if released else None,
    )


def _ignored(st: TerminalAgentState, before: _Before) -> Update:
    now_snap = snapshot(st)
    return Update(
        accepted=False,
        previous=before.snapshot,
        current=now_snap,
        full_lifecycle_active=full_lifecycle_active(st),
    )

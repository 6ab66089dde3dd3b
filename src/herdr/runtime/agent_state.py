"""Live agent state of one terminal: hook authority vs. screen detection (PURE).

This is the arbitration of detection-spec §9 and herdr-spec §1.4. Two sources speak
about a pane's agent: the screen (the detection loop's publishes) and hooks (socket
reports). Full-lifecycle hooks are the only authority while live; every other hook can
be overridden by a visible blocker on screen; session-identity reports never touch
state. Every function takes the state object, mutates it, and returns an `Update` that
says what changed, so the server knows which events to emit:

* ``update.agent_changed``  → ``pane.agent_detected`` (``agent``, ``released``,
  ``final_status``)
* ``update.status_changed`` → ``pane.agent_status_changed`` (status, agent, presentation)
* ``update.state_changed``  → bump the global ``state_change_seq``
* ``update.full_lifecycle_active`` → push into the detection loop
  (`detection_loop.set_full_lifecycle_active`)
* ``update.agent_released`` → start the loop's graceful release
* ``update.tokens_changed`` → ``pane.updated``; ``update.session_changed`` → persist

Time: every ``now``/``at`` is **integer milliseconds of a monotonic clock**
(``time.monotonic_ns() // 1_000_000``). Integers keep the spec's boundaries exact;
two events in the same millisecond count as "not newer" (the ``≤`` of the spec).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from herdr.detect.agents import (
    OFFICIAL_SOURCES,
    Agent,
    is_full_lifecycle,
    is_official,
    is_reserved_native_state,
    is_session_identity_only,
    parse_agent_label,
    rust_trim,
)
from herdr.runtime.metadata import (
    EMPTY_PRESENTATION,
    MAX_SEQUENCE_SOURCES,
    METADATA_SEQUENCE_SOURCE_LIMIT,
    MetadataError,
    MetadataTokens,
    PaneMetadataReport,
    Presentation,
    PresentationEntry,
    ReportError,
    apply_presentation,
    check_token_limit,
    effective_presentation,
    is_control,
    metadata_report_agent,
    normalize_reported_agent_label,
    official_source_of,
    sequence_is_fresh,
)

State = Literal["idle", "working", "blocked", "unknown"]
Status = Literal["idle", "working", "blocked", "done", "unknown"]

IDLE: State = "idle"
WORKING: State = "working"
BLOCKED: State = "blocked"
UNKNOWN: State = "unknown"
DONE: Status = "done"
STATES: frozenset[str] = frozenset({IDLE, WORKING, BLOCKED, UNKNOWN})

INVALID_PARAMS = "invalid_params"

# Hardening beyond the spec (whose hook sequence map is unbounded): at most this many
# distinct non-official sources may carry sequenced hook reports per terminal; a report
# from one more is ignored. Official sources are a fixed set and are never capped.
MAX_HOOK_SEQUENCE_SOURCES = MAX_SEQUENCE_SOURCES

SESSION_ID_MAX_CHARS = 512
SESSION_PATH_MAX_CHARS = 4096
SESSION_START_SOURCES = frozenset(
    {"startup", "resume", "clear", "compact", "branch", "new", "fork", "select"}
)
_RECOGNIZED_START_SOURCES = frozenset(
    {"startup", "clear", "resume", "compact", "new", "fork", "select"}
)
# Start sources that let a same-owner report replace its stored session id (§9.6).
_REPLACEMENT_STARTS: dict[tuple[str, str], frozenset[str | None]] = {
    ("herdr:claude", "claude"): frozenset({"clear", "resume", "compact"}),
    ("herdr:codex", "codex"): frozenset({"startup", "clear", "resume", "compact"}),
    ("herdr:mastracode", "mastracode"): frozenset({"startup"}),
    ("herdr:hermes", "hermes"): frozenset({"startup", "new", "resume"}),
    ("herdr:opencode", "opencode"): frozenset({"select"}),
    ("herdr:pi", "pi"): frozenset({"new", "resume", "fork"}),
    ("herdr:omp", "omp"): frozenset({"startup", "new", "resume", "fork"}),
    ("herdr:qwen", "qwen"): frozenset({"startup", "clear", "resume", "compact", "branch"}),
}
_ANY_START_REPLACES = frozenset({("herdr:antigravity_cli", "agy")})
_OFFICIAL_SOURCE_NAMES = frozenset(source for source, _ in OFFICIAL_SOURCES)
_PATH_PREFERRING = frozenset({"pi", "omp"})

_HOOK_CLEAR = "hook_clear"
_PROCESS_EXIT = "process_exit"

_STATUS_PRIORITY: dict[str, int] = {BLOCKED: 5, DONE: 4, WORKING: 3, IDLE: 2, UNKNOWN: 1}


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A resumable agent session: an id, or (pi/omp) a session file path."""

    kind: Literal["id", "path"]
    value: str


@dataclass(frozen=True, slots=True)
class AgentSession:
    """A session identity owned by an official (source, agent) pair."""

    source: str
    agent: str
    ref: SessionRef


@dataclass(frozen=True, slots=True)
class HookAuthority:
    """The accepted state report of one hook source."""

    source: str
    label: str
    state: State
    message: str | None
    reported_at: int
    session_ref: SessionRef | None = None


@dataclass(frozen=True, slots=True)
class RecentExit:
    agent: Agent
    observed_at: int


@dataclass(frozen=True, slots=True)
class _Buffered:
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


@dataclass(frozen=True, slots=True)
class Snapshot:
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
    # Effective values as last published (kept in sync by every mutation).
    state: State = UNKNOWN
    label: str | None = None
    presentation: Presentation = EMPTY_PRESENTATION
    seen: bool = True


@dataclass(frozen=True, slots=True)
class Update:
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


@dataclass(frozen=True, slots=True)
class _Before:
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


def rollup(statuses: Iterable[Status | None]) -> Status:
    """Tab/workspace status: blocked > done > working > idle > unknown; none → unknown."""
    best: Status = UNKNOWN
    for status in statuses:
        if status is not None and _STATUS_PRIORITY[status] > _STATUS_PRIORITY[best]:
            best = status
    return best


def snapshot(st: TerminalAgentState) -> Snapshot:
    return Snapshot(st.label, st.state, pane_status(st), st.presentation)


def is_completion(prev_label: str | None, prev: State, label: str | None, new: State) -> bool:
    """working/blocked → idle, or unknown → idle for the same known label."""
    if new != IDLE:
        return False
    if prev in (WORKING, BLOCKED):
        return True
    return prev == UNKNOWN and prev_label is not None and prev_label == label


# --------------------------------------------------------------------------- helpers


def session_ref_from_report(
    source: str, label: str, session_id: str | None, session_path: str | None
) -> SessionRef | None:
    """Only official pairs carry a session; pi/omp prefer the path, others the id."""
    if not is_official(source, label):
        return None
    if label in _PATH_PREFERRING:
        path = _valid_ref_text(session_path, SESSION_PATH_MAX_CHARS)
        if path is not None:
            return SessionRef("path", path)
    ident = _valid_ref_text(session_id, SESSION_ID_MAX_CHARS)
    return None if ident is None else SessionRef("id", ident)


def _valid_ref_text(value: str | None, limit: int) -> str | None:
    if value is None:
        return None
    text = rust_trim(value)
    if not text or len(text) > limit or any(is_control(ch) for ch in text):
        return None
    return text


def normalize_session_start_source(value: str | None) -> str | None:
    """Kept only when it is one of the known start sources."""
    if value is None:
        return None
    text = rust_trim(value).lower()
    return text if text in SESSION_START_SOURCES else None


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


def _clear_name(st: TerminalAgentState) -> None:
    st.agent_name = None
    st.name_owner = None


def _reconcile_name_owner(st: TerminalAgentState, label: str, ref: SessionRef | None) -> None:
    """A name belongs to one agent (and session): another claimant clears it."""
    if st.agent_name is None:
        return
    if st.name_owner is None:
        st.name_owner = (label, ref)
        return
    owner_label, owner_ref = st.name_owner
    if owner_label != label or (owner_ref is not None and ref is not None and owner_ref != ref):
        _clear_name(st)
    elif owner_ref is None and ref is not None:
        st.name_owner = (label, ref)


def _park(
    st: TerminalAgentState,
    *,
    source: str,
    label: str,
    ref: SessionRef | None,
    reason: str,
    at: int,
) -> None:
    st.parked[source] = _Parked(label, ref, at, reason)


def _park_current_full(st: TerminalAgentState, reason: str, at: int) -> None:
    hook = st.hook
    if hook is not None and _hook_is_full(hook):
        _park(st, source=hook.source, label=hook.label, ref=hook.session_ref, reason=reason, at=at)


def _remember_stale(st: TerminalAgentState, source: str, label: str, ref: SessionRef) -> None:
    stale = st.stale_sessions.setdefault(source, [])
    if (label, ref) not in stale:
        stale.append((label, ref))


def _forget_stale(st: TerminalAgentState, source: str, label: str, ref: SessionRef) -> None:
    stale = st.stale_sessions.get(source)
    if stale is None:
        return
    stale[:] = [item for item in stale if item != (label, ref)]
    if not stale:
        del st.stale_sessions[source]


def _accept_hook_seq(st: TerminalAgentState, source: str, seq: int | None) -> bool:
    """Per-source freshness (§9.5 step 6); unsequenced only if never sequenced."""
    if seq is None:
        return source not in st.hook_seqs
    last = st.hook_seqs.get(source)
    if last is not None and seq <= last:
        return False
    if last is None and source not in _OFFICIAL_SOURCE_NAMES:
        custom = sum(1 for name in st.hook_seqs if name not in _OFFICIAL_SOURCE_NAMES)
        if custom >= MAX_HOOK_SEQUENCE_SOURCES:
            return False
    st.hook_seqs[source] = seq
    return True


# --------------------------------------------------------------------------- detection


def _hook_conflicts_with(st: TerminalAgentState, agent: Agent | None) -> bool:
    hook_agent = _parse(st.hook.label) if st.hook is not None else None
    return agent is not None and hook_agent is not None and hook_agent != agent


def _ignored_under_full(st: TerminalAgentState, agent: Agent | None, exited: bool) -> bool:
    return full_lifecycle_active(st) and not exited and not _hook_conflicts_with(st, agent)


def _observed_before_release(st: TerminalAgentState, agent: Agent | None, at: int) -> bool:
    """A screen observation older than a FULL clear/exit belongs to the old process."""
    if agent is None:
        return False
    return any(_parse(p.label) == agent and at <= p.observed_at for p in st.parked.values())


def _detect_core(
    st: TerminalAgentState,
    *,
    agent: Agent | None,
    state: State,
    visible_blocker: bool,
    exited: bool,
    at: int,
) -> tuple[bool, bool]:
    """§9.4; returns (applied, agent_released)."""
    hook = st.hook
    prev_detected = st.detected_agent
    newer_custom = (
        exited
        and hook is not None
        and _parse(hook.label) == agent
        and not is_official(hook.source, hook.label)
        and hook.reported_at > at
    )
    released = (
        exited
        and not newer_custom
        and (effective_label(st) is not None or st.agent_name is not None)
    )
    if _ignored_under_full(st, agent, exited):
        if hook is not None and _parse(hook.label) == agent:
            st.detected_agent = agent
        return False, False
    exit_ = st.recent_exit
    replacement = (
        not exited
        and agent is not None
        and exit_ is not None
        and exit_.agent == agent
        and exit_.observed_at < at
    )
    if not exited and _observed_before_release(st, agent, at):
        return False, False
    st.detected_agent = agent
    if agent is not None:
        _reconcile_name_owner(st, agent.label, None)
    if not exited:
        _clear_parked_for_detected(st, None if replacement else prev_detected, agent)
    st.fallback_state = state
    st.fallback_visible_blocker = visible_blocker and state == BLOCKED
    st.fallback_observed_at = at
    if exited and agent is not None:
        st.recent_exit = RecentExit(agent, at)
    elif agent is not None:
        st.recent_exit = None
    if exited:
        _forget_exited_process(st, agent, at, newer_custom)
    _clear_conflicting_hook(st, agent, prev_detected, at)
    if released:
        _clear_name(st)
    return True, released


def _clear_conflicting_hook(
    st: TerminalAgentState, agent: Agent | None, prev_detected: Agent | None, at: int
) -> None:
    """§9.4 step 7: a hook for another agent, or for the agent that left, goes."""
    hook = st.hook
    if hook is None or hook.reported_at > at:
        return
    left = prev_detected is not None and agent != prev_detected
    if not (_hook_conflicts_with(st, agent) or (left and _parse(hook.label) == prev_detected)):
        return
    durable = (
        AgentSession(hook.source, hook.label, hook.session_ref)
        if hook.session_ref is not None
        else None
    )
    _park_current_full(st, _HOOK_CLEAR, at)
    st.hook = None
    st.persisted_session = durable


def _forget_exited_process(
    st: TerminalAgentState, agent: Agent | None, at: int, newer_custom: bool
) -> None:
    """§9.4 step 6: late hooks, sessions and metadata of a dead process are dropped."""
    _reset_exited_parking(st, agent, at)
    hook = st.hook
    official: tuple[str, str, SessionRef | None] | None = None
    if hook is not None and is_official(hook.source, hook.label) and _parse(hook.label) == agent:
        official = (hook.source, hook.label, hook.session_ref)
    else:
        persisted = st.persisted_session
        if (
            persisted is not None
            and is_official(persisted.source, persisted.agent)
            and _parse(persisted.agent) == agent
        ):
            official = (persisted.source, persisted.agent, persisted.ref)
    if official is not None:
        st.hook_seqs.pop(official[0], None)
        _park(
            st, source=official[0], label=official[1], ref=official[2], reason=_PROCESS_EXIT, at=at
        )
    if hook is not None and _parse(hook.label) == agent and not newer_custom:
        st.hook_seqs.pop(hook.source, None)
        st.hook = None
    persisted = st.persisted_session
    if not newer_custom and persisted is not None and _parse(persisted.agent) == agent:
        st.persisted_session = None
    if agent is not None:
        _drop_agent_metadata(st, agent, at)


def _reset_exited_parking(st: TerminalAgentState, agent: Agent | None, at: int) -> None:
    for source, parked in st.parked.items():
        if _parse(parked.label) != agent or parked.reason == _HOOK_CLEAR:
            continue
        pending_ref = parked.pending.hook.session_ref if parked.pending is not None else None
        exited_ref = parked.replacement_ref or pending_ref or parked.session_ref
        old_ref = parked.session_ref
        if old_ref is not None and exited_ref is not None and old_ref != exited_ref:
            _remember_stale(st, source, parked.label, old_ref)
        parked.session_ref = exited_ref
        parked.replacement_ref = None
        parked.pending = None
        parked.observed_at = at
        st.hook_seqs.pop(source, None)


def _drop_agent_metadata(st: TerminalAgentState, agent: Agent, at: int) -> None:
    label = agent.label
    for source, entry in list(st.presentation_entries.items()):
        official = is_official(entry.source, label) or (
            entry.applies_to_source is not None and is_official(entry.applies_to_source, label)
        )
        matches = entry.agent_label == label or official
        if matches and (official or entry.reported_at <= at):
            del st.presentation_entries[source]
            _forget_metadata_source(st, source)
    for source, owner in list(st.metadata_agents.items()):
        if owner == agent:
            _forget_metadata_source(st, source)


def _forget_metadata_source(st: TerminalAgentState, source: str) -> None:
    st.metadata_seqs.pop(source, None)
    st.metadata_agents.pop(source, None)
    st.metadata_token_seq_sources.discard(source)


def _clear_parked_for_detected(
    st: TerminalAgentState, prev_detected: Agent | None, detected: Agent | None
) -> None:
    """Fresh process evidence releases parked FULL sources and replays their claims."""
    if detected is None or prev_detected == detected:
        return
    validated: list[tuple[str, str, SessionRef, _Buffered | None]] = []
    for source, parked in list(st.parked.items()):
        if _parse(parked.label) != detected:
            continue
        if parked.reason == _PROCESS_EXIT:
            ref = parked.replacement_ref
            if ref is None:
                continue
            if parked.session_ref is not None and parked.session_ref != ref:
                _remember_stale(st, source, parked.label, parked.session_ref)
            start_seq = st.hook_seqs.get(source)
            pending = parked.pending
            if pending is not None and not (
                pending.hook.session_ref == ref and (start_seq is None or pending.seq > start_seq)
            ):
                pending = None
            validated.append((source, parked.label, ref, pending))
        elif parked.session_ref is not None:
            _remember_stale(st, source, parked.label, parked.session_ref)
        del st.parked[source]
    kept = {source for source, _, _, _ in validated}
    st.hook_seqs = {
        source: seq
        for source, seq in st.hook_seqs.items()
        if source in kept or not is_full_lifecycle(source, detected.label)
    }
    for source, label, ref, pending in validated:
        _forget_stale(st, source, label, ref)
        _reconcile_name_owner(st, label, ref)
        st.persisted_session = AgentSession(source, label, ref)
        if pending is not None:
            st.hook_seqs[source] = pending.seq
            st.hook = pending.hook


def apply_detection(
    st: TerminalAgentState,
    agent: Agent | None,
    state: State,
    *,
    visible_blocker: bool = False,
    visible_working: bool = False,
    process_exited: bool = False,
    at: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """A screen publish (`StateChanged` of the detection loop) — §9.4.

    ``viewed``: the pane is in the active tab of the active workspace and the outer
    terminal is not known to be unfocused (a completion then counts as seen).
    ``launch_pending``: a managed ``agent start`` is still waiting (no completion).
    ``visible_working`` is accepted for symmetry; it never overrides a hook.
    """
    del visible_working
    before = _begin(st)
    applied, released = _detect_core(
        st, agent=agent, state=state, visible_blocker=visible_blocker, exited=process_exited, at=at
    )
    return _finish(
        st,
        before,
        at,
        viewed=viewed,
        launch_pending=launch_pending,
        accepted=applied,
        released=released,
    )


def apply_process_detected(
    st: TerminalAgentState,
    agent: Agent,
    *,
    at: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """`AgentProcessDetected`: the agent with state unknown; its first idle is no completion."""
    before = _begin(st)
    starts = not _ignored_under_full(st, agent, False) and not _observed_before_release(
        st, agent, at
    )
    applied, released = _detect_core(
        st, agent=agent, state=UNKNOWN, visible_blocker=False, exited=False, at=at
    )
    if starts:
        st.acquisition_pending = True
    return _finish(
        st,
        before,
        at,
        viewed=viewed,
        launch_pending=launch_pending,
        accepted=applied,
        released=released,
    )


def apply_pty_exit(
    st: TerminalAgentState, *, now: int, viewed: bool = False, launch_pending: bool = False
) -> Update | None:
    """The pane's child exited: publish idle + process exit for its agent, if any (§8.4)."""
    agent = effective_known_agent(st) or st.detected_agent
    if agent is None:
        return None
    return apply_detection(
        st,
        agent,
        IDLE,
        process_exited=True,
        at=now,
        viewed=viewed,
        launch_pending=launch_pending,
    )


# --------------------------------------------------------------------------- hook reports


def _same_owner(source: str, label: str, session: AgentSession | None) -> bool:
    return session is not None and session.source == source and session.agent == label


def _anchored_ref(st: TerminalAgentState, source: str, label: str) -> SessionRef | None:
    hook = st.hook
    if hook is not None and (hook.source, hook.label) == (source, label) and hook.session_ref:
        return hook.session_ref
    persisted = st.persisted_session
    if persisted is not None and _same_owner(source, label, persisted):
        return persisted.ref
    return None


def _matches_stale(st: TerminalAgentState, source: str, label: str, ref: SessionRef | None) -> bool:
    return ref is not None and (label, ref) in st.stale_sessions.get(source, [])


def _fresh_after_stale(
    st: TerminalAgentState, source: str, label: str, ref: SessionRef | None
) -> bool:
    stale = [r for lbl, r in st.stale_sessions.get(source, []) if lbl == label]
    return bool(stale) and ref is not None and ref not in stale


def _process_present(st: TerminalAgentState, label: str) -> bool:
    known = _parse(label)
    return known is not None and st.detected_agent == known and st.recent_exit is None


def _route_full(
    st: TerminalAgentState,
    *,
    source: str,
    label: str,
    state: State,
    message: str | None,
    ref: SessionRef | None,
    seq: int | None,
    at: int,
) -> tuple[bool, bool]:
    """§9.5 step 3 for FULL pairs; returns (accept, reanchor_sequence)."""
    if not is_full_lifecycle(source, label):
        return True, False
    if _matches_stale(st, source, label, ref):
        return False, False
    present = _process_present(st, label)
    anchored_ref = _anchored_ref(st, source, label)
    anchored = anchored_ref is not None and (ref is None or ref == anchored_ref)
    opencode = (source, label) == ("herdr:opencode", "opencode")
    if opencode and present and anchored_ref is not None and ref not in (None, anchored_ref):
        return False, False
    parked = st.parked.get(source)
    if parked is not None:
        if parked.label != label:
            return False, False
        if parked.reason == _HOOK_CLEAR:
            differs = parked.session_ref is not None and ref is not None
            ok = differs and parked.session_ref != ref
            return (True, True) if ok else (False, False)
    if present and anchored and parked is None:
        return True, _fresh_after_stale(st, source, label, ref)
    _buffer_full_report(
        st, source=source, label=label, state=state, message=message, ref=ref, seq=seq, at=at
    )
    return False, False


def _buffer_full_report(
    st: TerminalAgentState,
    *,
    source: str,
    label: str,
    state: State,
    message: str | None,
    ref: SessionRef | None,
    seq: int | None,
    at: int,
) -> None:
    """Keep the newest sequenced report with a session ref for a later session claim."""
    if ref is None or seq is None:
        return
    last = st.hook_seqs.get(source)
    if last is not None and seq <= last:
        return
    persisted = st.persisted_session
    prev_ref = persisted.ref if persisted and _same_owner(source, label, persisted) else None
    parked = st.parked.setdefault(source, _Parked(label, prev_ref, at, _PROCESS_EXIT))
    if parked.pending is None or seq > parked.pending.seq:
        hook = HookAuthority(source, label, state, message, at, ref)
        parked.pending = _Buffered(hook, seq)


def _known_label_conflicts(st: TerminalAgentState, label: str) -> bool:
    known = _parse(label)
    return st.detected_agent is not None and known is not None and known != st.detected_agent


def _owner_conflicts(st: TerminalAgentState, source: str, label: str) -> bool:
    current = session_identity(st)
    return current is not None and (current.source != source or current.agent != label)


def _resumable(source: str, label: str, ref: SessionRef) -> bool:
    """Official pairs can resume; pi/omp by path or id, the others by id."""
    if not is_official(source, label):
        return False
    return ref.kind == "id" or label in _PATH_PREFERRING


def _foreground_confirms_owner(
    st: TerminalAgentState, source: str, label: str, ref: SessionRef
) -> bool:
    detected = st.detected_agent
    return detected is not None and _parse(label) == detected and _resumable(source, label, ref)


def _replacement_allowed(source: str, label: str, start: str | None) -> bool:
    if (source, label) in _ANY_START_REPLACES:
        return True
    return start in _REPLACEMENT_STARTS.get((source, label), frozenset())


def _conflicting_same_owner_ref(
    st: TerminalAgentState, source: str, label: str, ref: SessionRef, start: str | None
) -> SessionRef | None:
    """The stored id-ref a same-owner report may not replace (without an allowed start)."""
    current = session_identity(st)
    if current is None or current.source != source or current.agent != label:
        return None
    if current.ref.kind != "id" or ref.kind != "id" or current.ref.value == ref.value:
        return None
    return None if _replacement_allowed(source, label, start) else current.ref


def _mastracode_replaces_persisted(
    st: TerminalAgentState, source: str, label: str, ref: SessionRef
) -> bool:
    persisted = st.persisted_session
    return (
        st.hook is None
        and (source, label) == ("herdr:mastracode", "mastracode")
        and persisted is not None
        and _same_owner(source, label, persisted)
        and persisted.ref.kind == "id"
        and ref.kind == "id"
        and persisted.ref.value != ref.value
    )


def _live_full_conflicts_with_session(
    st: TerminalAgentState, source: str, label: str, ref: SessionRef | None
) -> bool:
    hook = st.hook
    if hook is None or not _hook_is_full(hook) or (hook.source, hook.label) != (source, label):
        return False
    return hook.session_ref is not None and ref is not None and hook.session_ref != ref


def _hook_core(
    st: TerminalAgentState,
    *,
    source: str,
    label: str,
    state: State,
    message: str | None,
    ref: SessionRef | None,
    seq: int | None,
    now: int,
) -> bool:
    """§9.5 in order; True when the report became the hook authority."""
    if is_session_identity_only(source, label):
        return False
    exit_ = st.recent_exit
    if not is_full_lifecycle(source, label) and exit_ is not None and _parse(label) == exit_.agent:
        return False
    accept, reanchor = _route_full(
        st, source=source, label=label, state=state, message=message, ref=ref, seq=seq, at=now
    )
    if not accept or _known_label_conflicts(st, label):
        return False
    owner_conflicts = _owner_conflicts(st, source, label)
    takeover = (
        owner_conflicts and ref is not None and _foreground_confirms_owner(st, source, label, ref)
    )
    if owner_conflicts and not takeover:
        return False
    if ref is not None and not _mastracode_replaces_persisted(st, source, label, ref):
        ref = _conflicting_same_owner_ref(st, source, label, ref, None) or ref
    if _live_full_conflicts_with_session(st, source, label, ref):
        return False
    if reanchor:
        st.hook_seqs.pop(source, None)
    if not _accept_hook_seq(st, source, seq):
        return False
    _reconcile_name_owner(st, label, ref)
    if takeover:
        _park_current_full(st, _HOOK_CLEAR, now)
    if ref is not None or reanchor:
        parked = st.parked.pop(source, None)
        if parked is not None and parked.session_ref is not None:
            _remember_stale(st, source, parked.label, parked.session_ref)
    st.persisted_session = None
    st.hook = HookAuthority(source, label, state, message, now, ref)
    return True


def apply_hook(
    st: TerminalAgentState,
    source: str,
    label: str,
    state: State,
    *,
    message: str | None = None,
    session_ref: SessionRef | None = None,
    seq: int | None = None,
    now: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """A state report at the state-machine level (§9.5); RNS routing is `report_agent`'s."""
    before = _begin(st)
    if not _hook_core(
        st,
        source=source,
        label=label,
        state=state,
        message=message,
        ref=session_ref,
        seq=seq,
        now=now,
    ):
        return _ignored(st, before)
    return _finish(st, before, now, viewed=viewed, launch_pending=launch_pending)


def report_agent(
    st: TerminalAgentState,
    *,
    source: str,
    agent: str,
    state: str,
    message: str | None = None,
    seq: int | None = None,
    session_id: str | None = None,
    session_path: str | None = None,
    now: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """`pane.report_agent`: validate, build the session ref, re-route RNS pairs (§10).

    Raises `ReportError` (``invalid_agent``, ``invalid_params``) before any change.
    """
    label = normalize_reported_agent_label(agent)
    checked = parse_state(state)
    ref = session_ref_from_report(source, label, session_id, session_path)
    if is_reserved_native_state(source, label):
        return apply_session(
            st, source, label, ref, seq=seq, now=now, viewed=viewed, launch_pending=launch_pending
        )
    return apply_hook(
        st,
        source,
        label,
        checked,
        message=message,
        session_ref=ref,
        seq=seq,
        now=now,
        viewed=viewed,
        launch_pending=launch_pending,
    )


def parse_state(state: str) -> State:
    """A state string (report param, loop event) as `State`; anything else → invalid_params."""
    for known in (IDLE, WORKING, BLOCKED, UNKNOWN):
        if state == known:
            return known
    raise ReportError(INVALID_PARAMS, "state must be one of idle, working, blocked, unknown")


# --------------------------------------------------------------------------- sessions


def _session_core(
    st: TerminalAgentState,
    *,
    source: str,
    label: str,
    ref: SessionRef | None,
    seq: int | None,
    start: str | None,
    now: int,
) -> bool:
    """§9.6; True when anything was applied."""
    if ref is None:
        return False
    present = _process_present(st, label)
    full = is_full_lifecycle(source, label)
    parked = st.parked.get(source)
    gated = parked is not None and parked.label == label and parked.reason != _HOOK_CLEAR
    anchored = _session_anchored(st, source, label)
    unsequenced_select = (source, label, start, seq) == (
        "herdr:opencode",
        "opencode",
        "select",
        None,
    )
    if unsequenced_select and present:
        st.parked.pop(source, None)
    elif full and unsequenced_select:
        _park_selection(st, source, label, ref, now)
        return False
    elif full and (not present or gated or not anchored):
        return _replay_claim(
            st, source=source, label=label, ref=ref, seq=seq, start=start, present=present, now=now
        )
    return _claim_session(
        st,
        source=source,
        label=label,
        ref=ref,
        seq=seq,
        start=start,
        present=present,
        unsequenced_select=unsequenced_select,
        now=now,
    )


def _session_anchored(st: TerminalAgentState, source: str, label: str) -> bool:
    hook = st.hook
    if hook is not None and (hook.source, hook.label) == (source, label) and hook.session_ref:
        return True
    return _same_owner(source, label, st.persisted_session)


def _park_selection(
    st: TerminalAgentState, source: str, label: str, ref: SessionRef, now: int
) -> None:
    prev_ref = _anchored_ref(st, source, label)
    parked = st.parked.setdefault(source, _Parked(label, prev_ref, now, _PROCESS_EXIT))
    parked.replacement_ref = ref
    parked.pending = None


def _replay_claim(
    st: TerminalAgentState,
    *,
    source: str,
    label: str,
    ref: SessionRef,
    seq: int | None,
    start: str | None,
    present: bool,
    now: int,
) -> bool:
    """A FULL session claim before anchoring: record it; replay buffered state if present."""
    if start not in _RECOGNIZED_START_SOURCES or seq is None:
        return False
    last = st.hook_seqs.get(source)
    if last is not None and seq <= last:
        return False
    parked = st.parked.setdefault(source, _Parked(label, None, now, _PROCESS_EXIT))
    if parked.replacement_ref != ref:
        if parked.pending is not None and parked.pending.hook.session_ref != ref:
            parked.pending = None
        parked.replacement_ref = ref
    st.hook_seqs[source] = seq
    if not present:
        return False
    _clear_parked_for_detected(st, None, _parse(label))
    return True


def _claim_session(
    st: TerminalAgentState,
    *,
    source: str,
    label: str,
    ref: SessionRef,
    seq: int | None,
    start: str | None,
    present: bool,
    unsequenced_select: bool,
    now: int,
) -> bool:
    """A plain session report: sequence, label, owner and replacement checks."""
    if not unsequenced_select and not _accept_hook_seq(st, source, seq):
        return False
    if _known_label_conflicts(st, label):
        return False
    allowed = _replacement_allowed(source, label, start)
    current = session_identity(st)
    replacing_sio = (
        is_session_identity_only(source, label)
        and allowed
        and current is not None
        and (current.source, current.agent) == (source, label)
        and current.ref.kind == "id"
        and ref.kind == "id"
        and current.ref.value != ref.value
    )
    if replacing_sio and not present:
        return False
    owner_conflicts = _owner_conflicts(st, source, label)
    takeover = (
        owner_conflicts
        and start in _RECOGNIZED_START_SOURCES
        and _foreground_confirms_owner(st, source, label, ref)
    )
    if owner_conflicts and not takeover:
        return False
    if _conflicting_same_owner_ref(st, source, label, ref, start) is not None:
        return False
    hook = st.hook
    replaced_hook_ref = None
    if hook is not None and _hook_is_full(hook) and (hook.source, hook.label) == (source, label):
        replaced_hook_ref = hook.session_ref if hook.session_ref != ref else None
    if replaced_hook_ref is not None and not allowed:
        return False
    if allowed or takeover:
        _forget_stale(st, source, label, ref)
    if replaced_hook_ref is not None:
        _remember_stale(st, source, label, replaced_hook_ref)
        st.hook = None
    elif takeover:
        _park_current_full(st, _HOOK_CLEAR, now)
        st.hook = None
    _reconcile_name_owner(st, label, ref)
    st.persisted_session = AgentSession(source, label, ref)
    return True


def apply_session(
    st: TerminalAgentState,
    source: str,
    label: str,
    session_ref: SessionRef | None,
    *,
    seq: int | None = None,
    start_source: str | None = None,
    now: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """A session-identity report at the state-machine level (§9.6)."""
    before = _begin(st)
    if not _session_core(
        st, source=source, label=label, ref=session_ref, seq=seq, start=start_source, now=now
    ):
        return _ignored(st, before)
    return _finish(st, before, now, viewed=viewed, launch_pending=launch_pending)


def report_agent_session(
    st: TerminalAgentState,
    *,
    source: str,
    agent: str,
    seq: int | None = None,
    session_id: str | None = None,
    session_path: str | None = None,
    session_start_source: str | None = None,
    now: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """`pane.report_agent_session`: validate and build the ref, then §9.6."""
    label = normalize_reported_agent_label(agent)
    ref = session_ref_from_report(source, label, session_id, session_path)
    start = normalize_session_start_source(session_start_source)
    return apply_session(
        st,
        source,
        label,
        ref,
        seq=seq,
        start_source=start,
        now=now,
        viewed=viewed,
        launch_pending=launch_pending,
    )


def restore_session(st: TerminalAgentState, session: AgentSession) -> None:
    """Seed a persisted session (restore from disk); it anchors FULL hooks."""
    st.persisted_session = session


# --------------------------------------------------------------------------- clear / release


def clear_authority(
    st: TerminalAgentState,
    *,
    source: str | None = None,
    seq: int | None = None,
    now: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """`pane.clear_agent_authority`: drop the hook (of `source`, or any) — §9.7."""
    before = _begin(st)
    hook = st.hook
    if hook is None or (source is not None and hook.source != source):
        return _ignored(st, before)
    if not _accept_hook_seq(st, source if source is not None else hook.source, seq):
        return _ignored(st, before)
    _park_current_full(st, _HOOK_CLEAR, now)
    st.hook = None
    st.persisted_session = None
    return _finish(st, before, now, viewed=viewed, launch_pending=launch_pending)


def release_agent(
    st: TerminalAgentState,
    *,
    source: str,
    agent: str,
    seq: int | None = None,
    now: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """`pane.release_agent`: a custom reporter lets go of the pane (§9.7)."""
    label = normalize_reported_agent_label(agent)
    before = _begin(st)
    hook = st.hook
    if is_official(source, label):
        return _ignored(st, before)
    if hook is not None and (hook.label != label or hook.source != source):
        return _ignored(st, before)
    persisted = st.persisted_session
    owns_session = _same_owner(source, label, persisted)
    if effective_label(st) != label and not owns_session:
        return _ignored(st, before)
    if not _accept_hook_seq(st, source, seq):
        return _ignored(st, before)
    keep_foreign = persisted is not None and not owns_session
    process_owns = _process_present(st, label)
    if is_full_lifecycle(source, label):
        ref = hook.session_ref if hook is not None else None
        _park(st, source=source, label=label, ref=ref, reason=_HOOK_CLEAR, at=now)
    if not process_owns:
        st.detected_agent = None
        st.fallback_state = UNKNOWN
        st.fallback_visible_blocker = False
        st.fallback_observed_at = None
        _clear_name(st)
    st.hook = None
    if not keep_foreign:
        st.persisted_session = None
    return _finish(
        st,
        before,
        now,
        viewed=viewed,
        launch_pending=launch_pending,
        released=not process_owns,
    )


# --------------------------------------------------------------------------- names, seen


def set_agent_name(st: TerminalAgentState, name: str | None) -> None:
    """Name the pane's agent; the name follows its owner (agent + session)."""
    st.agent_name = name or None
    if st.agent_name is None:
        st.name_owner = None
        return
    hook = st.hook
    persisted = st.persisted_session
    label = effective_label(st)
    if hook is not None:
        st.name_owner = (hook.label, hook.session_ref)
    elif persisted is not None:
        st.name_owner = (persisted.agent, persisted.ref)
    else:
        st.name_owner = (label, None) if label is not None else None


def mark_seen(st: TerminalAgentState) -> bool:
    """Focusing/viewing the pane: ``done`` becomes ``idle``; True when the status moved."""
    before = pane_status(st)
    st.seen = True
    return pane_status(st) != before


# --------------------------------------------------------------------------- metadata


def _metadata_blocked_by_exit(st: TerminalAgentState, report: PaneMetadataReport) -> bool:
    exit_ = st.recent_exit
    if exit_ is None:
        return False
    if report.agent_label is not None and _parse(report.agent_label) == exit_.agent:
        return True
    official = official_source_of(exit_.agent)
    return official is not None and official in (report.source, report.applies_to_source)


def _accept_metadata_seq(
    st: TerminalAgentState, report: PaneMetadataReport, agent: Agent | None
) -> None:
    """Record the seq; at most 32 sources may carry sequenced *token* reports."""
    if report.seq is None:
        return
    with_tokens = report.tokens is not None
    new_token_source = report.source not in st.metadata_token_seq_sources
    full = len(st.metadata_token_seq_sources) >= MAX_SEQUENCE_SOURCES
    if with_tokens and new_token_source and full:
        raise MetadataError(
            METADATA_SEQUENCE_SOURCE_LIMIT,
            f"pane metadata may track at most {MAX_SEQUENCE_SOURCES} sequenced sources",
        )
    st.metadata_seqs[report.source] = report.seq
    if with_tokens:
        st.metadata_token_seq_sources.add(report.source)
    if agent is not None:
        st.metadata_agents[report.source] = agent


def apply_metadata(
    st: TerminalAgentState,
    report: PaneMetadataReport,
    *,
    now: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """`pane.report_metadata` after validation (§9.9); display only, never state.

    Raises `MetadataError` (``metadata_token_limit``, ``metadata_sequence_source_limit``)
    before anything is changed. A report of an exited agent or with a stale seq is
    silently ignored (``accepted`` False).
    """
    before = _begin(st)
    if _metadata_blocked_by_exit(st, report):
        return _ignored(st, before)
    if not sequence_is_fresh(st.metadata_seqs, report.source, report.seq):
        return _ignored(st, before)
    if report.tokens is not None:
        check_token_limit(st.tokens, report.tokens, "pane")
    agent = metadata_report_agent(report.source, report.agent_label, report.applies_to_source)
    _accept_metadata_seq(st, report, agent)
    tokens_changed = False
    if report.tokens is not None:
        tokens_changed = st.tokens.patch(report.tokens, report.ttl_ms, now)
    if report.presentation_requested:
        st.metadata_order += 1
        apply_presentation(st.presentation_entries, report, now, st.metadata_order)
    return _finish(
        st,
        before,
        now,
        viewed=viewed,
        launch_pending=launch_pending,
        tokens_changed=tokens_changed,
    )


def next_metadata_deadline(st: TerminalAgentState) -> int | None:
    """When `expire_metadata` must run next (token or presentation TTL), if ever."""
    deadlines = [e.deadline() for e in st.presentation_entries.values()]
    deadlines.append(st.tokens.next_expiry())
    return min((d for d in deadlines if d is not None), default=None)


def expire_metadata(
    st: TerminalAgentState, *, now: int, viewed: bool = False, launch_pending: bool = False
) -> Update:
    """Drop expired tokens and presentation entries (deadline ≤ now)."""
    before = _begin(st)
    tokens_changed = st.tokens.expire(now)
    for source, entry in list(st.presentation_entries.items()):
        deadline = entry.deadline()
        if deadline is not None and deadline <= now:
            del st.presentation_entries[source]
    return _finish(
        st,
        before,
        now,
        viewed=viewed,
        launch_pending=launch_pending,
        tokens_changed=tokens_changed,
    )


def token_values(st: TerminalAgentState) -> Mapping[str, str]:
    return st.tokens.values()

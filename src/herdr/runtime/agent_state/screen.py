"""Screen evidence: the detection loop's publishes against hook authority (§9.4, PURE).

A publish moves the fallback (screen) state; it is ignored while a live FULL hook owns
the pane, and a process exit releases the agent, parks its official source and drops
what the dead process reported.
"""

from __future__ import annotations

from herdr.detect.agents import Agent, is_official
from herdr.runtime.agent_state.display import _drop_agent_metadata
from herdr.runtime.agent_state.ledgers import (
    _clear_name,
    _clear_parked_for_detected,
    _park,
    _park_current_full,
    _reconcile_name_owner,
    _remember_stale,
)
from herdr.runtime.agent_state.state import (
    _HOOK_CLEAR,
    _PROCESS_EXIT,
    BLOCKED,
    IDLE,
    UNKNOWN,
    AgentSession,
    RecentExit,
    SessionRef,
    State,
    TerminalAgentState,
    Update,
    _begin,
    _finish,
    _parse,
    effective_known_agent,
    effective_label,
    full_lifecycle_active,
)


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


# --------------------------------------------------------------------------- events


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

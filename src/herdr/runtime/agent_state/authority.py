"""Authority & names: clearing and releasing the hook authority, naming the agent and
marking it seen (§9.7–§9.8, PURE)."""

from __future__ import annotations

from herdr.detect.agents import is_full_lifecycle, is_official
from herdr.runtime.agent_state.ledgers import (
    _accept_hook_seq,
    _clear_name,
    _park,
    _park_current_full,
)
from herdr.runtime.agent_state.state import (
    _HOOK_CLEAR,
    UNKNOWN,
    TerminalAgentState,
    Update,
    _begin,
    _finish,
    _ignored,
    _process_present,
    _same_owner,
    effective_label,
    pane_status,
)
from herdr.runtime.metadata import normalize_reported_agent_label

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


def set_agent_name(st: TerminalAgentState, name: str | None, *, owner: str | None = None) -> None:
    """Name the pane's agent; the name follows its owner (agent + session).

    ``owner``: the agent label the name is reserved for before that agent arrived
    (``agent start``), so another agent showing up first does not take it.
    """
    st.agent_name = name or None
    if st.agent_name is None:
        st.name_owner = None
        return
    if owner is not None and effective_label(st) is None:
        st.name_owner = (owner, None)
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

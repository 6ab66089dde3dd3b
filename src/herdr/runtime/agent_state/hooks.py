"""Hook reports: a state report becomes the hook authority, or is ignored (§9.5, PURE).

Full-lifecycle (FULL) pairs are routed first: a report for a stale session is dropped,
one before its process is anchored is buffered for the session claim; every report
then passes the label, owner, session and per-source sequence checks in order.
"""

from __future__ import annotations

from herdr.detect.agents import (
    is_full_lifecycle,
    is_reserved_native_state,
    is_session_identity_only,
)
from herdr.runtime.agent_state.ledgers import (
    _accept_hook_seq,
    _park_current_full,
    _reconcile_name_owner,
    _remember_stale,
)
from herdr.runtime.agent_state.sessions import (
    _anchored_ref,
    _conflicting_same_owner_ref,
    _foreground_confirms_owner,
    _known_label_conflicts,
    _owner_conflicts,
    apply_session,
    session_ref_from_report,
)
from herdr.runtime.agent_state.state import (
    _HOOK_CLEAR,
    _PROCESS_EXIT,
    BLOCKED,
    IDLE,
    UNKNOWN,
    WORKING,
    HookAuthority,
    SessionRef,
    State,
    TerminalAgentState,
    Update,
    _begin,
    _Buffered,
    _finish,
    _hook_is_full,
    _ignored,
    _Parked,
    _parse,
    _process_present,
    _same_owner,
)
from herdr.runtime.metadata import ReportError, normalize_reported_agent_label
from herdr.vocab import ErrorCode


def _matches_stale(st: TerminalAgentState, source: str, label: str, ref: SessionRef | None) -> bool:
    return ref is not None and (label, ref) in st.stale_sessions.get(source, [])


def _fresh_after_stale(
    st: TerminalAgentState, source: str, label: str, ref: SessionRef | None
) -> bool:
    stale = [r for lbl, r in st.stale_sessions.get(source, []) if lbl == label]
    return bool(stale) and ref is not None and ref not in stale


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
    if ref is None and is_full_lifecycle(source, label):
        # A report without a session ref (opencode's child sessions) keeps the anchored one:
        # dropping it here un-anchored the pane and every later report was ignored.
        ref = _anchored_ref(st, source, label)
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


# --------------------------------------------------------------------------- reports


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
    raise ReportError(
        ErrorCode.INVALID_PARAMS, "state must be one of idle, working, blocked, unknown"
    )

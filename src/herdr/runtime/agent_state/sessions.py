"""Native sessions: session refs from reports, the ownership rules and session claims
(§9.6, PURE).

Only official (source, agent) pairs carry a resumable session; a claim may replace a
stored session only with an allowed start source, and a FULL claim made before its
process is anchored is recorded and replayed when the process shows up.
"""

from __future__ import annotations

from herdr.detect.agents import (
    is_full_lifecycle,
    is_official,
    is_session_identity_only,
    is_user_session_source,
    rust_trim,
)
from herdr.runtime.agent_state.ledgers import (
    _accept_hook_seq,
    _clear_parked_for_detected,
    _forget_stale,
    _park_current_full,
    _reconcile_name_owner,
    _remember_stale,
)
from herdr.runtime.agent_state.state import (
    _HOOK_CLEAR,
    _PROCESS_EXIT,
    AgentSession,
    SessionRef,
    TerminalAgentState,
    Update,
    _begin,
    _finish,
    _hook_is_full,
    _ignored,
    _Parked,
    _parse,
    _process_present,
    _same_owner,
    session_identity,
)
from herdr.runtime.metadata import is_control, normalize_reported_agent_label

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
_PATH_PREFERRING = frozenset({"pi", "omp"})


# --------------------------------------------------------------------------- session refs


def session_ref_from_report(
    source: str, label: str, session_id: str | None, session_path: str | None
) -> SessionRef | None:
    """Only official pairs (and a user kind on ``herdr:<label>``) carry a session; pi/omp
    prefer the path, others the id."""
    if not (is_official(source, label) or is_user_session_source(source, label)):
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


# --------------------------------------------------------------------------- ownership


def _anchored_ref(st: TerminalAgentState, source: str, label: str) -> SessionRef | None:
    hook = st.hook
    if hook is not None and (hook.source, hook.label) == (source, label) and hook.session_ref:
        return hook.session_ref
    persisted = st.persisted_session
    if persisted is not None and _same_owner(source, label, persisted):
        return persisted.ref
    return None


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


# --------------------------------------------------------------------------- claims


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

"""The per-terminal ledgers every rule keeps (PURE): parked FULL sources, stale session
refs, per-source hook sequences and who owns the agent name.

Parking (§9.4–§9.6) suppresses a full-lifecycle source after a clear or a process exit
until fresh process evidence releases it (`_clear_parked_for_detected`), replaying the
session claim and the state report it buffered meanwhile.
"""

from __future__ import annotations

from herdr.detect.agents import OFFICIAL_SOURCES, Agent, is_full_lifecycle
from herdr.runtime.agent_state.state import (
    _PROCESS_EXIT,
    AgentSession,
    SessionRef,
    TerminalAgentState,
    _Buffered,
    _hook_is_full,
    _Parked,
    _parse,
)
from herdr.runtime.metadata import MAX_SEQUENCE_SOURCES

# Hardening beyond the spec (whose hook sequence map is unbounded): at most this many
# distinct non-official sources may carry sequenced hook reports per terminal; a report
# from one more is ignored. Official sources are a fixed set and are never capped.
MAX_HOOK_SEQUENCE_SOURCES = MAX_SEQUENCE_SOURCES

_OFFICIAL_SOURCE_NAMES = frozenset(source for source, _ in OFFICIAL_SOURCES)


# --------------------------------------------------------------------------- names


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


# ------------------------------------------------------------------- parking and stale sessions


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


# --------------------------------------------------------------------------- sequences


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

"""Metadata glue: hook-reported display metadata on one terminal (§9.9, PURE).

Tokens and presentation entries are display only; they never move state. The rules
validating a report live in `herdr.runtime.metadata`; here a validated report is applied
to a terminal, expires, and is dropped with the process that reported it.
"""

from __future__ import annotations

from collections.abc import Mapping

from herdr.detect.agents import Agent, is_official
from herdr.runtime.agent_state.state import (
    TerminalAgentState,
    Update,
    _begin,
    _finish,
    _ignored,
    _parse,
)
from herdr.runtime.metadata import (
    MAX_SEQUENCE_SOURCES,
    METADATA_SEQUENCE_SOURCE_LIMIT,
    MetadataError,
    PaneMetadataReport,
    apply_presentation,
    check_token_limit,
    metadata_report_agent,
    official_source_of,
    sequence_is_fresh,
)


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


# --------------------------------------------------------------------------- what an exit drops


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

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

The package, by seam: `state` (records, queries, the frame of every rule), `screen`
(detection publishes), `hooks` (state reports), `sessions` (native session refs and
claims), `authority` (clear, release, names, seen), `display` (metadata glue) and
`ledgers` (parking, stale refs, sequences, name owners). Callers use the names below;
names with a leading underscore are shared between these modules only.
"""

from __future__ import annotations

from herdr.runtime.agent_state.authority import (
    clear_authority,
    mark_seen,
    release_agent,
    set_agent_name,
)
from herdr.runtime.agent_state.display import (
    apply_metadata,
    expire_metadata,
    next_metadata_deadline,
    token_values,
)
from herdr.runtime.agent_state.hooks import apply_hook, parse_state, report_agent
from herdr.runtime.agent_state.ledgers import MAX_HOOK_SEQUENCE_SOURCES
from herdr.runtime.agent_state.reporter import anchor_hook, drop_if_reporter_gone, reporter_job
from herdr.runtime.agent_state.screen import (
    apply_detection,
    apply_process_detected,
    apply_pty_exit,
)
from herdr.runtime.agent_state.sessions import (
    SESSION_ID_MAX_CHARS,
    SESSION_PATH_MAX_CHARS,
    SESSION_START_SOURCES,
    apply_session,
    normalize_session_start_source,
    report_agent_session,
    restore_session,
    session_ref_from_report,
)
from herdr.runtime.agent_state.state import (
    BLOCKED,
    DONE,
    IDLE,
    STATES,
    UNKNOWN,
    WORKING,
    AgentSession,
    HookAuthority,
    RecentExit,
    SessionRef,
    Snapshot,
    State,
    Status,
    TerminalAgentState,
    Update,
    agent_status,
    effective_known_agent,
    effective_label,
    effective_state,
    full_lifecycle_active,
    is_agent_terminal,
    is_completion,
    pane_status,
    rollup_member,
    session_identity,
    snapshot,
    visible_blocker_overrides_hook,
)

__all__ = [
    "BLOCKED",
    "DONE",
    "IDLE",
    "MAX_HOOK_SEQUENCE_SOURCES",
    "SESSION_ID_MAX_CHARS",
    "SESSION_PATH_MAX_CHARS",
    "SESSION_START_SOURCES",
    "STATES",
    "UNKNOWN",
    "WORKING",
    "AgentSession",
    "HookAuthority",
    "RecentExit",
    "SessionRef",
    "Snapshot",
    "State",
    "Status",
    "TerminalAgentState",
    "Update",
    "agent_status",
    "anchor_hook",
    "apply_detection",
    "apply_hook",
    "apply_metadata",
    "apply_process_detected",
    "apply_pty_exit",
    "apply_session",
    "clear_authority",
    "drop_if_reporter_gone",
    "effective_known_agent",
    "effective_label",
    "effective_state",
    "expire_metadata",
    "full_lifecycle_active",
    "is_agent_terminal",
    "is_completion",
    "mark_seen",
    "next_metadata_deadline",
    "normalize_session_start_source",
    "pane_status",
    "parse_state",
    "release_agent",
    "report_agent",
    "report_agent_session",
    "reporter_job",
    "restore_session",
    "rollup_member",
    "session_identity",
    "session_ref_from_report",
    "set_agent_name",
    "snapshot",
    "token_values",
    "visible_blocker_overrides_hook",
]

"""The wire protocol's vocabulary: method names, error codes, event kinds, envelopes.

Pure constants and tiny helpers with no third-party imports, so the CLI, the server
and the SDK all spell every name the same way (herdr-spec §3).
"""

from __future__ import annotations

from typing import Any, Final

from herdr import PROTOCOL_VERSION

__all__ = ["PROTOCOL_VERSION"]

SCHEMA_VERSION: Final = 1

# Transport bounds (§3.1): one request line per connection, at most 1 MiB, within 5 s.
MAX_REQUEST_LINE_BYTES: Final = 1024 * 1024
FIRST_LINE_TIMEOUT_S: Final = 5.0

# --- methods ---------------------------------------------------------------------------

METHODS: Final[tuple[str, ...]] = (
    "ping",
    "server.stop",
    "server.live_handoff",
    "server.reload_config",
    "server.agent_manifests",
    "server.reload_agent_manifests",
    "notification.show",
    "client.window_title.set",
    "client.window_title.clear",
    "session.snapshot",
    "workspace.create",
    "workspace.list",
    "workspace.get",
    "workspace.focus",
    "workspace.rename",
    "workspace.move",
    "workspace.move_block",
    "workspace.report_metadata",
    "workspace.close",
    "worktree.list",
    "worktree.create",
    "worktree.open",
    "worktree.remove",
    "tab.create",
    "tab.list",
    "tab.get",
    "tab.focus",
    "tab.rename",
    "tab.move",
    "tab.close",
    "agent.list",
    "agent.get",
    "agent.read",
    "agent.explain",
    "agent.send_keys",
    "agent.rename",
    "agent.view.set",
    "agent.view.clear",
    "agent.focus",
    "agent.start",
    "agent.prompt",
    "agent.wait",
    "pane.split",
    "pane.swap",
    "pane.move",
    "pane.zoom",
    "pane.layout",
    "pane.process_info",
    "layout.export",
    "layout.apply",
    "layout.set_split_ratio",
    "pane.neighbor",
    "pane.edges",
    "pane.focus_direction",
    "pane.resize",
    "pane.list",
    "pane.current",
    "pane.get",
    "pane.focus",
    "pane.input.set",
    "pane.rename",
    "pane.send_text",
    "pane.send_keys",
    "pane.send_input",
    "pane.read",
    "pane.graphics.set",
    "pane.graphics.clear",
    "pane.graphics.info",
    "pane.report_agent",
    "pane.report_agent_session",
    "pane.report_metadata",
    "pane.clear_agent_authority",
    "pane.release_agent",
    "pane.close",
    "popup.close",
    "events.subscribe",
    "events.wait",
    "pane.wait_for_output",
    "integration.install",
    "integration.uninstall",
    "plugin.link",
    "plugin.list",
    "plugin.unlink",
    "plugin.enable",
    "plugin.disable",
    "plugin.action.list",
    "plugin.action.invoke",
    "plugin.log.list",
    "plugin.pane.open",
    "plugin.pane.focus",
    "plugin.pane.close",
)

# Methods whose connection stays open after the request line (§3.1).
HELD_METHODS: Final = frozenset(
    {
        "events.subscribe",
        "events.wait",
        "agent.wait",
        "agent.prompt",
        "pane.wait_for_output",
        "pane.graphics.stream",
    }
)

# --- error codes (§3.6) ----------------------------------------------------------------

INVALID_REQUEST: Final = "invalid_request"
INVALID_PARAMS: Final = "invalid_params"
WORKSPACE_NOT_FOUND: Final = "workspace_not_found"
TAB_NOT_FOUND: Final = "tab_not_found"
PANE_NOT_FOUND: Final = "pane_not_found"
TARGET_PANE_NOT_FOUND: Final = "target_pane_not_found"
LAYOUT_NOT_FOUND: Final = "layout_not_found"
SPLIT_NOT_FOUND: Final = "split_not_found"
WORKTREE_NOT_FOUND: Final = "worktree_not_found"
AGENT_NOT_FOUND: Final = "agent_not_found"
AGENT_TARGET_AMBIGUOUS: Final = "agent_target_ambiguous"
AGENT_NOT_RUNNING: Final = "agent_not_running"
AGENT_BLOCKED: Final = "agent_blocked"
AGENT_PROMPT_STALLED: Final = "agent_prompt_stalled"
AGENT_NOT_READY: Final = "agent_not_ready"
AGENT_NOT_IDLE: Final = "agent_not_idle"
INVALID_AGENT_NAME: Final = "invalid_agent_name"
AGENT_NAME_TAKEN: Final = "agent_name_taken"
UNSUPPORTED_AGENT_KIND: Final = "unsupported_agent_kind"
INVALID_AGENT_TIMEOUT: Final = "invalid_agent_timeout"
INVALID_AGENT_ARGUMENT: Final = "invalid_agent_argument"
AGENT_PANE_NOT_FOUND: Final = "agent_pane_not_found"
AGENT_PANE_BUSY: Final = "agent_pane_busy"
AGENT_PANE_UNAVAILABLE: Final = "agent_pane_unavailable"
AGENT_LAUNCH_PENDING: Final = "agent_launch_pending"
AGENT_START_INPUT_FAILED: Final = "agent_start_input_failed"
TIMEOUT: Final = "timeout"
INVALID_KEY: Final = "invalid_key"
INVALID_REGEX: Final = "invalid_regex"
INVALID_RATIO: Final = "invalid_ratio"
INVALID_ENV: Final = "invalid_env"
INVALID_LAYOUT: Final = "invalid_layout"
INVALID_TARGET: Final = "invalid_target"
INVALID_STATE_LABEL: Final = "invalid_state_label"
CONFIRMATION_REQUIRED: Final = "confirmation_required"
FEATURE_DISABLED: Final = "feature_disabled"
STREAM_CONFLICT: Final = "stream_conflict"
POPUP_NOT_OPEN: Final = "popup_not_open"
UI_BUSY: Final = "ui_busy"
PLUGIN_NOT_FOUND: Final = "plugin_not_found"
PLUGIN_DISABLED: Final = "plugin_disabled"
PLATFORM_UNSUPPORTED: Final = "platform_unsupported"
PLUGIN_ACTION_NOT_FOUND: Final = "plugin_action_not_found"
AMBIGUOUS_PLUGIN_ACTION: Final = "ambiguous_plugin_action"
UNSUPPORTED_EVENT_WAIT_MATCH: Final = "unsupported_event_wait_match"
SERVER_NOT_RUNNING: Final = "server_not_running"
PROTOCOL_MISMATCH: Final = "protocol_mismatch"
INTERNAL_ERROR: Final = "internal_error"
# herdr for Python extensions (not in §3.6): refusals that come before any request is
# read (answered with ``"id": null``), and a client's refusal of a foreign server.
PERMISSION_DENIED: Final = "permission_denied"  # the client runs as another user
TOO_MANY_CONNECTIONS: Final = "too_many_connections"  # connection cap or fd reserve
SERVER_UNTRUSTED: Final = "server_untrusted"  # client side: the server is another user's
# Extension: a client's regex ran out of search time (``pane.wait_for_output``; a
# ``pane.output_matched`` item ends with this reason instead).
REGEX_TIMEOUT: Final = "regex_timeout"
# CLI-local session commands (not sent over the socket).
INVALID_SESSION_NAME: Final = "invalid_session_name"
SESSION_STOP_FAILED: Final = "session_stop_failed"
SESSION_DELETE_FAILED: Final = "session_delete_failed"

ERROR_CODES: Final = frozenset(
    value
    for name, value in dict(globals()).items()
    if name.isupper() and isinstance(value, str) and name not in {"SCHEMA_VERSION"}
)
"""Every fixed code above; families such as ``invalid_metadata_*`` and ``*_failed`` add more."""

# --- events (§3.5) ---------------------------------------------------------------------

# Kinds pushed on the bus; ``data.type`` repeats the kind.
EVENT_KINDS: Final[tuple[str, ...]] = (
    "workspace_created",
    "workspace_updated",
    "workspace_metadata_updated",
    "workspace_closed",
    "workspace_renamed",
    "workspace_moved",
    "workspace_reordered",
    "workspace_focused",
    "worktree_created",
    "worktree_opened",
    "worktree_removed",
    "tab_created",
    "tab_closed",
    "tab_renamed",
    "tab_moved",
    "tab_focused",
    "pane_created",
    "pane_closed",
    "pane_updated",
    "pane_focused",
    "pane_moved",
    "pane_output_changed",
    "pane_exited",
    "pane_agent_detected",
    "pane_agent_status_changed",
    "layout_updated",
)

# Subscription types accepted by ``events.subscribe`` (dot names).
LIFECYCLE_SUBSCRIPTIONS: Final[tuple[str, ...]] = (
    "workspace.created",
    "workspace.updated",
    "workspace.metadata_updated",
    "workspace.renamed",
    "workspace.moved",
    "workspace.reordered",
    "workspace.closed",
    "workspace.focused",
    "worktree.created",
    "worktree.opened",
    "worktree.removed",
    "tab.created",
    "tab.closed",
    "tab.focused",
    "tab.renamed",
    "tab.moved",
    "pane.created",
    "pane.closed",
    "pane.updated",
    "pane.focused",
    "pane.moved",
    "pane.exited",
    "pane.agent_detected",
    "layout.updated",
)
OUTPUT_MATCHED: Final = "pane.output_matched"
AGENT_STATUS_CHANGED: Final = "pane.agent_status_changed"
SCROLL_CHANGED: Final = "pane.scroll_changed"
FILTERED_SUBSCRIPTIONS: Final = (OUTPUT_MATCHED, AGENT_STATUS_CHANGED, SCROLL_CHANGED)
SUBSCRIPTION_TYPES: Final = LIFECYCLE_SUBSCRIPTIONS + FILTERED_SUBSCRIPTIONS

# Internal bus kind behind ``pane.scroll_changed`` (not a lifecycle kind of the spec).
PANE_SCROLL_CHANGED: Final = "pane_scroll_changed"

# Extensions (beyond the original): stream bookkeeping events, also snake_case.
SUBSCRIPTION_LAGGED: Final = "subscription_lagged"
SUBSCRIPTION_ENDED: Final = "subscription_ended"

# Kinds that may be waited for with ``events.wait`` (the schema's EventMatch).
WAITABLE_EVENTS: Final = frozenset(
    {
        "workspace_created",
        "workspace_updated",
        "workspace_closed",
        "workspace_renamed",
        "workspace_moved",
        "workspace_focused",
        "tab_created",
        "tab_closed",
        "tab_renamed",
        "tab_moved",
        "tab_focused",
        "pane_created",
        "pane_closed",
        "pane_focused",
        "pane_moved",
        "pane_output_changed",
        "pane_exited",
        "pane_agent_detected",
        "pane_agent_status_changed",
    }
)


def pushed_kind(subscription_type: str) -> str:
    """``workspace.created`` → ``workspace_created`` (the kind pushed on the stream)."""
    return subscription_type.replace(".", "_", 1)


# --- envelopes -------------------------------------------------------------------------


def success(request_id: str, result: dict[str, Any]) -> dict[str, Any]:
    return {"id": request_id, "result": result}


def failure(request_id: str, code: str, message: str) -> dict[str, Any]:
    return {"id": request_id, "error": {"code": code, "message": message}}


def event_envelope(kind: str, data: dict[str, Any], seq: int | None) -> dict[str, Any]:
    """A pushed line; ``seq`` is our extension (absent only for stream bookkeeping)."""
    if seq is None:
        return {"event": kind, "data": data}
    return {"event": kind, "data": data, "seq": seq}

"""The words every layer shares: agent statuses, error codes, and the one error type.

The bottom layer: it imports nothing of herdr, so the pure modules, the server, the SDK
and the client agree on spelling without importing each other. Values are the wire
strings of the spec (§3.6 codes, §9 statuses); ``StrEnum`` members compare equal to
those strings, so records and JSON stay plain.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class AgentStatus(StrEnum):
    """A pane's public agent status (``done`` = finished while nobody was looking)."""

    IDLE = "idle"
    WORKING = "working"
    BLOCKED = "blocked"
    DONE = "done"
    UNKNOWN = "unknown"


# What a detector or a hook can report: ``done`` is derived (idle + not seen), never told.
REPORTABLE_STATES: tuple[str, ...] = ("idle", "working", "blocked", "unknown")
STATUS_WORDS: tuple[str, ...] = tuple(status.value for status in AgentStatus)

# Rollup priority (spec §9.8): the pane that needs a human most speaks for its tab.
_PRIORITY = {"blocked": 4, "done": 3, "working": 2, "idle": 1, "unknown": 0}


def rollup(statuses: Iterable[str | None]) -> AgentStatus:
    """Tab/workspace status: blocked > done > working > idle > unknown; ``None`` (a pane
    without an agent) counts for nothing; no agents at all → unknown."""
    best = "unknown"
    for status in statuses:
        if status is not None and _PRIORITY[status] > _PRIORITY[best]:
            best = status
    return AgentStatus(best)


class ErrorCode(StrEnum):
    """Every fixed error code (spec §3.6, then our additive extensions).

    Families such as ``invalid_metadata_*`` and ``*_failed`` are built from a prefix.
    """

    INVALID_REQUEST = "invalid_request"
    INVALID_PARAMS = "invalid_params"
    WORKSPACE_NOT_FOUND = "workspace_not_found"
    TAB_NOT_FOUND = "tab_not_found"
    PANE_NOT_FOUND = "pane_not_found"
    TARGET_PANE_NOT_FOUND = "target_pane_not_found"
    LAYOUT_NOT_FOUND = "layout_not_found"
    SPLIT_NOT_FOUND = "split_not_found"
    WORKTREE_NOT_FOUND = "worktree_not_found"
    AGENT_NOT_FOUND = "agent_not_found"
    AGENT_TARGET_AMBIGUOUS = "agent_target_ambiguous"
    AGENT_NOT_RUNNING = "agent_not_running"
    AGENT_BLOCKED = "agent_blocked"
    AGENT_PROMPT_STALLED = "agent_prompt_stalled"
    AGENT_NOT_READY = "agent_not_ready"
    AGENT_NOT_IDLE = "agent_not_idle"
    INVALID_AGENT_NAME = "invalid_agent_name"
    AGENT_NAME_TAKEN = "agent_name_taken"
    UNSUPPORTED_AGENT_KIND = "unsupported_agent_kind"
    INVALID_AGENT_TIMEOUT = "invalid_agent_timeout"
    INVALID_AGENT_ARGUMENT = "invalid_agent_argument"
    AGENT_PANE_NOT_FOUND = "agent_pane_not_found"
    AGENT_PANE_BUSY = "agent_pane_busy"
    AGENT_PANE_UNAVAILABLE = "agent_pane_unavailable"
    AGENT_LAUNCH_PENDING = "agent_launch_pending"
    AGENT_START_INPUT_FAILED = "agent_start_input_failed"
    AGENT_EXPLAIN_UNAVAILABLE = "agent_explain_unavailable"  # detection-spec: agent explain
    # Structured approvals (our extension): agent.approve refusals.
    NO_APPROVAL = "no_approval"
    APPROVAL_CHANGED = "approval_changed"
    APPROVAL_OPTION_NOT_FOUND = "approval_option_not_found"
    TIMEOUT = "timeout"
    INVALID_KEY = "invalid_key"
    INVALID_REGEX = "invalid_regex"
    INVALID_RATIO = "invalid_ratio"
    INVALID_ENV = "invalid_env"
    INVALID_LAYOUT = "invalid_layout"
    INVALID_TARGET = "invalid_target"
    INVALID_STATE_LABEL = "invalid_state_label"
    INVALID_AGENT_VIEW = "invalid_agent_view"
    CONFIRMATION_REQUIRED = "confirmation_required"
    FEATURE_DISABLED = "feature_disabled"
    STREAM_CONFLICT = "stream_conflict"
    POPUP_NOT_OPEN = "popup_not_open"
    CONNECTION_LOCAL_ONLY = "connection_local_only"
    UI_BUSY = "ui_busy"
    PLUGIN_NOT_FOUND = "plugin_not_found"
    PLUGIN_DISABLED = "plugin_disabled"
    PLATFORM_UNSUPPORTED = "platform_unsupported"
    PLUGIN_ACTION_NOT_FOUND = "plugin_action_not_found"
    AMBIGUOUS_PLUGIN_ACTION = "ambiguous_plugin_action"
    # The spec's ``invalid_plugin_*`` family and the other plugin refusals (§9).
    INVALID_PLUGIN_ID = "invalid_plugin_id"
    INVALID_PLUGIN_MANIFEST = "invalid_plugin_manifest"
    INVALID_PLUGIN_SOURCE = "invalid_plugin_source"
    PLUGIN_MANIFEST_NOT_FOUND = "plugin_manifest_not_found"
    PLUGIN_ALREADY_INSTALLED = "plugin_already_installed"
    PLUGIN_REGISTRY_LOAD_FAILED = "plugin_registry_load_failed"
    PLUGIN_REGISTRY_SAVE_FAILED = "plugin_registry_save_failed"
    PLUGIN_INSTALL_FAILED = "plugin_install_failed"
    PLUGIN_ENTRYPOINT_NOT_FOUND = "plugin_entrypoint_not_found"
    PLUGIN_PLACEMENT_UNAVAILABLE = "plugin_placement_unavailable"
    PLUGIN_PANE_NOT_FOUND = "plugin_pane_not_found"
    PLUGIN_PANE_OPEN_FAILED = "plugin_pane_open_failed"
    UNSUPPORTED_EVENT_WAIT_MATCH = "unsupported_event_wait_match"
    STALE_CONTENT = "stale_content"  # a content_revision/viewport that no longer matches
    COMMAND_NOT_FOUND = "command_not_found"  # command.invoke (herdr 0.9)
    COMMAND_FAILED = "command_failed"
    COMMAND_TARGET_MISMATCH = "command_target_mismatch"
    STALE_RELEASE_NOTES = "stale_release_notes"  # release_notes.dismiss (herdr 0.9)
    STALE_ANNOUNCEMENT = "stale_announcement"  # product_announcement.dismiss
    SERVER_NOT_RUNNING = "server_not_running"
    PROTOCOL_MISMATCH = "protocol_mismatch"
    INTERNAL_ERROR = "internal_error"
    # herdr for Python extensions (additive): refusals before a request is read, a
    # client's refusal of a foreign server, a client regex out of search time.
    PERMISSION_DENIED = "permission_denied"  # the client runs as another user
    TOO_MANY_CONNECTIONS = "too_many_connections"  # connection cap or fd reserve
    SERVER_UNTRUSTED = "server_untrusted"  # client side: the server is another user's
    REGEX_TIMEOUT = "regex_timeout"
    # Git worktrees (herdr 0.9's spellings, plus our repository_not_trusted).
    NOT_GIT_WORKTREE = "not_git_worktree"
    LINKED_WORKTREE_SOURCE = "linked_worktree_source"
    NOT_LINKED_WORKTREE = "not_linked_worktree"
    DIRTY_WORKTREE_REQUIRES_FORCE = "dirty_worktree_requires_force"
    WORKTREE_OPERATION_IN_PROGRESS = "worktree_operation_in_progress"
    WORKSPACE_GROUP_CLOSE_REQUIRED = "workspace_group_close_required"
    REPOSITORY_NOT_TRUSTED = "repository_not_trusted"  # git refuses it for its owner
    # Live handoff: the new server could not take over; this one keeps serving.
    HANDOFF_FAILED = "handoff_failed"
    # CLI-local session commands (never sent over the socket).
    INVALID_SESSION_NAME = "invalid_session_name"
    SESSION_STOP_FAILED = "session_stop_failed"
    SESSION_DELETE_FAILED = "session_delete_failed"
    INTEGRATION_INSTALL_FAILED = "integration_install_failed"
    INTEGRATION_UNINSTALL_FAILED = "integration_uninstall_failed"
    # Other machines (--machine, --remote, herdr machine): CLI/SDK-local, except that a
    # remote ``herdr api proxy`` answers remote_herdr_missing in the envelope's shape.
    MACHINE_UNREACHABLE = "machine_unreachable"
    MACHINE_NOT_FOUND = "machine_not_found"
    MACHINE_EXISTS = "machine_exists"
    INVALID_MACHINE_NAME = "invalid_machine_name"
    INVALID_MACHINES_FILE = "invalid_machines_file"
    MACHINES_SAVE_FAILED = "machines_save_failed"
    REMOTE_HERDR_MISSING = "remote_herdr_missing"
    REMOTE_INSTALL_FAILED = "remote_install_failed"
    REMOTE_SERVER_FAILED = "remote_server_failed"
    # The web view (herdr.web): its own refusals, on top of every socket-API code.
    READ_ONLY = "read_only"  # a mutating call through a read-only web view
    TYPING_DISABLED = "typing_disabled"  # typing into a pane without --allow-typing
    WEB_METHOD_NOT_ALLOWED = "web_method_not_allowed"  # not offered to the page at all
    WEB_EXPOSED_REFUSED = "web_exposed_refused"  # non-loopback bind without the flag
    WEB_BIND_FAILED = "web_bind_failed"  # the address/port cannot be bound
    WEB_UNAVAILABLE = "web_unavailable"  # aiohttp is not installed


class HerdrError(Exception):
    """A failure with a specific error code; every domain error subclasses it, so the
    dispatcher turns any of them into ``{"error": {"code", "message"}}`` in one place."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = str(code)
        self.message = message

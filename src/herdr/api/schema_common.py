"""Schema definitions shared by requests, results and events: enums and records (§3.4).

Declared once here so a record such as ``PaneInfo`` has a single shape everywhere it
appears; each exported section copies the ones it references.
"""

from __future__ import annotations

from typing import Final

from herdr.api.limits import MAX_LABEL_CHARS, MAX_PATH_CHARS, MAX_TEXT_CHARS
from herdr.api.schema_types import (
    BOOLEAN,
    FLOAT,
    STRING,
    U16,
    U64,
    USIZE,
    Json,
    array,
    describe,
    enum,
    extend,
    integer,
    nullable,
    obj,
    one_of,
    opt,
    ref,
    string,
    string_map,
    tagged,
    without,
)

OPT_STRING: Final = opt(nullable(STRING))

# Strings a client hands the server to keep (see herdr.api.limits).
LABEL: Final = string(max_length=MAX_LABEL_CHARS)
TEXT: Final = string(max_length=MAX_TEXT_CHARS)
PATH: Final = string(max_length=MAX_PATH_CHARS)
OPT_LABEL: Final = opt(nullable(LABEL))
OPT_TEXT: Final = opt(nullable(TEXT))
OPT_PATH: Final = opt(nullable(PATH))

# --- vocabulary -----------------------------------------------------------------------

VOCABULARY: Final[dict[str, Json]] = {
    "AgentStatus": enum("idle", "working", "blocked", "done", "unknown"),
    "AgentSessionRefKind": enum("id", "path"),
    "SplitDirection": enum("right", "down"),
    "PaneDirection": enum("left", "right", "up", "down"),
    "ReadFormat": enum("text", "ansi"),
    "ReadSource": enum("visible", "recent", "recent_unwrapped", "detection"),
    "IntegrationTarget": enum(
        "pi",
        "omp",
        "claude",
        "codex",
        "copilot",
        "devin",
        "droid",
        "kimi",
        "opencode",
        "kilo",
        "hermes",
        "qodercli",
        "qwen",
        "cursor",
        "mastracode",
        "antigravity_cli",
        "grok",
    ),
    "PluginPanePlacement": enum("overlay", "popup", "split", "tab", "zoomed"),
    "PluginSourceKind": enum("local", "github"),
    "PopupSize": one_of(
        describe(integer(minimum=0, maximum=65535), "size in cells"),
        describe(string(pattern="^(100|[1-9][0-9]?)%$"), "percentage of the screen, 1%-100%"),
    ),
}

# --- records --------------------------------------------------------------------------

_TOKENS: Final = opt(string_map(max_keys=32))

_PANE_FIELDS: Final = obj(
    pane_id=STRING,
    terminal_id=STRING,
    workspace_id=STRING,
    tab_id=STRING,
    focused=BOOLEAN,
    agent_status=ref("AgentStatus"),
    revision=U64,
    label=OPT_STRING,
    cwd=OPT_STRING,
    foreground_cwd=OPT_STRING,
    agent=OPT_STRING,
    display_agent=OPT_STRING,
    title=OPT_STRING,
    state_labels=opt(string_map()),
    tokens=_TOKENS,
    terminal_title=OPT_STRING,
    terminal_title_stripped=OPT_STRING,
    scroll=opt(nullable(ref("PaneScrollInfo"))),
    agent_session=opt(nullable(ref("AgentSessionInfo"))),
    # herdr-python (0.9.x): why a pane restored from a snapshot did not get its agent back
    restore_error=OPT_STRING,
)

RECORDS: Final[dict[str, Json]] = {
    "WorkspaceWorktreeInfo": obj(
        repo_key=STRING,
        repo_name=STRING,
        repo_root=STRING,
        checkout_path=STRING,
        is_linked_worktree=BOOLEAN,
    ),
    "WorkspaceInfo": obj(
        workspace_id=STRING,
        number=USIZE,
        label=STRING,
        focused=BOOLEAN,
        pane_count=USIZE,
        tab_count=USIZE,
        active_tab_id=STRING,
        agent_status=ref("AgentStatus"),
        tokens=_TOKENS,
        worktree=opt(nullable(ref("WorkspaceWorktreeInfo"))),
    ),
    "TabInfo": obj(
        tab_id=STRING,
        workspace_id=STRING,
        number=USIZE,
        label=STRING,
        focused=BOOLEAN,
        pane_count=USIZE,
        agent_status=ref("AgentStatus"),
    ),
    "PaneScrollInfo": obj(offset_from_bottom=U64, max_offset_from_bottom=U64, viewport_rows=U64),
    "AgentSessionInfo": obj(
        source=STRING,
        agent=STRING,
        kind=ref("AgentSessionRefKind"),
        value=STRING,
        # herdr-python (0.9.x): what herdr would run to resume it; absent: no resume form
        resume_argv=opt(nullable(array(STRING))),
    ),
    "PaneInfo": _PANE_FIELDS,
    # An agent is its pane seen from the agent side: no label/scroll, plus lifecycle.
    "AgentInfo": extend(
        without(_PANE_FIELDS, "label", "scroll"),
        name=OPT_STRING,
        state_change_seq=opt(U64, default=0),
        completion_seq=opt(U64, default=0),  # 0.9.x: finished turns of this agent
        interactive_ready=opt(BOOLEAN),
        launch_pending=opt(BOOLEAN),
        screen_detection_skipped=opt(BOOLEAN),
    ),
    # herdr-python: a permission dialog read off an agent's screen (agent.approval).
    "ApprovalOption": obj(id=STRING, label=STRING, keys=array(STRING)),
    "ApprovalRecord": obj(
        pane_id=STRING,
        agent=OPT_STRING,
        rule=STRING,
        question=STRING,
        detail=STRING,
        options=array(ref("ApprovalOption")),
        fingerprint=STRING,
    ),
    "PaneLayoutRect": obj(x=U16, y=U16, width=U16, height=U16),
    "PaneLayoutPane": obj(pane_id=STRING, focused=BOOLEAN, rect=ref("PaneLayoutRect")),
    "PaneLayoutSplit": obj(
        id=STRING, direction=ref("SplitDirection"), ratio=FLOAT, rect=ref("PaneLayoutRect")
    ),
    "PaneLayoutSnapshot": obj(
        workspace_id=STRING,
        tab_id=STRING,
        zoomed=BOOLEAN,
        area=ref("PaneLayoutRect"),
        focused_pane_id=STRING,
        panes=array(ref("PaneLayoutPane")),
        splits=array(ref("PaneLayoutSplit")),
    ),
    "LayoutNode": tagged(
        "type",
        {
            "pane": obj(
                pane_id=OPT_STRING,
                label=OPT_LABEL,
                cwd=OPT_PATH,
                command=opt(nullable(array(STRING))),
                env=opt(string_map()),
            ),
            "split": obj(
                direction=ref("SplitDirection"),
                ratio=FLOAT,
                first=ref("LayoutNode"),
                second=ref("LayoutNode"),
            ),
        },
    ),
    "WorktreeInfo": obj(
        path=STRING,
        is_bare=BOOLEAN,
        is_detached=BOOLEAN,
        is_prunable=BOOLEAN,
        is_linked_worktree=BOOLEAN,
        label=STRING,
        branch=OPT_STRING,
        open_workspace_id=OPT_STRING,
    ),
    "PaneReadResult": obj(
        pane_id=STRING,
        workspace_id=STRING,
        tab_id=STRING,
        source=ref("ReadSource"),
        format=ref("ReadFormat"),
        text=STRING,
        revision=U64,
        truncated=BOOLEAN,
    ),
    "PluginSourceInfo": obj(
        kind=opt(ref("PluginSourceKind"), default="local"),
        owner=OPT_STRING,
        repo=OPT_STRING,
        subdir=OPT_STRING,
        requested_ref=OPT_STRING,
        resolved_commit=OPT_STRING,
        managed_path=OPT_STRING,
        installed_unix_ms=opt(nullable(U64)),
    ),
    "PluginInvocationContext": obj(
        invocation_source=OPT_STRING,
        correlation_id=OPT_STRING,
        link_handler_id=OPT_STRING,
        clicked_url=OPT_STRING,
        selected_text=OPT_STRING,
        workspace_id=OPT_STRING,
        workspace_label=OPT_STRING,
        workspace_cwd=OPT_STRING,
        worktree=opt(nullable(ref("WorkspaceWorktreeInfo"))),
        tab_id=OPT_STRING,
        tab_label=OPT_STRING,
        focused_pane_id=OPT_STRING,
        focused_pane_cwd=OPT_STRING,
        focused_pane_agent=OPT_STRING,
        focused_pane_status=opt(nullable(ref("AgentStatus"))),
    ),
}

DEFS: Final[dict[str, Json]] = {**VOCABULARY, **RECORDS}

"""Hook reports: agent state, session identity, release/clear and metadata (§3.2, §3.4).

Each handler resolves the pane, lets the pure arbitration validate and apply the
report, and publishes what changed. Every validation rule answers with its own code
(``invalid_agent``, ``invalid_metadata_*``, ``metadata_token_limit``, …); an ignored
report (stale ``seq``, a guard) still answers ``ok``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from herdr.api.limits import MAX_TEXT_CHARS
from herdr.detect.agents import is_user_session_source
from herdr.persist import session_refs
from herdr.runtime import agent_state
from herdr.runtime import metadata as md
from herdr.runtime import model as m
from herdr.server import reporters
from herdr.server.agents import PaneAgent, now_ms
from herdr.server.core import ApiError, Result
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode

OK: Result = {"type": "ok"}


def _pane_agent(call: Call) -> tuple[m.PaneLoc, PaneAgent]:
    loc = call.server.panes.session.pane(call.params["pane_id"])
    pa = call.server.agents.for_pane(loc.pane)
    if pa is None:
        raise ApiError(ErrorCode.PANE_NOT_FOUND, f"pane {loc.pane_id} has no running terminal")
    return loc, pa


def _run(call: Call, change: Callable[[PaneAgent, int, bool, bool], agent_state.Update]) -> Result:
    _loc, pa = _pane_agent(call)
    now = now_ms()
    call.server.agents.apply(pa, lambda viewed, pending: change(pa, now, viewed, pending))
    return OK


def check_session_refs(params: dict[str, Any]) -> None:
    """A native session id/path is data for a resume argv: refuse one that could read as
    an option or carries whitespace/control characters, before anything changes. An
    empty string stays what it was before: no reference."""
    checks = (
        ("agent_session_id", session_refs.id_problem),
        ("agent_session_path", session_refs.path_problem),
    )
    source, agent = params.get("source"), params.get("agent")
    user_kind = (
        isinstance(source, str)
        and isinstance(agent, str)
        and is_user_session_source(source, md.normalize_reported_agent_label(agent))
    )
    if user_kind:  # a user kind's id must have the strict form its resume accepts
        checks = (("agent_session_id", session_refs.user_id_problem), *checks[1:])
    for name, problem_of in checks:
        value = params.get(name)
        if isinstance(value, str) and value:
            problem = problem_of(value, name)
            if problem is not None:
                raise ApiError(ErrorCode.INVALID_PARAMS, problem)


def pane_report_agent(call: Call) -> Result:
    p = call.params
    check_session_refs(p)
    _loc, pa = _pane_agent(call)
    transport, pty = call.conn.transport, pa.term.pty
    sock = transport.get_extra_info("socket") if transport is not None else None
    # The agent's job, followed until it exits.
    job = reporters.report_job(sock, pty.pid if pty is not None else None)
    now = now_ms()

    def change(viewed: bool, pending: bool) -> agent_state.Update:
        update = agent_state.report_agent(
            pa.st,
            source=p["source"],
            agent=p["agent"],
            state=p["state"],
            message=p.get("message"),
            seq=p.get("seq"),
            session_id=p.get("agent_session_id"),
            session_path=p.get("agent_session_path"),
            now=now,
            viewed=viewed,
            launch_pending=pending,
        )
        if update.accepted:
            agent_state.anchor_hook(pa.st, job)
        return update

    call.server.agents.apply(pa, change)
    if pa.st.hook_job is not None:
        pa.wake.set()  # the driver re-plans: it now follows the job
    return OK


def pane_report_agent_session(call: Call) -> Result:
    p = call.params
    check_session_refs(p)
    return _run(
        call,
        lambda pa, now, viewed, pending: agent_state.report_agent_session(
            pa.st,
            source=p["source"],
            agent=p["agent"],
            seq=p.get("seq"),
            session_id=p.get("agent_session_id"),
            session_path=p.get("agent_session_path"),
            session_start_source=p.get("session_start_source"),
            now=now,
            viewed=viewed,
            launch_pending=pending,
        ),
    )


def pane_release_agent(call: Call) -> Result:
    p = call.params
    return _run(
        call,
        lambda pa, now, viewed, pending: agent_state.release_agent(
            pa.st,
            source=p["source"],
            agent=p["agent"],
            seq=p.get("seq"),
            now=now,
            viewed=viewed,
            launch_pending=pending,
        ),
    )


def pane_clear_agent_authority(call: Call) -> Result:
    p = call.params
    return _run(
        call,
        lambda pa, now, viewed, pending: agent_state.clear_authority(
            pa.st,
            source=p.get("source"),
            seq=p.get("seq"),
            now=now,
            viewed=viewed,
            launch_pending=pending,
        ),
    )


# --- metadata -------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def metadata_precheck(params: dict[str, Any]) -> None:
    """Answer bounds the schema also states (ttl, token names/count) with their codes
    (a `metadata.ReportError` carries its own)."""
    source = params.get("source")
    if isinstance(source, str):
        md.normalize_source(source)
    ttl = params.get("ttl_ms")
    if _is_int(ttl):
        md.normalize_ttl(ttl)
    tokens = params.get("tokens")
    if isinstance(tokens, dict) and all(
        v is None or (isinstance(v, str) and len(v) <= MAX_TEXT_CHARS) for v in tokens.values()
    ):  # an over-long value is the schema's invalid_params, without sanitising it first
        md.normalize_tokens(tokens)


def pane_report_metadata(call: Call) -> Result:
    p = call.params
    report = md.parse_pane_metadata_report(
        source=p["source"],
        agent=p.get("agent"),
        applies_to_source=p.get("applies_to_source"),
        title=p.get("title"),
        display_agent=p.get("display_agent"),
        state_labels=p.get("state_labels"),
        tokens=p.get("tokens"),
        clear_title=bool(p.get("clear_title", False)),
        clear_display_agent=bool(p.get("clear_display_agent", False)),
        clear_state_labels=bool(p.get("clear_state_labels", False)),
        seq=p.get("seq"),
        ttl_ms=p.get("ttl_ms"),
    )
    return _run(
        call,
        lambda pa, now, viewed, pending: agent_state.apply_metadata(
            pa.st, report, now=now, viewed=viewed, launch_pending=pending
        ),
    )


def workspace_report_metadata(call: Call) -> Result:
    p = call.params
    host = call.server.panes
    ws = host.session.workspace(p["workspace_id"])
    report = md.parse_workspace_metadata_report(
        source=p["source"], tokens=p["tokens"], seq=p.get("seq"), ttl_ms=p.get("ttl_ms")
    )
    meta = call.server.agents.workspace_meta.setdefault(ws.id, md.WorkspaceMetadata())
    meta.tokens.expire(now_ms())
    changed = md.apply_workspace_metadata(meta, report, now_ms())
    if changed:
        host.emit("workspace_metadata_updated", {"workspace": host.workspace_record(ws)})
    return OK

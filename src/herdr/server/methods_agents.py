"""``agent.*`` methods and the manifest methods of ``server.*`` (herdr-spec §3.2, §3.3).

Targets are resolved once (a live agent name, or the pane id hosting an agent) and
waits are pinned to that occupant: if it exits, is released or replaced, the wait
ends with ``agent_not_running``. Waits sleep on the pane's change events, never poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import tomllib
from collections.abc import Callable
from typing import Any

from herdr.api import protocol
from herdr.detect.manifest import DetectionInput, evaluate, explain_dict
from herdr.detect.manifest.decision import decision_fields
from herdr.detect.manifest.sources import read_update_status
from herdr.detect.manifest.why import matched_lines
from herdr.runtime import agent_state
from herdr.runtime import agents as ra
from herdr.runtime import model as m
from herdr.server import manifest_notice, methods_io
from herdr.server.agents import AgentRuntime, PaneAgent
from herdr.server.core import ApiError, Result
from herdr.server.dispatch import Handler
from herdr.server.keys import paste
from herdr.server.methods_capture import add_detection_input
from herdr.server.wiring import Call
from herdr.terminal import procfs, views
from herdr.terminal.pty import PtyClosed, PtyWriteOverflow
from herdr.vocab import AgentStatus, ErrorCode


def _rt(call: Call) -> AgentRuntime:
    return call.server.agents


def resolve(call: Call, target: str) -> tuple[m.PaneLoc, PaneAgent]:
    host = call.server.panes
    rt = host.agents
    candidates = []
    for loc in host.session.iter_panes():
        pa = rt.for_pane(loc.pane)
        if pa is not None:
            is_agent = agent_state.is_agent_terminal(pa.st)
            candidates.append(ra.Candidate(loc.pane_id, (), pa.st.agent_name, is_agent))
    pane_id = ra.resolve_target(target, candidates, host.resolve_pane(target))
    loc = host.session.pane(pane_id)
    pa = rt.for_pane(loc.pane)
    if pa is None:
        raise ApiError(ErrorCode.AGENT_NOT_FOUND, f"no agent {target!r}")
    return loc, pa


def _info(call: Call, loc: m.PaneLoc) -> Result:
    return {"type": "agent_info", "agent": _rt(call).agent_record(loc)}


def _sub_call(call: Call, params: dict[str, Any]) -> Call:
    return Call(call.id, call.method, params, call.server, call.conn)


# --- reads and input ----------------------------------------------------------------


def agent_list(call: Call) -> Result:
    rt = _rt(call)
    return {"type": "agent_list", "agents": [rt.agent_record(loc) for loc, _ in rt.agent_panes()]}


def agent_get(call: Call) -> Result:
    loc, _pa = resolve(call, call.params["target"])
    return _info(call, loc)


def agent_read(call: Call) -> Result:
    loc, _pa = resolve(call, call.params["target"])
    params = {k: v for k, v in call.params.items() if k != "target"}
    params["pane_id"] = loc.pane_id
    return methods_io.pane_read(_sub_call(call, params))


def agent_send_keys(call: Call) -> Result:
    loc, _pa = resolve(call, call.params["target"])
    return methods_io.pane_send_keys(
        _sub_call(call, {"pane_id": loc.pane_id, "keys": call.params["keys"]})
    )


def agent_rename(call: Call) -> Result:
    loc, pa = resolve(call, call.params["target"])
    rt = _rt(call)
    name = call.params.get("name")
    if name is not None:
        ra.check_name(name)
        ra.check_name_free(name, rt.names(exclude=pa))
    if pa.st.agent_name != name:
        agent_state.set_agent_name(pa.st, name)
        call.server.panes.emit("pane_updated", {"pane": call.server.panes.pane_record(loc)})
    return _info(call, loc)


def agent_focus(call: Call) -> Result:
    loc, _pa = resolve(call, call.params["target"])
    host = call.server.panes
    before = host.session.focused_ids()
    loc = host.session.focus_pane(loc.pane_id)
    host.agents.mark_tab_seen(loc.tab)
    host.emit_focus_changes(before)
    return _info(call, loc)


# --- explain ------------------------------------------------------------------------


def agent_explain(call: Call) -> Result:
    loc, pa = resolve(call, call.params["target"])
    rt = _rt(call)
    st = pa.st
    if agent_state.full_lifecycle_active(st):
        doc: dict[str, object] = explain_dict(
            agent=agent_state.effective_label(st) or "unknown",
            evaluation=None,
            manifest=None,
            manifest_source=None,
            cached_remote_version=None,
            local_override_shadowing_remote=False,
            remote_update_status=None,
            remote_update_error=None,
            warning=None,
        )
        doc["state"] = agent_state.effective_state(st)
        doc["fallback_reason"] = None
        doc["screen_detection_skipped"] = True
        doc["screen_detection_skip_reason"] = "full_lifecycle_hook_authority"
        term = call.server.panes.terminal(loc)
        if term is not None and not term.emulator.closed:
            emu = term.emulator
            inp = DetectionInput(views.detection_text(emu), emu.osc.title, emu.osc.progress)
            add_detection_input(call, doc, loc, pa, inp)
        return {"type": "agent_explain", "explain": doc}
    agent = agent_state.effective_known_agent(st) or st.detected_agent
    term = call.server.panes.terminal(loc)
    if agent is None or term is None or term.emulator.closed:
        raise ApiError(
            ErrorCode.AGENT_EXPLAIN_UNAVAILABLE, "no known agent to explain in this pane"
        )
    emu = term.emulator
    loaded = rt.manifests.get(agent)
    manifest = loaded.manifest if loaded is not None else None
    inp = DetectionInput(views.detection_text(emu), emu.osc.title, emu.osc.progress)
    status = read_update_status(rt.manifests.dirs.status_file).get(agent.label)
    evaluation = evaluate(manifest, inp)
    doc = explain_dict(
        agent=agent.label,
        evaluation=evaluation,
        manifest=manifest,
        manifest_source=loaded.source_display if loaded is not None else None,
        cached_remote_version=loaded.cached_remote_version if loaded is not None else None,
        local_override_shadowing_remote=(
            loaded.local_override_shadowing_remote if loaded is not None else False
        ),
        remote_update_status=status.last_result if status is not None else None,
        remote_update_error=status.last_error if status is not None else None,
        warning=loaded.warning if loaded is not None else None,
    )
    doc.update(decision_fields(loaded))
    doc["matched_lines"] = matched_lines(evaluation)
    add_detection_input(call, doc, loc, pa, inp)
    return {"type": "agent_explain", "explain": doc}


# --- waiting ------------------------------------------------------------------------


# A wait's pin: the pane's agent state, its occupant then, and the pane id it had.
Pin = tuple[PaneAgent, int, str]


def _pin(loc: m.PaneLoc, pa: PaneAgent) -> Pin:
    return pa, pa.occupant, loc.pane_id


def _check_running(rt: AgentRuntime, pin: Pin) -> None:
    """The pinned occupant is still there: not exited, released, replaced or moved."""
    pa, occupant, pane_id = pin
    loc = rt.loc_of(pa)
    gone = pa.closed or pa.occupant != occupant or not agent_state.is_agent_terminal(pa.st)
    if gone or loc is None or loc.pane_id != pane_id:
        raise ApiError(ErrorCode.AGENT_NOT_RUNNING, "the agent is no longer running")


async def _wait_for(
    rt: AgentRuntime,
    pins: list[Pin],
    ready: Callable[[], bool],
    timeout_s: float | None,
    watch: list[PaneAgent] | None = None,
) -> bool:
    """Sleep on change events until ``ready()``; False on timeout; pinned occupants."""
    loop = asyncio.get_running_loop()
    deadline = None if timeout_s is None else loop.time() + timeout_s
    while True:
        for pin in pins:
            _check_running(rt, pin)
        if ready():
            return True
        remaining = None if deadline is None else deadline - loop.time()
        if remaining is not None and remaining <= 0:
            return False
        await rt.wait_change([pin[0] for pin in pins] + (watch or []), remaining)


def _timeout_s(timeout_ms: int | None) -> float | None:
    return None if timeout_ms is None else timeout_ms / 1000


def _timed_out(what: str) -> ApiError:
    return ApiError(ErrorCode.TIMEOUT, f"timed out waiting for {what}")


async def agent_wait(call: Call) -> Result:
    p = call.params
    rt = _rt(call)
    until = ra.until_set(p.get("until"))
    targets = p.get("targets")
    if not isinstance(targets, list) or not targets:
        targets = [p["target"]]
    # Our extensions, outside the schema: a wrong type or value does not deserialize.
    if not all(isinstance(t, str) for t in targets):
        raise ApiError(protocol.INVALID_REQUEST, "targets must be strings")
    mode = p.get("mode", "any")
    if mode not in ("any", "all"):
        raise ApiError(protocol.INVALID_REQUEST, "mode must be any or all")
    resolved = {t: resolve(call, t) for t in targets}
    pinned = [_pin(loc, pa) for loc, pa in resolved.values()]
    outcome = ra.WaitOutcome(False, ())

    def ready() -> bool:
        nonlocal outcome
        statuses = {t: agent_state.pane_status(pa.st) for t, (_loc, pa) in resolved.items()}
        outcome = ra.combine(statuses, until, mode)
        return outcome.done

    if not await _wait_for(rt, pinned, ready, _timeout_s(p.get("timeout_ms"))):
        raise _timed_out("the agent status")
    if len(targets) == 1:
        return _info(call, resolved[targets[0]][0])
    if mode == "all":
        return {
            "type": "agent_list",
            "agents": [rt.agent_record(loc) for loc, _pa in resolved.values()],
        }
    first = outcome.matched[0]
    result = _info(call, resolved[first][0])
    result["matched_target"] = first
    return result


# --- prompt -------------------------------------------------------------------------


def _write(call: Call, loc: m.PaneLoc, data: bytes, code: str) -> None:
    term = call.server.panes.terminal(loc)
    try:
        if term is None:
            raise PtyClosed("no terminal")
        term.write(data)
    except (PtyClosed, PtyWriteOverflow, OSError) as exc:
        raise ApiError(code, f"could not type into pane {loc.pane_id}: {exc}") from None


async def agent_prompt(call: Call) -> Result:
    p = call.params
    rt = _rt(call)
    loc, pa = resolve(call, p["target"])
    wait = p.get("wait")
    until = ra.until_set(wait.get("until")) if isinstance(wait, dict) else ra.DEFAULT_UNTIL
    timeout_ms = wait.get("timeout_ms") if isinstance(wait, dict) else None
    status = agent_state.pane_status(pa.st)
    ra.check_promptable(status)
    term = call.server.panes.terminal(loc)
    bracketed = term is not None and term.emulator.input_modes().bracketed_paste
    pin, seq0 = _pin(loc, pa), pa.state_change_seq
    loop = asyncio.get_running_loop()
    started_at = loop.time()
    _write(call, loc, paste(p["text"], bracketed=bracketed), "pane_input_failed")
    stages = [ra.STAGE_TYPED]
    await asyncio.sleep(ra.PROMPT_ENTER_DELAY_MS / 1000)
    _check_running(rt, pin)
    _write(call, loc, b"\r", "pane_input_failed")
    stages.append(ra.STAGE_SUBMITTED)
    pinned = [pin]
    if not isinstance(wait, dict):
        return {**_info(call, loc), "type": "agent_prompted", "delivery": stages}
    if status != AgentStatus.WORKING.value:
        budget_ms, code = ra.prompt_stall_budget(timeout_ms)
        started = await _wait_for(rt, pinned, lambda: pa.state_change_seq != seq0, budget_ms / 1000)
        if not started:
            raise ApiError(code, "the agent did not start a turn after the prompt")
    if pa.state_change_seq != seq0:
        stages.append(ra.STAGE_TURN_STARTED)
    remaining = None
    if timeout_ms is not None:
        remaining = timeout_ms / 1000 - (loop.time() - started_at)
    if not await _wait_for(
        rt, pinned, lambda: ra.satisfied(agent_state.pane_status(pa.st), until), remaining
    ):
        raise _timed_out("the agent to settle")
    return {**_info(call, loc), "type": "agent_prompted", "delivery": stages}


# --- start --------------------------------------------------------------------------


def agent_start(call: Call) -> Result:
    """Type the agent's command and answer at once (herdr 0.9); the launch settles later.

    The name is reserved and given to the pane now, pinned to the expected kind; the
    pane stays ``launch_pending`` until the agent owns it and is ready (or the timeout
    passes, or the pane closes), which `_settle_launch` watches in the background.
    """
    p = call.params
    host = call.server.panes
    rt = host.agents
    name = ra.check_name(p["name"])
    agent = ra.check_kind(p["kind"])
    timeout_ms = ra.check_start_timeout(p.get("timeout_ms"))
    args = ra.check_args(p.get("args") or [])
    ra.check_name_free(name, [*rt.names(), *rt.pending_names])
    try:
        loc = host.session.pane(p["pane_id"])
    except m.ModelError:
        raise ApiError(ErrorCode.AGENT_PANE_NOT_FOUND, f"no pane {p['pane_id']!r}") from None
    pa = rt.for_pane(loc.pane)
    term = host.terminal(loc)
    if pa is None or term is None or term.pty is None or term.exit_status is not None:
        raise ApiError(ErrorCode.AGENT_PANE_UNAVAILABLE, f"pane {loc.pane_id} has no running shell")
    probe = procfs.probe_foreground(term.pty.pid, master_fd=term.pty.process.fd, mode=rt.mode)
    ra.check_start_pane(
        ra.StartCheck(
            has_command=loc.pane.command is not None,
            has_agent=agent_state.is_agent_terminal(pa.st),
            launch_pending=pa.launch_pending,
            shell_in_foreground=probe.foreground_is_pane_shell,
        )
    )
    argv = ra.start_argv(agent, args)
    _write(call, loc, (ra.command_line(argv) + "\r").encode(), ErrorCode.AGENT_START_INPUT_FAILED)
    pa.launch_pending = True
    rt.pending_names.add(name)
    agent_state.set_agent_name(pa.st, name, owner=agent.label)
    host.emit("pane_updated", {"pane": host.pane_record(loc)})
    task = asyncio.get_running_loop().create_task(
        _settle_launch(call, pa, name, agent.label, timeout_ms / 1000),
        name=f"agent-start-{name}",
    )
    rt.track_launch(task)
    return {"type": "agent_started", "agent": rt.agent_record(loc), "argv": argv}


async def _settle_launch(
    call: Call, pa: PaneAgent, name: str, label: str, timeout_s: float
) -> None:
    """Keep the pane ``launch_pending`` until its agent arrived and is ready.

    A launch that ends without that agent in the pane (it never arrived, or left
    again, or the pane closed) gives the reserved name up.
    """
    rt = call.server.agents
    loop = asyncio.get_running_loop()
    began = loop.time()

    def arrived() -> bool:
        return pa.st.label == label

    def settled() -> bool:
        return pa.interactive_ready or agent_state.pane_status(pa.st) == AgentStatus.BLOCKED.value

    came = False
    try:
        came = await _wait_for(rt, [], lambda: arrived() or pa.closed, timeout_s, watch=[pa])
        came = came and not pa.closed
        loc = rt.loc_of(pa)
        if came and loc is not None:
            remaining = timeout_s - (loop.time() - began)
            with contextlib.suppress(ApiError):
                await _wait_for(rt, [_pin(loc, pa)], settled, remaining)
    finally:
        pa.launch_pending = False
        rt.pending_names.discard(name)
        present = came and agent_state.is_agent_terminal(pa.st) and arrived()
        if not present and pa.st.agent_name == name:
            agent_state.set_agent_name(pa.st, None)
        loc = rt.loc_of(pa)
        if loc is not None and not pa.closed:
            call.server.panes.emit("pane_updated", {"pane": call.server.panes.pane_record(loc)})


# --- manifests ----------------------------------------------------------------------


def _status_file(rt: AgentRuntime) -> dict[str, Any]:
    try:
        data = tomllib.loads(rt.manifests.dirs.status_file.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    return data


def manifest_infos(rt: AgentRuntime) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    raw = _status_file(rt)
    agents_raw = raw.get("agents")
    per_agent = agents_raw if isinstance(agents_raw, dict) else {}
    infos = []
    for agent, loaded in rt.manifests.all().items():
        entry = per_agent.get(agent.label)
        entry = entry if isinstance(entry, dict) else {}
        checked = entry.get("last_checked_unix")
        result = entry.get("last_result")
        error = entry.get("last_error")
        infos.append(
            {
                "agent": agent.label,
                "source": loaded.source_display,
                "source_kind": loaded.source_kind,
                "active_version": loaded.active_version,
                "cached_remote_version": loaded.cached_remote_version,
                "local_override_shadowing_remote": loaded.local_override_shadowing_remote,
                "remote_update_result": result if isinstance(result, str) else None,
                "remote_update_error": error if isinstance(error, str) else None,
                "remote_last_checked_unix": checked if isinstance(checked, int) else None,
                "warning": loaded.warning,
            }
        )
    overall: dict[str, Any] = {}
    last_check = raw.get("last_check_unix")
    if isinstance(last_check, int) and last_check >= 0:
        overall["last_check_unix"] = last_check
    last_result = raw.get("last_result")
    if isinstance(last_result, str):
        overall["last_result"] = last_result
    return infos, overall


async def server_agent_manifests(call: Call) -> Result:
    rt = _rt(call)
    # off the loop: the first call may build every manifest (50-150 ms) and reads a file
    infos, overall = await asyncio.to_thread(manifest_infos, rt)
    return {
        "type": "agent_manifest_status",
        **overall,
        "manifests": infos,
        # ours: every user-kind file's diagnostic (``path:line: message``, or ``path:
        # message`` for a refused owner/mode), also for a file that never loaded (a kind
        # that did keeps its rules and a ``warning``), then shared-name conflicts
        "user_kind_errors": rt.manifests.user_kinds.diagnostics,
    }


async def server_reload_agent_manifests(call: Call) -> Result:
    rt = _rt(call)
    changes, restarted = await manifest_notice.for_server(call.server).reload("reload requested")
    infos, _overall = await asyncio.to_thread(manifest_infos, rt)
    session = call.server.panes.session
    pane_ids = [loc.pane_id for loc in session.iter_panes() if loc.pane.terminal_id in restarted]
    return {
        "type": "agent_manifest_reload",
        "manifests": infos,
        "updated": [
            {"agent": c.label, "active_version": c.version, "removed": c.removed} for c in changes
        ],
        "restarted_pane_ids": pane_ids,
    }


# --- focus marks seen ---------------------------------------------------------------


def tab_focus_marks_seen(handler: Handler) -> Handler:
    """``tab.focus``: the tab's panes count as seen (API reads never do)."""

    def run(call: Call) -> Any:
        _ws, tab = call.server.panes.session.tab(call.params["tab_id"])
        call.server.agents.mark_tab_seen(tab)
        return handler(call)

    return run


def pane_focus_marks_seen(handler: Handler) -> Handler:
    """``pane.focus`` focuses the pane's tab: its panes count as seen."""

    def run(call: Call) -> Any:
        loc = call.server.panes.session.pane(call.params["pane_id"])
        call.server.agents.mark_tab_seen(loc.tab)
        return handler(call)

    return run


def pane_move_ends_waits(handler: Handler) -> Handler:
    """``pane.move`` gives the pane a new id: waits pinned to the old one end."""

    def run(call: Call) -> Any:
        result = handler(call)
        for pa in list(call.server.agents.panes.values()):
            pa.notify()
        return result

    return run


def snapshot_with_agents(handler: Handler) -> Handler:
    """``session.snapshot`` lists the live agents (AgentInfo records)."""

    def run(call: Call) -> Any:
        result = handler(call)
        if isinstance(result, dict) and isinstance(result.get("snapshot"), dict):
            rt = call.server.agents
            result["snapshot"]["agents"] = [rt.agent_record(loc) for loc, _ in rt.agent_panes()]
        return result

    return run


AGENT_METHODS: dict[str, Handler] = {
    "agent.list": agent_list,
    "agent.get": agent_get,
    "agent.read": agent_read,
    "agent.send_keys": agent_send_keys,
    "agent.rename": agent_rename,
    "agent.focus": agent_focus,
    "agent.explain": agent_explain,
    "agent.wait": agent_wait,
    "agent.prompt": agent_prompt,
    "agent.start": agent_start,
    "server.agent_manifests": server_agent_manifests,
    "server.reload_agent_manifests": server_reload_agent_manifests,
}

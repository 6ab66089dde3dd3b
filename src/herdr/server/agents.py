"""Live agent state in every pane: one detection task per terminal (detection-spec §8).

The decisions live in pure modules (`runtime.detection_loop` schedules probes and
screen reads and debounces publishes; `runtime.agent_state` arbitrates screen vs.
hooks). This module is the I/O around them:

* one timer per terminal fires at the loop's next deadline (no task: a burst of PTY
  output costs one timer callback, not two task steps). `on_output` folds the first
  read since the last tick into the deadline (`wake_on_output` coalesces the burst) and
  re-arms the timer only when that brings it forward; later reads are a flag check;
* a tick probes the foreground job through /proc, reads the detection text only when
  the loop asks, and evaluates the active manifest from one server-wide cache;
* every arbitration `Update` becomes events: ``pane_agent_detected`` (before the first
  state), ``pane_agent_status_changed`` and ``pane_updated`` when the record moved;
  tab/workspace rollups are computed from the same state when records are built.

Waiters (``agent wait``, ``agent prompt --wait``, ``agent start``) park on a per-pane
set of events that every change sets, so nothing polls.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from herdr.detect.agents import Agent, parse_agent_label
from herdr.detect.approval import Approval, extract
from herdr.detect.manifest import DetectionInput
from herdr.detect.manifest.changes import ManifestChange, changed_agents
from herdr.detect.manifest.memo import RuleMemo, detect_memo
from herdr.detect.manifest.sources import ManifestCache, ManifestDirs
from herdr.detect.process import ProcessDetectionMode, parse_process_detection_mode
from herdr.persist import resume
from herdr.runtime import agent_state
from herdr.runtime import detection_loop as dl
from herdr.runtime import model as m
from herdr.runtime.metadata import WorkspaceMetadata
from herdr.server import reporters
from herdr.server.terminals import Terminal
from herdr.server.views import ViewTracker
from herdr.terminal import procfs, views
from herdr.vocab import AgentStatus

log = logging.getLogger("herdr.server.agents")

Record = dict[str, Any]

# After a failed tick, detection for that pane resumes this much later.
ERROR_RETRY_MS = 1000


def now_ms() -> int:
    """The clock every decision module uses: integer ms of a monotonic clock."""
    return time.monotonic_ns() // 1_000_000


class DriverWake:
    """``set()``: the pane's driver re-plans its timer (its deadline was changed from
    outside a tick, e.g. a reset, a handoff or a hook report)."""

    __slots__ = ("_replan",)

    def __init__(self, replan: Callable[[], None]) -> None:
        self._replan = replan

    def set(self) -> None:
        self._replan()


@dataclass(eq=False)
class PaneAgent:
    """Detection and arbitration state of one terminal, plus its driver task."""

    term: Terminal
    st: agent_state.TerminalAgentState
    loop: dl.LoopState
    deadline: int | None
    # Set by the runtime: ``wake.set()`` makes the driver re-plan (what an
    # ``asyncio.Event.set`` did when the driver was a task).
    wake: DriverWake = field(init=False)
    # Output arrived since the last tick and is already folded into ``deadline``.
    output: bool = False
    # The armed wake-up and the ms deadline it fires at.
    timer: asyncio.TimerHandle | None = None
    timer_at: int | None = None
    waiters: set[asyncio.Event] = field(default_factory=set)
    state_change_seq: int = 0
    # Bumped whenever the occupying agent changes: waits pin to one occupant.
    occupant: int = 0
    launch_pending: bool = False
    interactive_ready: bool = False
    closed: bool = False
    # Bumped each time the agent finishes a turn (a completion: working -> done/idle).
    completion_seq: int = 0
    # The dialog last announced (agent_approval_requested) while blocked, and the
    # screen content it was read from; both reset when the pane stops being blocked.
    approval_announced: str | None = None
    approval_checked_seq: int = -1
    # The last screen evaluations (without and with the OSC strings): a spinner frame
    # that moved only the title re-runs only the title's rules (detect/manifest/memo.py).
    plain_memo: RuleMemo = field(default_factory=RuleMemo)
    osc_memo: RuleMemo = field(default_factory=RuleMemo)

    @property
    def terminal_id(self) -> str:
        return self.term.terminal_id

    def notify(self) -> None:
        for waiter in self.waiters:
            waiter.set()


class AgentHost(Protocol):
    """What the agent runtime needs of the session host (`server.panes.PaneHost`)."""

    @property
    def session(self) -> m.Session: ...

    @property
    def terminals(self) -> Mapping[str, Terminal]: ...

    def emit(self, kind: str, data: Record) -> None: ...

    def pane_record(self, loc: m.PaneLoc) -> Record: ...


class AgentRuntime:
    """Every pane's agent state; owned by the `PaneHost`, which feeds it its terminals.

    ``views`` says whether a client shows a pane (seen/done); the attach registry tells
    the runtime about shown tabs through `tab_viewed` (it is a `views.TabSeen`).
    """

    def __init__(self, host: AgentHost, env: Mapping[str, str], views: ViewTracker) -> None:
        self.host = host
        self.views = views
        self.manifests = ManifestCache(ManifestDirs.from_env(env))
        self.manifests.user_kinds.load()  # identify user kinds from the first probe on
        mode, _warning = parse_process_detection_mode(env.get("HERDR_PROCESS_DETECTION"))
        self.mode: ProcessDetectionMode = mode
        self.panes: dict[str, PaneAgent] = {}
        self.workspace_meta: dict[str, WorkspaceMetadata] = {}
        self.pending_names: set[str] = set()  # names reserved by launches in flight
        self.launches: set[asyncio.Task[None]] = set()  # their settle tasks (agent.start)
        self._seq = 0
        self._reloading = asyncio.Lock()  # one manifest reload at a time: diffs stay exact

    # -- lifecycle -------------------------------------------------------------------

    def attach(self, term: Terminal) -> PaneAgent:
        """Start detection for a freshly spawned terminal."""
        now = now_ms()
        loop_state = dl.new_loop_state(now)
        pa = PaneAgent(
            term, agent_state.TerminalAgentState(), loop_state, dl.next_deadline(loop_state)
        )
        pa.wake = DriverWake(lambda: self._replan(pa))
        self.panes[term.terminal_id] = pa
        self._arm(pa)
        return pa

    def on_output(self, term: Terminal) -> None:
        """PTY output arrived (hot path: after the first read since the last tick, one
        lookup and one flag check; the first one moves the deadline forward)."""
        pa = self.panes.get(term.terminal_id)
        if pa is None or pa.output:
            return
        pa.output = True
        now = now_ms()
        deadline = dl.wake_on_output(pa.loop, pa.deadline, now)
        pa.deadline = deadline
        at = pa.timer_at
        if at is None or deadline < at:
            # Earlier than everything the timer was armed for: it is the next due time.
            if pa.timer is not None:
                pa.timer.cancel()
            loop = asyncio.get_running_loop()
            delay = max(0.0, (deadline - now) / 1000)
            pa.timer, pa.timer_at = loop.call_later(delay, self._fire, pa), deadline

    def on_exit(self, term: Terminal) -> None:
        """The pane's child exited: publish idle + exit for its agent, then stop."""
        pa = self.panes.get(term.terminal_id)
        if pa is None:
            return
        update = agent_state.apply_pty_exit(
            pa.st,
            now=now_ms(),
            viewed=self._viewed(pa),
            launch_pending=pa.launch_pending,
        )
        if update is not None:
            self._publish(pa, update)
        self.detach(term.terminal_id)

    def detach(self, terminal_id: str) -> None:
        """The terminal is gone (pane closed, process exited): stop its task."""
        pa = self.panes.pop(terminal_id, None)
        if pa is None:
            return
        pa.closed = True
        pa.occupant += 1
        self._disarm(pa)
        pa.notify()

    def track_launch(self, task: asyncio.Task[None]) -> None:
        """Keep an ``agent.start`` settle task until it ends (shutdown cancels it)."""
        self.launches.add(task)
        task.add_done_callback(self.launches.discard)

    async def shutdown(self) -> None:
        tasks = list(self.launches)
        for launch in tasks:
            launch.cancel()
        for terminal_id in list(self.panes):
            self.detach(terminal_id)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- the driver ------------------------------------------------------------------

    def _arm(self, pa: PaneAgent) -> None:
        """(Re-)arm the pane's timer for its next due time (none: output wakes it)."""
        if pa.closed:
            return
        due = self._next_due(pa)
        if due == pa.timer_at and pa.timer is not None:
            return
        if pa.timer is not None:
            pa.timer.cancel()
        if due is None:
            pa.timer = pa.timer_at = None
            return
        delay = max(0.0, (due - now_ms()) / 1000)
        loop = asyncio.get_running_loop()
        pa.timer, pa.timer_at = loop.call_later(delay, self._fire, pa), due

    def _disarm(self, pa: PaneAgent) -> None:
        if pa.timer is not None:
            pa.timer.cancel()
        pa.timer = pa.timer_at = None

    def _replan(self, pa: PaneAgent) -> None:
        """The deadline was set from outside a tick: output folds in afresh, re-arm."""
        pa.output = False
        self._arm(pa)

    def _fire(self, pa: PaneAgent) -> None:
        """The timer fired: expire metadata, follow a reporter's job, tick if due."""
        pa.timer = pa.timer_at = None
        if pa.closed:
            return
        now = now_ms()
        try:
            meta_due = agent_state.next_metadata_deadline(pa.st)
            if meta_due is not None and meta_due <= now:
                self._publish(pa, self._expire(pa, now))
            if pa.st.hook_job is not None:
                self._check_reporter(pa, now)
            if pa.deadline is not None and pa.deadline <= now and not pa.closed:
                pa.output = False
                try:
                    self._tick(pa, now)
                except Exception:
                    # One bad tick (a vanished process, a closed emulator) must not
                    # end detection for the pane: log it and try again later.
                    log.exception("agent detection tick for %s failed", pa.terminal_id)
                    pa.deadline = now + ERROR_RETRY_MS
        except Exception:
            log.exception("agent detection for %s failed", pa.terminal_id)
            return
        self._arm(pa)

    def _next_due(self, pa: PaneAgent) -> int | None:
        candidates = [
            d for d in (pa.deadline, agent_state.next_metadata_deadline(pa.st)) if d is not None
        ]
        if pa.st.hook_job is not None:  # follow the reporting agent's job
            candidates.append(now_ms() + reporters.REPORTER_RECHECK_MS)
        return min(candidates, default=None)

    def _check_reporter(self, pa: PaneAgent, now: int) -> None:
        """A self-reported agent whose job has no process left is dropped."""
        job = pa.st.hook_job
        alive = job is not None and reporters.job_alive(job)
        update = agent_state.drop_if_reporter_gone(
            pa.st,
            job_alive=alive,
            now=now,
            viewed=self._viewed(pa),
            launch_pending=pa.launch_pending,
        )
        if update.accepted:
            self._publish(pa, update)

    def _expire(self, pa: PaneAgent, now: int) -> agent_state.Update:
        return agent_state.expire_metadata(
            pa.st, now=now, viewed=self._viewed(pa), launch_pending=pa.launch_pending
        )

    def _tick(self, pa: PaneAgent, now: int) -> None:
        term = self.host.terminals.get(pa.terminal_id)
        pty = term.pty if term is not None else None
        if term is None or pty is None or term.exit_status is not None or pty.process.closed:
            pa.deadline = None
            return
        shell_pid, fd = pty.pid, pty.process.fd
        fg = procfs.foreground_pgid(shell_pid, fd)
        pa.loop, decision = dl.run_tick(
            pa.loop,
            now,
            foreground_pgid=fg,
            content_seq=term.emulator.content_seq,
            probe=lambda: self._probe(shell_pid, fg),
            screen=lambda agent: self._screen(pa, term, agent),
        )
        if decision.clear_osc:
            term.emulator.osc.clear_retained()
        for event in decision.events:
            self._apply_event(pa, event)
        pa.deadline = dl.next_deadline(pa.loop)
        self._announce_approval(pa, term)

    def _probe(self, shell_pid: int, fg: int | None) -> dl.ProbeResult:
        found = procfs.probe_group(shell_pid, fg, mode=self.mode)
        return dl.ProbeResult(found.agent, found.process_group_id, found.foreground_is_pane_shell)

    def manifest_for(self, agent: Agent) -> Any:
        loaded = self.manifests.get(agent)
        return loaded.manifest if loaded is not None else None

    def _screen(self, pa: PaneAgent, term: Terminal, agent: Agent) -> dl.ScreenResult:
        emu = term.emulator
        if emu.closed:
            return dl.ScreenResult(True)
        text = views.detection_text(emu)
        manifest = self.manifest_for(agent)
        without = detect_memo(True, manifest, DetectionInput(text), pa.plain_memo)
        if without.skip_state_update:
            return dl.ScreenResult(True)
        osc = DetectionInput(text, emu.osc.title, emu.osc.progress)
        with_osc = detect_memo(True, manifest, osc, pa.osc_memo)
        return dl.screen_result(without, with_osc)

    # -- approvals -------------------------------------------------------------------

    def approval_of(self, pa: PaneAgent, term: Terminal | None) -> Approval | None:
        """The permission dialog on the pane's screen, read with its agent's manifest."""
        agent = agent_state.effective_known_agent(pa.st) or pa.st.detected_agent
        if agent is None or term is None or term.emulator.closed:
            return None
        emu = term.emulator
        inp = DetectionInput(views.detection_text(emu), emu.osc.title, emu.osc.progress)
        return extract(self.manifest_for(agent), inp)

    def _announce_approval(self, pa: PaneAgent, term: Terminal) -> None:
        """``agent_approval_requested`` once per distinct dialog while the pane is blocked."""
        if agent_state.pane_status(pa.st) != AgentStatus.BLOCKED.value:
            pa.approval_announced = None
            pa.approval_checked_seq = -1
            return
        seq = term.emulator.content_seq
        if seq == pa.approval_checked_seq:
            return
        pa.approval_checked_seq = seq
        approval = self.approval_of(pa, term)
        if approval is None or approval.fingerprint == pa.approval_announced:
            return
        loc = self.loc_of(pa)
        if loc is None:
            return
        pa.approval_announced = approval.fingerprint
        record = approval.record(loc.pane_id, agent_state.effective_label(pa.st))
        self.host.emit("agent_approval_requested", {**record, "workspace_id": loc.workspace_id})

    def _apply_event(self, pa: PaneAgent, event: dl.LoopEvent) -> None:
        viewed = self._viewed(pa)
        if isinstance(event, dl.AgentProcessDetected):
            update = agent_state.apply_process_detected(
                pa.st, event.agent, at=event.at, viewed=viewed, launch_pending=pa.launch_pending
            )
        else:
            update = agent_state.apply_detection(
                pa.st,
                event.agent,
                agent_state.parse_state(event.state),
                visible_blocker=event.visible_blocker,
                visible_working=event.visible_working,
                process_exited=event.process_exited,
                at=event.observed_at,
                viewed=viewed,
                launch_pending=pa.launch_pending,
            )
        self._publish(pa, update)

    # -- publishing ------------------------------------------------------------------

    def loc_of(self, pa: PaneAgent) -> m.PaneLoc | None:
        return self.host.session.find_terminal(pa.terminal_id)

    def _viewed(self, pa: PaneAgent) -> bool:
        loc = self.loc_of(pa)
        return loc is not None and self.views.pane_viewed(loc.pane_id)

    def apply(
        self, pa: PaneAgent, change: Callable[[bool, bool], agent_state.Update]
    ) -> agent_state.Update:
        """Run one arbitration call (given ``viewed``, ``launch_pending``) and publish.

        The driver is woken so it re-plans its sleep: a report may bring a metadata TTL,
        and a pane with no agent may be sleeping with no timer at all (only output
        would wake it), which would leave the token to live forever.
        """
        update = change(self._viewed(pa), pa.launch_pending)
        self._publish(pa, update)
        if agent_state.next_metadata_deadline(pa.st) is not None:
            pa.wake.set()
        return update

    def _publish(self, pa: PaneAgent, update: agent_state.Update) -> None:
        """Turn an arbitration `Update` into loop pushes and events (detection-spec §9)."""
        now = now_ms()
        if update.full_lifecycle_active != pa.loop.full_lifecycle_active:
            pa.loop = dl.set_full_lifecycle_active(pa.loop, update.full_lifecycle_active, now)
            pa.deadline = dl.next_deadline(pa.loop)
            pa.wake.set()
        if update.agent_released and update.previous.label is not None:
            released = parse_agent_label(update.previous.label)
            if released is not None:
                pa.loop = dl.begin_graceful_release(pa.loop, released, now)
                pa.deadline = dl.next_deadline(pa.loop)
                pa.wake.set()
        if update.previous.label != update.current.label or update.agent_released:
            pa.occupant += 1
            pa.interactive_ready = False
        if update.state_changed:
            self._seq += 1
            pa.state_change_seq = self._seq
        if update.completed:
            pa.completion_seq += 1
        if update.current.label is not None and update.current.state == AgentStatus.IDLE.value:
            pa.interactive_ready = True
        loc = self.loc_of(pa)
        if loc is not None:
            self._emit(loc, pa, update)
        pa.notify()

    def _emit(self, loc: m.PaneLoc, pa: PaneAgent, update: agent_state.Update) -> None:
        host = self.host
        if update.agent_changed:
            data: Record = {
                "pane_id": loc.pane_id,
                "workspace_id": loc.workspace_id,
                "agent": update.current.label,
            }
            if update.agent_released:
                data["released"] = True
                data["agent"] = update.previous.label
                data["final_status"] = update.final_status
            host.emit("pane_agent_detected", data)
        if update.status_changed:
            self._emit_status(loc, pa)
        if update.status_changed or update.tokens_changed or update.name_changed:
            host.emit("pane_updated", {"pane": host.pane_record(loc)})

    def _emit_status(self, loc: m.PaneLoc, pa: PaneAgent) -> None:
        data: Record = {
            "pane_id": loc.pane_id,
            "workspace_id": loc.workspace_id,
            "agent_status": agent_state.pane_status(pa.st),
        }
        data.update(self._presentation_fields(pa, with_agent=True))
        self.host.emit("pane_agent_status_changed", data)

    # -- seen ------------------------------------------------------------------------

    def mark_seen(self, pa: PaneAgent) -> None:
        if agent_state.mark_seen(pa.st):
            loc = self.loc_of(pa)
            if loc is not None:
                self._emit_status(loc, pa)
                self.host.emit("pane_updated", {"pane": self.host.pane_record(loc)})
            pa.notify()

    def mark_tab_seen(self, tab: m.Tab) -> None:
        for pane in tab.panes.values():
            pa = self.panes.get(pane.terminal_id)
            if pa is not None:
                self.mark_seen(pa)

    def tab_viewed(self, workspace_id: str, tab_id: str) -> None:
        """An attached client shows this tab: its panes count as seen."""
        del workspace_id  # the tab id names its workspace
        try:
            _ws, tab = self.host.session.tab(tab_id)
        except m.ModelError:
            return
        self.mark_tab_seen(tab)

    # -- records ---------------------------------------------------------------------

    def for_pane(self, pane: m.Pane) -> PaneAgent | None:
        return self.panes.get(pane.terminal_id)

    def terminal_state(self, terminal_id: str) -> agent_state.TerminalAgentState | None:
        """A terminal's arbitration state (what persistence saves), if it has one."""
        pa = self.panes.get(terminal_id)
        return pa.st if pa is not None else None

    def resume_recipes(self) -> dict[str, resume.ResumeRecipe]:
        """The user kinds that declare a ``resume`` template, as resume recipes."""
        return {
            label: resume.user_recipe(label, kind.spec.name, kind.spec.resume)
            for label, kind in self.manifests.user_kinds.kinds.items()
            if kind.spec.resume is not None
        }

    def status_of(self, pane: m.Pane) -> agent_state.Status:
        pa = self.panes.get(pane.terminal_id)
        return agent_state.pane_status(pa.st) if pa is not None else AgentStatus.UNKNOWN.value

    def _presentation_fields(self, pa: PaneAgent, *, with_agent: bool) -> Record:
        out: Record = {}
        st = pa.st
        if with_agent and st.label is not None:
            out["agent"] = st.label
        pres = st.presentation
        if pres.display_agent is not None:
            out["display_agent"] = pres.display_agent
        if pres.title is not None:
            out["title"] = pres.title
        if pres.state_labels:
            out["state_labels"] = pres.labels()
        return out

    def pane_fields(self, terminal_id: str) -> tuple[agent_state.Status, Record]:
        """``agent_status`` and the agent part of a PaneInfo record."""
        pa = self.panes.get(terminal_id)
        if pa is None:
            return AgentStatus.UNKNOWN.value, {}
        extra = self._presentation_fields(pa, with_agent=True)
        tokens = agent_state.token_values(pa.st)
        if tokens:
            extra["tokens"] = dict(tokens)
        session = agent_state.session_identity(pa.st)
        if session is not None:
            extra["agent_session"] = {
                "source": session.source,
                "agent": session.agent,
                "kind": session.ref.kind,
                "value": session.ref.value,
            }
            argv = resume.resume_argv(session, self.resume_recipes())
            if argv is not None:
                extra["agent_session"]["resume_argv"] = argv
        return agent_state.pane_status(pa.st), extra

    def agent_record(self, loc: m.PaneLoc) -> Record:
        """AgentInfo: PaneInfo minus label/scroll, plus name and state bookkeeping."""
        record = dict(self.host.pane_record(loc))
        record.pop("label", None)
        record.pop("scroll", None)
        pa = self.panes.get(loc.pane.terminal_id)
        if pa is not None:
            if pa.st.agent_name is not None:
                record["name"] = pa.st.agent_name
            record["state_change_seq"] = pa.state_change_seq
            record["completion_seq"] = pa.completion_seq
            record["interactive_ready"] = pa.interactive_ready
            record["launch_pending"] = pa.launch_pending
            record["screen_detection_skipped"] = agent_state.full_lifecycle_active(pa.st)
        else:
            record["state_change_seq"] = 0
            record["completion_seq"] = 0
        return record

    def workspace_tokens(self, workspace_id: str) -> dict[str, str]:
        meta = self.workspace_meta.get(workspace_id)
        if meta is None:
            return {}
        meta.tokens.expire(now_ms())
        return dict(meta.tokens.values())

    # -- agents as targets -------------------------------------------------------------

    def agent_panes(self) -> list[tuple[m.PaneLoc, PaneAgent]]:
        out = []
        for loc in self.host.session.iter_panes():
            pa = self.panes.get(loc.pane.terminal_id)
            if pa is not None and agent_state.is_agent_terminal(pa.st):
                out.append((loc, pa))
        return out

    def names(self, *, exclude: PaneAgent | None = None) -> Iterable[str]:
        for pa in self.panes.values():
            if pa is not exclude and pa.st.agent_name is not None:
                yield pa.st.agent_name

    # -- manifests -------------------------------------------------------------------

    def pane_agent_of(self, pa: PaneAgent) -> Agent | None:
        """The agent a pane's detection is about: effective known, else detected (§7.6)."""
        return (
            agent_state.effective_known_agent(pa.st)
            or pa.st.detected_agent
            or pa.loop.presence.agent
        )

    def reset_loops(self, agents: Iterable[Agent] | None = None) -> list[str]:
        """Restart detection of the panes whose agent's rules changed (§7.6); every pane
        when ``agents`` is None. A pane with no agent yet starts over too (a new user
        kind may now name its process; it has no state to lose). Returns the terminals."""
        now = now_ms()
        wanted = None if agents is None else frozenset(agents)
        reset: list[str] = []
        for pa in self.panes.values():
            agent = self.pane_agent_of(pa)
            if wanted is not None and agent is not None and agent not in wanted:
                continue
            pa.loop = dl.reset(pa.loop, now)
            pa.deadline = dl.next_deadline(pa.loop)
            pa.wake.set()
            reset.append(pa.terminal_id)
        return reset

    async def reload_manifests(self) -> tuple[list[ManifestChange], list[str]]:
        """Re-read every layer off the loop; restart only the changed agents' panes
        (returns the changes and the restarted terminal ids)."""
        async with self._reloading:
            before = await asyncio.to_thread(self.manifests.all)  # built off the loop
            after = await asyncio.to_thread(self.manifests.reload)
        changes = changed_agents(before, after)
        if not changes:
            return changes, []
        return changes, self.reset_loops(change.agent for change in changes)

    # -- waiting ---------------------------------------------------------------------

    async def wait_change(self, pas: Iterable[PaneAgent], timeout_s: float | None) -> bool:
        """Sleep until one of ``pas`` changes; False when ``timeout_s`` passed first."""
        event = asyncio.Event()
        targets = list(pas)
        for pa in targets:
            pa.waiters.add(event)
        try:
            if timeout_s is None:
                await event.wait()
                return True
            if timeout_s <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), timeout_s)
                return True
            return False
        finally:
            for pa in targets:
                pa.waiters.discard(event)

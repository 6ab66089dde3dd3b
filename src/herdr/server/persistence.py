"""Nothing is lost across server restarts: load and restore at start, save after changes.

At start `Persistence.restore` reads ``session.json`` from the session's data dir
(`persist.store.SessionStore`): an unreadable file or one from a newer herdr is backed
up to ``session-backups/`` (newest three kept), logged, and the server starts empty.
Otherwise `persist.mapping.restore` rebuilds the same ids, labels, layout, focus and
zoom into the empty model and every pane gets a fresh shell in its saved cwd (a
vanished cwd falls back to ``$HOME``, logged). A pane whose agent reported a native
session reference gets that agent's resume command typed into the fresh shell
(`persist.resume.command_line` + Enter), so leaving the agent leaves a shell there.
With ``[experimental] pane_history`` the saved screen history is fed to the new
pane's emulator before its program starts (and replayed only into shells: a resumed
agent owns its conversation).

Saving (`SaveScheduler` debounce, write off the loop): every lifecycle event on the bus
marks the session dirty through an internal subscription (`_DirtyFilter`), including
the ``pane_updated`` the cwd sampler (`server.cwd_sampler`) publishes when a pane's
cwd moved; a slow sampler here notices agent session reports. The shutdown hook (run
first, so panes are still alive) saves synchronously. The cwd saved for a pane is
where it works at capture time (`PaneHost.working_dir`: its foreground process's).

A failing disk (full, read-only) keeps the last good file, is logged once per run of
failures (`persist.health.PersistHealth`), retried every few seconds without needing
another change, and reported by ``ping`` (``persistence``) and ``herdr status``
through `Persistence.health_record`. Health is only touched on the loop thread.

Agent identities come from an `AgentStates` (the agent runtime): restored session
references are carried here until the runtime has a state for the new terminal, then
seeded into it (``restore_session``), so the next save still has them.

Test hook: ``HERDR_TEST_PERSIST_TIMING="debounce=0.02,retry=0.2,retry_max=0.5,sample=0.2"``
(seconds) shortens the save timings; unset in normal use.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from herdr.api import protocol
from herdr.persist import history as hist
from herdr.persist import mapping, resume
from herdr.persist.errors import PersistWriteError, SnapshotFormatError
from herdr.persist.health import PersistHealth, SaveError, iso_utc
from herdr.persist.saver import SaveScheduler
from herdr.persist.snapshot import SessionSnapshot
from herdr.persist.store import SessionStore
from herdr.runtime import agent_state
from herdr.runtime import model as m
from herdr.runtime.events import Event, Filter, Subscriber

if TYPE_CHECKING:
    from herdr.config.server_settings import ServerSettings
    from herdr.server.core import ServerCore

log = logging.getLogger("herdr.server.persist")

SAMPLE_INTERVAL = 2.0  # seconds between agent-session samples
TIMING_ENV = "HERDR_TEST_PERSIST_TIMING"
# Bus kinds that never change what session.json holds (or fire per output chunk).
_IGNORED_KINDS = frozenset(
    {
        "pane_output_changed",
        "pane_agent_status_changed",
        "agent_approval_requested",
        protocol.PANE_SCROLL_CHANGED,
    }
)
DIRTY_KINDS = frozenset(protocol.EVENT_KINDS) - _IGNORED_KINDS


class AgentStates(Protocol):
    """Where a terminal's agent state lives (`server.agents.AgentRuntime`)."""

    def terminal_state(self, terminal_id: str) -> agent_state.TerminalAgentState | None: ...

    def resume_recipes(self) -> Mapping[str, resume.ResumeRecipe]: ...


class Timing(Struct, frozen=True):
    debounce: float = 0.5
    max_delay: float = 5.0
    retry: float = 2.0  # first retry of a failed save; doubles up to retry_max
    retry_max: float = 10.0
    sample: float = SAMPLE_INTERVAL
    final_wait: float = 5.0  # shutdown waits this long for a save still running


# Fallbacks that are no failure: nothing was saved to resume, or resuming is off.
_NOT_ERRORS = frozenset({"missing_ref", "disabled"})


def timing_from_env(env: Mapping[str, str]) -> Timing:
    """Default timings, or the test overrides in ``$HERDR_TEST_PERSIST_TIMING``."""
    raw = env.get(TIMING_ENV, "")
    values: dict[str, float] = {}
    for part in raw.split(","):
        name, _, value = part.partition("=")
        name = name.strip()
        if name in ("debounce", "max_delay", "retry", "retry_max", "sample", "final_wait"):
            with contextlib.suppress(ValueError):
                number = float(value)
                if 0 < number < 3600:
                    values[name] = number
    return Timing(**values)


class _DirtyFilter(Filter):
    """An internal bus subscription: every matching event marks the session dirty and
    nothing is queued (`apply` returns None)."""

    def __init__(self, on_event: Callable[[Event], None]) -> None:
        super().__init__({"type": "persist.internal"})
        self.kinds = DIRTY_KINDS
        self._on_event = on_event

    def apply(self, event: Event) -> tuple[str, dict[str, object]] | None:
        self._on_event(event)
        return None


class Persistence:
    """``session.json`` (and pane history) of one server."""

    def __init__(
        self,
        core: ServerCore,
        agents: AgentStates,
        *,
        env: Mapping[str, str],
        timing: Timing | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.core = core
        self.host = core.panes
        self.agents = agents
        self.env = dict(env)
        self.timing = timing or timing_from_env(env)
        self.store = SessionStore(core.info.data_dir)
        self.scheduler = SaveScheduler(
            debounce=self.timing.debounce,
            max_delay=max(self.timing.max_delay, self.timing.debounce),
            retry_after=self.timing.retry,
            retry_max=max(self.timing.retry_max, self.timing.retry),
        )
        self.health = PersistHealth(str(self.store.path), last_good_save=_mtime(self.store.path))
        self._wall = wall
        self._clock = clock
        # Restored agent identities not yet handed to the agent runtime (terminal id).
        self._carried: dict[str, tuple[str | None, agent_state.AgentSession]] = {}
        self._sampled: dict[str, object] = {}
        self._primed = False
        self._last_written: SessionSnapshot | None = None
        self._write_lock = threading.Lock()  # one writer: loop saves vs. the final save
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._sub: Subscriber | None = None
        self._closed = False

    # ------------------------------------------------------------------ lifecycle

    @property
    def settings(self) -> ServerSettings:
        """The host's settings, read each time: ``server reload-config`` replaces them."""
        return self.host.settings

    def start(self, *, restore: bool = True) -> list[mapping.PaneRestore]:
        """Restore the saved session (unless the session was adopted at a live
        handoff), then watch for changes. Call on the loop, before the socket accepts
        clients."""
        restored = self.restore() if restore else []
        self._sub, _ = self.core.bus.subscribe([_DirtyFilter(self._on_event)])
        self._wake = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run())
        return restored

    def health_record(self) -> dict[str, object]:
        """The ``persistence`` object of ``ping``."""
        record = self.health.to_json(unsaved_changes=self.scheduler.dirty)
        record["save_in_progress"] = self.scheduler.in_flight
        return record

    def shutdown(self) -> None:
        """Final synchronous save (panes still alive), then stop watching."""
        if self._closed:
            return
        self._closed = True
        if self._task is not None:
            self._task.cancel()
        if self._sub is not None:
            self.core.bus.unsubscribe(self._sub)
        if not self.save_now() and self.health.last_error is not None:
            error = self.health.last_error
            good = self.health.last_good_save
            log.warning(
                "stopping without saving the latest changes (%s: %s); last good save: %s",
                error.message,
                error.path,
                "never" if good is None else iso_utc(good),
                extra={"event": "persist.final_save_failed"},
            )

    # ------------------------------------------------------------------ restore

    def restore(self) -> list[mapping.PaneRestore]:
        result = self.store.load()
        history: dict[str, hist.PaneHistory] = {}
        if not self.settings.pane_history:
            try:
                if self.store.remove_history():
                    log.info("pane_history is off: removed %s", self.store.history_path)
            except PersistWriteError as err:
                log.warning("cannot remove %s: %s", self.store.history_path, err)
        if result.snapshot is None:
            if result.status != "missing":
                log.warning(
                    "session not restored: %s",
                    result.message,
                    extra={"event": "persist.start_empty", "status": result.status},
                )
            return []
        if self.host.session.workspaces:  # something was created before us: keep it
            log.warning("session not restored: the model is not empty at start")
            return []
        if self.settings.pane_history:
            history = self.store.load_history()
        return self._restore_snapshot(result.snapshot, history)

    def _restore_snapshot(
        self, snapshot: SessionSnapshot, history: Mapping[str, hist.PaneHistory]
    ) -> list[mapping.PaneRestore]:
        home = self.env.get("HOME") or os.path.expanduser("~")
        path = self.env.get("PATH", os.defpath)
        try:
            plans = mapping.restore(
                self.host.session,
                snapshot,
                home=home,
                exists=os.path.exists,
                resume_enabled=self.settings.resume_agents_on_restore,
                which=lambda prog: shutil.which(prog, path=path) is not None,
                recipes=self.agents.resume_recipes(),
            )
        except SnapshotFormatError as err:
            outcome = self.store.quarantine("invalid", str(err))
            log.warning(
                "session not restored: %s",
                outcome.message or err,
                extra={"event": "persist.start_empty", "status": "invalid"},
            )
            return []
        started: list[mapping.PaneRestore] = []
        for plan in plans:
            if self._start_pane(plan, history.get(plan.pane_id)):
                started.append(plan)
        for ws in list(self.host.session.workspaces):
            for tab in ws.tabs:
                self.host.resize_tab(ws, tab)
        log.info(
            "session restored",
            extra={
                "event": "persist.restored",
                "workspaces": len(self.host.session.workspaces),
                "panes": len(started),
            },
        )
        return started

    def _start_pane(self, plan: mapping.PaneRestore, saved: hist.PaneHistory | None) -> bool:
        loc = self.host.session.locate_key(plan.key)
        if loc is None:
            return False
        if plan.cwd_fallback:
            log.warning(
                "pane %s: saved cwd %s no longer exists; starting in %s",
                plan.pane_id,
                plan.saved.cwd,
                plan.cwd,
                extra={"event": "persist.cwd_fallback", "pane_id": plan.pane_id},
            )
        preload = None
        if saved is not None and saved.ansi and plan.replay_history:
            preload = saved.ansi.encode("utf-8", "replace")
            if not saved.ansi.endswith("\n"):
                preload += b"\r\n"
        try:
            term = self.host.start(loc, preload=preload)
        except OSError as err:
            log.error("pane %s: cannot start its shell: %s", plan.pane_id, err)
            closed = self.host.session.close_pane(plan.pane_id)
            self.host.stop_soon(closed.terminal_ids)
            return False
        decision = plan.decision
        if not isinstance(decision, resume.ResumePlan) and decision.reason not in _NOT_ERRORS:
            term.restore_error = f"{decision.reason}: {decision.detail}"
        if isinstance(decision, resume.ResumePlan):
            line = resume.command_line(decision.argv)
            with contextlib.suppress(Exception):
                term.write(line.encode() + b"\r")
            log.info(
                "pane %s: resuming %s session: %s",
                plan.pane_id,
                decision.agent,
                line,
                extra={"event": "persist.resume", "pane_id": plan.pane_id},
            )
        elif decision.reason == "invalid_ref":
            log.warning(
                "pane %s: dropped its saved agent session reference (invalid_ref: %s); plain shell",
                plan.pane_id,
                decision.detail,
                extra={
                    "event": "persist.resume_fallback",
                    "pane_id": plan.pane_id,
                    "reason": decision.reason,
                },
            )
        elif decision.reason not in ("missing_ref", "disabled"):
            log.info(
                "pane %s: plain shell instead of a resume (%s: %s)",
                plan.pane_id,
                decision.reason,
                decision.detail,
                extra={"event": "persist.resume_fallback", "pane_id": plan.pane_id},
            )
        if plan.agent_session is not None:
            self._carried[term.terminal_id] = (plan.agent_name, plan.agent_session)
            self._agent_facts(term.terminal_id)  # hands it to the agent runtime if attached
        return True

    # ------------------------------------------------------------------ capture

    def _agent_facts(self, terminal_id: str) -> tuple[str | None, agent_state.AgentSession | None]:
        """(agent name, session reference) of a terminal: the agent runtime's, else a
        restored one it has not taken over yet."""
        st = self.agents.terminal_state(terminal_id)
        carried = self._carried.get(terminal_id)
        if st is None:
            return carried if carried is not None else (None, None)
        if carried is not None:  # hand the restored identity to the runtime, once
            del self._carried[terminal_id]
            if agent_state.session_identity(st) is None:
                agent_state.restore_session(st, carried[1])
        return st.agent_name, agent_state.session_identity(st)

    def facts(self, loc: m.PaneLoc) -> mapping.PaneFacts:
        term = self.host.terminal(loc)
        if term is None:
            return mapping.PaneFacts()
        name, session = self._agent_facts(term.terminal_id)
        return mapping.PaneFacts(
            cwd=self.host.working_dir(loc),
            agent_name=name,
            managed_agent_kind=session.agent if session is not None else None,
            agent_session=session,
        )

    def capture(self) -> tuple[SessionSnapshot, dict[str, hist.PaneHistory] | None]:
        """What to write, taken on the loop (the model and emulators are not
        thread-safe); history None = pane_history off (the file is removed)."""
        snapshot = mapping.capture(self.host.session, self.facts)
        if not self.settings.pane_history:
            return snapshot, None
        limit = hist.DEFAULT_LIMITS.max_lines
        history: dict[str, hist.PaneHistory] = {}
        for loc in self.host.session.iter_panes():
            term = self.host.terminal(loc)
            if term is None or term.emulator.closed:
                continue
            em = term.emulator
            total = em.total_rows
            text = em.screen_text(max(0, total - limit), total - 1, ansi=True)
            if text.strip():
                history[loc.pane_id] = hist.PaneHistory(text, hist.count_lines(text))
        return snapshot, history

    # ------------------------------------------------------------------ saving

    def _write(
        self, snapshot: SessionSnapshot, history: dict[str, hist.PaneHistory] | None
    ) -> SaveError | None:
        """Write under the lock (runs in a worker thread: touches no health state)."""
        with self._write_lock:
            return self._write_locked(snapshot, history)

    def _write_locked(
        self, snapshot: SessionSnapshot, history: dict[str, hist.PaneHistory] | None
    ) -> SaveError | None:
        """A snapshot equal to the one last written (agent status churn publishes
        ``pane_updated`` often) is not written again unless history is on."""
        if history is None and snapshot == self._last_written:
            return None
        try:
            self.store.save(snapshot, history)
        except (PersistWriteError, OSError) as err:
            self._last_written = None
            return SaveError.of(err, str(self.store.path))
        self._last_written = snapshot
        return None

    def _record(self, error: SaveError | None) -> bool:
        """Health and the log after a save attempt (on the loop): one line when a run
        of failures starts, one when it ends."""
        now = self._wall()
        if error is None:
            if self.health.succeeded(now):
                log.info(
                    "saving the session works again", extra={"event": "persist.save_recovered"}
                )
            return True
        if self.health.failed(error, now):
            log.error(
                "cannot save the session (the last good file stays): %s: %s",
                error.message,
                error.path,
                extra={
                    "event": "persist.save_failed",
                    "path": error.path,
                    "errno": error.errno,
                },
            )
        return False

    def save_now(self) -> bool:
        """Capture and write synchronously (shutdown). A save stuck in its thread (a
        hung disk) is waited for only `Timing.final_wait`: SIGTERM must end the server."""
        token = self.scheduler.begin()
        try:
            snapshot, history = self.capture()
        except Exception as err:
            log.exception("cannot capture the session")
            self._record(SaveError.of(err, str(self.store.path)))
            self.scheduler.finish(token, ok=False, now=self._clock())
            return False
        if self._write_lock.acquire(timeout=self.timing.final_wait):
            try:
                error = self._write_locked(snapshot, history)
            finally:
                self._write_lock.release()
        else:
            log.warning(
                "exiting without the final save: an earlier save is still running after "
                "%.0f s (a hung disk?); the last good file stays",
                self.timing.final_wait,
                extra={"event": "persist.final_save_skipped"},
            )
            error = SaveError("an earlier save is still running", None, str(self.store.path))
        ok = self._record(error)
        self.scheduler.finish(token, ok=ok, now=self._clock())
        return ok

    async def _save(self) -> None:
        token = self.scheduler.begin()
        ok = False
        try:
            snapshot, history = self.capture()
            ok = self._record(await _in_daemon_thread(lambda: self._write(snapshot, history)))
        except asyncio.CancelledError:
            raise
        except Exception as err:
            log.exception("cannot save the session")
            self._record(SaveError.of(err, str(self.store.path)))
        finally:
            self.scheduler.finish(token, ok=ok, now=self._clock())

    def mark_dirty(self) -> None:
        self.scheduler.mark_dirty(self._clock())
        if self._wake is not None:
            self._wake.set()

    def _on_event(self, _event: Event) -> None:
        if not self._closed:
            self.mark_dirty()

    def sample(self) -> bool:
        """Cheap change check of every terminal's agent identity (a hook's session
        report publishes nothing). Marks dirty and returns True on a change."""
        seen: dict[str, object] = {}
        for loc in self.host.session.iter_panes():
            term = self.host.terminal(loc)
            if term is not None:
                seen[term.terminal_id] = self._agent_facts(term.terminal_id)
        changed = seen != self._sampled
        first = not self._primed
        self._primed = True
        self._sampled = seen
        if changed and not first:
            self.mark_dirty()
        return changed and not first

    async def _run(self) -> None:
        assert self._wake is not None
        wake = self._wake
        next_sample = self._clock() + self.timing.sample
        self.sample()
        while not self._closed:
            now = self._clock()
            deadline = self.scheduler.deadline()
            until = next_sample if deadline is None else min(deadline, next_sample)
            if until > now:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), until - now)
            wake.clear()
            now = self._clock()
            if now >= next_sample:
                next_sample = now + self.timing.sample
                try:
                    self.sample()
                except Exception:
                    log.exception("session sampling failed")
            if self.scheduler.due(self._clock()):
                await self._save()


async def _in_daemon_thread(work: Callable[[], SaveError | None]) -> SaveError | None:
    """Run one save off the loop in a daemon thread: unlike the default executor's
    threads, one stuck in a write (hung disk) cannot keep the process from exiting."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[SaveError | None] = loop.create_future()

    def settle(outcome: SaveError | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(outcome)

    def run() -> None:
        outcome: SaveError | None = None
        error: BaseException | None = None
        try:
            outcome = work()
        except BaseException as err:  # handed to the awaiting task
            error = err
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
            loop.call_soon_threadsafe(settle, outcome, error)

    threading.Thread(target=run, name="herdr-save", daemon=True).start()
    return await done


def _mtime(path: Path) -> float | None:
    """When the file on disk was last written (the last good save before this start)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return None

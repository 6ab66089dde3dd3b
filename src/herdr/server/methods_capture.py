"""``agent.explain`` extension: the detection input itself (for ``herdr agent capture``).

Explain always echoes the OSC title and progress it evaluated, so a user re-running
``agent explain --file`` can pass the same ``--osc-title``. With ``include_input``
(our additive request field) it also returns the exact screen text and the pane's
foreground process, which ``agent capture`` writes as a replayable fixture.
"""

from __future__ import annotations

from herdr.detect.manifest import DetectionInput
from herdr.runtime import agent_state
from herdr.runtime import model as m
from herdr.server.agents import PaneAgent
from herdr.server.wiring import Call
from herdr.terminal import procfs


def add_detection_input(
    call: Call, doc: dict[str, object], loc: m.PaneLoc, pa: PaneAgent, inp: DetectionInput
) -> None:
    """Add ``osc_title``/``osc_progress``, and ``detection_input`` when asked for."""
    doc["osc_title"] = inp.osc_title
    doc["osc_progress"] = inp.osc_progress
    if call.params.get("include_input") is not True:
        return
    doc["detection_input"] = {
        "pane_id": loc.pane_id,
        "screen": inp.screen,
        "osc_title": inp.osc_title,
        "osc_progress": inp.osc_progress,
        "process": _process(call, loc, pa),
    }


def _process(call: Call, loc: m.PaneLoc, pa: PaneAgent) -> dict[str, object]:
    """Which agent the pane was taken for, and the foreground job's names and argv."""
    st = pa.st
    detected = st.detected_agent
    known = agent_state.effective_known_agent(st)
    info: dict[str, object] = {
        "detected_agent": detected.label if detected is not None else None,
        "effective_agent": known.label if known is not None else None,
        "foreground_processes": [],
    }
    term = call.server.panes.terminal(loc)
    if term is None or term.pty is None or term.exit_status is not None:
        return info
    pid = term.shell_pid
    pgid = procfs.foreground_pgid(pid, term.pty.process.fd) if pid is not None else None
    job = procfs.full_job(pid, pgid) if pid is not None and pgid is not None else None
    info["foreground_processes"] = [
        {"name": proc.name, "argv": list(proc.argv or ())}
        for proc in (job.processes if job is not None else ())
    ]
    return info

"""A self-reported agent is dropped once its reporting job has no process left (PURE)."""

from __future__ import annotations

import pytest

from herdr.detect.agents import Agent
from herdr.runtime import agent_state as ags


@pytest.mark.parametrize(
    ("pid", "pgid", "shell", "job"),
    [
        pytest.param(101, 100, 50, 100, id="hook-inside-an-agent-job"),
        pytest.param(100, 100, 50, None, id="typed-at-the-prompt-leads-its-group"),
        pytest.param(101, 50, 50, None, id="the-shell-job-itself"),
        pytest.param(101, 0, 50, None, id="no-group"),
        pytest.param(101, 100, None, 100, id="shell-group-unknown"),
    ],
)
def test_which_reports_anchor_to_a_job(
    pid: int, pgid: int, shell: int | None, job: int | None
) -> None:
    assert ags.reporter_job(reporter_pid=pid, reporter_pgid=pgid, shell_pgid=shell) == job


def _reported(label: str = "mybot", *, job: int | None = 100) -> ags.TerminalAgentState:
    st = ags.TerminalAgentState()
    update = ags.report_agent(st, source="custom:bot", agent=label, state="working", now=10)
    assert update.accepted
    ags.anchor_hook(st, job)
    ags.set_agent_name(st, "worker")
    return st


def test_the_hook_stays_while_its_job_lives() -> None:
    st = _reported()
    update = ags.drop_if_reporter_gone(st, job_alive=True, now=20)
    assert not update.accepted
    assert ags.effective_label(st) == "mybot"
    assert st.hook_job == 100


def test_the_hook_goes_with_its_job() -> None:
    st = _reported()
    update = ags.drop_if_reporter_gone(st, job_alive=False, now=20)
    assert update.accepted and update.agent_released
    assert update.previous.label == "mybot"
    assert (st.hook, st.hook_job, st.agent_name) == (None, None, None)
    assert ags.effective_label(st) is None
    assert ags.pane_status(st) == "unknown"


def test_an_unanchored_hook_stays_even_when_asked() -> None:
    st = _reported(job=None)
    assert not ags.drop_if_reporter_gone(st, job_alive=False, now=20).accepted
    assert ags.effective_label(st) == "mybot"


def test_a_detected_process_is_left_to_detections_own_exit_rule() -> None:
    st = _reported("claude")
    ags.apply_process_detected(st, Agent.CLAUDE, at=15)
    assert not ags.drop_if_reporter_gone(st, job_alive=False, now=20).accepted
    assert ags.effective_label(st) == "claude"


def test_a_released_hook_forgets_its_job() -> None:
    st = _reported()
    ags.release_agent(st, source="custom:bot", agent="mybot", now=15)
    assert st.hook is None
    assert not ags.drop_if_reporter_gone(st, job_alive=False, now=20).accepted
    assert st.hook_job is None

"""A self-reported agent leaves with its process (PURE).

herdr drops a hook authority when the *detected* agent process exits (§9.4 step 6),
but an agent that only reports itself (a custom label, or a known label from a process
detection does not recognise) would otherwise stay ``working`` forever after it quit.
So a state report made from inside an agent's job (the reporting process is not its
group's leader, and the group is not the pane shell's) anchors the hook to that
process group; once no process of the group is left, the hook is dropped as a release
would drop it. A report typed at a prompt (the reporter leads its own group) or made
by the shell itself anchors nothing and stays until released, as in herdr.
"""

from __future__ import annotations

from herdr.detect.agents import is_full_lifecycle
from herdr.runtime.agent_state.ledgers import _clear_name, _park
from herdr.runtime.agent_state.state import (
    _HOOK_CLEAR,
    TerminalAgentState,
    Update,
    _begin,
    _finish,
    _ignored,
    _process_present,
    _same_owner,
)


def reporter_job(*, reporter_pid: int, reporter_pgid: int, shell_pgid: int | None) -> int | None:
    """The agent job a report came from, or ``None`` when it anchors nothing."""
    if reporter_pgid <= 0 or reporter_pgid in {reporter_pid, shell_pgid}:
        return None
    return reporter_pgid


def anchor_hook(st: TerminalAgentState, job: int | None) -> None:
    """After an accepted state report: the hook now belongs to ``job`` (or to no job)."""
    st.hook_job = job if st.hook is not None else None


def drop_if_reporter_gone(
    st: TerminalAgentState,
    *,
    job_alive: bool,
    now: int,
    viewed: bool = False,
    launch_pending: bool = False,
) -> Update:
    """The anchored job has no process left: drop its hook (``agent_released``).

    A hook whose agent the screen detection sees as present is left to detection's own
    exit rule (§9.4), so the two never disagree about the same process.
    """
    before = _begin(st)
    hook = st.hook
    if hook is None or st.hook_job is None:
        st.hook_job = None
        return _ignored(st, before)
    if job_alive or _process_present(st, hook.label):
        return _ignored(st, before)
    st.hook_job = None
    if is_full_lifecycle(hook.source, hook.label):
        ref = hook.session_ref
        _park(st, source=hook.source, label=hook.label, ref=ref, reason=_HOOK_CLEAR, at=now)
    if _same_owner(hook.source, hook.label, st.persisted_session):
        st.persisted_session = None
    st.hook = None
    _clear_name(st)
    return _finish(st, before, now, viewed=viewed, launch_pending=launch_pending, released=True)
